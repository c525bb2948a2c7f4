"""Fixtures for the artifact tests: a real filesystem store in a temporary directory."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from truncation_core import Truncator
from truncation_core.artifacts.model import ArtifactInfo, ArtifactRef
from truncation_core.storage.filesystem import ArtifactRoot, FilesystemStore


@pytest.fixture
def root_path(tmp_path: Path) -> Path:
    return tmp_path / "workspace" / ".truncation" / "artifacts"


@pytest.fixture
def store(root_path: Path) -> Iterator[FilesystemStore]:
    s = FilesystemStore(str(root_path), "test-session")
    yield s
    s.close()
    s.root.close()


@pytest.fixture
def truncator(root_path: Path) -> Truncator:
    return Truncator({"store": {"root": str(root_path)}}, load_entrypoints=False)


def put(store: FilesystemStore | object, data: bytes, **info: object) -> ArtifactRef:
    """Store *data* as one artifact and return its ref."""
    with store.writer(ArtifactInfo(**info)) as w:  # type: ignore[attr-defined]
        w.write(data)
        return w.commit()


def session_dir(root: Path, session: str = "test-session") -> Path:
    return root / session


__all__ = ["ArtifactRoot", "put", "session_dir"]


def naive_lines(data: bytes) -> list[bytes]:
    """Raw lines with their terminators ("\\n", "\\r\\n", lone "\\r"), one byte at a time."""
    out, cur, i = [], bytearray(), 0
    while i < len(data):
        b = data[i : i + 1]
        cur += b
        if b == b"\n" or (b == b"\r" and data[i + 1 : i + 2] != b"\n"):
            out.append(bytes(cur))
            cur = bytearray()
        i += 1
    if cur:
        out.append(bytes(cur))
    return out


def strip(raw: bytes) -> bytes:
    for t in (b"\r\n", b"\n", b"\r"):
        if raw.endswith(t):
            return raw[: -len(t)]
    return raw
