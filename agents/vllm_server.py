"""``vllm/<hf-id>`` models: start ``vllm serve`` with tool calling on a GPU machine, or attach to a running server.

With a base URL the run attaches to that server (nothing is started). Without one, :func:`plan_vllm` starts
``vllm serve <hf-id> --host 127.0.0.1 --port <free> --enable-auto-tool-choice --tool-call-parser <parser>
[--reasoning-parser <parser>] [extra args]`` when a GPU is present and vLLM is installed (the ``vllm`` extra),
waits until it answers, and stops it at the end like the embedded llama.cpp server. The parsers follow the model
family as vLLM's documentation lists them (Tool Calling and Reasoning Outputs pages, docs.vllm.ai, checked
2026): :data:`PARSERS` for ``--tool-call-parser`` (``qwen3_coder`` for Qwen3-Coder, ``hermes`` for Qwen2.5/Qwen3/
QwQ and Hermes, ``llama3_json`` for Llama 3.x, ``llama4_pythonic`` for Llama 4, ``mistral``, ``deepseek_v3`` /
``deepseek_v31``, ``openai`` for gpt-oss, ``glm45``, ``kimi_k2``, ``granite``, ...) or given explicitly;
:data:`REASONING_PARSERS` for ``--reasoning-parser`` (``qwen3`` for Qwen3, ``deepseek_r1`` for DeepSeek-R1 and
QwQ, ...), so that reasoning comes back in ``reasoning_content`` / ``reasoning``, apart from the answer. Other
``vllm serve`` arguments (``--max-model-len``, ``--tensor-parallel-size``, ``--chat-template``, ...) pass through
``extra_args``. Anything else is a clear :class:`VllmUnavailable` error naming what is missing.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from agents.server_process import ServerProcess, free_port

# (pattern on the lower-cased HF id, vLLM tool-call parser), first match wins.
PARSERS: tuple[tuple[str, str], ...] = (
    (r"hermes", "hermes"),
    (r"qwen\s*-?3[-.\w]*coder", "qwen3_coder"),
    (r"qwen\s*-?(2\.5|3|2)", "hermes"),
    (r"qwq", "hermes"),
    (r"llama[-_ ]?4", "llama4_pythonic"),
    (r"llama[-_ ]?3", "llama3_json"),
    (r"mi[sx]tral|ministral|codestral|devstral|magistral", "mistral"),
    (r"deepseek[-_]?v3\.[1-9]", "deepseek_v31"),
    (r"deepseek[-_]?(v3|r1-0528)", "deepseek_v3"),
    (r"gpt-oss", "openai"),
    (r"glm-?4\.[5-9]", "glm45"),
    (r"kimi-k2", "kimi_k2"),
    (r"granite-?3", "granite"),
    (r"internlm", "internlm"),
    (r"xlam", "xlam"),
    (r"phi-?4-mini", "phi4_mini_json"),
)
# (pattern, vLLM reasoning parser), first match wins; None: the family does not reason in tags. Qwen3's parser
# also reads the non-thinking (Instruct-2507) models' plain replies as content.
REASONING_PARSERS: tuple[tuple[str, str | None], ...] = (
    (r"qwen\s*-?3[-.\w]*coder", None),
    (r"qwq", "deepseek_r1"),
    (r"qwen\s*-?3", "qwen3"),
    (r"deepseek[-_]?r1", "deepseek_r1"),
    (r"deepseek[-_]?v3\.[1-9]", "deepseek_v3"),
    (r"gpt-oss", "openai_gptoss"),
    (r"glm-?4\.[5-9]", "glm45"),
    (r"granite-?3\.2", "granite"),
    (r"hunyuan-a13b", "hunyuan_a13b"),
    (r"minimax-m2", "minimax_m2_append_think"),
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


def reasoning_parser_for(model: str) -> str | None:
    """The vLLM ``--reasoning-parser`` for a Hugging Face model id, or None for families that do not reason."""
    lowered = model.lower()
    return next((parser for pattern, parser in REASONING_PARSERS if re.search(pattern, lowered)), None)


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
    """The ``vllm serve`` command line serving ``model`` with automatic tool choice on ``host:port``, the
    family's reasoning parser (unless ``extra_args`` name one) and ``extra_args``."""
    parser = tool_call_parser or tool_call_parser_for(model)
    reasoning = reasoning_parser_for(model)
    given = {a.split("=", 1)[0] for a in extra_args}
    thinking = ["--reasoning-parser", reasoning] if reasoning and "--reasoning-parser" not in given else []
    return [*executable, "serve", model, "--host", host, "--port", str(port), "--enable-auto-tool-choice",
            "--tool-call-parser", parser, *thinking, *extra_args]


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

    def launch_line(self, *, with_model: bool = True) -> str:
        """The ``vllm serve`` command as printed (and, without model, host and port, as the cache names it)."""
        cmd = vllm_command(self.model, 0, tool_call_parser=self.tool_call_parser, extra_args=self.extra_args)
        if not with_model:
            cmd = cmd[:2] + cmd[7:]  # drop the model, --host HOST and --port PORT
        else:
            cmd[6] = str(self.port) if self.port else "<free port>"
        return shlex.join(cmd)

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
              tool_call_parser: str | None = None, extra_args: Sequence[str] = ()) -> VllmServer | None:
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
    server = VllmServer(model, tool_call_parser=tool_call_parser, extra_args=extra_args)
    server.command()  # raises VllmUnavailable now if vLLM is not installed
    return server
