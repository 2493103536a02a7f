"""Test-wide settings: deterministic hypothesis runs in CI (same examples every run, no flaky database), and the
test tiers (markers registered in pyproject.toml) given by path, so a tier is chosen here in one table."""

from __future__ import annotations

import os

import pytest
from hypothesis import settings

settings.register_profile("ci", derandomize=True, database=None, deadline=None, print_blob=True)
settings.register_profile("dev", deadline=None)
settings.load_profile("ci" if os.environ.get("CI") else "dev")

# A test file (every test in it) or one test (all its parameters) -> its tier. "slow": over ~5 s on 2 cores.
# tests/e2e marks itself (pytestmark).
TIERS: dict[str, str] = {
    "tests/evals/view/test_viewer_browser.py": "browser",
    "tests/evals/view/test_leaderboard_browser.py": "browser",
    "tests/evals/test_ray_executor.py": "ray",
    "tests/evals/test_ray_cluster.py": "ray",  # a head and two worker nodes started for the test
    "tests/tasks/gtr/test_chance.py": "slow",
    "tests/tasks/gpsbench/test_gpsbench_family.py::test_parsers_and_scorers_never_raise_on_10000_strings": "slow",
    "tests/tasks/test_adversarial.py::test_corpus_covers_every_task_both_styles_and_every_status": "slow",
    "tests/geocore/test_polygons.py::test_geodesic_area_perimeter_matches_geographiclib": "slow",
    "tests/tasks/gpsbench/test_gpsbench_route_geometry.py::test_gold_on_every_sample": "slow",
    "tests/test_types.py": "slow",
    "tests/evals/test_api_notebook.py": "slow",  # starts a Jupyter kernel
    "tests/tasks/test_answer_corpus.py::test_whole_corpus_meets_the_targets_in_every_cell": "slow",
    "tests/evals/test_mcp_runs.py": "slow",  # real MCP server processes, started twice per run
    "tests/tools/test_mcp_server.py": "slow",
    "tests/evals/test_docs_mcp_inspect.py": "slow",
    "tests/test_doc_commands.py::test_every_command_block_runs": "slow",  # every docs command, a process each
    "tests/test_extending_doc.py": "slow",
    "tests/plugins/test_plugin_clash.py": "slow",
    "tests/evals/test_batch.py": "slow",  # 200 items batched and synchronous; a CLI run killed and resumed
}


def tier_key(nodeid: str) -> str | None:
    """The TIERS entry naming this test, by its file or by its file and function (parameters ignored)."""
    function = nodeid.split("[", 1)[0]
    for key in (function, function.split("::", 1)[0]):
        if key in TIERS:
            return key
    return None


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        key = tier_key(item.nodeid)
        if key is not None:
            item.add_marker(getattr(pytest.mark, TIERS[key]))
