"""The Python API: run a comparison and read runs from a script or a notebook.

    from evals import api

    result = api.run(model="openai/gpt-4o-mini", tasks="gpsbench.distance", limit=20, epochs=3)
    result.overall.gap["tools"]          # the paired gap in points, its 95 % interval ("ci") and p ("mcnemar_p")
    df = api.read_run(result.run_dir)    # one row per result, as a pandas DataFrame (the results.csv columns)
    board = api.run(["openai/gpt-4o-mini", "openai/gpt-4.1-mini"], tasks="gpsbench.distance", limit=20)
    board.models["openai/gpt-4.1-mini"].overall   # each model's RunResult; board.leaderboard, board.table

:func:`run` does what ``python -m evals.compare`` does (prepare, answer, report, the run directory with
``results.json``, ``report.html`` and the exports) and returns a :class:`RunResult` instead of exiting; the
options are the CLI's, by field name (``tasks``, ``conditions``, ``limit``, ``epochs``, ``output``, ``suite``,
``temperature``, ...; lists are joined with commas). A run that cannot start raises :class:`RunError` with the
CLI's one-line message and exit code; a run that finished with failed samples returns with ``complete`` False.
Several models (a list, or ``"a,b"`` as the CLI's ``--model a,b``) run through :func:`evals.multi.run_models`,
as the CLI does, and return a :class:`ModelsResult`. :func:`load` reads a run directory or a several-model
directory back. Accuracies and gaps are in percent and points, as every table prints them (``report`` keeps
``results.json``'s fractions).

It works inside a running event loop (Jupyter, IPython): the run then goes on a worker thread with its own
loop, and the call blocks until it is done. ``model`` may be a ``provider/name`` string or a LangChain chat model
object (a ``BaseChatModel`` instance): the object answers every call in this process, stored as
``python/<class>[:<model name>]`` (or ``python/<label>``), with no model-call cache (its settings cannot be told
from outside it) and no price unless ``prices`` names one; it cannot go to the Ray executor.
"""

from __future__ import annotations

import asyncio
import io
import json
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, overload

from langchain_core.language_models import BaseChatModel
from pydantic import ValidationError
from rich.console import Console

from agents.model_call import ModelCaller
from agents.models import GenerationSettings
from agents.providers import PROVIDERS, ClientOptions, Provider
from evals.analysis import BASELINE_CONDITION, TaskComparison
from evals.conditions import Condition, unforced_note
from evals.engine import Answerer, Plan, execute, plan
from evals.executors import Executor, Job
from evals.export import COLUMNS, rows
from evals.leaderboard import print_leaderboard
from evals.multi import MANIFEST, model_list, run_models
from evals.options import RunConfig, UsageError
from evals.prepare import Prepared
from evals.records import RunSpec
from evals.report import print_table
from evals.run import EXIT_ERRORS, EXIT_FAILED, EXIT_USAGE, RunFailed, cost_meter, execute_job
from evals.run_reader import RunReader, StoredSpec, is_run_dir
from evals.run_report import read_report
from evals.runner import Endpoint, retry_policy

if TYPE_CHECKING:
    import pandas as pd

T = TypeVar("T")
OBJECT_PROVIDER = "python"


class RunError(Exception):
    """A run that could not start or go on: ``str(error)`` is the CLI's one-line message, ``code`` its exit code
    (2 usage, 1 could not run, 4 stopped early, 130 interrupted)."""

    def __init__(self, message: str, code: int) -> None:
        super().__init__(message)
        self.code = code


class InProcess(Provider):
    """``python/...``: a chat model object handed to :func:`run`; it cannot be built from its name."""

    name = OBJECT_PROVIDER
    description = "a LangChain chat model object passed to evals.api.run(model=...) (in-process, no model-call cache)"
    default_connections = 4

    def chat_model(self, name: str, settings: GenerationSettings, client: ClientOptions,
                   **extra: Any) -> BaseChatModel:
        raise ValueError(f"{OBJECT_PROVIDER}/{name} is a Python object: pass it to evals.api.run(model=...)")


