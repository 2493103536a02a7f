"""The test tiers: every entry of the conftest's tier table names an existing test and a registered marker."""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

from tests.conftest import TIERS, tier_key

ROOT = Path(__file__).resolve().parents[1]


def test_every_tier_entry_names_an_existing_test_and_a_registered_marker() -> None:
    ini = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["pytest"]["ini_options"]
    registered = {m.split(":", 1)[0] for m in ini["markers"]}
    assert {"slow", "browser", "ray", "e2e"} <= registered
    for key, tier in TIERS.items():
        assert tier in registered, key
        path, _, function = key.partition("::")
        assert (ROOT / path).is_file(), key
        if function:
            tree = ast.parse((ROOT / path).read_text(encoding="utf-8"))
            assert function in {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}, key


def test_tier_key_matches_a_file_or_a_function_with_any_parameters() -> None:
    assert tier_key("tests/tasks/gtr/test_chance.py::test_x[gtr.next_spot]") == "tests/tasks/gtr/test_chance.py"
    slow = "tests/tasks/gpsbench/test_gpsbench_route_geometry.py::test_gold_on_every_sample"
    assert tier_key(f"{slow}[a-b]") == tier_key(slow) == slow
    assert tier_key(f"{slow}_other") is None
    assert tier_key("tests/tasks/gpsbench/test_gpsbench_route_geometry.py::test_parser") is None
