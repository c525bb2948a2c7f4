"""Counting large chunks of bytes: newlines, and the characters of UTF-8, with numpy.

A stream counts every chunk it is given: its newlines (``bytes.count``, some 2.5 GB/s) and,
when a chunk is not ASCII, its characters, which decoding it counts and validates (as slow
again). With numpy, both take a fraction of that (``bench/results/salient.md``):

* newlines are one vectorised comparison and a count, some five times ``bytes.count``;
* the characters of valid UTF-8 are counted, and the chunk validated, from its 8-byte
  words that hold a byte not ASCII alone, which are few in most output: each run of them,
  followed by one word of ASCII that separates it from the next, is gathered and decoded
  (a run that ends inside a character is then followed by that ASCII, and fails to decode,
  as it would in place); every other byte is one ASCII character.

numpy is imported once the streams of a process have counted :data:`NUMPY_AFTER` bytes in
chunks large enough to gain from it: importing it takes some 0.1 s (more on a loaded
machine), which the faster counts repay only over hundreds of MB, so a short stream (most
tool output, one ``trunc run``) never pays for it. Without numpy the standard methods count,
with the same results.
"""

from __future__ import annotations

import codecs
from typing import Any

__all__ = ["NUMPY_AFTER", "NUMPY_BYTES", "count_newlines", "is_ascii", "utf8_chars"]

#: Below this many bytes the standard methods are as fast (a numpy call costs a few µs).
NUMPY_BYTES = 64 * 1024

#: numpy is imported once this many bytes were counted (in chunks of NUMPY_BYTES or more).
NUMPY_AFTER = 64 * 1024 * 1024

#: The high bit of each byte of a 64-bit word: set in a word that holds a byte not ASCII.
_HIGH_BITS = 0x8080808080808080

#: numpy once imported; False when it cannot be; None before the first try.
_numpy: Any = None
#: Bytes counted before numpy was imported.
_counted = 0


def _np(size: int) -> Any:
    """numpy, or None; *size* more bytes are being counted."""
    global _numpy, _counted
    if _numpy is None:
        _counted += size
        if _counted < NUMPY_AFTER:
            return None
        try:
            import numpy
        except ImportError:
            _numpy = False
        else:
            _numpy = numpy
    return _numpy or None


def count_newlines(data: bytes) -> int:
    """The number of ``b"\\n"`` in *data*."""
    if len(data) >= NUMPY_BYTES and (np := _np(len(data))) is not None:
        return int(np.count_nonzero(np.frombuffer(data, np.uint8) == 10))
    return data.count(b"\n")


def is_ascii(data: bytes) -> bool:
    """Whether every byte of *data* is ASCII: once numpy counts (it is not imported for
    this), the smallest byte read as signed, a vectorised reduction some five times faster
    than ``bytes.isascii``."""
    if _numpy and len(data) >= NUMPY_BYTES:
        return bool(_numpy.frombuffer(data, _numpy.int8).min() >= 0)
    return data.isascii()


def _complete(data: bytes) -> int:
    """Where the last character of *data* starts, if *data* ends before it is complete (judged
    by its first byte); else ``len(data)``."""
    size = len(data)
    for back in range(1, min(3, size) + 1):
        byte = data[size - back]
        if byte < 0x80:
            return size
        if byte >= 0xC0:  # the first byte of a character of 2, 3 or 4 bytes
            need = 2 if byte < 0xE0 else 3 if byte < 0xF0 else 4
            return size - back if back < need else size
    return size


def utf8_chars(data: bytes) -> tuple[int, int] | None:
    """``(characters, size)``: ``data[:size]`` is valid UTF-8 of that many characters, and
    the rest of *data* (at most 3 bytes) is the start of a character it does not complete, as
    an incremental decoder would hold it. None when *data* is not valid UTF-8 that far (or
    numpy is missing, or *data* short): decode it then."""
    if len(data) < NUMPY_BYTES or (np := _np(0)) is None:  # (count_newlines counted it)
        return None
    size = _complete(data)
    if size < len(data):
        try:  # the start of a character, which the next bytes may complete?
            codecs.utf_8_decode(data[size:], "strict", False)
        except UnicodeDecodeError:
            return None
    # Eight bytes at a time: a word holding a byte that is not ASCII is kept, with the word
    # after each run of such words (all ASCII, so that runs are decoded apart, as in place);
    # the few bytes after the last whole word follow whatever was kept, as they may finish
    # its character. Words rather than bytes: an eighth of the elements to mask and gather.
    words = size // 8
    runs = b""
    if words:
        packed = np.frombuffer(data, np.uint64, count=words)
        high = (packed & np.uint64(_HIGH_BITS)).astype(bool)
        kept = np.empty_like(high)
        kept[:1] = high[:1]
        np.logical_or(high[1:], high[:-1], out=kept[1:])
        runs = packed[kept].tobytes()
    runs += data[words * 8:size]
    try:
        chars = len(runs.decode("utf-8"))
    except UnicodeDecodeError:
        return None
    return size - len(runs) + chars, size
