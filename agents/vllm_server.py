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
from collections.abc import Callable, Sequence
from pathlib import Path

from agents.server_process import ServerProcess, free_port

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


class VllmServer(ServerProcess):
    """``vllm serve`` in a child process on 127.0.0.1; ``with VllmServer(hf_id) as s: ... s.base_url``."""

    label = "vllm serve"
    log_prefix = "geogap-vllm"
    poll_s = 1.0
    stop_grace_s = 30.0  # vLLM frees GPU memory on shutdown
    exit_error = VllmUnavailable

    def __init__(self, model: str, *, tool_call_parser: str | None = None, log_path: Path | None = None,
                 startup_timeout_s: float = DEFAULT_STARTUP_TIMEOUT_S, extra_args: Sequence[str] = ()) -> None:
        super().__init__(log_path=log_path, startup_timeout_s=startup_timeout_s)
        self.model = model
        self.tool_call_parser = tool_call_parser or tool_call_parser_for(model)
        self.extra_args = list(extra_args)

    def command(self) -> list[str]:
        exe = vllm_executable()
        if exe is None:
            raise VllmUnavailable("vllm is not installed: pip install -e '.[vllm]' (GPU machines only), or pass "
                                  "--base-url of a running vLLM server")
        return vllm_command(self.model, self.port or 0, tool_call_parser=self.tool_call_parser, executable=exe,
                            extra_args=self.extra_args)

    def start(self) -> VllmServer:
        self.port = free_port()
        self._launch(self.command(), env={**os.environ, "VLLM_NO_USAGE_STATS": "1"})
        return self

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
