"""A model server in a child process on 127.0.0.1: start, wait until ``/v1/models`` answers, always stop.

Shared by the embedded llama.cpp server and ``vllm serve``. The child gets SIGTERM when this process dies
(Linux ``PR_SET_PDEATHSIG``), its output goes to a log file, and a start that fails stops what it started.
While it runs, :meth:`ServerProcess.exit_cause` says whether (and how) it has died, so a run can stop at once.
"""

from __future__ import annotations

import ctypes
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import IO, ClassVar, Self

import httpx


def free_port() -> int:
    """A free TCP port on 127.0.0.1."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _die_with_parent() -> None:  # pragma: no cover - runs in the child
    """Ask Linux to SIGTERM the server if this process dies (prctl PR_SET_PDEATHSIG)."""
    try:
        ctypes.CDLL("libc.so.6").prctl(1, signal.SIGTERM)
    except OSError:
        pass


class ServerProcess:
    """Base of the managed servers; subclasses build a command and call :meth:`_launch` from ``start``."""

    label: ClassVar[str] = "model server"
    log_prefix: ClassVar[str] = "geogap-server"
    poll_s: ClassVar[float] = 0.25
    stop_grace_s: ClassVar[float] = 10.0
    exit_error: ClassVar[type[Exception]] = RuntimeError
    sigill_hint: ClassVar[str] = "it was built for CPU instructions this machine cannot run"

    def __init__(self, *, log_path: Path | None = None, startup_timeout_s: float = 180.0) -> None:
        self.log_path = log_path
        self.startup_timeout_s = startup_timeout_s
        self.port: int | None = None
        self.process: subprocess.Popen[bytes] | None = None
        self.log_file: Path | None = None
        self._log: IO[bytes] | None = None

    @property
    def base_url(self) -> str:
        if self.port is None:
            raise RuntimeError(f"{self.label} not started")
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self) -> Self:  # pragma: no cover - abstract
        raise NotImplementedError

    def _launch(self, cmd: list[str], env: dict[str, str] | None = None) -> None:
        """Run ``cmd`` (which must serve on ``self.port``) and wait until it answers; stop it if it does not."""
        assert self.port is not None, "allocate self.port (free_port()) before building the command"
        log = self.log_path or Path(tempfile.gettempdir()) / f"{self.log_prefix}-{self.port}.log"
        log.parent.mkdir(parents=True, exist_ok=True)
        self._log = open(log, "ab")  # noqa: SIM115 - closed in stop()
        self.log_file = log
        self.process = subprocess.Popen(cmd, stdout=self._log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                        env=env, preexec_fn=_die_with_parent if sys.platform == "linux" else None)
        try:
            self._wait_ready()
        except BaseException:
            self.stop()
            raise

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + self.startup_timeout_s
        while time.monotonic() < deadline:
            assert self.process is not None
            if self.process.poll() is not None:
                raise self.exit_error(f"{self.describe_exit(self.process.returncode)}\n{self.log_tail()}")
            try:
                if httpx.get(f"{self.base_url}/models", timeout=2.0).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(self.poll_s)
        raise TimeoutError(f"{self.label} not ready after {self.startup_timeout_s:.0f} s:\n{self.log_tail()}")

    def describe_exit(self, code: int) -> str:
        """One line naming how the server ended: its exit code, or the signal that killed it (and for SIGILL,
        why and what to do)."""
        if code >= 0:
            return f"{self.label} exited with code {code}"
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        line = f"{self.label} was killed by {name}"
        return f"{line}: {self.sigill_hint}" if -code == signal.SIGILL else line

    def exit_cause(self) -> str | None:
        """None while the server runs (or was never started, or was stopped by us); after it died, one line
        naming the cause."""
        p = self.process
        if p is None or p.poll() is None:
            return None
        return self.describe_exit(p.returncode)

    def watch(self) -> str | None:
        """For :func:`evals.runner.run_all`: None while the server runs, else the cause and the log's tail."""
        cause = self.exit_cause()
        if cause is None:
            return None
        tail = self.log_tail(15)
        return cause + (f"\n--- last lines of {self.log_file} ---\n{tail}" if tail else "")

    def log_tail(self, n: int = 30) -> str:
        """The last ``n`` lines of the server's log ("" when there is none)."""
        try:
            return "\n".join(Path(self.log_file or "").read_text(errors="replace").splitlines()[-n:])
        except OSError:
            return ""

    def stop(self) -> None:
        """Terminate the server (SIGTERM, then SIGKILL after ``stop_grace_s``) and close its log."""
        p, self.process = self.process, None
        if p is not None and p.poll() is None:
            p.terminate()
            try:
                p.wait(timeout=self.stop_grace_s)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait(timeout=10)
        if self._log is not None:
            self._log.close()
            self._log = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


