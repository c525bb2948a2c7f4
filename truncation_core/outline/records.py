"""The index of record-like output: search hits by file, a listing by directory, a diff by
file, a log by commit.

A command that prints records (``grep -rn``, ``rg``, ``find``, ``git status``, ``git diff``,
``git log``) prints them grouped: every hit of a file together, every entry of a
directory, every line of a commit under its header. Each group is a section: its first line
is where the index sends the model, so that one ``get_artifact`` call reads any file's hits,
any directory's entries, any commit.

A line's **key** says which group it belongs to, from its structure alone:

* a header: ``diff --git a/<path> b/...`` (the file), ``commit <hash>`` (the commit), a
  listing's ``<directory>:`` (``ls -R``); the lines under it, whatever they hold, are its;
* a search hit: ``<path>:<line>:``, ``<path>-<line>-`` (a context line) or ``<path>:`` before
  the matched text, where ``<path>`` has no space and holds a ``/``, a ``\\`` or a ``.``
  (Windows drive letters included): the file;
* a path ending a line (``find``, ``rg --files``, ``git status --short``'s ``?? dir/file``):
  its directory.

A line with no key (a blank line, ``--`` between groups of context, a commit's message, a
diff's body) belongs to the group above it. Output is record-like when keyed lines make at
least :data:`MIN_KEYED` of its non-blank lines over at least two keys, or when it has at
least two headers; its sections are the runs of lines of one key.

Why not a table of command formats: the index reads the shape of the lines (a path before a
colon and a number), not the command, which the library does not see.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Literal

__all__ = ["MIN_KEYED", "KeyKind", "record_key", "records"]

#: The share of non-blank lines that must carry a key for output to be record-like.
MIN_KEYED = 0.5
#: Lines looked at, at most, to decide whether output is record-like at all (the rest is
#: keyed only once it is).
_SAMPLE = 200

_DIFF = re.compile(r"diff --git a/(\S+) b/")
_COMMIT = re.compile(r"commit ([0-9a-f]{7,64})\b")
#: A diff's hunk header, with the context the diff tool found for it (a function's line).
_HUNK = re.compile(r"@@ -\d+(?:,\d+)? \+\d+(?:,\d+)? @@ ?(.*)")
#: A path: no space, no markup or quoting (``</tag>``, ``{{x}}/``, ``"a/b"`` are not
#: paths), a separator or a dot somewhere (Windows drive letters included).
_PATH_CHARS = r"[\w.\-~@+%,=$#/\\]"
_PATH = rf"(?:[A-Za-z]:)?{_PATH_CHARS}*[/\\.]{_PATH_CHARS}*"
_WHOLE_PATH = re.compile(rf"{_PATH}")
#: A line ending with a path has at most this many fields (``?? dir/file`` of ``git status
#: --short``, a ``find`` line); a longer line (a process table) is no listing.
_PATH_FIELDS = 3
#: ``path:12:``, ``path-12-`` (a context line), ``path:`` followed by text.
_HIT = re.compile(rf"({_PATH}?)(?::\d+[:-]|-\d+-|:(?=\S|\s+\S))")
#: A listing's header: ``./dir:`` alone on its line.
_DIRECTORY = re.compile(rf"({_PATH}):\s*$")
#: A key is looked for in a line's first this many characters only, and a header or a path
#: that ends a line is no longer than this. The patterns above backtrack in time quadratic
#: in a run of path characters (``{_PATH_CHARS}*[/\.]{_PATH_CHARS}*`` splits it every way):
#: two 40,000-character lines of ``src/a.b/`` held ``process()`` for 13 s. Real paths and
#: headers are far shorter (a hit's ``path:12:`` starts its line).
_KEY_CHARS = 512
_SEPARATORS = "/\\"


def _has_separator(path: str) -> bool:
    return "/" in path or "\\" in path


def _directory(path: str) -> str:
    stripped = path.rstrip(_SEPARATORS)
    cut = max(stripped.rfind("/"), stripped.rfind("\\"))
    return stripped[:cut + 1] if cut >= 0 else stripped


#: What a key is: a header's (a file of a diff, a commit, a listed directory), a search
#: hit's file, or the directory of a path that ends a line.
KeyKind = Literal["header", "hit", "path"]


def record_key(line: str) -> tuple[str, KeyKind] | None:
    """The group *line* belongs to, and what kind of key that is (a header starts a group
    of its own, whatever the key); None for a line with no key."""
    if line.startswith("diff --git "):
        found = _DIFF.match(line)
        if found:
            return found.group(1), "header"
    if line.startswith("commit "):
        found = _COMMIT.match(line)
        if found:
            return found.group(1), "header"
    stripped = line.strip()
    if not stripped:
        return None
    found = _DIRECTORY.match(stripped) if len(stripped) <= _KEY_CHARS else None
    if found and _has_separator(found.group(1)):
        return found.group(1), "header"
    found = _HIT.match(line, 0, _KEY_CHARS)
    if found and found.group(1) and not line[:1].isspace():
        path = found.group(1)
        # A hit's path has a separator or an extension; a URL's scheme ("https:") is none.
        if (_has_separator(path) or "." in path.lstrip(".")) and not line.startswith(
                ("http:", "https:")):
            return path, "hit"
    fields = stripped.split(None, _PATH_FIELDS)
    last = fields[-1]
    if (len(fields) <= _PATH_FIELDS and len(last) <= _KEY_CHARS and _has_separator(last)
            and _WHOLE_PATH.fullmatch(last) and any(c.isalnum() for c in last)):
        return _directory(last), "path"
    return None


def _shape(lines: Sequence[str]) -> str | None:
    """``headers`` when *lines* (a sample) have at least two headers, ``keys`` when keyed
    lines make :data:`MIN_KEYED` of them over two keys or more, else None."""
    keyed = headers = blank = 0
    keys: set[str] = set()
    for line in lines:
        if not line.strip():
            blank += 1
            continue
        found = record_key(line)
        if found is None:
            continue
        keys.add(found[0])
        if found[1] == "header":
            headers += 1
        else:
            keyed += 1
    if headers >= 2:
        return "headers"
    if len(keys) >= 2 and keyed >= MIN_KEYED * (len(lines) - blank):
        return "keys"
    return None


#: A commit's hash is shown this long in its title (as ``git log --oneline`` abbreviates).
_SHORT_HASH = 10
#: Lines under a commit's header looked at for its subject (after Author, Date, a blank).
_SUBJECT_WITHIN = 6


def _header_title(bodies: Sequence[str], index: int, key: str) -> str:
    """The title of a header's section: a diff's file, a commit's short hash and subject
    (its message's first line), a directory's line."""
    line = bodies[index]
    if line.startswith("diff --git "):
        return f"diff {key}"
    if line.startswith("commit "):
        for below in bodies[index + 1:index + 1 + _SUBJECT_WITHIN]:
            if below.startswith("    ") and below.strip():
                return f"commit {key[:_SHORT_HASH]} {below.strip()}"
        return f"commit {key[:_SHORT_HASH]}"
    return line.strip()


def _top(key: str, prefix: int) -> str:
    """The part of *key* up to its first separator after *prefix* characters (the
    top-level directory under the keys' common prefix), or the whole key."""
    seps = [i for i in (key.find("/", prefix), key.find("\\", prefix)) if i >= 0]
    return key[:min(seps) + 1] if seps else key


def _common_prefix(keys: list[str]) -> int:
    """Characters of the longest common prefix of *keys* that ends with a separator."""
    if not keys:
        return 0
    first, last = min(keys), max(keys)
    shared = 0
    for a, b in zip(first, last, strict=False):
        if a != b:
            break
        shared += 1
    cut = max(first.rfind("/", 0, shared), first.rfind("\\", 0, shared))
    return cut + 1


def records(bodies: Sequence[str]) -> list[tuple[int, int, str]]:
    """The sections of record-like output whose lines are *bodies*: (0-based line index,
    depth, title) of each group's first line, titled by a search hit's file, a diff's
    file, a commit's short hash and subject, or the line itself (a listed path, a
    directory's header); empty when the output is not record-like.

    Under headers (a diff, a log of commits), only a header starts a section (and a diff's
    hunk one of depth 2, named by the context its header gives, the function it changes):
    what a diff's lines or a commit's message hold is theirs. Otherwise the groups nest by
    directory: where the top-level directory under the keys' common prefix changes, a
    section of depth 1 starts; where only a search hit's file changes, one of depth 2 (an
    outline lists the outer ones first). A listing's deeper directories get none: its lines
    are the paths already, and every directory in the index would repeat them."""
    n = len(bodies)
    if n < 2:
        return []
    sample = bodies if n <= 2 * _SAMPLE else [*bodies[:_SAMPLE], *bodies[n - _SAMPLE:]]
    shape = _shape(sample)
    if shape is None:
        return []
    keyed = [(index, found) for index, line in enumerate(bodies)
             if (found := record_key(line)) is not None]
    if shape == "headers":
        sections = [(index, 1, _header_title(bodies, index, key)) for index, (key, kind)
                    in keyed if kind == "header"]
        if len(sections) < 2:
            return []
        # A diff's hunks, each named by its context (the function it changes).
        hunks = [(index, 2, (hunk.group(1).strip() or bodies[index].strip()))
                 for index, line in enumerate(bodies)
                 if line.startswith("@@ ") and (hunk := _HUNK.match(line))]
        return sorted(sections + hunks) if hunks else sections
    prefix = _common_prefix(sorted({key for _, (key, _) in keyed}))
    sections = []
    current = outer = None
    for index, (key, kind) in keyed:
        top = _top(key, prefix)
        if kind == "header" or top != outer:
            # A listed path is its own title; a hit is named by its file.
            sections.append((index, 1, key if kind == "hit" else
                             _header_title(bodies, index, key)))
        elif key != current and kind == "hit":
            sections.append((index, 2, key))
        current, outer = key, top
    return sections if len(sections) >= 2 else []
