"""vllm/ models offline: the tool-call parser per model family, the ``vllm serve`` command line, GPU detection
and the attach / start / refuse decision."""

from __future__ import annotations

import subprocess

import pytest

from agents import vllm_server
from agents.vllm_server import (
    VllmServer,
    VllmUnavailable,
    gpu_names,
    plan_vllm,
    reasoning_parser_for,
    tool_call_parser_for,
    vllm_command,
)


@pytest.mark.parametrize(("model", "parser"), [
    ("Qwen/Qwen2.5-7B-Instruct", "hermes"),
    ("Qwen/Qwen2.5-Coder-32B-Instruct", "hermes"),
    ("Qwen/Qwen3-8B", "hermes"),
    ("NousResearch/Hermes-3-Llama-3.1-8B", "hermes"),
    ("meta-llama/Llama-3.1-8B-Instruct", "llama3_json"),
    ("meta-llama/Meta-Llama-3-8B-Instruct", "llama3_json"),
    ("meta-llama/Llama-3.3-70B-Instruct", "llama3_json"),
    ("mistralai/Mistral-7B-Instruct-v0.3", "mistral"),
    ("mistralai/Mixtral-8x7B-Instruct-v0.1", "mistral"),
    ("Qwen/Qwen3-Coder-30B-A3B-Instruct", "qwen3_coder"),
    ("Qwen/Qwen3-Coder-480B-A35B-Instruct-FP8", "qwen3_coder"),
    ("Qwen/QwQ-32B", "hermes"),
    ("meta-llama/Llama-4-Scout-17B-16E-Instruct", "llama4_pythonic"),
    ("deepseek-ai/DeepSeek-V3-0324", "deepseek_v3"),
    ("deepseek-ai/DeepSeek-V3.1", "deepseek_v31"),
    ("openai/gpt-oss-120b", "openai"),
    ("zai-org/GLM-4.5-Air", "glm45"),
    ("moonshotai/Kimi-K2-Instruct", "kimi_k2"),
])
def test_tool_call_parser_follows_the_model_family(model: str, parser: str) -> None:
    assert tool_call_parser_for(model) == parser


@pytest.mark.parametrize(("model", "parser"), [
    ("Qwen/Qwen3-8B", "qwen3"),
    ("Qwen/Qwen3-235B-A22B-Thinking-2507", "qwen3"),
    ("Qwen/QwQ-32B", "deepseek_r1"),
    ("deepseek-ai/DeepSeek-R1-Distill-Qwen-7B", "deepseek_r1"),
    ("deepseek-ai/DeepSeek-V3.1", "deepseek_v3"),
    ("openai/gpt-oss-20b", "openai_gptoss"),
    ("Qwen/Qwen3-Coder-30B-A3B-Instruct", None),
    ("Qwen/Qwen2.5-7B-Instruct", None),
    ("meta-llama/Llama-3.1-8B-Instruct", None),
])
def test_reasoning_parser_follows_the_model_family(model: str, parser: str | None) -> None:
    assert reasoning_parser_for(model) == parser


def test_unknown_family_asks_for_a_parser() -> None:
    with pytest.raises(ValueError, match="--tool-call-parser"):
        tool_call_parser_for("google/gemma-2-9b-it")


def test_serve_command_line() -> None:
    assert vllm_command("Qwen/Qwen2.5-7B-Instruct", 8123) == [
        "vllm", "serve", "Qwen/Qwen2.5-7B-Instruct", "--host", "127.0.0.1", "--port", "8123",
        "--enable-auto-tool-choice", "--tool-call-parser", "hermes"]
    cmd = vllm_command("google/gemma-2-9b-it", 9000, tool_call_parser="pythonic", executable=["/opt/bin/vllm"],
                       extra_args=["--max-model-len", "8192"])
    assert cmd[:3] == ["/opt/bin/vllm", "serve", "google/gemma-2-9b-it"]
    assert cmd[cmd.index("--tool-call-parser") + 1] == "pythonic" and cmd[-2:] == ["--max-model-len", "8192"]


