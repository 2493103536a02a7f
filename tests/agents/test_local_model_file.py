"""Assembling the embedded model from chunk packages: sha256 verified, mismatch refused, cache reused."""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

import pytest

from agents import local_model
from agents.local_model import LocalModelInfo, LocalModelUnavailable, ModelIntegrityError, ensure_model_file


@pytest.fixture
def fake_parts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> bytes:
    data = [b"GGUF-part-one|", b"part-two|", b"three"]
    for i, chunk in enumerate(data, start=1):
        pkg = tmp_path / "pkgs" / f"fakechunk_part{i}"
        pkg.mkdir(parents=True)
        (pkg / "blob.bin").write_bytes(chunk)
        (pkg / "__init__.py").write_text(
            "import os\ndef get_part_path():\n    return os.path.join(os.path.dirname(__file__), 'blob.bin')\n")
    monkeypatch.syspath_prepend(str(tmp_path / "pkgs"))
    for i in range(1, 4):
        sys.modules.pop(f"fakechunk_part{i}", None)
    return b"".join(data)


def info(sha: str, parts: int = 3) -> LocalModelInfo:
    return LocalModelInfo(name="fake", module_prefix="fakechunk_part", parts=parts, sha256=sha,
                          filename="fake.gguf", package_hint="pip install fakechunk")


def test_assembles_verifies_and_reuses(fake_parts: bytes, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(local_model.MODELS, "fake", info(hashlib.sha256(fake_parts).hexdigest()))
    path = ensure_model_file("fake", tmp_path / "cache")
    assert path.read_bytes() == fake_parts
    mtime = path.stat().st_mtime_ns
    assert ensure_model_file("fake", tmp_path / "cache").stat().st_mtime_ns == mtime  # not rebuilt
    path.write_bytes(b"corrupted")  # a damaged cache file is rebuilt from the parts
    assert ensure_model_file("fake", tmp_path / "cache").read_bytes() == fake_parts


def test_mismatch_is_refused(fake_parts: bytes, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(local_model.MODELS, "fake", info("0" * 64))
    with pytest.raises(ModelIntegrityError, match="refusing local model 'fake'"):
        ensure_model_file("fake", tmp_path / "cache")
    assert not list((tmp_path / "cache").glob("*.gguf"))  # nothing half-written left behind
    assert not list((tmp_path / "cache").glob("*.part"))


def test_missing_part_says_how_to_install(fake_parts: bytes, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(local_model.MODELS, "fake", info("0" * 64, parts=4))
    with pytest.raises(LocalModelUnavailable, match="fakechunk_part4.*pip install fakechunk"):
        ensure_model_file("fake", tmp_path / "cache")


def test_unknown_local_model() -> None:
    with pytest.raises(ValueError, match="valid: qwen2.5-coder-1.5b"):
        ensure_model_file("llama-9000")
