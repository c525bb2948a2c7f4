"""The bearer token of ``--http`` (truncation_core_mcp.auth): where it comes from, the files
that are refused, and the header check. The HTTP servers themselves are tested in
test_http_auth.py."""

from __future__ import annotations

import hmac
import os
import stat
from pathlib import Path
from typing import Any

import pytest
from truncation_core_mcp.auth import BearerAuth, TokenError, default_token_file, resolve_access

TOKEN = "0123456789abcdef-token"


def test_the_default_file_is_made_once_private_and_read_after(tmp_path: Path) -> None:
    env = {"XDG_STATE_HOME": str(tmp_path / "state")}
    first = resolve_access(token_file=None, no_auth=False, environ=env)
    path = tmp_path / "state" / "truncation-core" / "mcp-token"
    assert first.path == path == default_token_file(env) and first.new
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert path.read_text() == f"{first.token}\n"
    again = resolve_access(token_file=None, no_auth=False, environ=env)
    assert again.token == first.token and not again.new
    assert [p.name for p in path.parent.iterdir()] == ["mcp-token"]  # no temporary left


def test_the_default_directory_is_made_private(tmp_path: Path) -> None:
    directory = tmp_path / "state" / "truncation-core"
    directory.mkdir(parents=True)
    directory.chmod(0o755)
    resolve_access(token_file=None, no_auth=False,
                   environ={"XDG_STATE_HOME": str(tmp_path / "state")})
    assert stat.S_IMODE(directory.stat().st_mode) == 0o700


def test_the_flag_beats_the_environment_which_beats_the_default(tmp_path: Path) -> None:
    env = {"XDG_STATE_HOME": str(tmp_path / "state"), "TRUNC_MCP_TOKEN": TOKEN}
    assert resolve_access(token_file=None, no_auth=False, environ=env).token == TOKEN
    assert not (tmp_path / "state").exists()
    chosen = tmp_path / "chosen.token"
    access = resolve_access(token_file=chosen, no_auth=False, environ=env)
    assert access.token != TOKEN and access.new and access.path == chosen
    assert stat.S_IMODE(chosen.stat().st_mode) == 0o600
    assert resolve_access(token_file=None, no_auth=True, environ=env).token is None


@pytest.mark.parametrize(("mode", "problem"), [
    (0o644, "other users can read or write"),
    (0o640, "other users can read or write"),
    (0o602, "other users can read or write"),
])
def test_a_token_file_others_can_reach_is_refused(tmp_path: Path, mode: int,
                                                  problem: str) -> None:
    path = tmp_path / "token"
    path.write_text(TOKEN)
    path.chmod(mode)
    with pytest.raises(TokenError, match=problem):
        resolve_access(token_file=path, no_auth=False, environ={})


def test_a_symlink_a_bad_token_or_an_open_directory_is_refused(tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.write_text(TOKEN)
    real.chmod(0o600)
    link = tmp_path / "link"
    link.symlink_to(real)
    with pytest.raises(TokenError, match="cannot be used"):
        resolve_access(token_file=link, no_auth=False, environ={})
    bad = tmp_path / "bad"
    bad.write_text("short\n")
    bad.chmod(0o600)
    with pytest.raises(TokenError, match="should hold one token of 16 to 4096"):
        resolve_access(token_file=bad, no_auth=False, environ={})
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    with pytest.raises(TokenError, match="other users can write to its directory"):
        resolve_access(token_file=shared / "token", no_auth=False, environ={})
    assert not (shared / "token").exists()
    with pytest.raises(TokenError, match="TRUNC_MCP_TOKEN: expected 16 to 4096"):
        resolve_access(token_file=None, no_auth=False, environ={"TRUNC_MCP_TOKEN": "a b" * 9})


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to give a file to another user")
def test_a_token_file_of_another_user_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "token"
    path.write_text(TOKEN)
    path.chmod(0o600)
    os.chown(path, 65534, 65534)
    with pytest.raises(TokenError, match="owned by another user"):
        resolve_access(token_file=path, no_auth=False, environ={})


def _headers(*pairs: tuple[str, str]) -> list[tuple[bytes, bytes]]:
    return [(k.lower().encode(), v.encode()) for k, v in pairs]


def test_the_header_check(monkeypatch: pytest.MonkeyPatch) -> None:
    auth = BearerAuth(app=None, token=TOKEN)
    assert auth.allowed(_headers(("Authorization", f"Bearer {TOKEN}")))
    assert auth.allowed(_headers(("authorization", f"bearer  {TOKEN} ")))
    for refused in ([], [("Authorization", TOKEN)], [("Authorization", f"Basic {TOKEN}")],
                    [("Authorization", f"Bearer {TOKEN[:-1]}")],
                    [("Authorization", f"Bearer {TOKEN}x")],
                    [("Authorization", f"Bearer {TOKEN}"), ("Authorization", "Bearer x")],
                    [("X-Token", TOKEN)]):
        assert not auth.allowed(_headers(*refused)), refused
    # The comparison is hmac.compare_digest's, whose time does not depend on where the
    # token and the guess differ.
    compared: list[Any] = []
    real = hmac.compare_digest

    def spy(a: Any, b: Any) -> bool:
        compared.append((a, b))
        return real(a, b)

    monkeypatch.setattr("truncation_core_mcp.auth.hmac.compare_digest", spy)
    assert not auth.allowed(_headers(("Authorization", "Bearer guess-0123456789abc")))
    assert compared == [(b"guess-0123456789abc", TOKEN.encode())]