if OBJECT_PROVIDER not in PROVIDERS.names():
    PROVIDERS.add(OBJECT_PROVIDER, InProcess())


POINT_FIELDS = ("gap", "ci", "score_gap", "score_ci", "accuracy", "difference")
"""The fields of a paired gap, an accuracy and a difference of gaps that :func:`in_points` scales by 100."""


def _scaled(value: Any) -> Any:
    """``value`` × 100 (a number, or each number of an interval); None and NaN stay as they are."""
    if isinstance(value, list | tuple):
        return [_scaled(v) for v in value]
    return 100 * value if isinstance(value, int | float) and not isinstance(value, bool) else value


def _points(entry: dict[str, Any]) -> dict[str, Any]:
    return {k: _scaled(v) if k in POINT_FIELDS else v for k, v in entry.items()}


def _each_in_points(entries: dict[str, Any] | None) -> dict[str, Any] | None:
    """Each entry (a condition's figures, or a gap) of a per-condition mapping in points; None stays None."""
    return None if entries is None else {c: _points(v) if isinstance(v, dict) else v for c, v in entries.items()}


def _row_in_points(row: dict[str, Any]) -> dict[str, Any]:
    """A breakdown or leaderboard row with its per-condition accuracies, gaps and pairwise gaps in points."""
    return {**row, **{k: _each_in_points(row[k]) for k in ("conditions", "gap", "pairwise") if k in row}}


def in_points(comp: TaskComparison) -> TaskComparison:
    """``comp`` as the tables print it: each condition's accuracy and interval in percent, each paired gap (and
    pairwise and breakdown gap) with its interval in points; counts, p values, shares and costs unchanged."""
    conditions = {c: s.model_copy(update={"accuracy": 100 * s.accuracy, "ci": (100 * s.ci[0], 100 * s.ci[1])})
                  for c, s in comp.conditions.items()}
    breakdowns = {dim: [_row_in_points(row) for row in rows] for dim, rows in comp.breakdowns.items()}
    return comp.model_copy(update={"conditions": conditions, "breakdowns": breakdowns,
                                   "gap": _each_in_points(comp.gap), "pairwise": _each_in_points(comp.pairwise)})


def leaderboard_in_points(board: dict[str, Any]) -> dict[str, Any]:
    """A leaderboard (:func:`evals.leaderboard.build_leaderboard`) as its table prints it: each row's accuracies
    in percent and gaps in points, each difference of gaps in points; shares, counts and costs unchanged."""
    return {**board, "rows": [_row_in_points(row) for row in board["rows"]],
            "differences": [_points(d) for d in board["differences"]]}


@dataclass(frozen=True)
class RunResult:
    """A finished run: its directory, spec, ``results.json`` content (``report``, fractions as stored), the
    rendered table text and how many samples ended in error."""

    run_dir: Path
    run_id: str
    spec: RunSpec
    report: dict[str, Any]
    table: str
    failed: int

    @property
    def complete(self) -> bool:
        """No sample ended in error (the CLI's exit code 0; otherwise 3, and ``resume`` retries them)."""
        return self.failed == 0

    @property
    def tasks(self) -> list[TaskComparison]:
        """Per task: each condition's summary, the paired gaps, tool use (:class:`evals.analysis.TaskComparison`),
        accuracy in percent and gaps in points (:func:`in_points`), as the table prints them."""
        return [in_points(TaskComparison.model_validate(t)) for t in self.report["tasks"]]

    @property
    def overall(self) -> TaskComparison:
        """All tasks pooled, in percent and points like :attr:`tasks`."""
        return in_points(TaskComparison.model_validate(self.report["overall"]))

    def frame(self) -> pd.DataFrame:
        """The run's results, one row each (:func:`read_run`)."""
        return read_run(self.run_dir)


