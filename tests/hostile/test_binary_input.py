"""Binary input is summarised, never shown; text with a UTF-16 or UTF-32 byte-order mark is
decoded by it.

5 MB of random bytes became some 6,800 tokens of NULs, control characters and U+FFFD, with no
warning, and a UTF-16 file was read as UTF-8, its ERROR line nowhere to be found. Now the
model sees one line (format, size, sha256, artifact id) and the artifact keeps the bytes;
the same through ``process()``, streams, ``trunc apply`` and ``trunc run``. The negative
controls show what the naive decode (UTF-8, invalid bytes replaced: what was done) gives.
"""

from __future__ import annotations

import bz2
import gzip
import hashlib
import io
import json
import lzma
import random
import sqlite3
import struct
import subprocess
import tarfile
import zipfile
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from truncation_core import Truncator
from truncation_core.storage.memory import MemoryStore
from truncation_core.text.binary import (
    INVALID_SHARE,
    MAGIC,
    SAMPLE_BYTES,
    binary_kind,
    byte_order_mark,
    is_binary,
)
from truncation_core.text.measure import measure
from truncation_core.tokens.estimate import EstimateTokenizer


def noise(n: int, seed: int = 0) -> bytes:
    return random.Random(seed).randbytes(n)


def make(**config: Any) -> Truncator:
    return Truncator(config or None, load_entrypoints=False, store=MemoryStore())


def streamed(truncator: Truncator, data: bytes, seed: int = 1) -> Any:
    rng = random.Random(seed)
    with truncator.stream() as s:
        i = 0
        while i < len(data):
            n = rng.choice([1, 2, 3, 5, 700, 4096, 70_000])
            s.write(data[i:i + n])
            i += n
    return s.result()


# -- the magic numbers: one real (or faithful) sample per format ------------------------------


def _png() -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data)))

    rows = b"".join(b"\0" + bytes(range(48)) for _ in range(16))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 16, 16, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


def _zip() -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("a.txt", "hello\n" * 1000)
    return out.getvalue()


def _tar() -> bytes:
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w") as archive:
        data = b"hello\n" * 100
        info = tarfile.TarInfo("a.txt")
        info.size = len(data)
        archive.addfile(info, io.BytesIO(data))
    return out.getvalue()


def _sqlite(tmp: Path) -> bytes:
    path = tmp / "db.sqlite"
    db = sqlite3.connect(path)
    db.execute("create table t(x)")
    db.commit()
    db.close()
    return path.read_bytes()


def _pe() -> bytes:
    header = bytearray(b"MZ" + b"\x90\x00" * 29)
    header += b"\x00" * (0x80 - len(header))
    struct.pack_into("<I", header, 0x3C, 0x80)
    return bytes(header) + b"PE\x00\x00\x4c\x01\x03\x00" + noise(300)


def _riff(form: bytes) -> bytes:
    body = form + b"fmt " + struct.pack("<I", 100) + noise(100)
    return b"RIFF" + struct.pack("<I", len(body)) + body


