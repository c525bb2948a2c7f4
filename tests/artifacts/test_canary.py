"""Content never reaches logs, exception messages, warnings or reprs (reliability.md §6).

A unique canary is put in tool output, in a would-be artifact id, in grep patterns, and (shaped
like an identifier) in tool and argument names; every operation runs, including failures (disk
full, a hostile id, a refused file, bad and refused patterns, an internal error). The canary may
appear only where content belongs: the output, the artifact, and tool pages. Logs are checked
as formatted, tracebacks included.
"""

from __future__ import annotations

import json
import logging
import os
import secrets
import warnings
from pathlib import Path

import pytest

from truncation_core import Truncator
from truncation_core.errors import TruncationCoreError
from truncation_core.storage import fsio

from .test_store_disk_full import FaultyOS


def test_canary_never_leaks(root_path: Path, caplog: pytest.LogCaptureFixture,
                            monkeypatch: pytest.MonkeyPatch) -> None:
    canary = "CANARY-" + secrets.token_hex(8)
    name_canary = "canary_" + secrets.token_hex(8)  # an identifier: a plausible argument name
    caplog.set_level(logging.DEBUG, logger="truncation_core")
    t = Truncator({"inline_limit": 400, "max_artifact_size": 4000,
                   "store": {"root": str(root_path)}}, load_entrypoints=False)
    content = "".join(f"line {i} {canary}\n" for i in range(2000))
    seen: list[str] = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = t.process(content, tool="execute_command")
        ref = result.artifact
        assert ref is not None
        seen += [repr(result), repr(ref), repr(result.metadata), repr(t.store), repr(t)]
        # The content is where it belongs: the output and the pages read back.
        assert canary in result.content
        assert canary in t.call_tool("artifact_head", {"artifact_id": ref.id}).content
        for name, args in (("get_artifact", {"artifact_id": ref.id}),
                           ("artifact_grep", {"artifact_id": ref.id, "pattern": canary}),
                           ("artifact_grep", {"artifact_id": ref.id, "pattern": canary + "(",
                                              "regex": True}),
                           ("artifact_grep", {"artifact_id": ref.id, "pattern": canary + "{99999}",
                                              "regex": True}),
                           ("artifact_grep", {"artifact_id": ref.id,
                                              "pattern": rf"\p{{{name_canary}}}", "regex": True}),
                           ("get_artifact", {"artifact_id": canary}),
                           ("get_artifact", {"artifact_id": ref.id, canary: 1}),
                           ("get_artifact", {"artifact_id": ref.id, name_canary: 1}),
                           (name_canary, {"artifact_id": ref.id}),
                           ("artifact_tail", {"artifact_id": ref.id, "lines": canary})):
            call = t.call_tool(name, args)
            seen.append(repr(call))
            sent_names = {name, *args} - {"get_artifact", "artifact_grep", "artifact_tail",
                                           "artifact_id", "pattern", "regex", "lines"}
            if call.error is not None and sent_names:
                # An unknown tool or argument name is what the model sent wrong: the answer
                # (to the model, never a log) names it, escaped and capped.
                [sent] = sent_names
                assert json.dumps(sent[:40]) in call.error.message
                assert json.dumps(sent[:40]) in call.content
            elif call.error is not None:
                seen.append(call.error.message)
        # Values returned by retrieval: their reprs leave the content out.
        seen += [repr(t.artifacts.lines(ref.id, 1, 3)), repr(t.artifacts.tail(ref.id, 2)),
                 repr(t.artifacts.grep(ref.id, canary, context=1))]
        # An unexpected failure whose message quotes content: a 500, logged without it.
        with monkeypatch.context() as m:
            m.setattr(type(t.artifacts), "stat", lambda *a, **k: _raise(RuntimeError(canary)))
            crashed = t.call_tool("artifact_tail", {"artifact_id": ref.id})
        assert crashed.error is not None and crashed.error.code == 500
        seen.append(crashed.content)
        errors: list[BaseException] = []
        for operation in (lambda: t.artifacts.stat(canary), lambda: t.artifacts.read(canary),
                          lambda: t.artifacts.grep(ref.id, canary + "[", regex=True),
                          lambda: t.session(canary)):
            try:
                operation()
            except TruncationCoreError as exc:
                errors.append(exc)
        # A refused file (a symlink planted over the artifact) and a full disk.
        path = root_path / t.store.session_id / f"{ref.id}.txt"
        os.replace(path, root_path / "moved")
        os.symlink(root_path / "moved", path)
        try:
            t.artifacts.read(ref.id)
        except TruncationCoreError as exc:
            errors.append(exc)
        monkeypatch.setattr(fsio, "os", FaultyOS(1, persistent=True))
        degraded = t.process(content, tool="read_file")
        monkeypatch.setattr(fsio, "os", os)
        seen += [repr(degraded), degraded.metadata.to_json()]
    assert len(errors) == 5
    seen += [str(e) for e in errors] + [repr(e) for e in errors]
    seen += [str(w.message) for w in caught]
    seen += [r.getMessage() for r in caplog.records] + [repr(r.args) for r in caplog.records]
    seen.append(caplog.text)  # formatted records, tracebacks included
    leaks = [s for s in seen if canary in s or name_canary in s]
    assert leaks == []
    assert "RuntimeError" in caplog.text and "calls.py" in caplog.text  # still debuggable
    # The records do carry what operators need: ids, sizes and outcomes.
    messages = " ".join(r.getMessage() for r in caplog.records)
    assert ref.id in messages and "store full" in messages


def _raise(exc: BaseException) -> None:
    raise exc


def test_control_default_reprs_and_logged_tracebacks_carry_content(
        caplog: pytest.LogCaptureFixture) -> None:
    """Negative control: what the canary test guards against does leak by default. An attrs
    class repr shows every field, and log.exception puts the exception's message in the log."""
    import attrs

    canary = "CANARY-" + secrets.token_hex(8)

    @attrs.frozen
    class Naive:
        text: str

    assert canary in repr(Naive(canary))
    log = logging.getLogger("truncation_core.control")
    with caplog.at_level(logging.ERROR, logger="truncation_core.control"):
        try:
            raise RuntimeError(canary)
        except RuntimeError:
            log.exception("failed")
    assert canary in caplog.text
