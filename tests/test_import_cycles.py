"""The product's import graph has no circle: no module of agents, tools, tasks, geocore or evals imports,
directly or through others (imports inside functions count), a module that imports it back."""

from __future__ import annotations

import graphlib

import grimp

PACKAGES = ("agents", "tools", "tasks", "geocore", "evals")


def import_graph() -> dict[str, set[str]]:
    graph = grimp.build_graph(*PACKAGES, cache_dir=None)
    return {m: graph.find_modules_directly_imported_by(m) - {m} for m in graph.modules}


def test_a_graph_with_a_circle_is_caught() -> None:
    try:
        graphlib.TopologicalSorter({"a": {"b"}, "b": {"c"}, "c": {"a"}}).prepare()
    except graphlib.CycleError as exc:
        assert set(exc.args[1]) == {"a", "b", "c"}
    else:
        raise AssertionError("a circle went unseen")


def test_no_import_circle() -> None:
    try:
        graphlib.TopologicalSorter(import_graph()).prepare()
    except graphlib.CycleError as exc:
        raise AssertionError("import circle: " + " -> ".join(exc.args[1])) from None
