"""Telling bytes that are text from bytes that are not, before anything is shown to a model.

Bytes given to ``process()``, a stream, ``trunc apply`` or ``trunc run`` are one of:

* **text with a UTF-16 or UTF-32 byte-order mark**: decoded by it (:func:`byte_order_mark`);
* **binary**: the first :data:`SAMPLE_BYTES` bytes (the whole content when shorter) hold a
  NUL byte, as git and grep decide; or more than :data:`INVALID_SHARE` of them lie in
  sequences that are not UTF-8; or they start with the magic number of a binary format in
  :data:`MAGIC` (:func:`is_binary`). The model then sees a one-line summary instead (the
  format, from :func:`binary_kind`, the size, the sha256 and the artifact's id), and the
  artifact keeps the bytes;
* **UTF-8 text** otherwise, an invalid byte here and there shown as U+FFFD.

The decision is made on a bounded prefix, the same for ``process()`` and for a stream of the
same bytes, however chunked: a stream knows it once that prefix has arrived. Text that turns
into binary later (a log with a NUL in its second megabyte) stays text.

The magic numbers are a small table rather than a library: the summary needs a name for the
common formats, not an identification of every file. Measured on 8 KiB samples (23 formats,
Python 3.11), ``filetype`` (pure Python, last released 2022) costs 25 ms to import and up to
120 us a call, and names neither Mach-O nor Java classes; ``puremagic`` 43 ms and 1.6 ms a
call, and takes a zip for a Word document; ``python-magic`` needs the libmagic C library
(80 ms to load, up to 8 ms a call, and its parsers see hostile bytes). The table is a few
comparisons, on the first byte's entries only.
"""

from __future__ import annotations

import codecs
from typing import NamedTuple

from truncation_core.text.decoding import utf8_boundary_before

__all__ = ["INVALID_SHARE", "MAGIC", "SAMPLE_BYTES", "BinaryKind", "binary_kind",
           "byte_order_mark", "could_be_byte_order_mark", "decode_with_mark", "is_binary"]

#: Bytes at the start of the content that decide whether it is binary (git looks at 8,000).
SAMPLE_BYTES = 8192
#: Share of the sample's bytes in sequences that are not UTF-8 beyond which it is binary.
#: Text in a legacy 8-bit encoding that is mostly not ASCII (Cyrillic in cp1251) passes it
#: too: shown, it would be U+FFFD almost throughout.
INVALID_SHARE = 0.3

#: Byte-order marks, longest first (UTF-32LE's starts with UTF-16LE's): mark -> the codec
#: that decodes the text (and drops the mark), and the name the metadata gives.
_MARKS: tuple[tuple[bytes, str, str], ...] = (
    (codecs.BOM_UTF32_LE, "utf-32", "UTF-32LE"),
    (codecs.BOM_UTF32_BE, "utf-32", "UTF-32BE"),
    (codecs.BOM_UTF16_LE, "utf-16", "UTF-16LE"),
    (codecs.BOM_UTF16_BE, "utf-16", "UTF-16BE"),
)
#: The first byte of every mark: content starting with another byte has none (one check).
_MARK_STARTS = frozenset(mark[0] for mark, _, _ in _MARKS)


def byte_order_mark(data: bytes | bytearray, *, complete: bool = True
                    ) -> tuple[str, str] | None:
    """``(codec, name)`` of the UTF-16 or UTF-32 byte-order mark *data* (the content, or its
    first bytes: not *complete*) starts with, when what follows it reads as text in that
    encoding; else None.

    The mark alone is not enough: ``FF FE`` also starts bytes that are not UTF-16 at all.
    The first :data:`SAMPLE_BYTES` must decode in the mark's encoding without an error (as
    random bytes do not in UTF-32, nor, past a few thousand, in UTF-16: a lone surrogate
    comes), and hold a line break, a tab or a space, as text does, unless they are short
    (:data:`_SHORT_TEXT` characters)."""
    if not data or data[0] not in _MARK_STARTS:
        return None
    for mark, codec, name in _MARKS:
        if data.startswith(mark):
            return (codec, name) if _reads_as(data, codec, complete) else None
    return None


#: Text this short after a byte-order mark needs no space or line break to be taken as text.
_SHORT_TEXT = 40


def _reads_as(data: bytes | bytearray, codec: str, complete: bool) -> bool:
    whole = complete and len(data) <= SAMPLE_BYTES
    try:
        text = codecs.getincrementaldecoder(codec)("strict").decode(
            bytes(data[:SAMPLE_BYTES]), whole)
    except UnicodeDecodeError:
        return False
    return any(c in text for c in "\n\r\t ") or (whole and len(text) <= _SHORT_TEXT)


