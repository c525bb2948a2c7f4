"""The ``store_artifact`` hook: where the full content of a result is kept."""

from __future__ import annotations

from typing import Any

from truncation_core import ArtifactInfo, ArtifactRef, ArtifactStore, Policy, Truncator, hookimpl
from truncation_core.storage.memory import MemoryStore

LOG = "".join(f"line {i:04d}\n" for i in range(1000))


def test_hook_store_artifact_receives_what_the_processor_knows() -> None:
    seen: list[tuple[ArtifactStore, ArtifactInfo, Policy]] = []

    class Watch:
        __name__ = "watch"

        @hookimpl
        def store_artifact(self, store: ArtifactStore, info: ArtifactInfo,
                           policy: Policy) -> None:
            seen.append((store, info, policy))
            return None  # let the built-in open the writer

    truncator = Truncator({"inline_limit": 500}, plugins=[Watch()], load_entrypoints=False)
    result = truncator.process(LOG, tool="execute_command", tool_call_id="call-7",
                               server="shell", command="make test")
    ((store, info, policy),) = seen
    assert store is truncator.store
    assert info == ArtifactInfo(tool="execute_command", tool_call_id="call-7", server="shell",
                                summary="execute_command: make test",
                                content_type="text/plain", chars=len(LOG), lines=1000)
    assert policy.tool == "execute_command"
    ref = result.artifact
    assert ref is not None
    assert (ref.tool, ref.tool_call_id, ref.server, ref.summary) == (
        "execute_command", "call-7", "shell", "execute_command: make test")
    assert (ref.chars, ref.lines, ref.bytes) == (len(LOG), 1000, len(LOG))


def test_hook_store_artifact_is_not_called_without_spill_or_within_limits() -> None:
    calls: list[str] = []

    class Count:
        __name__ = "count"

        @hookimpl
        def store_artifact(self) -> None:
            calls.append("called")

    Truncator({"inline_limit": 500, "spill": False}, plugins=[Count()],
              load_entrypoints=False).process(LOG)
    Truncator(plugins=[Count()], load_entrypoints=False).process("small")
    assert calls == []


def test_hook_store_artifact_a_plugin_may_keep_content_elsewhere() -> None:
    elsewhere = MemoryStore()

    class Redirect:
        __name__ = "redirect"

        @hookimpl
        def store_artifact(self, info: ArtifactInfo) -> Any:
            return elsewhere.writer(info)

    truncator = Truncator({"inline_limit": 500}, plugins=[Redirect()], load_entrypoints=False)
    result = truncator.process(LOG)
    assert truncator.store.list() == []
    with elsewhere.open(result.artifact.id) as f:  # type: ignore[union-attr]
        assert f.read() == LOG.encode()


def test_hook_store_artifact_wrapper_tees_to_a_second_store() -> None:
    """The docstring's use: a wrapper around the writer the others return."""
    mirror = MemoryStore()

    class Tee:
        __name__ = "tee"

        @hookimpl(wrapper=True)
        def store_artifact(self, info: ArtifactInfo) -> Any:
            primary = yield
            secondary = mirror.writer(info)

            class TeeWriter:
                def write(self, data: bytes) -> None:
                    primary.write(data)
                    secondary.write(data)

                def commit(self, *final_info: ArtifactInfo) -> ArtifactRef:
                    secondary.commit(*final_info)
                    return primary.commit(*final_info)

                def abort(self) -> None:
                    primary.abort()
                    secondary.abort()

                def __enter__(self) -> TeeWriter:
                    return self

                def __exit__(self, *exc: object) -> None:
                    primary.__exit__(*exc)
                    secondary.__exit__(*exc)

            return TeeWriter()

    truncator = Truncator({"inline_limit": 500}, plugins=[Tee()], load_entrypoints=False)
    result = truncator.process(LOG)
    (copy,) = mirror.list()
    with truncator.store.open(result.artifact.id) as f, mirror.open(copy.id) as g:  # type: ignore[union-attr]
        assert f.read() == g.read() == LOG.encode()


def test_hook_store_artifact_open_artifact_is_the_one_entry_point() -> None:
    truncator = Truncator(load_entrypoints=False)
    writer = truncator.open_artifact(ArtifactInfo(tool="t", summary="s"), truncator.policy("t"))
    assert writer is not None
    with writer:
        writer.write(b"chunk 1\n")
        writer.write(b"chunk 2\n")
        ref = writer.commit()
    with truncator.store.open(ref.id) as f:
        assert f.read() == b"chunk 1\nchunk 2\n"
    assert ref.bytes == 16 and ref.tool == "t"
