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
@_verbose_option
@click.argument("command", nargs=-1, required=True, type=click.UNPROCESSED)
@click.pass_obj
def proxy_command(state: AppState | None, config_path: Path | None, session: str | None,
                  restart: bool, timeout: float, max_message_bytes: int, http: bool, host: str,
                  port: int, http_path: str, verbose: bool, command: tuple[str, ...]) -> None:
    """Run an MCP server (COMMAND ...) behind truncation-core.

    \b
    trunc mcp proxy [OPTIONS] -- COMMAND [ARGS]...

    Serves the host over stdio (or Streamable HTTP with --http) and starts the downstream
    server over stdio. Everything passes through unchanged, but each tool result is cut to
    its tool's limit, with what was cut stored as an artifact that the artifact tools (added
    to the server's tools) read back.
    """
    _logging(verbose)
    loaded = _load(state, config_path, session=session)
    from truncation_core_mcp.relay import ProxyOptions

    options = ProxyOptions(argv=command, env=dict(os.environ), cwd=os.getcwd(), restart=restart,
                           timeout=timeout or None, max_message_bytes=max_message_bytes)
    processor = _processor(loaded)
    if http:
        from truncation_core_mcp.http import serve_proxy_http

        serve_proxy_http(processor, options, host=host, port=port, path=http_path)
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
                  verbose: bool) -> None:
    """Serve the artifact tools alone (get_artifact, artifact_head, artifact_tail,
    artifact_grep), over stdio or Streamable HTTP.

    For hosts that truncate on their own: they read back what truncation-core stored
    (trunc run --session NAME, trunc apply --session NAME, or a proxy's session).
    """
    _logging(verbose)
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
        serve_http(server, host=host, port=port, path=http_path)
    else:
        asyncio.run(serve_stdio(server))


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