@dataclass(frozen=True)
class ModelsResult:
    """A run of several models: the parent directory, each model's :class:`RunResult` (by model string, in the
    order given; a model whose run could not start or go on is in ``errors`` instead, with its one-line message),
    the leaderboard (``results.json``'s ``leaderboard`` in percent and points, :func:`leaderboard_in_points`)
    and its table text (each model's own table is in its ``RunResult.table``)."""

    run_dir: Path
    models: dict[str, RunResult]
    errors: dict[str, str]
    leaderboard: dict[str, Any] | None
    table: str

    @property
    def complete(self) -> bool:
        """Every model ran and no sample ended in error."""
        return not self.errors and all(r.complete for r in self.models.values())

    def frame(self) -> pd.DataFrame:
        """Every model's results, one row each (:func:`read_run`; the ``model`` column tells them apart)."""
        return read_run(self.run_dir)


def model_dirs(run_dir: Path) -> list[tuple[str, Path]]:
    """The (model, run directory) pairs of a several-model directory (its ``models.json``, else its child run
    directories); empty for any other directory."""
    manifest = run_dir / MANIFEST
    if manifest.is_file():
        listed = json.loads(manifest.read_text()).get("models", [])
        return [(m["model"], run_dir / m["run_dir"]) for m in listed if is_run_dir(run_dir / m["run_dir"])]
    children = sorted(d for d in run_dir.iterdir() if d.is_dir() and is_run_dir(d)) if run_dir.is_dir() else []
    return [(_stored(d).spec.model, d) for d in children]


def _stored(run_dir: Path) -> StoredSpec:
    stored = RunReader(run_dir).read_spec()
    if stored is None:
        raise RunError(f"{run_dir}: its run store holds no spec (not a geogap run directory)", EXIT_FAILED)
    return stored


def _loaded_run(run_dir: Path) -> RunResult:
    """A run directory read back; its ``table`` is the comparison table re-rendered from ``results.json``."""
    stored = _stored(run_dir)
    report = read_report(run_dir / "results.json")
    comps = [*(report.tasks or []), *([report.overall] if report.overall else [])]
    out = quiet_console()
    print_table(comps, stored.spec.conditions, out, baseline=report.meta.get("baseline_condition", BASELINE_CONDITION))
    return RunResult(run_dir=run_dir, run_id=stored.run_id, spec=stored.spec, report=report.as_dict(),
                     table=out.export_text(), failed=report.overall.errors if report.overall else 0)


def load(run_dir: str | Path) -> RunResult | ModelsResult:
    """A finished run read back: one model's run directory gives a :class:`RunResult`, a several-model directory
    (what ``--model a,b`` or ``api.run([...])`` writes) a :class:`ModelsResult`; raises :class:`RunError` (code 2)
    for a directory that is neither."""
    path = Path(run_dir)
    if is_run_dir(path):
        return _loaded_run(path)
    pairs = model_dirs(path)
    if not pairs:
        raise RunError(f"{path} is neither a run directory nor a directory of several models' runs", EXIT_USAGE)
    parent = path / "results.json"
    board = read_report(parent).leaderboard if parent.is_file() else None
    out = quiet_console()
    if board is not None:
        print_leaderboard(board, out)
    return ModelsResult(run_dir=path, models={m: _loaded_run(d) for m, d in pairs}, errors={},
                        leaderboard=None if board is None else leaderboard_in_points(board), table=out.export_text())


def read_run(run_dir: str | Path) -> pd.DataFrame:
    """A run directory's results as a pandas DataFrame, one row per sample, condition and epoch, with the columns
    of ``results.csv`` (:data:`evals.export.COLUMNS`: status, answer_status, correct, region, cost_usd, ...); a
    several-model directory gives every model's rows, one model after another."""
    try:
        import pandas as pd
    except ImportError:
        raise ImportError("read_run needs pandas: pip install 'geogap[api]' (or pip install pandas)") from None
    path = Path(run_dir)
    dirs = [path] if is_run_dir(path) else [d for _, d in model_dirs(path)]
    if not dirs:
        raise RunError(f"{path} is neither a run directory nor a directory of several models' runs", EXIT_USAGE)
    return pd.DataFrame([row for d in dirs for row in rows(RunReader(d).results())], columns=COLUMNS)