def could_be_byte_order_mark(data: bytes | bytearray) -> bool:
    """Whether the start of a stream, *data*, may still turn out to be text with a
    byte-order mark: it starts with (a prefix of) one, and is shorter than the sample that
    decides (:func:`byte_order_mark`)."""
    if not data or data[0] not in _MARK_STARTS or len(data) > SAMPLE_BYTES:
        return False
    head = bytes(data[:4])
    return any(mark.startswith(head) or head.startswith(mark) for mark, _, _ in _MARKS)


def decode_with_mark(data: bytes, codec: str) -> str:
    """*data*, which starts with a byte-order mark, as text (without the mark); a broken
    code unit becomes U+FFFD."""
    return data.decode(codec, "replace")


class BinaryKind(NamedTuple):
    """What a binary format is called in a summary, and its media type. (A named tuple: an
    attrs class would cost ``trunc apply`` half a millisecond to make at start-up.)"""

    name: str
    media_type: str


#: Content that is binary and matches no entry of :data:`MAGIC`.
DATA = BinaryKind("binary data", "application/octet-stream")

#: Magic numbers: (offset, bytes, kind). Checked by :func:`binary_kind`, by their first
#: byte for those at offset 0.
MAGIC: tuple[tuple[int, bytes, BinaryKind], ...] = (
    (0, b"\x89PNG\r\n\x1a\n", BinaryKind("PNG image", "image/png")),
    (0, b"\xff\xd8\xff", BinaryKind("JPEG image", "image/jpeg")),
    (0, b"GIF87a", BinaryKind("GIF image", "image/gif")),
    (0, b"GIF89a", BinaryKind("GIF image", "image/gif")),
    (0, b"II*\x00", BinaryKind("TIFF image", "image/tiff")),
    (0, b"MM\x00*", BinaryKind("TIFF image", "image/tiff")),
    (0, b"%PDF-", BinaryKind("PDF document", "application/pdf")),
    (0, b"\x1f\x8b", BinaryKind("gzip compressed data", "application/gzip")),
    (0, b"PK\x03\x04", BinaryKind("Zip archive", "application/zip")),
    (0, b"PK\x05\x06", BinaryKind("Zip archive", "application/zip")),
    (0, b"BZh", BinaryKind("bzip2 compressed data", "application/x-bzip2")),
    (0, b"\xfd7zXZ\x00", BinaryKind("xz compressed data", "application/x-xz")),
    (0, b"\x28\xb5\x2f\xfd", BinaryKind("Zstandard compressed data", "application/zstd")),
    (0, b"7z\xbc\xaf\x27\x1c", BinaryKind("7-Zip archive", "application/x-7z-compressed")),
    (0, b"Rar!\x1a\x07", BinaryKind("RAR archive", "application/vnd.rar")),
    (257, b"ustar", BinaryKind("tar archive", "application/x-tar")),
    (0, b"\x7fELF", BinaryKind("ELF executable", "application/x-executable")),
    (0, b"\xfe\xed\xfa\xce", BinaryKind("Mach-O executable", "application/x-mach-binary")),
    (0, b"\xfe\xed\xfa\xcf", BinaryKind("Mach-O executable", "application/x-mach-binary")),
    (0, b"\xce\xfa\xed\xfe", BinaryKind("Mach-O executable", "application/x-mach-binary")),
    (0, b"\xcf\xfa\xed\xfe", BinaryKind("Mach-O executable", "application/x-mach-binary")),
    # 0xCAFEBABE starts both a universal (fat) Mach-O and a Java class: _cafebabe() tells.
    (0, b"\xca\xfe\xba\xbe", BinaryKind("Mach-O universal binary", "application/x-mach-binary")),
    (0, b"MZ", BinaryKind("PE executable (Windows)",
                          "application/vnd.microsoft.portable-executable")),
    (0, b"\x00asm", BinaryKind("WebAssembly module", "application/wasm")),
    (0, b"SQLite format 3\x00", BinaryKind("SQLite database", "application/vnd.sqlite3")),
    (0, b"OggS", BinaryKind("Ogg media", "application/ogg")),
    (0, b"ID3", BinaryKind("MP3 audio", "audio/mpeg")),
    (4, b"ftyp", BinaryKind("MP4 media", "video/mp4")),
    (0, b"RIFF", BinaryKind("RIFF media", "application/octet-stream")),
)

