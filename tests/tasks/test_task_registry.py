"""The task registry: the name written once, declared variants (same items, checked overrides), duplicates
refused, built-in families imported only on lookup."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import ClassVar

import pytest

from geocore.registry import Registry
from tasks import registry
from tasks.base import GeneratedTask
from tasks.records import Message, Sample
from tasks.registry import TASKS, Variant, get_task, register_task, variant_name

ROOT = Path(__file__).resolve().parents[2]


class Echo(GeneratedTask):
    family = "tiny"
    loud: ClassVar[bool] = False

    def generate(self, seed: int, size: int) -> list[Sample]:
        return [Sample(id=self.sample_id(self.split_of(i), i), task=self.name, split=self.split_of(i),
                       messages=(Message(role="user", content="HI" if self.loud else "hi"),), target=i)
                for i in range(size)]


@pytest.fixture
def fresh(monkeypatch: pytest.MonkeyPatch) -> None:
    """An empty task registry, so test tasks never leak into the built-in one."""
    monkeypatch.setattr(registry, "TASKS", Registry("task"))
    monkeypatch.setattr(registry, "_VARIANTS", {})


@pytest.mark.usefixtures("fresh")
def test_a_variant_is_the_base_with_overrides_on_the_same_items() -> None:
    cls = type("EchoA", (Echo,), {})
    register_task("tiny.echo", variants=(Variant("loud", {"loud": True}, "Shouted."),))(cls)
    assert registry.task_names() == ["tiny.echo", "tiny.echo.loud"] and cls.name == "tiny.echo"
    assert variant_name("tiny.echo", "loud") == "tiny.echo.loud" and variant_name("tiny.echo", "soft") is None
    base, loud = get_task("tiny.echo", size=20), get_task("tiny.echo.loud", size=20)
    assert isinstance(loud, cls) and loud.base_name == "tiny.echo" and loud.item_key == "tiny.echo"
    assert [s.split for s in loud.generate(1, 20)] == [s.split for s in base.generate(1, 20)]
    assert {s.prompt for s in loud.generate(1, 20)} == {"HI"} and loud.generate(1, 1)[0].id == "tiny.echo.loud/" + (
        base.generate(1, 1)[0].id.split("/", 1)[1])
    assert "Shouted." in (type(loud).__doc__ or "")


@pytest.mark.usefixtures("fresh")
@pytest.mark.parametrize("overrides", [{"lound": True}, {"loud": "yes"}, {"generate": None}])
def test_a_variant_overrides_only_declared_attributes_of_the_same_type(overrides: dict) -> None:
    with pytest.raises(TypeError, match="does not override"):
        register_task("tiny.bad", variants=(Variant("x", overrides),))(type("EchoB", (Echo,), {}))


@pytest.mark.usefixtures("fresh")
def test_a_name_registered_twice_is_refused() -> None:
    register_task("tiny.once")(type("EchoC", (Echo,), {}))
    other = type("EchoD", (Echo,), {})
    with pytest.raises(ValueError, match="clashes with the task 'tiny.once' of "):
        register_task("tiny.once")(other)
    assert not hasattr(other, "name")


BUILTIN_VARIANTS = (  # 10 STBench .completion, 4 GeoTemp .styles, 2 knowledge injection, 3 other forms
    *(f"stbench.{t}.completion" for t in (
        "admin_region", "anomaly_detection", "direction", "point_region", "point_trajectory",
        "trajectory_classification", "trajectory_identification", "trajectory_prediction", "trajectory_region",
        "trajectory_trajectory")),
    *(f"geotemp.{t}.styles" for t in ("time_place", "time_time", "time_time_place", "verification")),
    "geotemp.time_time_place.inject_tz", "geotemp.time_time_place.replace_city",
    "gpsbench.place_association.country", "gpsbench.place_association.admin1", "gpsbench.route_geometry.mcq",
)


def test_every_builtin_variant_shares_its_base_items() -> None:
    variants = [n for n in TASKS.names() if getattr(TASKS.get(n), "base_name", None)]
    assert set(BUILTIN_VARIANTS) <= set(variants)  # and any a plug-in or a new task adds
    for name in variants:
        base = TASKS.get(name).base_name
        assert name.startswith(base + ".") and variant_name(base, name[len(base) + 1:]) == name


def test_builtin_families_are_imported_only_on_lookup() -> None:
    code = (
        "import sys\n"
        "import tasks.registry, tools.registry\n"
        "assert not any(m.startswith(('tasks.gpsbench', 'tools.geodesy')) for m in sys.modules)\n"
        "tasks.registry.get_task('gpsbench.distance')\n"
        "assert 'tasks.gpsbench.distance' in sys.modules and 'tools.geodesy' not in sys.modules\n"
        "assert not any(m.startswith('evals') for m in sys.modules)\n"
        "tools.registry.get_toolset('geodesy')\n"
        "assert 'tools.geodesy' in sys.modules\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}  # the installed plug-ins only: one on the path may import evals
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
