"""``vllm/<hf-id>`` models: start ``vllm serve`` with tool calling on a GPU machine, or attach to a running server.

With a base URL the run attaches to that server (nothing is started). Without one, :func:`resolve_vllm` starts
``vllm serve <hf-id> --host 127.0.0.1 --port <free> --enable-auto-tool-choice --tool-call-parser <parser>`` when a
GPU is present and vLLM is installed (the ``vllm`` extra), waits until it answers, and stops it at the end like
the embedded llama.cpp server. The tool-call parser follows the model family (:data:`PARSERS`: ``hermes`` for
Qwen2.5/Qwen3 and Hermes, ``llama3_json`` for Llama 3.x, ``mistral`` for Mistral/Mixtral) or is given
explicitly. Anything else is a clear :class:`VllmUnavailable` error naming what is missing.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import httpx

from agents.local_model import _die_with_parent, free_port

# (pattern on the lower-cased HF id, vLLM tool-call parser), first match wins.
PARSERS: tuple[tuple[str, str], ...] = (
    (r"hermes", "hermes"),
    (r"qwen\s*-?(2\.5|3|2)", "hermes"),
    (r"qwq", "hermes"),
    (r"llama[-_ ]?3", "llama3_json"),
    (r"mi[sx]tral|ministral|codestral", "mistral"),
)
DEFAULT_STARTUP_TIMEOUT_S = 1800.0  # first start downloads the weights and compiles CUDA graphs


class VllmUnavailable(RuntimeError):
    """A vllm/ model that can be neither attached (no base URL) nor started (no GPU, or vLLM not installed)."""


def tool_call_parser_for(model: str) -> str:
    """The vLLM ``--tool-call-parser`` for a Hugging Face model id; ValueError when the family is unknown."""
    lowered = model.lower()
    for pattern, parser in PARSERS:
        if re.search(pattern, lowered):
            return parser
    raise ValueError(f"no known vLLM tool-call parser for {model!r} (known families: Qwen2.5/Qwen3, Hermes, "
                     "Llama 3.x, Mistral); pass --tool-call-parser NAME (see vLLM's tool calling docs)")


def gpu_names(run: Callable[..., subprocess.CompletedProcess[str]] = subprocess.run) -> list[str]:
    """GPUs listed by ``nvidia-smi -L``; else CUDA devices seen by torch if it is importable; else none."""
    if shutil.which("nvidia-smi"):
        try:
            out = run(["nvidia-smi", "-L"], capture_output=True, text=True, timeout=20)
            gpus = [line.strip() for line in out.stdout.splitlines() if line.startswith("GPU ")]
            if out.returncode == 0 and gpus:
                return gpus
        except (OSError, subprocess.SubprocessError):
            pass
    try:
        import torch  # optional and slow to import: only asked when nvidia-smi says nothing
    except ImportError:
        return []
    try:
        return [torch.cuda.get_device_name(i) for i in range(torch.cuda.device_count())]
    except Exception:  # noqa: BLE001 - a broken CUDA install means no usable GPU
        return []


def vllm_executable() -> list[str] | None:
    """How to launch vLLM's CLI: the ``vllm`` script beside this Python, on PATH, or None if not installed."""
    beside = Path(sys.executable).with_name("vllm")
    if beside.exists():
        return [str(beside)]
    found = shutil.which("vllm")
    return [found] if found else None


def vllm_command(model: str, port: int, *, host: str = "127.0.0.1", tool_call_parser: str | None = None,
                 executable: Sequence[str] = ("vllm",), extra_args: Sequence[str] = ()) -> list[str]:
    """The ``vllm serve`` command line serving ``model`` with automatic tool choice on ``host:port``."""
    parser = tool_call_parser or tool_call_parser_for(model)
    return [*executable, "serve", model, "--host", host, "--port", str(port), "--enable-auto-tool-choice",
            "--tool-call-parser", parser, *extra_args]


