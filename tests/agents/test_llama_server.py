"""The embedded server's prompt rendering: template fixes, with no model needed."""

import json
from pathlib import Path
from typing import Any, Self
from unittest.mock import patch

import pytest

pytest.importorskip("jinja2")

from agents.llama_server import SINGLE_EXAMPLE, normalise_messages, render_prompt  # noqa: E402
from agents.local_model import LocalModelServer, LocalModelUnavailable  # noqa: E402
from agents.providers import ServerUnavailable  # noqa: E402

TEMPLATE = (
    "{% if tools %}TOOLS:{% for t in tools %}{{ t | tojson }}{% endfor %}"
    "{{ \"\\n<tool_call>\\n{{\\\"name\\\": <function-name>, \\\"arguments\\\": <args-json-object>}}\\n</tool_call>\" }}"
    "{% endif %}{% for m in messages %}[{{ m.role }}]{{ m.content }}"
    "{% for c in m.tool_calls or [] %}<call>{{ c.function.arguments | tojson }}</call>{% endfor %}{% endfor %}"
)


def test_single_braces_in_call_example_and_arguments_not_double_encoded() -> None:
    tools = [{"type": "function", "function": {"name": "distance_km", "parameters": {}}}]
    messages = [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": None,
         "tool_calls": [{"id": "1", "type": "function", "function": {"name": "distance_km", "arguments": '{"lat1": 1}'}}]},
        {"role": "tool", "content": '{"distance_km": 5}', "tool_call_id": "1"},
    ]
    prompt = render_prompt(TEMPLATE, messages, tools)
    assert SINGLE_EXAMPLE in prompt and "{{" not in prompt
    assert '<call>{"lat1": 1}</call>' in prompt  # a dict rendered once, not a JSON string encoded twice


def test_normalise_null_content_and_strip_echoed_call_text() -> None:
    msgs = normalise_messages([
        {"role": "assistant", "content": 'x <tool_call>{"name": "a"}</tool_call>',
         "tool_calls": [{"id": "1", "function": {"name": "a", "arguments": "{}"}}]},
        {"role": "user", "content": None},
    ])
    assert msgs[0]["content"] == "x" and msgs[0]["tool_calls"][0]["function"]["arguments"] == {}
    assert msgs[1]["content"] == ""
    json.dumps(msgs)


def test_a_call_written_as_bare_json_is_rendered_once_in_the_history() -> None:
    """The embedded model often writes its call as bare JSON in prose; the history showed it twice (the content,
    then the template's call block), about 45 tokens more in every later prompt."""
    call = '{"name": "distance_km", "arguments": {"lat1": 1, "lon1": 2, "lat2": 3, "lon2": 4}}'
    messages = [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": f"<tools>\n{call}\n</tools>\nFINAL ANSWER: 5 km",
         "tool_calls": [{"id": "1", "type": "function",
                         "function": {"name": "distance_km", "arguments": '{"lat1": 1, "lon1": 2, "lat2": 3, "lon2": 4}'}}]},
        {"role": "tool", "content": '{"distance_km": 5}', "tool_call_id": "1"},
    ]
    prompt = render_prompt(TEMPLATE, messages, [])
    assert prompt.count('"lat1": 1') == 1 and "[assistant]FINAL ANSWER: 5 km<call>" in prompt


# --- portability of the llama.cpp runtime (agents.local_model.check_build) ---

# what xllamacpp 2026.10.11549's Linux CPU wheel reports (xllamacpp.get_system_info())
PORTABLE_INFO = ("CPU : SSE3 = 1 | SSSE3 = 1 | AVX = 1 | AVX2 = 1 | F16C = 1 | FMA = 1 | BMI2 = 1 | LLAMAFILE = 1 | "
                 "OPENMP = 1 | REPACK = 1 | ")
NATIVE_INFO = ("CPU : SSE3 = 1 | SSSE3 = 1 | AVX = 1 | AVX_VNNI = 0 | AVX2 = 1 | F16C = 1 | FMA = 1 | BMI2 = 1 | "
               "AVX512 = 1 | AVX512_VBMI = 1 | AVX512_VNNI = 1 | AVX512_BF16 = 1 | AMX_INT8 = 1 | LLAMAFILE = 1 | ")
CPU_AVX2 = "processor\t: 0\nflags\t\t: fpu pni ssse3 avx avx2 fma f16c bmi2\n"
CPU_AMX = CPU_AVX2.rstrip("\n") + " avx512f avx512vbmi avx512_vnni avx512_bf16 amx_int8 amx_tile\n"
CPU_AVX_ONLY = "processor\t: 0\nflags\t\t: fpu pni ssse3 avx\n"  # Sandy Bridge: no AVX2, FMA, F16C, BMI2


