"""Fakes used only to inject faults (the one place tests do not use the real parts)."""

from __future__ import annotations

from typing import Any, BinaryIO

from truncation_core import ArtifactInfo, ArtifactRef, Cut, Provides, hookimpl
from truncation_core.plugin import Strategy
from truncation_core.types.storage import WriterBase


class FailingStore:
    """An artifact store that fails at one step of keeping an artifact: ``open`` (creating
    the writer), ``write`` or ``commit``. Its errors may quote anything, as a careless
    backend's might."""

    name = "failing"

    def __init__(self, error: BaseException, at: str = "write") -> None:
        self.error, self.at = error, at
        self.aborted = 0

    def writer(self, info: ArtifactInfo) -> WriterBase:
        if self.at == "open":
            raise self.error
        store = self

        class Writer(WriterBase):
            def _write(self, data: bytes) -> None:
                if store.at == "write":
                    raise store.error

            def _commit(self, info: ArtifactInfo | None = None) -> ArtifactRef:
                raise store.error

            def _abort(self) -> None:
                store.aborted += 1

        return Writer()

    def open(self, artifact_id: str) -> BinaryIO:
        raise AssertionError("nothing was stored")

    def stat(self, artifact_id: str) -> ArtifactRef:
        raise AssertionError("nothing was stored")

    def list(self) -> list[ArtifactRef]:
        return []

    def delete(self, artifact_id: str) -> bool:
        return False


class Greedy:
    """A strategy plugin that ignores its budget: ``greedy`` returns the whole text."""

    __name__ = "greedy"

    @staticmethod
    def cut(text: str, **_: Any) -> Cut:
        return Cut(text=text, omitted_chars=0, omitted_lines=0)

    @hookimpl
    def provides(self) -> Provides:
        return Provides(strategies=[Strategy(name="greedy", description="returns everything",
                                             cut=self.cut)])


class Broken:
    """A plugin whose implementation of *hook* raises *error*, with *quote* (by default what
    the hook was given) in the message, as a careless plugin's error might. *hook* may also
    be ``write``, ``commit`` or ``bad-commit``: its artifact writer fails there (see
    :class:`BrokenWriter`), or ``stream_cutter``: the stream cutter of its strategy
    ``fragile`` fails. ``fragile`` always raises when it cuts.
    """

    __name__ = "broken"

    def __init__(self, hook: str, error: type[Exception] = ValueError,
                 quote: object = None) -> None:
        self.hook, self.error, self.quote = hook, error, quote
        self.calls = 0

    def fail(self, what: object = None) -> None:
        self.calls += 1
        raise self.error(f"cannot handle {self.quote if self.quote is not None else what!r}")

    def cut(self, text: str, **_: Any) -> Cut:
        self.fail(text[:80])
        raise AssertionError("unreachable")

    def stream_cutter(self, policy: Any) -> Any:
        if self.hook == "stream_cutter":
            self.fail(policy.tool)
        return None

    @hookimpl
    def provides(self) -> Provides:
        return Provides(strategies=[Strategy(name="fragile", description="raises",
                                             cut=self.cut, stream_cutter=self.stream_cutter)])

    @hookimpl
    def select_strategy(self, facts: Any) -> str | None:
        if self.hook == "select_strategy":
            self.fail(facts)
        return None

    @hookimpl
    def truncate(self, text: str) -> Cut | None:
        if self.hook == "truncate":
            self.fail(text[:80])
        return None

    @hookimpl
    def format_marker(self, marker: Any) -> str | None:
        if self.hook == "format_marker":
            self.fail(marker)
        return None

    @hookimpl
    def store_artifact(self, info: ArtifactInfo) -> Any:
        if self.hook == "store_artifact":
            self.fail(info)
        if self.hook in ("write", "commit", "bad-commit"):
            return BrokenWriter(self)
        return None

    @hookimpl
    def salient_detector(self, tool: str | None) -> Any:
        if self.hook == "salient_detector":
            self.fail(tool)
        return None


class BrokenWriter(WriterBase):
    """The artifact writer of a :class:`Broken` plugin: it raises (a bug, not a store error)
    in ``write`` or ``commit``, or commits something that is not an ArtifactRef."""

    def __init__(self, plugin: Broken) -> None:
        super().__init__()
        self.plugin = plugin
        self.aborted = False

    def _write(self, data: bytes) -> None:
        if self.plugin.hook == "write":
            self.plugin.fail(data[:80])

    def _commit(self, info: ArtifactInfo | None) -> ArtifactRef:
        if self.plugin.hook == "commit":
            self.plugin.fail(info)
        return "art_1_not-a-ref"  # type: ignore[return-value]

    def _abort(self) -> None:
        self.aborted = True
