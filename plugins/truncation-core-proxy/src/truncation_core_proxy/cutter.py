"""Cutting tool results the same way every turn, and the names of the proxy's own tools.

Agents resend the whole conversation on every turn. A tool result is identified by its call
id and the hash of its text: the first time it is seen it goes through the Truncator (which
stores the full text as an artifact), and every later time the same cut is returned from
memory, so that nothing is stored again and the bytes sent upstream stay the same (the
provider's prompt cache keeps hitting). The memory is bounded (least recently used out);
a result that falls out of it, or one a restarted proxy sees, is cut again by its tool's
policy, and the artifact the session already holds for that call and content is reused
(:mod:`truncation_core_proxy.reuse`): the same policy gives the same text, nothing is stored
again.

A tool call's id stands for its artifact (the markers say ``(tool call ID)``), but only in
the conversation that holds that call: every conversation through the proxy shares one
session, and call ids repeat across conversations (``call_1`` from a local model, or one
another local user sends on purpose), so the store's "newest artifact of that call" could be
another conversation's output. Each request gathers the handles of the cuts it holds
(:meth:`Cutter.cut`), and the model's calls resolve a call id through them only
(:meth:`Cutter.answer`); artifact ids (128 random bits) are taken as they are.

The artifact tools are offered under a reserved prefix (``trunc_get_artifact`` ...). If the
agent's own tools use one of those names, the next family is used (``trunc2_`` ...), with its
own Truncator (same store), whose markers name the tools the model can call.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections import OrderedDict
from collections.abc import Collection, Mapping, MutableMapping
from pathlib import Path
from typing import Any

import attrs

from truncation_core import Truncator
from truncation_core.config.model import Config
from truncation_core.errors import describe_untrusted
from truncation_core.tools.schemas import TOOL_NAMES
from truncation_core.types.ids import is_tool_call_id
from truncation_core.types.tool_names import ArtifactToolNames
from truncation_core_proxy.reuse import ReusedArtifacts

__all__ = ["DEFAULT_PREFIX", "Cutter", "ToolFamily"]

DEFAULT_PREFIX = "trunc_"
#: Cuts remembered (each at most a tool's inline limit, a few KB by default).
MEMO_ENTRIES = 4096
#: Families tried before giving up on offering the tools (an agent would need tools of
#: every one of these names).
_MAX_FAMILIES = 9


@attrs.frozen
class ToolFamily:
    """One set of names for the artifact tools, and the Truncator whose markers use them."""

    prefix: str
    truncator: Truncator = attrs.field(eq=False, repr=False)
    #: Own name -> the name the model sees.
    names: Mapping[str, str] = attrs.field(eq=False)

    @property
    def shown(self) -> frozenset[str]:
        return frozenset(self.names.values())

    def schemas(self, format: str) -> list[dict[str, Any]]:
        # Strict where the format's strict mode is the norm (OpenAI); Anthropic's ``strict``
        # is refused by models without structured outputs, and its schema is strict already
        # (every object closed).
        strict = format != "anthropic"
        return list(self.truncator.tool_schemas(format, strict=strict))


class Cutter:
    """Cuts tool results by their tool's policy, the same way every time they are seen."""

    def __init__(self, config: Config, *, project_root: Path | None = None,
                 prefix: str = DEFAULT_PREFIX, memo_entries: int = MEMO_ENTRIES) -> None:
        self._config = config
        self._project_root = project_root
        self._prefix = prefix
        configured = config.artifact_tools
        self._base_names = {tool: configured.name(tool) for tool in TOOL_NAMES}
        self._families: dict[str, ToolFamily] = {}
        self._families_lock = threading.Lock()
        #: (prefix, tool, call id, sha256 of the text) -> (the cut, or "" when the text
        #: stays as it is; its artifact id).
        self._memo: OrderedDict[tuple[str, str | None, str | None, bytes],
                                tuple[str, str | None]] = OrderedDict()
        self._memo_entries = memo_entries
        self._memo_lock = threading.Lock()
        self._key_locks: dict[tuple[str, str | None, str | None, bytes], threading.Lock] = {}
        self._reused = ReusedArtifacts()
        self.default = self._family(prefix)

    @property
    def store(self) -> Any:
        return self.default.truncator.store

    @property
    def truncator(self) -> Truncator:
        return self.default.truncator

    def family_for(self, taken: Collection[str]) -> ToolFamily | None:
        """The family whose names none of *taken* (the agent's tool names) uses; None if
        every family's are taken."""
        if not taken or self.default.shown.isdisjoint(taken):
            return self.default
        for n in range(2, _MAX_FAMILIES + 1):
            prefix = f"{self._prefix.rstrip('_')}{n}_" if self._prefix else f"trunc{n}_"
            family = self._family(prefix)
            if family.shown.isdisjoint(taken):
                return family
        return None

    def _family(self, prefix: str) -> ToolFamily:
        family = self._families.get(prefix)
        if family is not None:
            return family
        with self._families_lock:
            family = self._families.get(prefix)
            if family is None:
                names = {tool: prefix + name for tool, name in self._base_names.items()}
                config = attrs.evolve(self._config,
                                      artifact_tools=ArtifactToolNames(names=names))
                store = self._families[self._prefix].truncator.store if self._families else None
                truncator = Truncator(config, project_root=self._project_root, store=store,
                                      plugins=[self._reused])
                family = ToolFamily(prefix, truncator, names)
                self._families[prefix] = family
        return family

    def cut(self, family: ToolFamily, text: str, *, tool: str | None,
            call_id: str | None, handles: MutableMapping[str, str] | None = None
            ) -> str | None:
        """What the model sees of *text* (a tool result of *tool*, call *call_id*): the cut,
        or None when it is within its limits. Never raises on content. *handles* (the
        request's) gets ``call_id -> artifact id`` when the cut keeps an artifact."""
        truncator = family.truncator
        policy = truncator.policy(tool)
        if (len(text) <= policy.inline_limit and policy.max_bytes is None
                and policy.max_lines is None and policy.max_tokens is None):
            return None  # within its only limit: nothing to look up
        digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()
        key = (family.prefix, tool, call_id, digest)
        with self._memo_lock:
            found = self._memo.get(key)
            if found is not None:
                self._memo.move_to_end(key)
            else:
                lock = self._key_locks.setdefault(key, threading.Lock())
        if found is None:
            with lock:  # the same new result in two requests at once is cut and stored once
                with self._memo_lock:
                    found = self._memo.get(key)
                if found is None:
                    result = truncator.process(text, tool=tool, tool_call_id=call_id)
                    found = (result.content if result.content != text else "",
                             result.metadata.artifact_id)
                    with self._memo_lock:
                        self._memo[key] = found
                        while len(self._memo) > self._memo_entries:
                            self._memo.popitem(last=False)
                        self._key_locks.pop(key, None)
        content, artifact_id = found
        if handles is not None and call_id is not None and artifact_id is not None:
            handles[call_id] = artifact_id
        return content or None

    def answer(self, family: ToolFamily, name: str, arguments: object,
               handles: Mapping[str, str] | None = None) -> tuple[str, bool]:
        """Run the model's call of an artifact tool: its text, and whether it is an error.
        A tool call id given as ``artifact_id`` stands for the artifact *handles* (the
        request's) names for it, and for nothing else."""
        arguments, refused = _scoped(arguments, handles or {})
        if refused is not None:
            return refused, True
        result = family.truncator.call_tool(name, arguments)  # type: ignore[arg-type]
        return result.content, result.is_error


def _scoped(arguments: object, handles: Mapping[str, str]) -> tuple[object, str | None]:
    """*arguments* with a tool call id in ``artifact_id`` replaced by the artifact the
    request's *handles* name for it; or an error message when they name none. Anything
    else goes as it came (``call_tool`` checks it)."""
    parsed = arguments
    if isinstance(arguments, str):
        try:
            parsed = json.loads(arguments)
        except (ValueError, RecursionError):
            return arguments, None
    if not isinstance(parsed, dict):
        return arguments, None
    handle = parsed.get("artifact_id")
    if isinstance(handle, int) and not isinstance(handle, bool):
        handle = str(handle)  # a call id of digits, sent as a number
    elif not is_tool_call_id(handle):
        return arguments, None
    assert isinstance(handle, str)
    if handle in handles:
        return {**parsed, "artifact_id": handles[handle]}, None
    return parsed, (
        "Error 404 (not found): no tool result cut in this conversation has the tool call "
        f"id given ({describe_untrusted(handle)}); give the artifact id (art_...) its "
        "marker names")