def test_compiled_features_read_only_those_set_to_one() -> None:
    from agents.local_model import beyond_avx2, compiled_features

    assert "AVX2" in compiled_features(PORTABLE_INFO) and "AVX_VNNI" not in compiled_features(NATIVE_INFO)
    assert beyond_avx2(compiled_features(PORTABLE_INFO)) == set()
    assert beyond_avx2(compiled_features(NATIVE_INFO)) == {"AVX512", "AVX512_VBMI", "AVX512_VNNI", "AVX512_BF16",
                                                           "AMX_INT8"}


def test_build_verdict_refuses_missing_instructions_and_warns_beyond_avx2() -> None:
    from agents.local_model import REINSTALL_COMMAND, build_verdict

    assert build_verdict(PORTABLE_INFO, CPU_AVX2) == (None, None)
    refusal, warning = build_verdict(NATIVE_INFO, CPU_AVX2)  # built on an AMX machine, run on an AVX2 one
    assert warning is None and refusal is not None
    assert "AMX_INT8" in refusal and "AVX512" in refusal and REINSTALL_COMMAND in refusal
    refusal, warning = build_verdict(NATIVE_INFO, CPU_AMX)  # advertised: may still be unrunnable in a VM
    assert refusal is None and warning is not None and "beyond the portable AVX2 build" in warning
    assert build_verdict(NATIVE_INFO, None)[1] is not None  # unknown CPU: warn, never refuse blindly


def test_a_cpu_without_avx2_is_refused_with_no_reinstall_advice() -> None:
    """The portable wheel itself needs AVX2, FMA, F16C and BMI2: on an older CPU no reinstall helps."""
    from agents.local_model import REINSTALL_COMMAND, build_verdict

    refusal, warning = build_verdict(PORTABLE_INFO, CPU_AVX_ONLY)
    assert warning is None and refusal is not None
    assert refusal.startswith("this CPU lacks AVX2, BMI2, F16C, FMA, which the installed xllamacpp needs")
    assert REINSTALL_COMMAND not in refusal


def test_check_build_raises_a_one_line_refusal(monkeypatch: pytest.MonkeyPatch) -> None:
    import agents.local_model as lm

    if lm.platform.machine().lower() not in ("x86_64", "amd64"):
        pytest.skip("the check applies to x86-64 only")
    monkeypatch.setattr(lm, "build_verdict", lambda info, cpu: ("refused: reinstall", None))
    with pytest.raises(lm.NonPortableBuild, match="refused: reinstall"):
        lm.check_build(NATIVE_INFO)
    assert issubclass(lm.NonPortableBuild, lm.LocalModelUnavailable)  # evals.compare: one line, exit code 1


def test_the_installed_runtime_is_portable_and_runs_here() -> None:
    """CI proves the pinned wheel: no AVX-512 or AMX compiled in, and this machine passes the check."""
    pytest.importorskip("xllamacpp")
    from agents.local_model import beyond_avx2, check_build, compiled_features, runtime_system_info

    info = runtime_system_info()
    features = compiled_features(info)
    if "AVX2" not in features and "NEON" in features:
        pytest.skip("an ARM build: the x86 portability check does not apply")
    assert "AVX2" in features and "FMA" in features, info
    assert beyond_avx2(features) == set(), f"xllamacpp was built non-portably: {info}"
    assert check_build(info) is None


def test_sigill_is_named_with_the_reinstall_command() -> None:
    import signal

    from agents.local_model import REINSTALL_COMMAND, LocalModelServer

    server = LocalModelServer()
    line = server.describe_exit(-signal.SIGILL)
    assert line.startswith("local model server was killed by SIGILL") and REINSTALL_COMMAND in line
    assert server.describe_exit(-signal.SIGKILL) == "local model server was killed by SIGKILL"
    assert server.describe_exit(3) == "local model server exited with code 3"
    assert server.exit_cause() is None  # never started: nothing died


def test_slots_and_threads_follow_the_cores() -> None:
    from agents.local_model import LocalModelServer, default_slots, default_threads

    assert [default_slots(c) for c in (1, 2, 3, 4, 16)] == [2, 4, 6, 8, 8]
    assert [default_threads(c) for c in (1, 2, 3, 4, 16)] == [1, 1, 1, 2, 8]
    server = LocalModelServer(slots=3, threads=2)
    assert (server.slots, server.threads, server.ctx_per_slot) == (3, 2, 16384)


