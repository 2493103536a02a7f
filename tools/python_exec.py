"""The ``python`` tool set: one generic tool that runs the model's Python code in a separate process and returns
what it prints (a baseline beside the domain tool sets; numpy, pyproj and shapely importable).

What holds, and how (docs/tools.md says the same):

- wall-clock timeout: the parent kills the child's whole process group (:class:`Limits`);
- CPU time and memory: ``RLIMIT_CPU`` and ``RLIMIT_AS``, set by the child on itself before the model's code
  runs (OS-enforced);
- output: stdout and stderr go to files capped by ``RLIMIT_FSIZE``; the model gets at most ``OUTPUT_CHARS``;
- working directory: a fresh temporary directory, removed afterwards;
- network: a new, empty network namespace (``unshare(CLONE_NEWNET)``, OS-enforced) where the OS allows it
  (root or user namespaces), and in every case an audit hook that refuses to create sockets;
- processes and files: an audit hook (:func:`sys.addaudithook`) refuses fork/exec/spawn/subprocess, and any
  file write, removal or rename outside the working directory. Audit hooks are a guard against ordinary code,
  not a security boundary: code that calls native code through ``ctypes`` can get past them (``ctypes`` stays
  allowed: pyproj and shapely load their libraries through it). Run untrusted models in a container when that
  matters.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from langchain_core.tools import BaseTool
from pydantic import BaseModel, Field

from tools._common import make_tool
from tools.registry import toolset

OUTPUT_CHARS = 4000
MAX_CODE = 20_000

# Runs in the child before the model's code: installs the audit hook, then runs main.py as __main__.
BOOTSTRAP = r"""
import ctypes, os, resource, sys
# limits first, on this process, before any of the model's code: CPU s, address space, file size (argv 1-3)
for limit, value in zip((resource.RLIMIT_CPU, resource.RLIMIT_AS, resource.RLIMIT_FSIZE), map(int, sys.argv[1:4])):
    resource.setrlimit(limit, (value, value))
resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
try:  # a new, empty network namespace where the OS allows it (root, or user namespaces)
    NETWORK_NAMESPACE = ctypes.CDLL(None, use_errno=True).unshare(0x40000000) == 0
except (OSError, AttributeError):
    NETWORK_NAMESPACE = False
ROOT = os.path.realpath(os.getcwd())
DENIED = {"os.fork", "os.forkpty", "os.system", "os.exec", "os.posix_spawn", "os.spawn", "subprocess.Popen",
          "os.kill", "os.killpg", "socket.__new__", "socket.connect", "socket.bind", "socket.getaddrinfo",
          "os.chdir", "pty.spawn"}
PATH_EVENTS = {"os.remove": 1, "os.rename": 2, "os.mkdir": 1, "os.rmdir": 1, "os.chmod": 1, "os.chown": 1,
               "os.symlink": 2, "os.link": 2, "os.truncate": 1, "os.utime": 1, "shutil.rmtree": 1,
               "os.removexattr": 1, "os.setxattr": 1}
WRITE = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC

def inside(path):
    if isinstance(path, int):
        return True
    full = os.path.realpath(os.path.join(ROOT, os.fsdecode(path)))
    return full == ROOT or full.startswith(ROOT + os.sep)

def hook(event, args):
    if event in DENIED:
        raise PermissionError(f"{event} is not allowed in the python tool")
    if event == "open":
        path, mode, flags = args
        writing = (isinstance(mode, str) and any(c in mode for c in "wax+")) or (isinstance(flags, int) and flags & WRITE)
        if writing and path is not None and not inside(path):
            raise PermissionError(f"writing outside the working directory is not allowed: {path!r}")
    elif event in PATH_EVENTS:
        for path in args[:PATH_EVENTS[event]]:
            if path is not None and not inside(path):
                raise PermissionError(f"{event} outside the working directory is not allowed: {path!r}")

with open("main.py", encoding="utf-8") as f:
    source = f.read()
sys.addaudithook(hook)
exec(compile(source, "main.py", "exec"), {"__name__": "__main__"})
"""


@dataclass(frozen=True)
class Limits:
    """The limits one run is held to."""

    wall_s: float = 20.0
    cpu_s: int = 15
    memory_bytes: int = 2 * 1024**3
    file_bytes: int = 4 * 1024**2


DEFAULT_LIMITS = Limits()


class PythonArgs(BaseModel):
    code: str = Field(max_length=MAX_CODE, description="A Python 3 program; print() the result")


def _read(path: Path) -> str:
    text = path.read_text(encoding="utf-8", errors="replace") if path.exists() else ""
    return text if len(text) <= OUTPUT_CHARS else text[:OUTPUT_CHARS] + f"\n... [output cut at {OUTPUT_CHARS} characters]"


def _last_line(text: str) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return lines[-1] if lines else ""


def run_code(code: str, limits: Limits | None = None) -> str:
    """Run ``code`` under ``limits`` (default :data:`DEFAULT_LIMITS`) and return its standard output; ValueError with the reason
    when it fails, times out or breaks a limit (the model reads it as a tool error)."""
    limits = limits or DEFAULT_LIMITS
    work = Path(tempfile.mkdtemp(prefix="geogap-python-"))
    try:
        (work / "main.py").write_text(code, encoding="utf-8")
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(work), "TMPDIR": str(work),
               "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
               "PYTHONIOENCODING": "utf-8"}
        with open(work / "stdout", "wb") as out, open(work / "stderr", "wb") as err:
            # the child sets its own limits (no preexec_fn: it is unsafe while the agent runs other threads)
            argv = [sys.executable, "-I", "-B", "-c", BOOTSTRAP, str(limits.cpu_s), str(limits.memory_bytes),
                    str(limits.file_bytes)]
            proc = subprocess.Popen(argv, cwd=work, env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=err,
                                    start_new_session=True)
            try:
                code_rc = proc.wait(timeout=limits.wall_s)
                timed_out = False
            except subprocess.TimeoutExpired:
                timed_out = True
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)  # the group: anything it started goes too
            if timed_out:
                proc.wait()
        stdout, stderr = _read(work / "stdout"), _read(work / "stderr")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if timed_out:
        raise ValueError(f"the code ran past the {limits.wall_s:g} s wall-clock limit and was stopped")
    if code_rc == -signal.SIGXCPU or code_rc == -signal.SIGKILL:
        raise ValueError(f"the code used more than {limits.cpu_s} s of CPU time and was stopped")
    if code_rc == -signal.SIGXFSZ:
        raise ValueError(f"the code wrote more than {limits.file_bytes / 1024**2:g} MB (output or a file) and was stopped")
    if code_rc != 0:
        reason = _last_line(stderr) or f"exit status {code_rc}"
        if "MemoryError" in stderr or "Cannot allocate memory" in stderr:
            reason = f"memory limit of {limits.memory_bytes / 1024**3:g} GB reached ({reason})"
        raise ValueError(f"the code failed: {reason}\nstdout:\n{stdout}" if stdout else f"the code failed: {reason}")
    return stdout if stdout.strip() else "(no output: print() the result)"


def python(code: str) -> str:
    """Run a Python 3 program in a fresh process and return what it prints (stdout). numpy, pyproj and
    shapely are installed; math, datetime and zoneinfo are in the standard library. No network, no
    subprocesses, files only in the working directory; limits: 20 s, 2 GB memory, 4000 characters of output."""
    return run_code(code)


@toolset("python", "A generic Python interpreter in a limited process: returns what the code prints")
def python_tools() -> list[BaseTool]:
    """A generic Python interpreter in a limited process: returns what the code prints."""
    return [make_tool(python, PythonArgs)]
