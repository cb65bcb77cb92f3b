"""What an unhealthy ``doctor`` report asks of its reader, as one failure (issue 14).

``doctor`` used to exit 0 with ``healthy: false``, so a script or a scheduled check saw success.
Now every edge that reports a process status turns the report into ``StoreUnhealthy``: the
message lists what is wrong, the suggestions the commands that address it, and the report
rides along whole as the failure's ``detail``.
"""

from __future__ import annotations

from collections.abc import Mapping

import attrs

from memhtml.app.errors import StoreUnhealthy
from memhtml.app.use_cases.doctor import DoctorReport
from memhtml.app.use_cases.recovery_report import DOCTOR_FIX, INFORMATIONAL


@attrs.frozen(kw_only=True)
class Concern:
    """One reason a report is not healthy.

    Attributes:
        what: A short phrase naming it, with its count.
        fix: The command or action that addresses it.
    """

    what: str
    fix: str


def concerns(report: DoctorReport) -> tuple[Concern, ...]:
    """Every reason ``report.healthy`` is false, in the report's key order; empty when healthy.

    The conditions are the ones ``doctor_with`` folds into ``healthy``, one concern each.
    """
    found: list[Concern] = []
    if report.dangling:
        found.append(Concern(what=_count(len(report.dangling), "dangling link"), fix=DOCTOR_FIX))
    if report.orphan_access_rows:
        rows = _count(len(report.orphan_access_rows), "orphan access row")
        found.append(Concern(what=rows, fix=DOCTOR_FIX))
    if report.unparseable:
        files = _count(len(report.unparseable), "memory file")
        found.append(
            Concern(
                what=f"{files} failing the format",
                fix="fix or remove the files listed under detail.unparseable, then commit",
            )
        )
    if not report.index_fresh:
        found.append(Concern(what="the index is behind HEAD", fix="memhtml index update"))
    if not report.embed_model_matches:
        found.append(
            Concern(
                what="the index holds another model's vectors",
                fix="memhtml index rebuild --embed",
            )
        )
    if report.vector_coverage_low:
        found.append(Concern(what="vector coverage below the floor", fix="memhtml index embed"))
    if not report.has_state:
        found.append(Concern(what="no state plane", fix="memhtml state import"))
    found.extend(
        Concern(what=finding.kind, fix=finding.fix or DOCTOR_FIX)
        for finding in report.recovery
        if finding.kind not in INFORMATIONAL
    )
    return tuple(found)


def refuse_unhealthy(report: DoctorReport, detail: Mapping[str, object]) -> None:
    """Raise when ``report`` is not healthy; ``detail`` is the edge's shaping of it.

    Raises:
        StoreUnhealthy: ``report.healthy`` is false. The message lists the concerns; the
            suggestions are their fixes, each once, in order.
    """
    if report.healthy:
        return
    listed = concerns(report)
    summary = "; ".join(c.what for c in listed) or "a check failed"
    raise StoreUnhealthy(
        f"the store needs attention: {summary}",
        detail=detail,
        suggestions=tuple(dict.fromkeys(c.fix for c in listed)),
    )


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")
