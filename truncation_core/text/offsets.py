"""Byte offsets of character positions: the byte half of every resume coordinate.

A cut is found in characters, but the artifact holds bytes: the tool's own bytes, or the
UTF-8 encoding (``surrogatepass``) of the text it returned. These helpers map a character
offset to the byte offset of the same point, looking only at the side of the text nearer to
it (the kept head or the kept tail), never at the whole.

Bytes that are not valid UTF-8 are shown with U+FFFD, one per *maximal subpart* of an
invalid sequence (what :meth:`bytes.decode` does with ``errors="replace"``), so one shown
character may stand for one to three original bytes. The mapping here follows the decoder, so
offsets always refer to the original bytes.
"""

from __future__ import annotations

import codecs
from collections.abc import Callable

from truncation_core.text.measure import utf8_size

__all__ = ["decode_suffix", "prefix_bytes", "raw_locator", "sync_point", "text_locator"]

_utf8_decode = codecs.utf_8_decode
_ENCODING_ERRORS = "surrogatepass"


def _is_continuation(byte: int) -> bool:
    return 0x80 <= byte < 0xC0


def sync_point(data: bytes | bytearray | memoryview, start: int = 0) -> int:
    """The first position at or after *start* where the UTF-8 decoder of the whole is
    between two characters, whatever the bytes before *start* were.

    A byte that is not a continuation byte always starts a new character (the decoder
    never swallows one into a broken sequence). After three continuation bytes in a row, a
    fourth cannot belong to the same sequence either. So the point is at most 3 bytes on.
    """
    end = len(data)
    run = 0
    i = start
    while i < end:
        if not _is_continuation(data[i]) or run >= 3:
            return i
        run += 1
        i += 1
    return end


def prefix_bytes(data: bytes | bytearray | memoryview, chars: int) -> int:
    """How many bytes at the start of *data* decode (``replace``) to its first *chars* characters.

    *data* must start at a character boundary and decode to at least *chars* characters.
    """
    if chars <= 0:
        return 0
    window = bytes(data[: 4 * chars + 4])
    # A part of the data decodes like the whole, except that it stops before a sequence the
    # bytes after it could still complete. Only at the very end of the data is such a
    # sequence known to be broken, and shown as U+FFFD (one or more: b"\xed\xa0" is two).
    at_end = len(window) == len(data)
    text, consumed = _utf8_decode(window, "replace", at_end)
    if len(text) >= chars and "\ufffd" not in text[:chars]:
        # Valid UTF-8 up to there: re-encoding gives the original bytes back.
        return len(text[:chars].encode("utf-8", _ENCODING_ERRORS))
    # Replacement characters stand for 1..3 bytes each: find the smallest prefix that
    # decodes to at least `chars` characters. One more byte adds at most two characters
    # (U+FFFD for a pending broken sequence, then the byte itself), or, at the very end, the
    # U+FFFD of broken bytes of one each; either way the characters past `chars` are one
    # byte each.
    lo, hi = chars, len(window)
    while lo < hi:
        mid = (lo + hi) // 2
        if len(_utf8_decode(window[:mid], "replace", at_end and mid == len(window))[0]) >= chars:
            hi = mid
        else:
            lo = mid + 1
    text, consumed = _utf8_decode(window[:lo], "replace", at_end and lo == len(window))
    return consumed - (len(text) - chars)


def decode_suffix(data: bytes | bytearray | memoryview, *, is_start: bool) -> tuple[str, int]:
    """Decode the last bytes of a stream: ``(text, skipped)``.

    Unless *data* starts at the beginning of the stream (*is_start*), decoding starts at
    the first :func:`sync_point`, ``skipped`` bytes in, so the text is exactly the tail of
    what decoding the whole stream gives.
    """
    skip = 0 if is_start else sync_point(data)
    return bytes(data[skip:]).decode("utf-8", "replace"), skip


def raw_locator(head: bytes | bytearray, tail: bytes | bytearray, *, total_chars: int,
                total_bytes: int, tail_is_start: bool) -> Callable[[int], int]:
    """A char -> byte offset map for bytes of which the first (*head*) and the last (*tail*)
    are at hand (both may be the whole content). Offsets in the first half are found by
    decoding from the start, the others by decoding from the end: a cut lies near one edge,
    so only a budget-sized part is ever decoded."""

    def locate(char_offset: int) -> int:
        if char_offset <= 0:
            return 0
        if char_offset >= total_chars:
            return total_bytes
        if char_offset <= total_chars - char_offset:
            return prefix_bytes(head, char_offset)
        from_tail = total_chars - char_offset
        # Every character is at most 4 bytes: this much of the end holds them all.
        reach = 4 * from_tail + 8
        part, is_start = (tail, tail_is_start) if len(tail) <= reach else (
            memoryview(tail)[len(tail) - reach:], False)
        text, skip = decode_suffix(part, is_start=is_start)
        kept = len(part) - skip - prefix_bytes(memoryview(part)[skip:], len(text) - from_tail)
        return total_bytes - kept

    return locate


def text_locator(text: object, total_bytes: Callable[[], int]) -> Callable[[int], int]:
    """A char -> byte offset map for a ``str`` (or a stream's text windows) whose bytes are
    its UTF-8 encoding. Near the end, the offset is the total minus the tail's size, so
    only the nearer side is ever encoded."""
    def locate(char_offset: int) -> int:
        n = len(text)  # type: ignore[arg-type]
        if text.isascii():  # type: ignore[attr-defined]
            return char_offset
        if char_offset <= n - char_offset:
            return utf8_size(text[:char_offset])  # type: ignore[index]
        return total_bytes() - utf8_size(text[char_offset:])  # type: ignore[index]

    return locate
