"""Decoding artifact bytes to text, and cutting bytes without splitting a character.

Text is decoded with the ``truncation_core.surrogatepass_replace`` error handler: lone
surrogates that :meth:`Truncator.process <truncation_core.Truncator.process>` stored with
``surrogatepass`` come back as the same characters, and any other invalid byte becomes U+FFFD.
Nothing here raises on content.
"""

from __future__ import annotations

import codecs

__all__ = [
    "DECODE_ERRORS",
    "decode",
    "encoded_size",
    "fit_chars",
    "utf8_boundary_after",
    "utf8_boundary_before",
    "utf8_chars",
]

#: The decoding error handler: lone surrogates round-trip, other invalid bytes become U+FFFD.
DECODE_ERRORS = "truncation_core.surrogatepass_replace"
_surrogatepass = codecs.lookup_error("surrogatepass")
_CONTINUATION_BYTES = bytes(range(0x80, 0xC0))


def _surrogatepass_replace(exc: UnicodeError) -> tuple[str, int]:
    if not isinstance(exc, UnicodeDecodeError):
        raise exc
    try:
        text, end = _surrogatepass(exc)
        return str(text), end
    except UnicodeDecodeError:
        return "\ufffd", exc.end


codecs.register_error(DECODE_ERRORS, _surrogatepass_replace)


def decode(data: bytes) -> str:
    """Decode artifact bytes: UTF-8, lone surrogates kept, invalid bytes replaced."""
    return data.decode("utf-8", DECODE_ERRORS)


def encoded_size(text: str) -> int:
    """Bytes of *text* as stored (UTF-8, lone surrogates with ``surrogatepass``)."""
    return len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))


def utf8_chars(data: bytes | bytearray) -> int:
    """Characters in UTF-8 *data* (``surrogatepass`` included): the bytes that are not
    continuation bytes. Invalid sequences count one character per lead byte."""
    return len(data) if data.isascii() else len(bytes(data).translate(None, _CONTINUATION_BYTES))


def utf8_boundary_before(data: bytes | bytearray, i: int) -> int:
    """The largest ``j <= i`` such that ``data[:j]`` does not end inside a UTF-8 sequence."""
    for back in range(1, 4):
        k = i - back
        if k < 0:
            return i
        b = data[k]
        if b < 0x80:
            return i
        if b >= 0xC0:
            length = 2 if b < 0xE0 else 3 if b < 0xF0 else 4 if b < 0xF8 else 1
            return k if back < length else i
    return i  # only continuation bytes: not UTF-8 here, any cut is as good


def utf8_boundary_after(data: bytes, i: int) -> int:
    """The smallest ``j >= i`` that is not inside a UTF-8 sequence started before *i*.

    Only continuation bytes are skipped, and no more than the sequence's lead byte announces.
    """
    j = utf8_boundary_before(data, i)
    if j == i:
        return i
    b = data[j]
    stop = min(len(data), j + (2 if b < 0xE0 else 3 if b < 0xF0 else 4))
    k = i
    while k < stop and 0x80 <= data[k] < 0xC0:
        k += 1
    return k


def fit_chars(data: bytes, max_chars: int) -> tuple[str, int]:
    """The longest prefix of *data* whose text has at most *max_chars* characters.

    Returns ``(text, bytes used)``, at least one byte of a non-empty *data*. Never splits a
    character: characters are counted on a ``surrogateescape`` decoding (one character per
    undecodable byte), which never counts fewer than :func:`decode` produces.
    """
    window = data[: max_chars * 4]
    escaped = window.decode("utf-8", "surrogateescape")
    end = len(escaped[:max_chars].encode("utf-8", "surrogateescape"))
    if end < len(data):
        # Back off to a character boundary; if that leaves nothing, the first "character" is
        # an invalid sequence: take all of it (it decodes to one replacement character).
        end = utf8_boundary_before(data, end) or utf8_boundary_after(data, end)
    return decode(data[:end]), end
