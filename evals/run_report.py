"""The run log's report: what ``results.json`` holds, typed and versioned.

A run's ``results.json`` holds ``meta`` (the spec, totals, cost), ``tasks`` and ``overall`` (the comparisons,
:class:`evals.analysis.TaskComparison`), ``breakdowns`` and, where they apply, ``baseline_run``, ``leaderboard``
and ``paper_tables``; a parent of several models' runs holds ``meta`` and ``leaderboard``. ``schema_version``
says which layout a file has: a file without one was written before it was numbered (layout 1 as well); a
file of a newer layout is refused on reading. Readers (the API, the viewer, the leaderboard) go through
:func:`read_report`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from evals.analysis import TaskComparison

SCHEMA_VERSION = 1
"""Raise it (and say what changed here) when a field of ``results.json`` changes meaning or place."""


class ReportTooNew(ValueError):
    """A ``results.json`` of a layout newer than this code's."""


class RunReport(BaseModel):
    """``results.json``: the report of a run (``tasks``, ``overall``) or of several models (``leaderboard``)."""

    model_config = ConfigDict(extra="allow")

    schema_version: int = SCHEMA_VERSION
    meta: dict[str, Any]
    tasks: list[TaskComparison] | None = None
    overall: TaskComparison | None = None
    breakdowns: dict[str, Any] | None = None
    baseline_run: list[dict[str, Any]] | None = None
    leaderboard: dict[str, Any] | None = None

    def as_dict(self) -> dict[str, Any]:
        """The JSON-ready dict ``results.json`` holds (the keys given, with ``schema_version``)."""
        return {"schema_version": self.schema_version, **self.model_dump(mode="json", exclude_unset=True)}


def report_of(data: dict[str, Any]) -> RunReport:
    """The typed report of a ``results.json`` dict; raises :class:`ReportTooNew` or a ``ValueError``."""
    version = data.get("schema_version", SCHEMA_VERSION)
    if not isinstance(version, int) or version > SCHEMA_VERSION:
        raise ReportTooNew(f"results.json schema_version {version!r} is newer than this geogap's ({SCHEMA_VERSION})")
    return RunReport.model_validate(data)


def read_report(path: Path) -> RunReport:
    """The report in the ``results.json`` at ``path``; raises OSError or ``ValueError``."""
    data = json.loads(Path(path).read_text())
    if not isinstance(data, dict):
        raise ValueError(f"{path}: not a JSON object")
    return report_of(data)