class VllmServer:
    """``vllm serve`` in a child process on 127.0.0.1; ``with VllmServer(hf_id) as s: ... s.base_url``."""

    def __init__(self, model: str, *, tool_call_parser: str | None = None, log_path: Path | None = None,
                 startup_timeout_s: float = DEFAULT_STARTUP_TIMEOUT_S, extra_args: Sequence[str] = ()) -> None:
        self.model = model
        self.tool_call_parser = tool_call_parser or tool_call_parser_for(model)
        self.log_path = log_path
        self.startup_timeout_s = startup_timeout_s
        self.extra_args = list(extra_args)
        self.port: int | None = None
        self.process: subprocess.Popen[bytes] | None = None
        self.log_file: Path | None = None
        self._log = None

    @property
    def base_url(self) -> str:
        if self.port is None:
            raise RuntimeError("vLLM server not started")
        return f"http://127.0.0.1:{self.port}/v1"

    def command(self) -> list[str]:
        exe = vllm_executable()
        if exe is None:
            raise VllmUnavailable("vllm is not installed: pip install -e '.[vllm]' (GPU machines only), or pass "
                                  "--base-url of a running vLLM server")
        return vllm_command(self.model, self.port or 0, tool_call_parser=self.tool_call_parser, executable=exe,
                            extra_args=self.extra_args)

    def start(self) -> VllmServer:
        self.port = free_port()
        cmd = self.command()
        log = self.log_path or Path(tempfile.gettempdir()) / f"geogap-vllm-{self.port}.log"
        log.parent.mkdir(parents=True, exist_ok=True)
        self._log = open(log, "ab")  # noqa: SIM115 - closed in stop()
        self.log_file = log
        self.process = subprocess.Popen(cmd, stdout=self._log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                        env={**os.environ, "VLLM_NO_USAGE_STATS": "1"},
                                        preexec_fn=_die_with_parent if sys.platform == "linux" else None)
        try:
            self._wait_ready()
        except BaseException:
            self.stop()
            raise
        return self

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + self.startup_timeout_s
        while time.monotonic() < deadline:
            assert self.process is not None
            if self.process.poll() is not None:
                raise VllmUnavailable(f"vllm serve exited with code {self.process.returncode}:\n{self.log_tail()}")
            try:
                if httpx.get(f"{self.base_url}/models", timeout=2.0).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(1.0)
        raise TimeoutError(f"vllm serve not ready after {self.startup_timeout_s:.0f} s:\n{self.log_tail()}")

    def log_tail(self, n: int = 30) -> str:
        try:
            return "\n".join(Path(self.log_file or "").read_text(errors="replace").splitlines()[-n:])
        except OSError:
            return ""

    def stop(self) -> None:
        """Terminate the server (SIGTERM, then SIGKILL after 30 s: vLLM frees GPU memory on shutdown)."""
        p, self.process = self.process, None
        if p is not None and p.poll() is None:
            p.terminate()
            try:
                p.wait(timeout=30)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait(timeout=10)
        if self._log is not None:
            self._log.close()
            self._log = None

    def __enter__(self) -> VllmServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def plan_vllm(model: str, base_url: str | None, *, gpus: Callable[[], list[str]] | None = None,
              tool_call_parser: str | None = None) -> VllmServer | None:
    """None to attach to ``base_url``; else a (not yet started) server for this machine's GPU.

    Raises :class:`VllmUnavailable` when there is neither a base URL nor a GPU, or vLLM is not installed, and
    ValueError when no tool-call parser is known for the model.
    """
    if base_url:
        return None
    found = (gpus or gpu_names)()
    if not found:
        raise VllmUnavailable(f"vllm/{model}: no GPU on this machine (nvidia-smi -L lists none and torch sees no "
                              "CUDA device), so vllm serve cannot be started here; pass --base-url "
                              "http://host:port/v1 of a running vLLM server")
    server = VllmServer(model, tool_call_parser=tool_call_parser)
    server.command()  # raises VllmUnavailable now if vLLM is not installed
    return server
