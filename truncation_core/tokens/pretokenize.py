"""How cl100k_base and o200k_base split text into pieces before byte-pair merging.

A byte-level BPE tokenizer first cuts the text with a regular expression into *pieces*
(letter runs with an optional leading space or symbol, runs of at most three digits,
punctuation runs, whitespace runs), then merges the UTF-8 bytes of each piece on its own.
A text's token count is therefore the sum of its pieces' counts, and a piece's count depends
only on the piece: that is what lets :mod:`truncation_core.tokens.estimate` count piece by
piece, with a cache.

The patterns are OpenAI's, verbatim. Pure-ASCII text, the common case, is split with
equivalent patterns for the standard :mod:`re` module (several times faster than
:mod:`regex`), in which a letter is ``[A-Za-z]``, a digit ``[0-9]`` and whitespace one of
``\\t\\n\\v\\f\\r`` and space: the Unicode ``White_Space`` characters below 128 (``\\x1c`` to
``\\x1f`` are not, although ``str.isspace`` says they are). The tests check that both give
the same pieces on any ASCII text.
"""

from __future__ import annotations

import array
import re
import sys
from collections.abc import Callable
from functools import cache

__all__ = ["CL100K_PATTERN", "O200K_PATTERN", "newer_letters", "splitter"]

#: The cl100k_base pre-tokenizer.
CL100K_PATTERN = (
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+"""
    r"""|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""
)

#: The o200k_base pre-tokenizer.
O200K_PATTERN = "|".join(
    [
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""\p{N}{1,3}""",
        r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
        r"""\s*[\r\n]+""",
        r"""\s+(?!\S)""",
        r"""\s+""",
    ]
)

# The same patterns restricted to ASCII text. ``\Z`` replaces ``$``, which in Rust's regex (as
# in the `regex` module without MULTILINE) is the end of the text only, while ``re``'s ``$``
# also matches before a final newline. Case-insensitive groups are spelled out, so that no
# Unicode case folding applies.
_S = r"\t\n\x0b\x0c\r "
_CONTRACTION = r"(?:'[sSdDmMtT]|'[lL][lL]|'[vV][eE]|'[rR][eE])"
_ASCII_PATTERNS = {
    CL100K_PATTERN: (
        rf"""'(?:[sdmtSDMT]|[lL][lL]|[vV][eE]|[rR][eE])|[^\r\nA-Za-z0-9]?+[A-Za-z]++|[0-9]{{1,3}}+"""
        rf"""| ?[^{_S}A-Za-z0-9]++[\r\n]*+|[{_S}]++\Z|[{_S}]*[\r\n]|[{_S}]+(?![^{_S}])|[{_S}]"""
    ),
    O200K_PATTERN: (
        rf"""[^\r\nA-Za-z0-9]?[A-Z]*[a-z]+{_CONTRACTION}?|[^\r\nA-Za-z0-9]?[A-Z]+[a-z]*{_CONTRACTION}?"""
        rf"""|[0-9]{{1,3}}| ?[^{_S}A-Za-z0-9]+[\r\n/]*|[{_S}]*[\r\n]+|[{_S}]+(?![^{_S}])|[{_S}]+"""
    ),
}


@cache
def splitter(pattern: str) -> Callable[[str], list[str]]:
    """A function that cuts a text into the pieces *pattern* makes (one of the two above).

    The returned function takes text that is valid Unicode (no lone surrogates).
    """
    import regex  # the full patterns need \\p{...} classes and possessive quantifiers

    full = regex.compile(pattern).findall
    ascii_pattern = _ASCII_PATTERNS.get(pattern)
    if ascii_pattern is None:
        return full
    fast = re.compile(ascii_pattern).findall

    def split(text: str) -> list[str]:
        return fast(text) if text.isascii() else full(text)

    return split


@cache
def newer_letters() -> Callable[[str], re.Match[str] | None]:
    """A search for the characters that the `regex` module calls letters or numbers and
    Python's own Unicode tables (:mod:`unicodedata`) leave unassigned.

    `regex` releases follow new Unicode versions; tiktoken splits with the tables compiled
    into it, which may be older. Where a character is a letter to one and unassigned to the
    other, the two split a text into different pieces, and a count made piece by piece can
    fall short of the real one (``"\\U0003d000:A"``: 5 against 6 with `regex` 2026.11.19).
    Python's tables (Unicode 14.0 on 3.11) are taken as the older side. Built once, on first
    use, from every code point of the planes that hold letters (about 15 ms).
    """
    import regex

    points = array.array("I", range(0x80, 0xD800))  # no surrogates: UTF-32 refuses them
    points.extend(range(0xE000, 0x40000))
    points.extend(range(0xE0000, 0xE1000))
    everything = points.tobytes().decode("utf-32-le" if sys.byteorder == "little" else "utf-32-be")
    letters = "".join(regex.findall(r"[\p{L}\p{N}]+", everything))
    # What `re` does not call alphanumeric (str.isalnum: Python's tables) is newer.
    newer = sorted(set(re.sub(r"[^\W_]", "", letters)))
    if not newer:
        return lambda text: None
    ranges: list[str] = []
    first = last = ord(newer[0])
    for point in [*map(ord, newer[1:]), -1]:
        if point == last + 1:
            last = point
            continue
        ranges.append(f"\\U{first:08x}" if first == last else f"\\U{first:08x}-\\U{last:08x}")
        first = last = point
    return re.compile("[" + "".join(ranges) + "]").search