def test_reasoning_models_get_their_parser_and_extra_args_pass_through() -> None:
    cmd = vllm_command("Qwen/Qwen3-8B", 8000, extra_args=["--max-model-len", "32768", "--tensor-parallel-size", "2"])
    assert cmd[cmd.index("--reasoning-parser") + 1] == "qwen3"
    assert cmd[-4:] == ["--max-model-len", "32768", "--tensor-parallel-size", "2"]
    own = vllm_command("Qwen/Qwen3-8B", 8000, extra_args=["--reasoning-parser=deepseek_r1"])
    assert own.count("--reasoning-parser") == 0 and own[-1] == "--reasoning-parser=deepseek_r1"  # the user's wins
    server = VllmServer("Qwen/Qwen3-8B", extra_args=["--chat-template", "/t/my template.jinja"])
    assert server.launch_line() == ("vllm serve Qwen/Qwen3-8B --host 127.0.0.1 --port '<free port>' "
                                    "--enable-auto-tool-choice --tool-call-parser hermes --reasoning-parser qwen3 "
                                    "--chat-template '/t/my template.jinja'")
    assert server.launch_line(with_model=False).startswith("vllm serve --enable-auto-tool-choice")


def _smi(stdout: str, code: int = 0):
    def run(cmd, **kw):
        assert cmd == ["nvidia-smi", "-L"]
        return subprocess.CompletedProcess(cmd, code, stdout=stdout, stderr="")
    return run


def test_gpu_detection_reads_nvidia_smi(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(vllm_server.shutil, "which", lambda name: "/usr/bin/nvidia-smi")
    listing = "GPU 0: NVIDIA H200 (UUID: GPU-1)\nGPU 1: NVIDIA H200 (UUID: GPU-2)\n"
    assert gpu_names(_smi(listing)) == ["GPU 0: NVIDIA H200 (UUID: GPU-1)", "GPU 1: NVIDIA H200 (UUID: GPU-2)"]
    monkeypatch.setitem(__import__("sys").modules, "torch", None)  # torch absent: nothing else to ask
    assert gpu_names(_smi("NVIDIA-SMI has failed because it couldn't communicate with the driver.", 9)) == []


def test_no_gpu_and_no_base_url_is_a_clear_error() -> None:
    with pytest.raises(VllmUnavailable, match="no GPU.*--base-url"):
        plan_vllm("Qwen/Qwen2.5-7B-Instruct", None, gpus=list)


def test_base_url_attaches_without_looking_for_a_gpu() -> None:
    def no_call() -> list[str]:
        raise AssertionError("GPU detection must not run when attaching")

    assert plan_vllm("Qwen/Qwen2.5-7B-Instruct", "http://gpu-box:8000/v1", gpus=no_call) is None


def test_gpu_without_vllm_installed_says_how_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(vllm_server, "vllm_executable", lambda: None)
    with pytest.raises(VllmUnavailable, match=r"pip install -e '\.\[vllm\]'"):
        plan_vllm("Qwen/Qwen2.5-7B-Instruct", None, gpus=lambda: ["GPU 0: test"])


def test_gpu_with_vllm_plans_a_server(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(vllm_server, "vllm_executable", lambda: ["/x/vllm"])
    server = plan_vllm("meta-llama/Llama-3.1-8B-Instruct", None, gpus=lambda: ["GPU 0: test"])
    assert server is not None and server.tool_call_parser == "llama3_json"
    assert plan_vllm("Qwen/Qwen2.5-7B", None, gpus=lambda: ["GPU 0"], tool_call_parser="qwen3_xml").tool_call_parser \
        == "qwen3_xml"
    planned = plan_vllm("Qwen/Qwen3-8B", None, gpus=lambda: ["GPU 0"], extra_args=["--max-model-len", "8192"])
    assert planned is not None and planned.extra_args == ["--max-model-len", "8192"]