def test_a_quiet_machine_gets_every_core_and_a_busy_one_half() -> None:
    from agents.local_model import thread_policy

    assert thread_policy(2, 0.1) == (2, "all 2 cores, 0.10 busy at start, spinning between steps", True)
    assert thread_policy(2, 0.5) == (1, "half of 2 cores, 0.50 busy at start", False)
    assert thread_policy(2, 6.8)[0] == 1
    assert thread_policy(16, 0.49)[0] == 16 and thread_policy(16, 3.0)[0] == 8
    assert thread_policy(1, 2.0)[0] == 1  # never none


def test_threads_spin_between_steps_only_on_a_quiet_machine_and_never_beyond_its_cores() -> None:
    from agents.local_model import thread_policy

    assert thread_policy(2, 0.2, threads=2) == (2, "--local-threads, 0.20 busy at start, spinning between steps",
                                                True)
    assert thread_policy(2, 0.2, threads=4).spin is False  # more threads than cores: one always waits for a core
    assert thread_policy(2, 1.3, threads=2) == (2, "--local-threads, 1.30 busy at start", False)
    assert thread_policy(2, 1.3).spin is False


@pytest.mark.parametrize(("spin", "user", "expected"), [(False, None, "PASSIVE"), (True, None, None),
                                                       (True, "PASSIVE", "PASSIVE"), (False, "ACTIVE", "ACTIVE")])
def test_the_wait_policy_reaches_the_server_process(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, spin: bool,
                                                    user: str | None, expected: str | None) -> None:
    import agents.local_model as lm

    launched: dict[str, Any] = {}
    monkeypatch.setattr(lm, "ensure_model_file", lambda name: tmp_path / "model.gguf")
    monkeypatch.setattr(lm, "check_build", lambda: None)
    monkeypatch.setattr(lm.importlib.util, "find_spec", lambda name: object())
    monkeypatch.setattr(lm.LocalModelServer, "_launch", lambda self, argv, env: launched.update(argv=argv, env=env))
    if user is None:
        monkeypatch.delenv("OMP_WAIT_POLICY", raising=False)
    else:
        monkeypatch.setenv("OMP_WAIT_POLICY", user)
    lm.LocalModelServer(slots=2, threads=2, spin=spin).start()
    assert launched["env"].get("OMP_WAIT_POLICY") == expected  # a user's own setting always wins
    assert launched["argv"][launched["argv"].index("--threads") + 1] == "2"


def test_local_threads_reach_the_server_and_only_for_local_models(tmp_path: Path) -> None:
    from agents.providers import PROVIDERS
    from evals.options import RunConfig, UsageError, check_bounds
    from evals.specs import make_spec

    tasks = "gpsbench.distance"
    with pytest.raises(UsageError, match="--local-threads applies to local/ models only"):
        make_spec(RunConfig(tasks=tasks, model="openai/gpt-4o-mini", local_threads=2))
    with pytest.raises(UsageError, match="--local-threads must be >= 1"):
        check_bounds(RunConfig(tasks=tasks, local_threads=0))
    said: list[str] = []
    started: list[LocalModelServer] = []

    class Recorded(LocalModelServer):
        def __enter__(self) -> Self:
            started.append(self)
            raise LocalModelUnavailable("not started in this test")

    with (patch("agents.local_model.LocalModelServer", Recorded),
          patch("agents.local_model.ensure_model_file", lambda name: tmp_path / "model.gguf"),
          pytest.raises(ServerUnavailable),
          PROVIDERS.get("local").serve("qwen2.5-coder-1.5b", None, log_path=tmp_path / "server.log",
                                       tool_call_parser=None, say=said.append, slots=3, threads=2)):
        pass
    assert (started[0].slots, started[0].threads) == (3, 2)
    assert len(said) == 1
    assert said[0].startswith("starting the embedded model server (3 slots, 2 threads: --local-threads, ")
    assert started[0].spin == ("spinning between steps" in said[0])  # the reason printed is the plan the server got


def test_the_model_file_is_assembled_while_the_load_is_measured(tmp_path: Path) -> None:
    """A first run assembles and hashes the 1 GB model file (about 4 s) during the 1 s load measurement, not
    after it; an assembly that fails stops the start with its own message."""
    import threading
    import time

    from agents.local_model import ModelIntegrityError, ThreadPlan
    from agents.providers import PROVIDERS

    spans: dict[str, tuple[float, float]] = {}
    assembler: list[threading.Thread] = []

    def timed(name: str, seconds: float, result: object) -> object:
        start = time.monotonic()
        time.sleep(seconds)
        spans[name] = (start, time.monotonic())
        return result

    def refused(name: str) -> Path:
        assembler.append(threading.current_thread())
        timed("assemble", 0.5, None)
        raise ModelIntegrityError("refusing local model 'x': sha256 mismatch")

    plan = ThreadPlan(2, "all 2 cores, 0.00 busy at start", False)
    with (patch("agents.local_model.ensure_model_file", refused),
          patch("agents.local_model.thread_policy", lambda threads: timed("measure", 0.5, plan)),
          pytest.raises(ServerUnavailable, match="sha256 mismatch"),
          PROVIDERS.get("local").serve("qwen2.5-coder-1.5b", None, log_path=tmp_path / "server.log",
                                       tool_call_parser=None, say=lambda line: None)):
        pass
    (a0, a1), (m0, m1) = spans["assemble"], spans["measure"]
    assert a0 < m1 and m0 < a1  # the two overlapped
    assert assembler[0] is not threading.main_thread() and not assembler[0].is_alive()


