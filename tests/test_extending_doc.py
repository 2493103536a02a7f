"""docs/extending.md run as written: every Python example passes ruff, and the task, tool set, condition and
provider it shows, installed as one plug-in, register and work; the registration-sensitive tests still pass with
them registered (the suite is indifferent to new registrations)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.extending_clone import apply_recipes, clone

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "extending.md"
AS_BUILT_INS = pytest.mark.skipif(
    (ROOT / "tasks" / "gpsbench" / "antipode.py").exists(),
    reason="the page's recipes are applied here as built-ins (python -m tests.extending_clone): installed again as "
           "a plug-in they would clash with themselves")


def blocks() -> dict[str, str]:
    """Each Python example by the file its first line names (examples of one file joined)."""
    out: dict[str, str] = {}
    for code in re.findall(r"```python\n(.*?)```", DOC.read_text(), re.S):
        name = code.splitlines()[0].removeprefix("# ").split(":")[0].strip()
        out[name] = out.get(name, "") + code
    return out


def test_every_example_passes_ruff(tmp_path: Path) -> None:
    for i, code in enumerate(re.findall(r"```python\n(.*?)```", DOC.read_text(), re.S)):
        (tmp_path / f"example_{i}.py").write_text(code)
    done = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", "--config",
                           str(ROOT / "pyproject.toml"), str(tmp_path)], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stdout


def installed_doc_plugin(where: Path) -> dict[str, str]:
    """The page's examples as one installed plug-in: the task and tool set modules, and my_plugin (condition and
    provider), each named in the ``geogap`` entry-point group."""
    examples = blocks()
    (where / "doc_antipode.py").write_text(examples["tasks/gpsbench/antipode.py"])
    (where / "doc_kinematics.py").write_text(examples["tools/kinematics.py"])
    (where / "my_plugin").mkdir()
    (where / "my_plugin" / "__init__.py").write_text(examples["my_plugin/__init__.py"])
    info = where / "doc_plugin-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: doc-plugin\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(
        "[geogap]\nantipode = doc_antipode\nkinematics = doc_kinematics\nmy_plugin = my_plugin\n")
    return {**os.environ, "PYTHONPATH": f"{where}{os.pathsep}{ROOT}"}


@AS_BUILT_INS
def test_the_examples_register_and_work(tmp_path: Path) -> None:
    code = (
        "import json\n"
        "from tasks.registry import get_task, task_names\n"
        "task = get_task('gpsbench.antipode')\n"
        "sample = task.samples(limit=1)[0]\n"
        "gold = sample.target\n"
        "parsed = task.parse(f\"FINAL ANSWER: {gold['lat']}, {gold['lon']}\", sample)\n"
        "assert task.score(parsed, sample).correct, parsed\n"
        "for sample in task.samples(limit=20):\n"  # the scorer reads both coordinates: 90 degrees off is wrong
        "    lat, lon = sample.target['lat'], sample.target['lon']\n"
        "    off = task.parse(f'FINAL ANSWER: {lat}, {lon + 90 if lon < 90 else lon - 90}', sample)\n"
        "    assert abs(lat) == 90 or not task.score(off, sample).correct, sample.target\n"
        "assert 'gpsbench.antipode.terse' in task_names()\n"
        "assert get_task('gpsbench.antipode.terse').samples(limit=1)[0].prompt.startswith('Antipode of')\n"
        "from tools.registry import get_toolset\n"
        "(speed,) = get_toolset('kinematics')\n"
        "assert json.loads(speed.invoke({'distance_m': 100, 'seconds': 10})) == {'mps': 10.0, 'kmh': 36.0}\n"
        "from evals.conditions import get_condition\n"
        "assert get_condition('terse').name == 'terse'\n"
        "import asyncio, types, my_plugin\n"  # the condition sends one system message, the task's with the note
        "sent = []\n"
        "async def record(model, messages, caller):\n"
        "    sent.extend(messages)\n"
        "my_plugin.answer_intrinsic = record\n"
        "geo = get_task('geotemp.time_place').samples(limit=1)[0]\n"
        "assert geo.messages[0].role == 'system'\n"
        "ctx = types.SimpleNamespace(model=None, caller=None)\n"
        "asyncio.run(get_condition('terse').answer(geo, get_task('geotemp.time_place'), ctx))\n"
        "assert [m.role for m in sent] == [m.role for m in geo.messages], sent\n"
        "assert sent[0].content == geo.messages[0].content + '\\n\\nAnswer in one line.'\n"
        "from agents.providers import PROVIDERS\n"
        "try:\n"
        "    PROVIDERS.get('together').check('m', None)\n"
        "except ValueError as exc:\n"
        "    assert 'need --base-url' in str(exc)\n"
        "from tools.registry import TOOLSETS\n"
        "assert TOOLSETS.errors() == [], TOOLSETS.errors()\n"
        "print('ok')\n")
    env = installed_doc_plugin(tmp_path)
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr[-3000:]
    listed = subprocess.run([sys.executable, "-m", "evals.compare", "--list"], cwd=ROOT, env=env,
                            capture_output=True, text=True, timeout=300)
    assert listed.returncode == 0, listed.stderr[-2000:]
    assert all(name in listed.stdout for name in ("gpsbench.antipode", "kinematics", "terse", "together"))


# Whole files (no -k filter) whose tests iterate over, count or glob what is registered.
REGISTRATION_SENSITIVE = (
    "tests/tasks/test_task_registry.py", "tests/tasks/test_adversarial.py", "tests/tasks/test_audit_hedges.py",
    "tests/tasks/test_answer_corpus.py", "tests/tasks/gpsbench/test_gpsbench_family.py",
    "tests/tasks/gpsbench/test_gpsbench_compare_run.py", "tests/tasks/test_unchecked_samples.py",
    "tests/tasks/test_splits.py", "tests/tasks/test_generation_fast_paths.py", "tests/evals/test_conditions.py",
)


@AS_BUILT_INS
def test_registration_sensitive_tests_pass_with_the_examples_registered(tmp_path: Path) -> None:
    env = installed_doc_plugin(tmp_path)
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rs",
                           *REGISTRATION_SENSITIVE], cwd=ROOT, env=env, capture_output=True, text=True, timeout=1800)
    assert done.returncode == 0, done.stdout[-3000:]
    assert "failed" not in done.stdout
    # the task's scorer part yields its example replies: it is in the adversarial corpus, skipped nowhere there
    assert "gpsbench.antipode yields no example replies" not in done.stdout, done.stdout[-3000:]


def test_the_recipes_apply_as_built_ins_inside_a_clone(tmp_path: Path) -> None:
    """``python -m tests.extending_clone`` (the whole suite on a clone with the four recipes) starts from this."""
    tree = clone(tmp_path)
    touched = apply_recipes(tree)
    code = ("from tasks.registry import get_task, task_names\n"
            "from tools.registry import TOOLSETS\n"
            "from evals.conditions import get_condition\n"
            "from agents.providers import PROVIDERS\n"
            "assert {'gpsbench.antipode', 'gpsbench.antipode.terse'} <= set(task_names())\n"
            "assert get_task('gpsbench.antipode').__module__ == 'tasks.gpsbench.antipode'\n"
            "assert TOOLSETS.get('kinematics') and TOOLSETS.errors() == []\n"
            "assert get_condition('terse').name == 'terse' and PROVIDERS.get('together').name == 'together'\n"
            "print('ok')\n")
    done = subprocess.run([sys.executable, "-c", code], cwd=tree, env={**os.environ, "PYTHONPATH": str(tree)},
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr[-3000:]
    lint = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", *touched], cwd=tree,
                          capture_output=True, text=True)
    assert lint.returncode == 0, lint.stdout
