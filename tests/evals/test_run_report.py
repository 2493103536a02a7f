"""``results.json`` is written through the typed :class:`evals.run_report.RunReport` with ``schema_version``; the
API and the viewer read it back typed; a layout from the future is refused, one written before the version
existed is read as layout 1."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evals import api
from evals.analysis import TaskComparison
from evals.run_report import SCHEMA_VERSION, ReportTooNew, read_report

MODEL = "scripted/tests.evals.fixed_policy:answer"


def test_results_json_is_versioned_and_typed(tmp_path: Path) -> None:
    result = api.run(MODEL, tasks="gpsbench.distance", limit=1, conditions="intrinsic", output=str(tmp_path / "r"))
    path = result.run_dir / "results.json"
    data = json.loads(path.read_text())
    assert data["schema_version"] == SCHEMA_VERSION == 1 and result.report == data
    report = read_report(path)
    assert isinstance(report.overall, TaskComparison) and report.tasks is not None
    assert [t.task for t in report.tasks] == ["gpsbench.distance"] and report.meta["results"] == 1
    del data["schema_version"]  # written before the field existed: the same layout
    path.write_text(json.dumps(data))
    assert read_report(path).overall == report.overall
    path.write_text(json.dumps({**data, "schema_version": SCHEMA_VERSION + 1}))
    with pytest.raises(ReportTooNew, match="newer than this geogap's"):
        read_report(path)