SAMPLES: dict[str, tuple[Callable[[Path], bytes], str]] = {
    "PNG": (lambda _: _png(), "PNG image"),
    "JPEG": (lambda _: b"\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01\x01" + noise(500), "JPEG image"),
    "GIF": (lambda _: b"GIF89a\x10\x00\x10\x00\x80\x00\x00" + noise(200), "GIF image"),
    "GIF87": (lambda _: b"GIF87a\x10\x00\x10\x00\x80\x00\x00" + noise(200), "GIF image"),
    "TIFF": (lambda _: b"II*\x00\x08\x00\x00\x00" + noise(200), "TIFF image"),
    "TIFF-BE": (lambda _: b"MM\x00*\x00\x00\x00\x08" + noise(200), "TIFF image"),
    "WebP": (lambda _: _riff(b"WEBP"), "WebP image"),
    "WAV": (lambda _: _riff(b"WAVE"), "WAV audio"),
    "AVI": (lambda _: _riff(b"AVI "), "AVI video"),
    "PDF": (lambda _: b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< >>\nstream\n"
            + zlib.compress(b"BT (hello) Tj ET" * 50) + b"\nendstream\n%%EOF\n",
            "PDF document"),
    "gzip": (lambda _: gzip.compress(b"hello world\n" * 1000), "gzip compressed data"),
    "zip": (lambda _: _zip(), "Zip archive"),
    "empty zip": (lambda _: b"PK\x05\x06" + b"\x00" * 18, "Zip archive"),
    "bzip2": (lambda _: bz2.compress(b"hello world\n" * 1000), "bzip2 compressed data"),
    "xz": (lambda _: lzma.compress(b"hello world\n" * 1000), "xz compressed data"),
    "zstd": (lambda _: b"\x28\xb5\x2f\xfd\x24\x00" + noise(100), "Zstandard compressed data"),
    "7z": (lambda _: b"7z\xbc\xaf\x27\x1c\x00\x04" + noise(200), "7-Zip archive"),
    "RAR": (lambda _: b"Rar!\x1a\x07\x01\x00" + noise(200), "RAR archive"),
    "tar": (lambda _: _tar(), "tar archive"),
    "ELF": (lambda _: Path("/bin/ls").read_bytes(), "ELF executable"),
    "Mach-O 32": (lambda _: b"\xfe\xed\xfa\xce" + noise(300), "Mach-O executable"),
    "Mach-O 64": (lambda _: b"\xfe\xed\xfa\xcf" + noise(300), "Mach-O executable"),
    "Mach-O LE 32": (lambda _: b"\xce\xfa\xed\xfe" + noise(300), "Mach-O executable"),
    "Mach-O LE 64": (lambda _: b"\xcf\xfa\xed\xfe\x07\x00\x00\x01" + noise(300),
                     "Mach-O executable"),
    "Mach-O fat": (lambda _: b"\xca\xfe\xba\xbe\x00\x00\x00\x02" + noise(300),
                   "Mach-O universal binary"),
    "Java class": (lambda _: b"\xca\xfe\xba\xbe\x00\x00\x00\x34" + noise(200),
                   "Java class file"),
    "PE": (lambda _: _pe(), "PE executable (Windows)"),
    "wasm": (lambda _: b"\x00asm\x01\x00\x00\x00\x01\x04\x01\x60\x00\x00",
             "WebAssembly module"),
    "SQLite": (_sqlite, "SQLite database"),
    "Ogg": (lambda _: b"OggS\x00\x02" + b"\x00" * 20 + noise(100), "Ogg media"),
    "MP3": (lambda _: b"ID3\x03\x00\x00\x00\x00\x00\x0f" + noise(300), "MP3 audio"),
    "MP4": (lambda _: b"\x00\x00\x00\x18ftypmp42\x00\x00\x00\x00mp42isom" + noise(200),
            "MP4 media"),
}


def test_every_magic_number_has_a_sample() -> None:
    kinds = {kind.name for _, _, kind in MAGIC} | {"WebP image", "WAV audio", "AVI video",
                                                   "Java class file"}
    assert kinds - {"RIFF media"} == {name for _, name in SAMPLES.values()}


@pytest.mark.parametrize("name", list(SAMPLES))
def test_a_binary_format_is_named_and_summarised(name: str, tmp_path: Path) -> None:
    build, kind = SAMPLES[name]
    data = build(tmp_path)
    assert binary_kind(data[:SAMPLE_BYTES]) is not None
    assert binary_kind(data[:SAMPLE_BYTES]).name == kind  # type: ignore[union-attr]
    assert is_binary(data)
    result = make().process(data)
    assert result.metadata.binary is not None and result.metadata.binary.kind == kind
    assert result.content.startswith(f"[Binary content, not shown: {kind}, ")


@pytest.mark.parametrize("text", [
    b"ID3 tags are metadata\n", b"OggS is a page header\n", b"RIFF raff\n", b"MZ is a prefix\n",
    b"BZh is bzip2's magic\n", b"Rarely\n", b"PK are initials\n"])
def test_text_that_starts_like_a_magic_number_is_text(text: bytes) -> None:
    assert binary_kind(text) is None and not is_binary(text)
    assert make().process(text * 3).content == (text * 3).decode()


# -- random bytes: the 5 MB case ------------------------------------------------------------


