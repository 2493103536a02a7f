"""A multi-node Ray cluster on this machine for tests: a head and worker nodes, each a ``ray start --block``
process of its own (own session, own temp dir, own ports, all on this machine), so runs of several engineers or CI
jobs never share one. Stopping ends this cluster's process groups only (never ``ray stop``, which ends every Ray
process on the machine)."""

from __future__ import annotations

import contextlib
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Self

RAY = str(Path(sys.executable).with_name("ray"))
START_TIMEOUT_S = 180.0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _node_ports(workers_from: int) -> list[str]:
    """Every port a node opens, chosen free (the defaults, e.g. the dashboard agent's 52365, collide across
    clusters); its workers' 40 ports from ``workers_from``, below the range the OS picks free ports from."""
    return ["--node-manager-port", str(free_port()), "--object-manager-port", str(free_port()),
            "--metrics-export-port", str(free_port()), "--dashboard-agent-listen-port", str(free_port()),
            "--dashboard-agent-grpc-port", str(free_port()), "--runtime-env-agent-port", str(free_port()),
            "--min-worker-port", str(workers_from), "--max-worker-port", str(workers_from + 40)]


class LocalCluster:
    """``with LocalCluster(workers=2) as c: ... c.address ...``: a head and ``workers`` worker nodes, 1 CPU each."""

    def __init__(self, workers: int = 2, env: dict[str, str] | None = None) -> None:
        self.root = Path(tempfile.mkdtemp(prefix="geogap-ray-", dir="/tmp"))  # short: Ray's socket paths are capped
        # ``ray start`` turns token auth on (and would share ~/.ray/auth_token); a driver reads its token mode when
        # Ray loads, so a test cluster runs without, like the local instance ``ray.init()`` starts
        self.workers = workers
        self.env = {**os.environ, **(env or {}), "RAY_AUTH_MODE": "disabled", "RAY_USAGE_STATS_ENABLED": "0"}
        self.procs: list[subprocess.Popen[bytes]] = []
        self.worker_ports = random.randrange(20_000, 32_000 - 50 * (workers + 1))  # Ray's default: 10002-19999
        # Ray turns 127.0.0.1 into this machine's own address (ray._private.services.resolve_ip_for_localhost):
        # the nodes still all run here
        from ray._private.services import resolve_ip_for_localhost

        self.address = f"{resolve_ip_for_localhost('127.0.0.1')}:{free_port()}"

    def _start(self, name: str, args: list[str]) -> None:
        log = open(self.root / f"{name}.log", "wb")  # noqa: SIM115 (kept open for the process's life)
        self.procs.append(subprocess.Popen(
            [RAY, "start", "--block", "--num-cpus", "1", "--node-ip-address", "127.0.0.1", "--disable-usage-stats",
             "--temp-dir", str(self.root / name), *_node_ports(self.worker_ports + 50 * len(self.procs)), *args],
            env=self.env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True))

    def __enter__(self) -> Self:
        try:
            self._start("head", ["--head", "--port", self.address.split(":")[1], "--include-dashboard", "false",
                                 "--ray-client-server-port", str(free_port())])
            self._wait(1)
            for i in range(self.workers):
                self._start(f"w{i}", ["--address", self.address])
            self._wait(1 + self.workers)
        except BaseException:
            self.stop()
            shutil.rmtree(self.root, ignore_errors=True)
            raise
        return self

    def _wait(self, nodes: int) -> None:
        """Until ``nodes`` nodes are alive (asked through the GCS with ``ray status``)."""
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            if any(p.poll() is not None for p in self.procs):
                raise RuntimeError(f"a Ray node exited: {self.logs()}")
            out = subprocess.run([RAY, "status", "--address", self.address], env=self.env, capture_output=True,
                                 text=True, timeout=60)
            if out.returncode == 0 and out.stdout.count("node_") >= nodes:
                return
            time.sleep(1)
        raise RuntimeError(f"the Ray cluster did not come up with {nodes} nodes: {self.logs()}")

    def logs(self) -> str:
        return "\n".join(f"{p.name}: {p.read_text(errors='replace')[-1500:]}" for p in sorted(self.root.glob("*.log")))

    def stop(self) -> None:
        """Worker nodes first, then the head: SIGTERM to each node's own process group, SIGKILL after 20 s."""
        for p in reversed(self.procs):
            with contextlib.suppress(ProcessLookupError):
                os.killpg(p.pid, signal.SIGTERM)
        for p in reversed(self.procs):
            try:
                p.wait(timeout=20)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(p.pid, signal.SIGKILL)
                p.wait(timeout=20)

    def __exit__(self, *exc: object) -> None:
        self.stop()
        shutil.rmtree(self.root, ignore_errors=True)
