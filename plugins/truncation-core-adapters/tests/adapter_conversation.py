"""The conversation every adapter test runs (each test file imports this), with the
framework's own test model standing in for the LLM: the model calls a tool whose output is
1 MB, reads the cut result, follows its hint with strict-mode calls of the artifact tool
(every property sent, null for not given), and pages until it has the omitted lines, which
must equal the original's byte for byte."""

from __future__ import annotations

import json
import re
from typing import Any

#: About 1 MB of build log: numbered lines, one failure in the middle.
BIG_LINES = [f"{i:06d} compiling module_{i % 97:02d}.c -O2 -Wall -Wextra -fPIC ... ok" + (
    " [slow]" if i % 13 == 0 else "") for i in range(1, 17_001)]
BIG_LINES[8500] = "008501 error: undefined reference to `frobnicate' (module_17.c:42)"
BIG_OUTPUT = "\n".join(BIG_LINES) + "\n"
assert 1_000_000 <= len(BIG_OUTPUT.encode()) <= 1_200_000

_HINT = re.compile(r'(\w+)\(artifact_id="(art_[0-9]+_[0-9a-f]{32})", start_line=(\d+), '
                   r'end_line=(\d+)\)')
_FOOTER = re.compile(r"^\[(?:Next page|Line [\d,]+ continues): (\w+)\((.*)\)\]$")
_ROW = re.compile(r"\s*(\d+)\t(.*)", re.S)


class Reader:
    """What the scripted model does: reads a cut result's hint, then pages the artifact."""

    def __init__(self, tool_name: str = "get_artifact") -> None:
        self.tool_name = tool_name
        self.first_line = self.last_line = 0
        self.rows: dict[int, str] = {}
        self.calls: list[dict[str, Any]] = []

    def after_cut(self, content: str) -> dict[str, Any]:
        """The strict-mode arguments of the first artifact-tool call, from the marker's
        hint (the last one: the reference above the preview names lines 1-100)."""
        hints = _HINT.findall(content)
        assert hints, "the cut result has no hint to follow"
        name, artifact_id, start, end = hints[-1]
        assert name == self.tool_name, (name, self.tool_name)
        self.first_line, self.last_line = int(start), int(end)
        return self._call({"artifact_id": artifact_id, "start_line": int(start),
                           "end_line": int(end), "offset": None})

    def after_page(self, content: str) -> dict[str, Any] | None:
        """Keep the page's lines; the next call, or None when the lines asked for are in."""
        lines = content.split("\n")
        for line in lines[1:-1]:
            match = _ROW.fullmatch(line)
            if match:
                number = int(match.group(1))
                self.rows[number] = self.rows.get(number, "") + match.group(2)
        footer = _FOOTER.match(lines[-1])
        if footer is None:
            return None
        assert footer.group(1) == self.tool_name
        args = {key: json.loads(value) for key, value in
                (pair.split("=", 1) for pair in footer.group(2).split(", "))}
        return self._call({"artifact_id": args["artifact_id"],
                           "start_line": args.get("start_line"),
                           "end_line": args.get("end_line"), "offset": args.get("offset")})

    def _call(self, arguments: dict[str, Any]) -> dict[str, Any]:
        self.calls.append(arguments)
        assert len(self.calls) < 200, "paging does not end"
        return arguments

    def check(self) -> None:
        """The omitted lines came back, byte for byte."""
        assert self.first_line > 1 and self.last_line > self.first_line
        assert sorted(self.rows) == list(range(self.first_line, self.last_line + 1))
        got = "\n".join(self.rows[n] for n in range(self.first_line, self.last_line + 1))
        want = "\n".join(BIG_LINES[self.first_line - 1:self.last_line])
        assert got.encode() == want.encode()
        assert "error: undefined reference" in got  # the failure was in what was cut


_REFERENCE = re.compile(r"^\[Artifact: (art_[0-9]+_[0-9a-f]{32})\]")
_GREP_ROW = re.compile(r"^\s*(\d+):\t(.*)$", re.M)


class Grepper:
    """What the scripted model of the newer adapters' tests does: reads the artifact id off
    the cut result's reference, searches the artifact for the failure with ``artifact_grep``,
    and must get the line back byte for byte."""

    PATTERN = "undefined reference"

    def __init__(self, tool_name: str = "artifact_grep") -> None:
        self.tool_name = tool_name
        self.artifact_id = ""
        self.found: dict[int, str] = {}

    def after_cut(self, content: str) -> dict[str, Any]:
        """The arguments of the ``artifact_grep`` call the cut result's reference suggests."""
        match = _REFERENCE.match(content)
        assert match, f"the result is not cut under a reference: {content[:200]!r}"
        assert self.tool_name in content.split("\n", 1)[0], "the reference names no grep"
        assert len(content) <= 8_000 and "8501" not in content.split("\n", 1)[0]
        self.artifact_id = match.group(1)
        return {"artifact_id": self.artifact_id, "pattern": self.PATTERN}

    def after_grep(self, content: str) -> None:
        self.found = {int(n): text for n, text in _GREP_ROW.findall(content)}

    def check(self) -> None:
        """The failure's line came back, at its line number, byte for byte."""
        assert list(self.found) == [8501], self.found
        assert self.found[8501].encode() == BIG_LINES[8500].encode()