def test_five_megabytes_of_random_bytes_are_summarised_and_kept() -> None:
    data = noise(5_000_000)
    truncator = make()
    result = truncator.process(data, tool="read_file")
    digest = hashlib.sha256(data).hexdigest()
    assert result.artifact is not None
    assert result.content == (
        f"[Binary content, not shown: binary data, 5.0 MB (5,000,000 bytes), sha256 {digest}; "
        f"kept as artifact {result.artifact.id}]")
    assert result.content.isprintable()
    meta = result.metadata
    assert meta.binary is not None
    assert (meta.binary.kind, meta.binary.media_type, meta.binary.bytes, meta.binary.sha256) \
        == ("binary data", "application/octet-stream", 5_000_000, digest)
    assert meta.was_truncated and meta.strategy_used is None and meta.estimated_tokens < 150
    assert meta.original_bytes == meta.original_size == 5_000_000
    assert meta.to_dict()["binary"]["sha256"] == digest
    assert truncator.artifacts.read(result.artifact.id) == data  # byte for byte
    assert result.artifact.content_type == "application/octet-stream"


def test_negative_control_the_naive_decode_shows_the_model_garbage() -> None:
    """What was done: decode as UTF-8, invalid bytes replaced, and cut that as text."""
    data = noise(5_000_000)
    naive = make().process(data.decode("utf-8", "replace"), tool="read_file")
    assert "\x00" in naive.content and "\ufffd" in naive.content
    assert sum(c < " " and c not in "\n\t" for c in naive.content) > 100
    assert naive.metadata.estimated_tokens > 5000


def test_a_stream_of_the_same_bytes_gives_the_same_summary() -> None:
    data = noise(3_000_000, seed=7)
    truncator = make()
    expected = truncator.process(data)
    got = streamed(truncator, data)
    assert got.artifact is not None and expected.artifact is not None
    assert got.content.replace(got.artifact.id, "ID") == \
        expected.content.replace(expected.artifact.id, "ID")
    assert got.metadata.binary == expected.metadata.binary
    assert got.metadata.original_lines == expected.metadata.original_lines
    assert truncator.artifacts.read(got.artifact.id) == data


@pytest.mark.parametrize("size", [1, 100, SAMPLE_BYTES - 1, SAMPLE_BYTES, SAMPLE_BYTES + 1])
def test_short_binary_content_is_summarised_in_both_paths(size: int) -> None:
    data = b"\x00" + noise(size - 1)
    truncator = make()
    expected, got = truncator.process(data), streamed(truncator, data)
    assert expected.metadata.binary == got.metadata.binary
    assert expected.metadata.binary is not None and expected.metadata.binary.bytes == size
    assert truncator.artifacts.read(got.artifact.id) == data  # type: ignore[union-attr]


def test_the_summary_fits_the_budget() -> None:
    data = _png() + noise(10_000)
    for config in ({"inline_limit": 60}, {"inline_limit": 10}, {"inline_limit": 1},
                   {"max_tokens": 20}, {"max_lines": 1}, {"max_bytes": 40}):
        truncator = make(**config)
        for result in (truncator.process(data), streamed(truncator, data)):
            policy = truncator.policy()
            assert policy.budget.admits(measure(result.content))
            if policy.max_tokens is not None:
                assert EstimateTokenizer().count(result.content) <= policy.max_tokens
            assert result.metadata.binary is not None
            assert result.artifact is not None


def test_without_spill_or_store_the_summary_says_it_is_not_kept() -> None:
    data = _png()
    result = make(spill=False).process(data)
    assert result.content.endswith("; not kept (spill is off)]")
    assert result.artifact is None and result.metadata.binary is not None
    cut = make(max_artifact_size=1024).process(noise(100_000) + b"\x00")
    assert "keeps only its first and last bytes (it is over max_artifact_size)" in cut.content
    assert cut.metadata.artifact_truncated


def test_a_restyled_summary() -> None:
    truncator = make(marker={"binary": "<{kind}: {bytes} bytes, {media_type}, {artifact_id}>"})
    result = truncator.process(_png())
    assert result.content == (f"<PNG image: {len(_png())} bytes, image/png, "
                              f"{result.artifact.id}>")  # type: ignore[union-attr]


def test_an_interrupted_binary_stream_is_kept_and_says_so() -> None:
    truncator = make()
    data = noise(100_000, seed=3)
    s = truncator.stream()
    with pytest.raises(KeyboardInterrupt), s:
        s.write(data)
        raise KeyboardInterrupt
    result = s.result()
    assert result.content.startswith("[interrupted after ")
    assert "[Binary content, not shown: binary data" in result.content
    assert result.metadata.interrupted and result.artifact is not None
    assert result.artifact.interrupted == result.metadata.interrupted
    assert truncator.artifacts.read(result.artifact.id) == data


