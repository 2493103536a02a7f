"""Conditions declare what the estimate and the checks need (``uses_tools``, ``require_tool_call``,
``system_note``, ``toolsets_for``, ``unforced_name``); no product code switches on a condition's class."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

from evals import conditions
from evals.conditions import TOOLS_NOTE, get_condition
from tasks.registry import get_task

ROOT = Path(__file__).resolve().parents[2]
PRODUCT = ("agents", "tools", "tasks", "geocore", "evals")


def test_each_condition_declares_its_steps() -> None:
    task = get_task("gpsbench.distance")
    declared = {name: (c.uses_tools, c.require_tool_call, c.system_note, c.toolsets_for(task), c.unforced_name())
                for name in ("intrinsic", "note-only", "tools", "tools-required[geodesy]", "inject-tz")
                for c in [get_condition(name)]}
    assert declared == {
        "intrinsic": (False, False, None, (), "intrinsic"),
        "note-only": (False, False, TOOLS_NOTE, (), "note-only"),
        "tools": (True, False, TOOLS_NOTE, tuple(task.toolsets), "tools"),
        "tools-required[geodesy]": (True, True, TOOLS_NOTE, ("geodesy",), "tools[geodesy]"),
        "inject-tz": (False, False, None, (), "inject-tz"),  # a variant answered by its inner intrinsic
    }


def test_no_product_code_switches_on_a_condition_class() -> None:
    classes = {n for n, obj in vars(conditions).items()
               if inspect.isclass(obj) and obj.__module__ == conditions.__name__ and n.endswith("Condition")}
    found = []
    for package in PRODUCT:
        for path in (ROOT / package).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "isinstance" and len(node.args) == 2:
                    names = {n.id for n in ast.walk(node.args[1]) if isinstance(n, ast.Name)}
                    if names & classes:
                        found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert classes >= {"ToolsCondition", "VariantCondition"} and found == []
