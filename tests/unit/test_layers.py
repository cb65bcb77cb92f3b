"""The import rule, read from every module's AST: inner layers never reach outward."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

PACKAGE_ROOT = Path(__file__).resolve().parents[2] / "memhtml"
STDLIB = frozenset(sys.stdlib_module_names)
# Standard-library modules that do I/O or spawn work: the pure layers may not touch them.
IO_MODULES = frozenset(
    {
        "sqlite3",
        "subprocess",
        "socket",
        "http",
        "urllib",
        "shutil",
        "os",
        "pathlib",
        "io",
        "tempfile",
        "threading",
        "multiprocessing",
        "asyncio",
        "logging",
    }
)


def _modules() -> list[Path]:
    return sorted(PACKAGE_ROOT.rglob("*.py"))


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE_ROOT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path) -> set[str]:
    """Absolute names of every module imported anywhere in the file (lazy imports included)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = _module_name(path)
    if path.name != "__init__.py":
        package = package.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                module = ".".join([*base, node.module] if node.module else base)
            else:
                module = node.module or ""
            found.add(module)
    return found


def _layer(module: str) -> str:
    parts = module.split(".")
    if parts[0] != "memhtml" or len(parts) == 1:
        return "root"
    if parts[1] == "adapters" and len(parts) > 2:
        return f"adapters.{parts[2]}"
    return parts[1]


# The fault-injection hook (docs/faults.md): one tiny module every adapter and the application
# may import, so a crash step can be marked wherever it happens.
CROSS_CUTTING = frozenset({"memhtml.faults"})


def _allowed(source_layer: str, imported: str) -> bool:
    top = imported.split(".")[0]
    if imported in CROSS_CUTTING:
        return source_layer not in {"domain", "ports"}
    if top != "memhtml":
        if source_layer in {"domain", "ports"}:
            return (top in STDLIB and top not in IO_MODULES) or top == "attrs"
        return True
    target = _layer(imported)
    if target == "root":
        return source_layer in {"app", "root"}
    if source_layer == "domain":
        return target == "domain"
    if source_layer == "ports":
        return target in {"domain", "ports"}
    if source_layer.startswith("adapters."):
        return target in {"domain", "ports", source_layer} or imported == "memhtml.adapters"
    return True


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(PACKAGE_ROOT)))
def test_module_respects_the_import_rule(path: Path) -> None:
    """Domain: stdlib+attrs; ports add domain; adapters never reach app or each other."""
    source_layer = _layer(_module_name(path))
    offending = sorted(m for m in _imports(path) if not _allowed(source_layer, m))
    assert offending == []


def test_rule_rejects_known_violations() -> None:
    """The checker itself would catch each kind of outward reach."""
    assert not _allowed("domain", "sqlite3")
    assert not _allowed("ports", "os.path")
    assert not _allowed("domain", "numpy")
    assert not _allowed("domain", "memhtml.ports.errors")
    assert not _allowed("ports", "memhtml.adapters.sqlite")
    assert not _allowed("adapters.git", "memhtml.adapters.sqlite.connection")
    assert not _allowed("adapters.html", "memhtml.app.bootstrap")
    assert _allowed("adapters.git", "memhtml.adapters.git.repo")
    assert _allowed("domain", "attrs")
    assert _allowed("app", "memhtml.adapters.sqlite")
    assert _allowed("adapters.git", "memhtml.faults")
    assert not _allowed("domain", "memhtml.faults")


# --- Inside the application layer ---------------------------------------------------------
#
# The composition root is the only place adapters are built; the core (use cases, the search
# pipeline, indexing) sees ports only and never reaches up to the edges that drive it.

COMPOSITION_ROOT = "memhtml.app.bootstrap"
CORE_PACKAGES = (
    "memhtml.app.use_cases",
    "memhtml.app.retrieval",
    "memhtml.app.indexing",
    "memhtml.app.recovery",
)
EDGE_PACKAGES = (
    COMPOSITION_ROOT,
    "memhtml.app.cli",
    "memhtml.app.store",
    "memhtml.app.eval",
    "memhtml.app.mcp",
)
ROOT_MAY_NOT_IMPORT = (
    "memhtml.app.use_cases",
    "memhtml.app.cli",
    "memhtml.app.store",
    "memhtml.app.eval",
    "memhtml.app.mcp",
)


def _within(module: str, packages: tuple[str, ...]) -> bool:
    return any(module == p or module.startswith(p + ".") for p in packages)


def _app_violations(module: str, imported: str) -> str | None:
    """Why ``module`` (in ``memhtml.app``) may not import ``imported``, or None."""
    if _within(imported, ("memhtml.adapters",)) and not _within(module, (COMPOSITION_ROOT,)):
        return "only the composition root builds adapters"
    if _within(module, CORE_PACKAGES) and _within(imported, EDGE_PACKAGES):
        return "the core never reaches up to the edges that drive it"
    if _within(module, (COMPOSITION_ROOT,)) and _within(imported, ROOT_MAY_NOT_IMPORT):
        return "the composition root wires ports; it runs no use case"
    return None


APP_MODULES = [p for p in _modules() if _layer(_module_name(p)) == "app"]


@pytest.mark.parametrize("path", APP_MODULES, ids=lambda p: str(p.relative_to(PACKAGE_ROOT)))
def test_app_module_respects_the_composition_rule(path: Path) -> None:
    """Adapters only in bootstrap; the core imports no edge; bootstrap runs no use case."""
    module = _module_name(path)
    offending = sorted(
        f"{imported}: {why}"
        for imported in _imports(path)
        if (why := _app_violations(module, imported)) is not None
    )
    assert [] == offending


def test_composition_rule_rejects_known_violations() -> None:
    """The checker itself would catch each kind of reach inside the application layer."""
    assert _app_violations("memhtml.app.use_cases.write", "memhtml.adapters.sqlite.connection")
    assert _app_violations("memhtml.app.cli.commands.store", "memhtml.adapters.html")
    assert _app_violations("memhtml.app.eval.locomo.runner", "memhtml.adapters.system.clock")
    assert _app_violations("memhtml.app.use_cases.apply", "memhtml.app.cli.errors")
    assert _app_violations("memhtml.app.retrieval.pipeline", "memhtml.app.bootstrap")
    assert _app_violations("memhtml.app.indexing.update", "memhtml.app.store")
    assert _app_violations("memhtml.app.bootstrap.services", "memhtml.app.use_cases.read")
    assert _app_violations("memhtml.app.bootstrap.services", "memhtml.adapters.git") is None
    assert _app_violations("memhtml.app.store", "memhtml.app.use_cases.read") is None
    assert _app_violations("memhtml.app.bootstrap.services", "memhtml.app.indexing") is None


def test_use_cases_take_ports_not_the_wired_services() -> None:
    """No use-case function has a parameter annotated with the composition root's Services."""
    found = []
    for path in APP_MODULES:
        if not _within(_module_name(path), CORE_PACKAGES):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                for arg in (*node.args.args, *node.args.kwonlyargs):
                    if arg.annotation is not None and "Services" in ast.unparse(arg.annotation):
                        found.append(f"{path.name}:{node.name}({arg.arg})")
    assert [] == found
