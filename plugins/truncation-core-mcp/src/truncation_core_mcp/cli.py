"""``trunc mcp proxy`` and ``trunc mcp serve``."""

from __future__ import annotations

import asyncio
import logging
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from truncation_core.cli.state import AppState, plugin_warnings_to_stderr

__all__ = ["mcp_group"]

MIB = 1024 * 1024

_config_option = click.option(
    "--config", "config_path", type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Read this config file (default: trunc --config, or the one found from the working "
         "directory).")
_session_option = click.option(
    "--session", help="Keep artifacts in this named session (default: store.session from "
                      "config, else a new session).")
_http_options = [
    click.option("--http", is_flag=True,
                 help="Serve Streamable HTTP instead of stdio, for hosts that connect by URL."),
    click.option("--host", default="127.0.0.1", show_default=True,
                 help="Address to listen on, with --http."),
    click.option("--port", default=8000, show_default=True, type=click.IntRange(0, 65535),
                 help="Port to listen on, with --http (0: any free port)."),
    click.option("--path", "http_path", default="/mcp", show_default=True,
                 help="URL path of the MCP endpoint, with --http."),
    click.option("--token-file", type=click.Path(dir_okay=False, path_type=Path),
                 help="With --http: the file holding the bearer token every request must "
                      "carry (Authorization: Bearer TOKEN); made with a new token if missing; "
                      "readable by you alone. Default: $TRUNC_MCP_TOKEN, else "
                      "~/.local/state/truncation-core/mcp-token (made, and its token printed "
                      "once, on the first run)."),
    click.option("--no-auth", is_flag=True,
                 help="With --http: accept requests without the token. Anyone who can reach "
                      "the port (on 127.0.0.1: every user of this machine) can then call the "
                      "tools and read the artifacts."),
]
_verbose_option = click.option("-v", "--verbose", is_flag=True,
                               help="Log what the proxy does to stderr (starts, names, cuts).")


_F = TypeVar("_F", bound=Callable[..., Any])


def _with(options: list[Any]) -> Callable[[_F], _F]:
    def decorate(f: _F) -> _F:
        for option in reversed(options):
            f = option(f)
        return f
    return decorate


@click.group("mcp")
def mcp_group() -> None:
    """MCP: truncate any MCP server's tool results (proxy), or serve the artifact tools."""


@mcp_group.command("proxy", context_settings={"ignore_unknown_options": True,
                                              "allow_interspersed_args": False})
@_config_option
@_session_option
@click.option("--restart", is_flag=True,
              help="Start the downstream server again on the next call after it exits, "
                   "crashes or hangs.")
@click.option("--timeout", type=click.FloatRange(min=0), default=300.0, show_default=True,
              help="Seconds a request may wait for the downstream server (its progress "
                   "notifications start the wait again; a server starting up gets at least "
                   "60); 0: no limit.")
@click.option("--max-message-bytes", type=click.IntRange(min=1024), default=128 * MIB,
              show_default=True, help="The longest message accepted from the server.")
@_with(_http_options)
@click.option("--max-servers", type=click.IntRange(min=1), default=8, show_default=True,
              help="With --http: how many sessions may run at once, each with its own "
                   "downstream server process; the next initialize is refused with an error "
                   "that says so.")
@click.option("--share-server", is_flag=True,
              help="With --http: one downstream server process for every session, for a "
                   "server that keeps no state for its client (roots, subscriptions, log "
                   "level): the first session's initialize is the server's.")
@_verbose_option
@click.argument("command", nargs=-1, required=True, type=click.UNPROCESSED)
@click.pass_obj
def proxy_command(state: AppState | None, config_path: Path | None, session: str | None,
                  restart: bool, timeout: float, max_message_bytes: int, http: bool, host: str,
                  port: int, http_path: str, token_file: Path | None, no_auth: bool,
                  max_servers: int, share_server: bool, verbose: bool,
                  command: tuple[str, ...]) -> None:
    """Run an MCP server (COMMAND ...) behind truncation-core.

    \b
    trunc mcp proxy [OPTIONS] -- COMMAND [ARGS]...

    Serves the host over stdio (or Streamable HTTP with --http) and starts the downstream
    server over stdio. Everything passes through unchanged, but each tool result is cut to
    its tool's limit, with what was cut stored as an artifact that the artifact tools (added
    to the server's tools) read back.
    """
    _logging(verbose)
    access = _access(http, token_file, no_auth)
    if share_server and not http:
        raise click.UsageError("--share-server applies to --http only")
    loaded = _load(state, config_path, session=session)
    from truncation_core_mcp.relay import ProxyOptions

    options = ProxyOptions(argv=command, env=dict(os.environ), cwd=os.getcwd(), restart=restart,
                           timeout=timeout or None, max_message_bytes=max_message_bytes)
    processor = _processor(loaded)
    if http:
        from truncation_core_mcp.http import serve_proxy_http

        _announce(access, host, port, http_path)
        serve_proxy_http(processor, options, host=host, port=port, path=http_path,
                         access=access, max_servers=max_servers, share_server=share_server)
        return
    asyncio.run(_proxy_stdio(processor, options))


async def _proxy_stdio(processor: Any, options: Any) -> None:
    from truncation_core_mcp.host_stdio import stdio_host
    from truncation_core_mcp.relay import Relay

    async with stdio_host(options.max_message_bytes) as host:
        relay = Relay(host, processor, options)
        await relay.run(host.messages())


@mcp_group.command("serve")
@_config_option
@click.option("--store", "store_root", type=click.Path(file_okay=False, path_type=Path),
              help="The artifact store's directory (default: store.root from config).")
@_session_option
@_with(_http_options)
@_verbose_option
@click.pass_obj
def serve_command(state: AppState | None, config_path: Path | None, store_root: Path | None,
                  session: str | None, http: bool, host: str, port: int, http_path: str,
                  token_file: Path | None, no_auth: bool, verbose: bool) -> None:
    """Serve the artifact tools alone (get_artifact, artifact_head, artifact_tail,
    artifact_grep), over stdio or Streamable HTTP.

    For hosts that truncate on their own: they read back what truncation-core stored
    (trunc run --session NAME, trunc apply --session NAME, or a proxy's session).
    """
    _logging(verbose)
    access = _access(http, token_file, no_auth)
    overrides: dict[str, Any] = {}
    if store_root is not None:
        overrides["store"] = {"root": str(store_root.resolve())}
    loaded = _load(state, config_path, session=session, overrides=overrides)
    from truncation_core_mcp.serve import artifact_server, serve_http, serve_stdio

    with plugin_warnings_to_stderr():
        from truncation_core import Truncator

        truncator = Truncator(loaded.config, project_root=loaded.project_root)
    server = artifact_server(truncator)
    if http:
        _announce(access, host, port, http_path)
        serve_http(server, host=host, port=port, path=http_path, access=access)
    else:
        asyncio.run(serve_stdio(server))


def _access(http: bool, token_file: Path | None, no_auth: bool) -> Any:
    """Who the HTTP server lets in (see :mod:`truncation_core_mcp.auth`); None without
    --http."""
    if not http:
        if token_file is not None or no_auth:
            raise click.UsageError(f"{'--token-file' if token_file else '--no-auth'} "
                                   "applies to --http only")
        return None
    if token_file is not None and no_auth:
        raise click.UsageError("--token-file and --no-auth: give one or the other")
    from truncation_core_mcp.auth import TokenError, resolve_access

    try:
        return resolve_access(token_file=token_file, no_auth=no_auth)
    except TokenError as exc:
        raise click.ClickException(str(exc)) from None


def _announce(access: Any, host: str, port: int, path: str) -> None:
    """Say on stderr how hosts get in: the token itself only when this run made it."""
    url = f"http://{host}:{port}{path}"
    if access.token is None:
        click.echo(f"trunc mcp: WARNING: --no-auth: anyone who can reach {url} (on a loopback "
                   "address, every user of this machine) can call the tools and read the "
                   "artifacts.", err=True)
    elif access.new:
        click.echo(f"trunc mcp: made a bearer token, kept in {access.path} (mode 0600). "
                   "Hosts must send it with every request to "
                   f"{url}:\n  Authorization: Bearer {access.token}\n"
                   "trunc mcp: it is printed this once; later runs read it from that file.",
                   err=True)
    else:
        click.echo(f"trunc mcp: requests to {url} must carry 'Authorization: Bearer <token>', "
                   f"with the token from {access.source}.", err=True)


def _load(state: AppState | None, config_path: Path | None, *, session: str | None,
          overrides: dict[str, Any] | None = None) -> Any:
    if config_path is not None or state is None:
        state = AppState(config_path=config_path or (state.config_path if state else None))
    overrides = dict(overrides or {})
    if session is not None:
        overrides["store"] = {**overrides.get("store", {}), "session": session}
    return state.load(overrides)


def _processor(loaded: Any) -> Any:
    from truncation_core_mcp.results import ResultProcessor

    with plugin_warnings_to_stderr():
        processor = ResultProcessor(loaded.config, project_root=loaded.project_root)
    store = processor.store
    logging.getLogger("truncation_core_mcp").info(
        "artifacts go to session %s (%s store)", store.session_id, store.name)
    return processor


def _logging(verbose: bool) -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("trunc mcp: %(levelname)s %(message)s"))
    logger = logging.getLogger("truncation_core_mcp")
    logger.addHandler(handler)
    logger.setLevel(logging.INFO if verbose else logging.WARNING)
    logger.propagate = False