_JAVA_CLASS = BinaryKind("Java class file", "application/java-vm")
_RIFF = {b"WAVE": BinaryKind("WAV audio", "audio/wav"),
         b"AVI ": BinaryKind("AVI video", "video/x-msvideo"),
         b"WEBP": BinaryKind("WebP image", "image/webp")}

_BY_FIRST_BYTE: dict[int, list[tuple[bytes, BinaryKind]]] = {}
for _offset, _magic, _kind in MAGIC:
    if _offset == 0:
        _BY_FIRST_BYTE.setdefault(_magic[0], []).append((_magic, _kind))
_AT_OFFSET = tuple((offset, magic, kind) for offset, magic, kind in MAGIC if offset)


def _refined(sample: bytes | bytearray, kind: BinaryKind) -> BinaryKind | None:
    """Checks beyond the magic number, for the short or shared ones."""
    if kind.name == "PE executable (Windows)":  # "MZ", then the PE header where it points
        if len(sample) < 64:
            return None
        at = int.from_bytes(sample[60:64], "little")  # (within the sample: a stream's too)
        return kind if at + 4 <= SAMPLE_BYTES and sample[at:at + 4] == b"PE\x00\x00" else None
    if kind.name == "bzip2 compressed data":  # "BZh", a block size, a block's magic
        return kind if sample[3:4].isdigit() and sample[4:10] == b"1AY&SY" else None
    if kind.name == "Mach-O universal binary":  # a Java class has its version here instead
        return kind if int.from_bytes(sample[4:8], "big") < 20 else _JAVA_CLASS
    if kind.name.startswith("RIFF"):  # the form type names the format
        return _RIFF.get(bytes(sample[8:12]))
    if kind.name == "MP3 audio":  # an ID3v2 tag: its version, then a revision below 16
        return kind if sample[3:4] in (b"\x02", b"\x03", b"\x04") and sample[4:5] < b"\x10" \
            else None
    if kind.name == "Ogg media":  # a page's stream structure version, 0
        return kind if sample[4:5] == b"\x00" else None
    return kind


def _kind_at_start(sample: bytes | bytearray) -> BinaryKind | None:
    for magic, kind in _BY_FIRST_BYTE.get(sample[0], ()) if sample else ():
        if sample.startswith(magic):
            refined = _refined(sample, kind)
            if refined is not None:
                return refined
    return None


def binary_kind(sample: bytes | bytearray) -> BinaryKind | None:
    """The binary format *sample* (the content's first bytes) starts with, from :data:`MAGIC`;
    None when it matches none."""
    kind = _kind_at_start(sample)
    if kind is not None:
        return kind
    for offset, magic, kind in _AT_OFFSET:
        if sample[offset:offset + len(magic)] == magic:
            return kind
    return None


def _complete_sequences(sample: bytes) -> bytes:
    """*sample* without a UTF-8 sequence cut short at its end (the rest of it follows)."""
    return sample[:utf8_boundary_before(sample, len(sample))]


def is_binary(data: bytes | bytearray, *, complete: bool = True, utf8: bool = False) -> bool:
    """Whether content starting with *data* is binary, from its first :data:`SAMPLE_BYTES`
    bytes: a NUL byte, a magic number of :data:`MAGIC` at the start, or more than
    :data:`INVALID_SHARE` of the bytes in sequences that are not UTF-8.

    *complete*: *data* is all of the content (else more follows, and a sequence cut short at
    its end is not counted). *utf8*: the caller knows the sample is UTF-8 (it decoded it), so
    it is not decoded again: a NUL and the magic numbers are all there is to look for."""
    end = min(len(data), SAMPLE_BYTES)
    if data.find(b"\x00", 0, end) != -1:
        return True
    # (The magic numbers found at an offset, tar's and MP4's, come with NUL bytes.)
    if end and data[0] in _BY_FIRST_BYTE and _kind_at_start(data) is not None:
        return True
    if utf8:
        return False
    sample = bytes(data[:end])
    whole = complete and end == len(data)
    try:  # a sequence cut short at the end of an incomplete sample is left for later
        codecs.utf_8_decode(sample, "strict", whole)
        return False
    except UnicodeDecodeError:
        pass
    text = sample if whole else _complete_sequences(sample)
    invalid = len(text) - len(text.decode("utf-8", "ignore").encode("utf-8"))
    return invalid > INVALID_SHARE * len(text)
