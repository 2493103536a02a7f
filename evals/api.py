"""The Python API: run a comparison and read runs from a script or a notebook.

    from evals import api

    result = api.run(model="openai/gpt-4o-mini", tasks="gpsbench.distance", limit=20, epochs=3)
    result.overall.gap["tools"]          # the paired gap, its 95 % interval ("ci") and p ("mcnemar_p")
    df = api.read_run(result.run_dir)    # one row per result, as a pandas DataFrame (the results.csv columns)

:func:`run` does what ``python -m evals.compare`` does (prepare, answer, report, the run directory with
``results.json``, ``report.html`` and the exports) and returns a :class:`RunResult` instead of exiting; the
options are the CLI's, by field name (``tasks``, ``conditions``, ``limit``, ``epochs``, ``output``, ``suite``,
``temperature``, ...; lists are joined with commas). A run that cannot start raises :class:`RunError` with the
CLI's one-line message and exit code; a run that finished with failed samples returns with ``complete`` False.

It works inside a running event loop (Jupyter, IPython): the run then goes on a worker thread with its own
loop, and the call blocks until it is done. ``model`` may be a ``provider/name`` string or a LangChain chat model
object (a ``BaseChatModel`` instance): the object answers every call in this process, stored as
``python/<class>[:<model name>]`` (or ``python/<label>``), with no model-call cache (its settings cannot be told
from outside it) and no price unless ``prices`` names one; it cannot go to the Ray executor.
"""

from __future__ import annotations

import asyncio
import io
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from langchain_core.language_models import BaseChatModel
from pydantic import ValidationError
from rich.console import Console

from agents.model_call import ModelCaller
from agents.models import GenerationSettings
from agents.providers import PROVIDERS, ClientOptions, Provider
from evals.analysis import TaskComparison
from evals.conditions import Condition, unforced_note
from evals.engine import Answerer, execute, plan
from evals.executors import Executor, Job
from evals.export import COLUMNS, rows
from evals.options import RunConfig
from evals.prepare import Prepared
from evals.records import RunSpec
from evals.run import EXIT_USAGE, RunFailed, cost_meter, execute_job
from evals.run_reader import RunReader
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


@dataclass(frozen=True)
class RunResult:
    """A finished run: its directory, spec, ``results.json`` content (``report``), the rendered table text and
    how many samples ended in error."""

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
        """Per task: each condition's summary, the paired gaps, tool use (:class:`evals.analysis.TaskComparison`)."""
        return [TaskComparison.model_validate(t) for t in self.report["tasks"]]

    @property
    def overall(self) -> TaskComparison:
        """All tasks pooled."""
        return TaskComparison.model_validate(self.report["overall"])

    def frame(self) -> pd.DataFrame:
        """The run's results, one row each (:func:`read_run`)."""
        return read_run(self.run_dir)


def read_run(run_dir: str | Path) -> pd.DataFrame:
    """A run directory's results as a pandas DataFrame, one row per sample, condition and epoch, with the columns
    of ``results.csv`` (:data:`evals.export.COLUMNS`: status, answer_status, correct, region, cost_usd, ...)."""
    try:
        import pandas as pd
    except ImportError:
        raise ImportError("read_run needs pandas: pip install 'geogap[api]' (or pip install pandas)") from None
    return pd.DataFrame(list(rows(RunReader(Path(run_dir)).results())), columns=COLUMNS)


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


def run(model: str | BaseChatModel | None = None, *, show: bool = False, label: str | None = None,
        forced_tool_choice: str | None = None, **options: Any) -> RunResult:
    """Run a comparison like ``python -m evals.compare`` and return its :class:`RunResult`.

    ``model``: ``provider/name`` (default ``local/qwen2.5-coder-1.5b``, the embedded model; with ``resume``, the run's) or
    a LangChain chat model object (``label`` names it; ``forced_tool_choice``
    is what its ``bind_tools(tool_choice=...)`` takes to force a tool call, for ``tools-required``).
    ``show``: print the progress and the tables (default: quiet; the table text is in ``RunResult.table``).
    ``options``: the CLI's options by field name, e.g. ``tasks="gpsbench.*"``, ``conditions=["intrinsic",
    "tools"]``, ``limit=20``, ``epochs=3``, ``output="runs/x"``, ``resume="runs/x"``."""
    cfg = config(model, label=label, **options)
    chat = model if isinstance(model, BaseChatModel) else None
    return in_worker_if_loop_runs(lambda: _run(cfg, chat, show, forced_tool_choice))


def _run(cfg: RunConfig, chat: BaseChatModel | None, show: bool, forced_tool_choice: str | None) -> RunResult:
    console = Console(stderr=True) if show else Console(file=io.StringIO())
    out = Console(record=True) if show else Console(record=True, file=io.StringIO(), width=120)
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