@pytest.mark.skipif(not Path("/proc/stat").exists(), reason="busy_cores reads Linux's /proc/stat")
def test_busy_cores_leaves_out_this_process_own_work() -> None:
    """This process hashing the model file meanwhile is not another process's load (it would make a quiet
    machine look busy and halve the server's threads)."""
    import threading

    from agents.local_model import busy_cores

    stop = threading.Event()

    def spin() -> None:
        while not stop.is_set():
            pass

    worker = threading.Thread(target=spin)
    worker.start()
    try:
        busy = busy_cores(1.0)
    finally:
        stop.set()
        worker.join()
    assert busy is not None and busy < 0.5


def test_the_reinstall_command_names_the_pinned_runtime() -> None:
    import tomllib
    from pathlib import Path

    from agents.local_model import REINSTALL_COMMAND, RUNTIME_PIN

    pyproject = tomllib.loads((Path(__file__).parents[2] / "pyproject.toml").read_text())
    assert RUNTIME_PIN in pyproject["project"]["optional-dependencies"]["local"]
    assert f'"{RUNTIME_PIN}"' in REINSTALL_COMMAND


def test_local_slots_set_the_default_connections_and_only_for_local_models() -> None:
    from agents.local_model import default_slots
    from evals.options import RunConfig, UsageError, check_bounds
    from evals.specs import make_spec

    tasks = "gpsbench.distance"
    assert make_spec(RunConfig(tasks=tasks)).max_connections == default_slots()
    assert make_spec(RunConfig(tasks=tasks, local_slots=3)).max_connections == 3
    assert make_spec(RunConfig(tasks=tasks, local_slots=3, max_connections=6)).max_connections == 6
    with pytest.raises(UsageError, match="--local-slots applies to local/ models only"):
        make_spec(RunConfig(tasks=tasks, model="openai/gpt-4o-mini", local_slots=2))
    with pytest.raises(UsageError, match="--local-slots must be >= 1"):
        check_bounds(RunConfig(tasks=tasks, local_slots=0))


@pytest.mark.skipif(not Path("/proc/stat").exists(), reason="busy_cores reads Linux's /proc/stat")
def test_busy_cores_sees_a_process_that_spins() -> None:
    """A neighbour spinning on one core counts as (about) one busy core, whatever else the machine runs."""
    import subprocess
    import sys

    from agents.local_model import busy_cores

    spinner = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        busy = busy_cores(1.0)
    finally:
        spinner.kill()
        spinner.wait()
    assert busy is not None and busy >= 0.5


def test_a_call_wrapped_in_the_tool_lists_tags_ends_the_reply_and_is_a_call() -> None:
    """The 1.5B model sometimes writes its call as ``<tools>{...}</tools>`` and then repeats it until the token
    limit (512 tokens in one quick-suite call): ``</tools>`` ends the completion, and the call before it counts."""
    from agents.llama_server import chat_completion

    sent: list[dict[str, Any]] = []

    def complete(request: dict[str, Any]) -> dict[str, Any]:
        sent.append(request)
        text = '<tools>\n{"name": "initial_bearing", "arguments": {"lat1": 22.6, "lon1": 89.8, "lat2": 51.4, "lon2": 0}}\n'
        return {"choices": [{"text": text, "finish_reason": "stop"}], "usage": {}}

    tools = [{"type": "function", "function": {"name": "initial_bearing", "parameters": {}}}]
    body = {"messages": [{"role": "user", "content": "Bearing?"}], "tools": tools}
    reply = chat_completion(body, TEMPLATE, complete)
    assert "</tools>" in sent[0]["stop"]
    assert reply["choices"][0]["finish_reason"] == "tool_calls"
    call = reply["choices"][0]["message"]["tool_calls"][0]["function"]
    assert call["name"] == "initial_bearing" and json.loads(call["arguments"])["lat2"] == 51.4