# -- what stays text ------------------------------------------------------------------------


def test_text_stays_text() -> None:
    latin1 = "café crème brûlée, à la française\n".encode("latin-1") * 500
    assert not is_binary(latin1)  # a few invalid bytes: shown as U+FFFD
    result = make().process(latin1)
    assert result.metadata.binary is None and "\ufffd" in result.content
    late_nul = b"line\n" * 2000 + b"\x00"  # the decision is made on the first 8 KiB
    assert not is_binary(late_nul) and make().process(late_nul).metadata.binary is None
    assert is_binary(b"line\n" * 1000 + b"\x00")


def test_the_invalid_share_decides() -> None:
    n = 1000
    over = int(n * INVALID_SHARE) + 10
    under = int(n * INVALID_SHARE) - 10
    assert is_binary(b"\xff" * over + b"a" * (n - over))
    assert not is_binary(b"\xff" * under + b"a" * (n - under))
    # A character cut at the end of an incomplete sample is not counted as invalid.
    assert not is_binary(b"a" * 10 + "é".encode()[:1], complete=False)
    assert is_binary("Привет, мир\n".encode("cp1251") * 100)  # documented: mostly not UTF-8


# -- byte-order marks -----------------------------------------------------------------------


LOG = "".join(f"line {i}: ok\n" for i in range(3000)) + "ERROR: the disk is full\n" + \
    "".join(f"line {i}: ok\n" for i in range(3000, 6000))


@pytest.mark.parametrize(("codec", "name"), [
    ("utf-16", "UTF-16LE"), ("utf-16-be", "UTF-16BE"), ("utf-32", "UTF-32LE"),
    ("utf-32-be", "UTF-32BE")])
def test_text_with_a_byte_order_mark_is_decoded_and_kept_as_it_came(codec: str,
                                                                    name: str) -> None:
    data = LOG.encode(codec)
    if not codec.endswith(("16", "32")):  # the big-endian codecs write no mark themselves
        data = {"UTF-16BE": b"\xfe\xff", "UTF-32BE": b"\x00\x00\xfe\xff"}[name] + data
    assert byte_order_mark(data) is not None and byte_order_mark(data)[1] == name  # type: ignore[index]
    truncator = make(inline_limit=2000)
    for result in (truncator.process(data), streamed(truncator, data)):
        assert result.metadata.decoded_from == name and result.metadata.binary is None
        assert "\nline 0: ok\n" in result.content and "\x00" not in result.content
        assert result.metadata.original_bytes == len(data)
        assert all(o.start_byte is None for o in result.metadata.omissions)
        artifact = result.artifact
        assert artifact is not None
        assert truncator.artifacts.read(artifact.id) == data  # the bytes as they came
        (match,) = truncator.artifacts.grep(artifact.id, "ERROR").matches
        assert match.line.number == 3001  # the text's line, as the markers count
        assert truncator.artifacts.lines(artifact.id, 3001, 3001).text == \
            "ERROR: the disk is full\n"
        assert truncator.artifacts.text(artifact.id) == LOG


def test_negative_control_read_as_utf8_the_error_line_is_not_found() -> None:
    """What was done: the bytes decoded as UTF-8. Every other byte is a NUL, and no line
    says ERROR (it is ``E\\x00R\\x00R\\x00...``)."""
    naive = LOG.encode("utf-16").decode("utf-8", "replace")
    assert "ERROR" not in naive and naive.count("\x00") > len(LOG) // 2


@pytest.mark.parametrize(("data", "decoded"), [
    ("日本語のテキスト\n二行目\n".encode("utf-16"), True),  # no NUL byte at all
    ("hi".encode("utf-16"), True),  # short: no space needed
    (("x" * 100).encode("utf-16"), False),  # long, and not one space or line break
    (b"\xff\xfe not utf-8 \xe2\x82\n" * 3000, False),  # FF FE, then no UTF-16 text
    (b"\xff\xfe" + noise(20_000), False),  # a lone surrogate comes
    (b"\xff\xfe\x00\x00" + noise(400), False),  # not UTF-32: code points out of range
])
def test_a_mark_is_taken_when_text_follows_it(data: bytes, decoded: bool) -> None:
    """``FF FE`` also starts bytes that are not UTF-16: the mark counts when what follows
    decodes in its encoding and reads as text."""
    assert (byte_order_mark(data) is not None) is decoded
    truncator = make()
    for result in (truncator.process(data), streamed(truncator, data)):
        assert (result.metadata.decoded_from is not None) is decoded