def in_worker_if_loop_runs(fn: Callable[[], T]) -> T:
    """``fn()`` here, or, when this thread already runs an event loop (Jupyter), on a worker thread (where
    ``asyncio.run`` may start its own loop), waiting for it."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return fn()
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="geogap-run") as pool:
        return pool.submit(fn).result()


def object_label(model: BaseChatModel, label: str | None = None) -> str:
    """The model string an object is stored under: ``python/<label>`` or ``python/<class>[:<model name>]``."""
    if label:
        return f"{OBJECT_PROVIDER}/{label}"
    name = getattr(model, "model_name", None) or getattr(model, "model", None)
    return f"{OBJECT_PROVIDER}/{type(model).__name__}" + (f":{name}" if isinstance(name, str) and name else "")


def config(model: str | BaseChatModel | None = None, *, label: str | None = None, **options: Any) -> RunConfig:
    """The run configuration of :func:`run`'s arguments (``model`` None: the default, or the resumed run's);
    raises :class:`RunError` (code 2) for a bad option."""
    given = {k: ",".join(map(str, v)) if isinstance(v, list | tuple) else v for k, v in options.items()}
    if isinstance(model, BaseChatModel):
        if given.get("cache"):
            raise RunError("a chat model object runs without the model-call cache (cache=True cannot apply)",
                           EXIT_USAGE)
        if given.get("executor", "local") != "local":
            raise RunError("a chat model object runs in this process: only the local executor", EXIT_USAGE)
        given.update(model=object_label(model, label), cache=False)
    elif model is not None:
        given["model"] = model
    try:
        return RunConfig.model_validate(given)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise RunError(f"option {where!r}: {first['msg']}; options are those of python -m evals.compare, by field "
                       "name", EXIT_USAGE) from None


@overload
def run(model: list[str] | tuple[str, ...], *, show: bool = False, label: str | None = None,
        forced_tool_choice: str | None = None, **options: Any) -> ModelsResult: ...


@overload
def run(model: BaseChatModel, *, show: bool = False, label: str | None = None,
        forced_tool_choice: str | None = None, **options: Any) -> RunResult: ...


@overload
def run(model: str | None = None, *, show: bool = False, label: str | None = None,
        forced_tool_choice: str | None = None, **options: Any) -> RunResult | ModelsResult: ...


def run(model: str | list[str] | tuple[str, ...] | BaseChatModel | None = None, *, show: bool = False,
        label: str | None = None, forced_tool_choice: str | None = None, **options: Any) -> RunResult | ModelsResult:
    """Run a comparison like ``python -m evals.compare`` and return its :class:`RunResult`.

    ``model``: ``provider/name`` (default ``local/qwen2.5-coder-1.5b``, the embedded model; with ``resume``, the run's) or
    a LangChain chat model object (``label`` names it; ``forced_tool_choice``
    is what its ``bind_tools(tool_choice=...)`` takes to force a tool call, for ``tools-required``); several
    models (a list, or comma-separated as the CLI's ``--model a,b``) run one after another into one directory
    and return a :class:`ModelsResult` (a string is typed as either: ``isinstance`` tells them apart).
    ``show``: print the progress and the tables (default: nothing is printed; the table text is in ``.table``).
    ``options``: the CLI's options by field name, e.g. ``tasks="gpsbench.*"``, ``conditions=["intrinsic",
    "tools"]``, ``limit=20``, ``epochs=3``, ``output="runs/x"``, ``resume="runs/x"``."""
    if isinstance(model, list | tuple):
        if not all(isinstance(m, str) for m in model):
            raise RunError("a list of models takes provider/name strings; run a chat model object on its own",
                           EXIT_USAGE)
        model = ",".join(model)
    cfg = config(model, label=label, **options)
    chat = model if isinstance(model, BaseChatModel) else None
    try:
        models = model_list(cfg)
    except UsageError as exc:
        raise RunError(str(exc), EXIT_USAGE) from None
    if len(models) > 1:
        return in_worker_if_loop_runs(lambda: _run_models(cfg, models, show))
    return in_worker_if_loop_runs(lambda: _run(cfg, chat, show, forced_tool_choice))


def _consoles(show: bool) -> tuple[Console, Console]:
    """The progress console and the table console: the terminal's when ``show``, else writing nowhere but the
    recording (the table text)."""
    if show:
        return Console(stderr=True), Console(record=True)
    return quiet_console(), quiet_console()


def quiet_console() -> Console:
    """A console that records and prints nothing, also in Jupyter (where rich would otherwise display its output
    in the cell, whatever its file)."""
    return Console(record=True, file=io.StringIO(), width=120, force_jupyter=False)


def _raise(message: str, code: int) -> int:
    raise RunError(message, code)


def _run_models(cfg: RunConfig, models: list[str], show: bool) -> ModelsResult:
    """Several models through :func:`evals.multi.run_models`, the CLI's path, errors raised instead of printed."""
    console, out = _consoles(show)
    done: dict[str, RunResult] = {}
    errors: dict[str, str] = {}

    def run_one(p: Plan, console: Console, out: Console) -> int:
        out.export_text()  # clears the recording: what follows is this model's table
        try:
            executed = execute(p, console, out)
        except RunFailed as exc:
            errors[p.spec.model] = str(exc) or f"the run stopped (exit code {exc.code}); completed samples are stored"
            return exc.code
        done[p.spec.model] = RunResult(run_dir=executed.run_dir, run_id=executed.run_id, spec=executed.spec,
                                       report=read_report(executed.run_dir / "results.json").as_dict(),
                                       table=out.export_text(), failed=executed.failed)
        return EXIT_ERRORS if executed.failed else 0

    if cfg.dry_run:
        raise RunError("dry_run: use python -m evals.compare --dry-run (the API returns runs)", EXIT_USAGE)
    code = run_models(cfg, models, run_one, console, out, on_error=_raise)
    if code == 130:
        raise RunError("interrupted; completed samples are stored", code)
    parent = Path(cfg.output) if cfg.output else next(iter(done.values())).run_dir.parent if done else None
    if parent is None:
        raise RunError("; ".join(f"{m}: {e}" for m, e in errors.items()) or "no model's run started", code or 1)
    board_file = parent / "results.json"
    board = read_report(board_file).leaderboard if board_file.is_file() else None
    ordered = {m: done[m] for m in models if m in done}
    return ModelsResult(run_dir=parent, models=ordered, errors=errors,
                        leaderboard=None if board is None else leaderboard_in_points(board), table=out.export_text())


def _run(cfg: RunConfig, chat: BaseChatModel | None, show: bool, forced_tool_choice: str | None) -> RunResult:
    console, out = _consoles(show)
    try:
        p = plan(cfg, forced_tool_choice=forced_tool_choice, chat_object=chat is not None)
        done = execute(p, console, out, None if chat is None else _object_answerer(chat, forced_tool_choice,
                                                                                    cfg.max_cost))
    except RunFailed as exc:
        raise RunError(str(exc) or f"the run stopped (exit code {exc.code}); completed samples are stored",
                       exc.code) from None
    return RunResult(run_dir=done.run_dir, run_id=done.run_id, spec=done.spec,
                     report=read_report(done.run_dir / "results.json").as_dict(), table=out.export_text(),
                     failed=done.failed)


def _object_answerer(chat: BaseChatModel, forced_tool_choice: str | None, max_cost: float | None) -> Answerer:
    """Answers the missing samples with ``chat`` itself (our retries, no cache), as :func:`evals.run.answer` does
    with a provider's model, stopping at ``max_cost``."""

    def answer(prepared: Prepared, conditions: list[Condition], todo: int, executor: Executor,
               console: Console) -> None:
        spec = prepared.spec
        if note := unforced_note(spec.model, conditions, forced_tool_choice):
            console.print(note, markup=False, highlight=False)
        meter = cost_meter(prepared, max_cost)

        def endpoints(epoch: int) -> Endpoint:
            return Endpoint(chat, ModelCaller(retry_policy(spec)), forced_tool_choice)

        job = Job(prepared.run_id, spec, prepared.store, prepared.work, conditions, endpoints, prepared.prices)
        execute_job(job, executor, todo, console, Path(prepared.run_dir), None, meter)

    return answer
