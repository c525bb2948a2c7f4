"""The rank table behind the ``estimate`` tokenizer: part of two vocabularies, and why it is safe.

Byte-pair encoding (as tiktoken runs it) repeatedly merges the adjacent pair of parts whose
concatenation has the lowest rank in the vocabulary, and stops when no adjacent pair is in the
vocabulary. Run the same loop with only the tokens of rank below some ``N``: it makes the same
merges, in the same order, until the lowest available rank is ``N`` or more, and then stops
early, where the real loop would go on merging. Each merge removes one part, so the count it
returns is never below the real count. That is an upper bound that holds for every input, not
only on average.

A piece can only ever be merged into tokens that are substrings of it. So the table need not
hold every token of rank below one ``N``; it holds, for each encoding, three complete sets:

* ``ascii``: every all-ASCII token of rank below ``N_ascii``, used for all-ASCII pieces;
* ``no_alnum``: every token with no ASCII letter or digit byte, of rank below ``N_no_alnum``,
  used for pieces without ASCII letters or digits (CJK runs, Cyrillic words, symbols);
* ``all``: every token of rank below ``N_all``, used for every other piece.

Completeness is what makes the bound hold, and the tests check it against the full
vocabularies. The thresholds trade the table's size for how close the bound is; see
docs/tokens.md for the measured distribution. ``bench/build_token_table.py`` writes the file.

File format (``estimate_ranks.bin``, LZMA-compressed): one JSON header line
``{"format": 1, "encodings": {name: {"ascii": N, "no_alnum": N, "all": N, "sections":
{"ascii": k, "no_alnum": k, "all": k}}}}``, then, for each encoding and each of its three
sections in that order: ``k`` token lengths (one byte each), ``k`` ranks (uint32,
little-endian), and the ``k`` tokens' bytes, in rank order. The ``all`` section lists only
non-ASCII tokens: its ASCII ones are those of ``ascii`` below the ``all`` limit.
"""

from __future__ import annotations

import json
import lzma
import sys
from array import array
from collections.abc import Iterable, Mapping
from importlib import resources
from itertools import accumulate, pairwise
from typing import Any

import attrs

__all__ = ["TABLE_FILE", "RankTable", "build_table", "load_tables", "parse_table", "token_class"]

TABLE_FILE = "estimate_ranks.bin"
FORMAT = 1
_ALNUM = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")


def token_class(token: bytes) -> str:
    """``"ascii"``, ``"no_alnum"`` or ``"other"``: which table a piece of these bytes uses."""
    if token.isascii():
        return "ascii"
    if _ALNUM.isdisjoint(token):
        return "no_alnum"
    return "other"


@attrs.frozen(kw_only=True)
class RankTable:
    """The three rank sets of one encoding (see the module docstring)."""

    name: str
    ascii_limit: int
    no_alnum_limit: int
    all_limit: int
    ascii: Mapping[bytes, int]
    no_alnum: Mapping[bytes, int]
    all: Mapping[bytes, int]


def build_table(encodings: Iterable[tuple[str, Mapping[bytes, int], dict[str, int]]]) -> bytes:
    """The compressed table file for ``(name, full ranks, {"ascii": N, ...})`` triples."""
    header: dict[str, Any] = {"format": FORMAT, "encodings": {}}
    body = bytearray()
    for name, ranks, limits in encodings:
        if limits["all"] > limits["ascii"]:
            raise ValueError(f"{name}: the 'all' limit must not exceed the 'ascii' limit")
        sections = {}
        for key in _SECTIONS:
            chosen = sorted(
                (rank, token)
                for token, rank in ranks.items()
                if _in_section(key, token, rank, limits)
            )
            if any(len(token) > 255 for _, token in chosen):
                raise ValueError(f"a token of {name} is over 255 bytes: too long for the format")
            sections[key] = len(chosen)
            body += bytes(len(token) for _, token in chosen)
            body += array("I", [rank for rank, _ in chosen]).tobytes()
            body += b"".join(token for _, token in chosen)
        header["encodings"][name] = {**limits, "sections": sections}
    data = json.dumps(header, sort_keys=True).encode() + b"\n" + bytes(body)
    return lzma.compress(data, preset=9 | lzma.PRESET_EXTREME)


_SECTIONS = ("ascii", "no_alnum", "all")


def _in_section(key: str, token: bytes, rank: int, limits: Mapping[str, int]) -> bool:
    if rank >= limits[key]:
        return False
    if key == "ascii":
        return token.isascii()
    if key == "no_alnum":
        return _ALNUM.isdisjoint(token)
    # The ASCII tokens of the "all" set are those of the "ascii" set below its limit.
    return not token.isascii()


def parse_table(blob: bytes) -> dict[str, RankTable]:
    """The rank tables in a table file's bytes."""
    data = lzma.decompress(blob)
    end = data.index(b"\n")
    header = json.loads(data[:end])
    if header.get("format") != FORMAT:
        raise ValueError(f"token table format {header.get('format')!r}, expected {FORMAT}")
    if sys.byteorder != "little":  # the ranks are stored little-endian
        raise NotImplementedError("the token table is read on little-endian machines only")
    pos = end + 1
    tables: dict[str, RankTable] = {}
    for name, info in header["encodings"].items():
        sets: dict[str, dict[bytes, int]] = {}
        for key in _SECTIONS:
            k = info["sections"][key]
            lengths = data[pos : pos + k]
            pos += k
            ranks = array("I")
            ranks.frombytes(data[pos : pos + 4 * k])
            pos += 4 * k
            offsets = [pos, *accumulate(lengths, initial=pos)][1:]
            tokens = [data[a:b] for a, b in pairwise(offsets)]
            pos = offsets[-1]
            sets[key] = dict(zip(tokens, ranks, strict=True))
        limit = info["all"]
        sets["all"].update((t, r) for t, r in sets["ascii"].items() if r < limit)
        tables[name] = RankTable(
            name=name,
            ascii_limit=info["ascii"],
            no_alnum_limit=info["no_alnum"],
            all_limit=info["all"],
            ascii=sets["ascii"],
            no_alnum=sets["no_alnum"],
            all=sets["all"],
        )
    return tables


def load_tables() -> dict[str, RankTable]:
    """The rank tables shipped with truncation-core (read once per process by the caller)."""
    blob = resources.files("truncation_core.tokens").joinpath(TABLE_FILE).read_bytes()
    return parse_table(blob)
