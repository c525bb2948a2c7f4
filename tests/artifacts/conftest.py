"""Fixtures for the artifact tests: a real filesystem store in a temporary directory."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from store_contract import StoreMaker, naive_lines, strip

from truncation_core import Truncator
from truncation_core.storage.filesystem import ArtifactRoot, FilesystemStore
from truncation_core.storage.memory import MemoryBackend
from truncation_core.types.artifacts import ArtifactInfo, ArtifactRef
from truncation_core.types.storage import ArtifactStore


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


#: The built-in backends, on which tests/artifacts/test_store_contract.py runs the store
#: contract (tests/store_contract.py); a plugin's backend runs it from the plugin's tests.
BACKENDS = ("filesystem", "memory")


@pytest.fixture(scope="module", params=BACKENDS)
def make_store(request: pytest.FixtureRequest,
               tmp_path_factory: pytest.TempPathFactory) -> Iterator[StoreMaker]:
    """Stores of one backend (each parameter), all of one family: a store made with a
    session id reaches what another made with that id stored."""
    kind = request.param
    if kind == "filesystem":
        root = ArtifactRoot(str(tmp_path_factory.mktemp("stores") / "artifacts"))

        def filesystem(session: str | None = None, **_: Any) -> ArtifactStore:
            return FilesystemStore(root, session)

        yield filesystem
        root.close()
    else:
        memory = MemoryBackend()

        def in_memory(session: str | None = None, **_: Any) -> ArtifactStore:
            return memory.session(session)

        yield in_memory


def put(store: FilesystemStore | object, data: bytes, **info: object) -> ArtifactRef:
    """Store *data* as one artifact and return its ref."""
    with store.writer(ArtifactInfo(**info)) as w:  # type: ignore[attr-defined]
        w.write(data)
        return w.commit()


def session_dir(root: Path, session: str = "test-session") -> Path:
    return root / session


__all__ = ["ArtifactRoot", "StoreMaker", "naive_lines", "put", "session_dir", "strip"]
