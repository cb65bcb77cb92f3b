# The two commands of the quick start live here; everything runs inside .venv.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
DEV_STAMP := $(VENV)/.installed-dev

.PHONY: demo test lint typecheck unit bench docs clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# What the program itself needs: all the demo installs, so a fresh clone's demo does not wait
# for the test and lint tools (~24 s of a ~65 s first run). Reinstalled only when the
# project's metadata changes.
$(STAMP): $(BIN)/python pyproject.toml
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e .
	touch $(STAMP)

# The program plus the dev extra (tests, linters, type checker, the MCP SDK and the
# benchmarks' tools): every target but the demo.
$(DEV_STAMP): $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(DEV_STAMP)

# Builds a store from examples/demo/corpus.jsonl in a temporary folder and queries it.
demo: $(STAMP)
	$(BIN)/python examples/demo/run_demo.py

# Every benchmark and both evals (the better part of an hour on 2 cores); rewrites the
# generated section of BENCHMARKS.md and bench/results/. BENCH_ARGS=--quick checks it runs.
bench: $(DEV_STAMP)
	$(BIN)/python -m bench.suite $(BENCH_ARGS)

# docs/cli.md and the README's configuration and troubleshooting tables are generated from the
# click command tree and the program's tables; tests/unit/test_docs_cli_reference.py fails when
# they are stale. So is the text the entry point prints for the root's help and the version
# (tests/unit/test_cli_front_door_text.py).
docs: $(DEV_STAMP)
	$(BIN)/python -m memhtml.app.cli.reference --output docs/cli.md
	$(BIN)/python -m memhtml.app.cli.readme_tables --output README.md
	$(BIN)/python -m memhtml.app.cli.front_door_render --output memhtml/app/cli/front_door_text.py
	$(BIN)/ruff format --quiet memhtml/app/cli/front_door_text.py

lint: $(DEV_STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: $(DEV_STAMP)
	$(BIN)/mypy

# Spread over every core (pytest-xdist); `make unit PYTEST_WORKERS=0` runs in one process.
PYTEST_WORKERS ?= auto
unit: $(DEV_STAMP)
	$(BIN)/pytest -q -n $(PYTEST_WORKERS)

# mypy's cold check (~35 s on one core) runs beside the suite rather than before it, its
# output printed once the suite is done; either failing fails the target.
test: lint
	@log=$$(mktemp); \
	$(BIN)/mypy >"$$log" 2>&1 & typecheck=$$!; \
	$(BIN)/pytest -q -n $(PYTEST_WORKERS); unit=$$?; \
	wait $$typecheck; typed=$$?; \
	echo "$(BIN)/mypy"; cat "$$log"; rm -f "$$log"; \
	test $$unit -eq 0 && test $$typed -eq 0

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache .hypothesis
