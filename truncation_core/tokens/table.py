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
``{"format": 1, "encodings": {name: {"ascii": N, "no_alnum": N, "all": N, "tokens": k}}}``,
then, for each encoding in header order, ``k`` records of (rank increase as a LEB128 varint,
token length as one byte, token bytes), in rank order.
"""

from __future__ import annotations

import json
import lzma
from collections.abc import Iterable, Mapping
from importlib import resources
from typing import Any

import attrs

__all__ = ["TABLE_FILE", "RankTable", "build_table", "load_tables", "token_class"]

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


def select(ranks: Mapping[bytes, int], ascii_limit: int, no_alnum_limit: int,
           all_limit: int) -> dict[bytes, int]:
    """The tokens of *ranks* that the three sets need, with their ranks."""
    keep: dict[bytes, int] = {}
    for token, rank in ranks.items():
        cls = token_class(token)
        if (
            rank < all_limit
            or (cls == "ascii" and rank < ascii_limit)
            or (cls == "no_alnum" and rank < no_alnum_limit)
        ):
            keep[token] = rank
    return keep


def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        if n:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def build_table(encodings: Iterable[tuple[str, Mapping[bytes, int], dict[str, int]]]) -> bytes:
    """The compressed table file for ``(name, full ranks, {"ascii": N, ...})`` triples."""
    header: dict[str, Any] = {"format": FORMAT, "encodings": {}}
    body = bytearray()
    for name, ranks, limits in encodings:
        keep = select(ranks, limits["ascii"], limits["no_alnum"], limits["all"])
        header["encodings"][name] = {**limits, "tokens": len(keep)}
        previous = 0
        for token, rank in sorted(keep.items(), key=lambda item: item[1]):
            if len(token) > 255:
                raise ValueError(f"token of {len(token)} bytes in {name}: too long for the format")
            body += _varint(rank - previous)
            body.append(len(token))
            body += token
            previous = rank
    data = json.dumps(header, sort_keys=True).encode() + b"\n" + bytes(body)
    return lzma.compress(data, preset=9 | lzma.PRESET_EXTREME)


def parse_table(blob: bytes) -> dict[str, RankTable]:
    """The rank tables in a table file's bytes."""
    data = lzma.decompress(blob)
    end = data.index(b"\n")
    header = json.loads(data[:end])
    if header.get("format") != FORMAT:
        raise ValueError(f"token table format {header.get('format')!r}, expected {FORMAT}")
    pos = end + 1
    tables: dict[str, RankTable] = {}
    for name, info in header["encodings"].items():
        ascii_limit, no_alnum_limit, all_limit = info["ascii"], info["no_alnum"], info["all"]
        sets: dict[str, dict[bytes, int]] = {"ascii": {}, "no_alnum": {}, "all": {}}
        rank = 0
        for _ in range(info["tokens"]):
            shift = 0
            while True:
                byte = data[pos]
                pos += 1
                rank += (byte & 0x7F) << shift
                shift += 7
                if not byte & 0x80:
                    break
            size = data[pos]
            token = data[pos + 1 : pos + 1 + size]
            pos += 1 + size
            if rank < all_limit:
                sets["all"][token] = rank
            cls = token_class(token)
            if cls == "ascii" and rank < ascii_limit:
                sets["ascii"][token] = rank
            elif cls == "no_alnum" and rank < no_alnum_limit:
                sets["no_alnum"][token] = rank
        tables[name] = RankTable(
            name=name,
            ascii_limit=ascii_limit,
            no_alnum_limit=no_alnum_limit,
            all_limit=all_limit,
            ascii=sets["ascii"],
            no_alnum=sets["no_alnum"],
            all=sets["all"],
        )
    return tables


def load_tables() -> dict[str, RankTable]:
    """The rank tables shipped with truncation-core (read once per process by the caller)."""
    blob = resources.files("truncation_core.tokens").joinpath(TABLE_FILE).read_bytes()
    return parse_table(blob)