def test_a_mark_split_across_chunks_is_found() -> None:
    data = LOG.encode("utf-16")
    truncator = make()
    with truncator.stream() as s:
        s.write(data[:1])
        s.write(data[1:2])
        s.write(data[2:3])
        s.write(data[3:])
    result = s.result()
    assert result.metadata.decoded_from == "UTF-16LE"
    assert truncator.artifacts.read(result.artifact.id) == data  # type: ignore[union-attr]


@pytest.mark.parametrize("data", [b"\xff", b"\xff\xfe", b"\xff\xfe\x00", b"\x00\x00\xfe",
                                  b"\xfe\xff\x00A"])
def test_short_inputs_around_a_mark_agree_in_both_paths(data: bytes) -> None:
    truncator = make()
    expected, got = truncator.process(data), streamed(truncator, data)
    assert expected.content.split(" kept as")[0] == got.content.split(" kept as")[0]
    assert expected.metadata.decoded_from == got.metadata.decoded_from
    assert expected.metadata.binary == got.metadata.binary


# -- the command line -----------------------------------------------------------------------


def trunc(trunc_exe: str, env: dict[str, str], cwd: Path, *args: str,
          stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([trunc_exe, *args], input=stdin, capture_output=True, cwd=cwd,
                          env=env, timeout=60)


@pytest.mark.parametrize("how", ["file", "stdin", "stdin-small"])
def test_trunc_apply_summarises_binary_input(tmp_path: Path, trunc_exe: str,
                                             trunc_env: dict[str, str], how: str) -> None:
    data = noise(3_000_000) if how != "stdin-small" else _png()
    (tmp_path / "in.bin").write_bytes(data)
    args = ["apply", "--json", "in.bin"] if how == "file" else ["apply", "--json", "-"]
    done = trunc(trunc_exe, trunc_env, tmp_path, *args,
                 stdin=None if how == "file" else data)
    assert done.returncode == 0, done.stderr
    assert b"\x00" not in done.stdout
    document = json.loads(done.stdout)
    binary = document["metadata"]["binary"]
    assert binary["sha256"] == hashlib.sha256(data).hexdigest()
    assert binary["bytes"] == len(data)
    assert document["content"].startswith("[Binary content, not shown: ")
    shown = trunc(trunc_exe, trunc_env, tmp_path, "artifacts", "show", document["artifact"]["id"])
    assert shown.returncode == 0 and shown.stdout == data
    text = trunc(trunc_exe, trunc_env, tmp_path, "apply", "in.bin")
    assert text.returncode == 0 and b"binary content, summarised: " in text.stderr


def test_trunc_run_summarises_binary_output(tmp_path: Path, trunc_exe: str,
                                            trunc_env: dict[str, str]) -> None:
    (tmp_path / "image.png").write_bytes(_png() + noise(50_000))
    done = trunc(trunc_exe, trunc_env, tmp_path, "run", "--json", "--", "cat", "image.png")
    assert done.returncode == 0, done.stderr
    document = json.loads(done.stdout)
    assert document["content"].startswith("Exit code: 0\n")
    assert "[Binary content, not shown: PNG image, " in document["content"]
    assert document["metadata"]["binary"]["kind"] == "PNG image"
    assert b"\x00" not in done.stdout


def test_trunc_apply_decodes_utf16(tmp_path: Path, trunc_exe: str,
                                   trunc_env: dict[str, str]) -> None:
    data = LOG.encode("utf-16")
    (tmp_path / "log.txt").write_bytes(data)
    done = trunc(trunc_exe, trunc_env, tmp_path, "apply", "--json", "log.txt")
    assert done.returncode == 0, done.stderr
    document = json.loads(done.stdout)
    assert document["metadata"]["decoded_from"] == "UTF-16LE"
    assert "\nline 0: ok\n" in document["content"]
    grep = trunc(trunc_exe, trunc_env, tmp_path, "artifacts", "grep",
                 document["artifact"]["id"], "ERROR")
    assert grep.returncode == 0 and b"ERROR: the disk is full" in grep.stdout
