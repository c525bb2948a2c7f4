"""Counting chunks of bytes with numpy (truncation_core.text.bytecount), against the
standard methods: ``bytes.count`` and the incremental UTF-8 decoder a stream uses."""

from __future__ import annotations

import codecs
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from truncation_core.text import bytecount

#: Pieces that make valid and invalid UTF-8: whole characters of 1 to 4 bytes, and the
#: ways a sequence goes wrong (a stray continuation byte, a truncated character, an encoded
#: surrogate, overlong forms, bytes never valid, a code point above U+10FFFF).
PIECES = [b"a", b"\n", b" ", b"\xc3\xa9", b"\xe6\x9d\xb1", b"\xf0\x9f\x98\x80",
          b"\x80", b"\xbf", b"\xc3", b"\xe6\x9d", b"\xf0\x9f\x98", b"\xed\xa0\x80",
          b"\xc0\xaf", b"\xe0\x80\xaf", b"\xf0\x80\x80\xaf", b"\xff", b"\xf5", b"\xf4\x90\x80\x80"]


def decoded(data: bytes) -> tuple[int, int] | None:
    """What an incremental decoder makes of *data*: (characters, bytes decoded), or None
    when it is not valid UTF-8 (the bytes it holds at the end are the rest)."""
    decoder = codecs.getincrementaldecoder("utf-8")("strict")
    try:
        text = decoder.decode(data)
    except UnicodeDecodeError:
        return None
    return len(text), len(data) - len(decoder.getstate()[0])


@pytest.fixture
def numpy_now(monkeypatch: pytest.MonkeyPatch) -> None:
    """numpy counts from the first large chunk (not after NUMPY_AFTER bytes)."""
    pytest.importorskip("numpy", reason="numpy is the fast extra, which the test extra installs")
    monkeypatch.setattr(bytecount, "NUMPY_AFTER", 0)


@pytest.fixture
def any_size(numpy_now: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """numpy counts inputs of any size (not only large chunks)."""
    monkeypatch.setattr(bytecount, "NUMPY_BYTES", 1)


@pytest.fixture
def without_numpy(monkeypatch: pytest.MonkeyPatch) -> None:
    """numpy cannot be imported (and was not imported by bytecount yet)."""
    monkeypatch.setitem(sys.modules, "numpy", None)
    monkeypatch.setattr(bytecount, "_numpy", None)


@settings(max_examples=2000, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])  # set once: fine
@given(pieces=st.lists(st.sampled_from(PIECES), min_size=1, max_size=40))
def test_characters_and_validity_are_the_decoders(pieces: list[bytes], any_size: None) -> None:
    data = b"".join(pieces)
    assert bytecount.utf8_chars(data) == decoded(data)


def test_a_chunk_of_a_log_is_counted_as_decoded(numpy_now: None) -> None:
    line = "2024-05-01 INFO résumé naïve 東京 😀 request handled\n".encode()
    data = line * (2 * bytecount.NUMPY_BYTES // len(line))
    for end in range(len(data) - 8, len(data) + 1):  # ending inside each kind of character
        assert bytecount.utf8_chars(data[:end]) == decoded(data[:end])
    assert bytecount.utf8_chars(data) == (len(data.decode()), len(data))


def test_runs_are_decoded_apart(numpy_now: None) -> None:
    """Control: the bytes that are not ASCII, gathered without the ASCII byte after each run,
    would hide a character cut in two by ASCII text (two runs that join into a valid one)."""
    data = b"x" * bytecount.NUMPY_BYTES + b"\xe6\x9d" + b" cut " + b"\xb1" + b"\n"
    gathered = bytes(b for b in data if b >= 0x80)
    assert gathered.decode("utf-8") == "東"  # what naive code would take as valid
    assert bytecount.utf8_chars(data) is None
    assert decoded(data) is None


def test_runs_of_words_are_decoded_apart(numpy_now: None) -> None:
    """Control: the 8-byte words that hold a byte not ASCII, gathered without the word of
    ASCII after each run, would join a character cut in two by ASCII words into a valid one."""
    start = bytecount.NUMPY_BYTES - 2  # the character's first two bytes end a word
    data = b"x" * start + b"\xe6\x9d" + b" cut it " + b"\xb1" + b"x" * 7 + b"\n"
    words = [data[i:i + 8] for i in range(0, len(data) - len(data) % 8, 8)]
    gathered = b"".join(word for word in words if not word.isascii())
    assert gathered.decode("utf-8").strip("x") == "東"  # what naive code would take as valid
    assert bytecount.utf8_chars(data) is None
    assert decoded(data) is None
    assert bytecount.utf8_chars(data.replace(b"\xb1", b"y")) is None  # the cut start alone


def test_short_input_is_left_to_the_decoder() -> None:
    assert bytecount.utf8_chars("é".encode()) is None


@settings(max_examples=300, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.binary(max_size=300))
def test_newlines_are_counted_as_bytes_count_does(data: bytes, any_size: None) -> None:
    assert bytecount.count_newlines(data) == data.count(b"\n")


@settings(max_examples=300, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.binary(max_size=300) | st.sampled_from([b"\x7f" * 9, b"\x7f\x80", b"\xff"]))
def test_ascii_is_judged_as_bytes_isascii_does(data: bytes, any_size: None) -> None:
    bytecount.count_newlines(b"\n")  # (counting imports numpy)
    assert bytecount._numpy
    assert bytecount.is_ascii(data) == data.isascii()


def test_without_numpy_the_standard_methods_count(without_numpy: None,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bytecount, "NUMPY_BYTES", 1)
    monkeypatch.setattr(bytecount, "NUMPY_AFTER", 0)
    data = "résumé\n東京\n".encode() * 10_000
    assert bytecount.count_newlines(data) == 20_000
    assert bytecount.utf8_chars(data) is None  # the stream decodes it
    assert bytecount._numpy is False
    assert not bytecount.is_ascii(data) and bytecount.is_ascii(b"x" * 100_000)


def test_numpy_is_imported_only_after_enough_bytes(monkeypatch: pytest.MonkeyPatch) -> None:
    """A short stream does not pay for importing numpy: only large chunks count towards
    NUMPY_AFTER, and until then the standard methods count."""
    pytest.importorskip("numpy", reason="numpy is the fast extra, which the test extra installs")
    monkeypatch.setattr(bytecount, "_numpy", None)
    monkeypatch.setattr(bytecount, "_counted", 0)
    monkeypatch.setattr(bytecount, "NUMPY_AFTER", 3 * bytecount.NUMPY_BYTES)
    chunk = "é\n".encode() * (bytecount.NUMPY_BYTES // 3 + 1)
    for _ in range(100):
        assert bytecount.count_newlines(chunk[:100]) == 33  # small: not counted towards it
    for _ in range(2):
        assert bytecount.count_newlines(chunk) == chunk.count(b"\n")
        assert bytecount.utf8_chars(chunk) is None
    assert bytecount._numpy is None
    assert bytecount.count_newlines(chunk) == chunk.count(b"\n")
    assert bytecount._numpy is sys.modules["numpy"]
    assert bytecount.utf8_chars(chunk) == (len(chunk.decode()), len(chunk))
