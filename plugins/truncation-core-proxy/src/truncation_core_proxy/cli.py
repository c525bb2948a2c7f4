"""``trunc proxy``: the proxy between an agent and the model API."""

from __future__ import annotations

import logging
import sys
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import click

from truncation_core.cli.state import AppState, plugin_warnings_to_stderr, say

__all__ = ["proxy_command"]

MIB = 1024 * 1024


def _base_url(_ctx: Any, param: click.Parameter, value: str | None) -> str | None:
    if value is None:
        return None
    parts = urlsplit(value)
    if "@" in parts.netloc:  # not repeated: it holds a password
        raise click.BadParameter(
            "expected a base URL without credentials (user:password@): they would be shown "
            "as the proxy starts, and sent in place of the agent's own key", param=param)
    if parts.scheme not in ("http", "https") or not parts.netloc or parts.query:
        raise click.BadParameter(
            f"expected a base URL such as https://api.openai.com, got {value!r}", param=param)
    return value.rstrip("/")


@click.command("proxy")
@click.option("--upstream", required=True, callback=_base_url, metavar="URL",
              help="Base URL the requests go to, their path appended: https://api.openai.com "
                   "or https://api.anthropic.com (no /v1: the agent's path keeps it).")
@click.option("--anthropic-upstream", callback=_base_url, metavar="URL",
              help="Base URL for Anthropic's requests (an anthropic-version header, or "
                   "/v1/messages), so that one proxy serves agents of both providers.")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to listen on (loopback unless you say otherwise).")
@click.option("--port", default=8787, show_default=True, type=click.IntRange(0, 65535),
              help="Port to listen on (0: any free port).")
@click.option("--config", "config_path",
              type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="Read this config file (default: trunc --config, or the one found from "
                   "the working directory).")
@click.option("--session", help="Keep artifacts in this named session (default: store.session "
                                "from config, else a new session).")
@click.option("--timeout", type=click.FloatRange(min=0), default=600.0, show_default=True,
              help="Seconds to wait for the upstream between two bytes; 0: no limit.")
@click.option("--max-body-mb", type=click.IntRange(min=1), default=1024, show_default=True,
              help="A request body over this many MiB is forwarded uncut, with a warning.")
@click.option("--max-rounds", type=click.IntRange(min=0), default=8, show_default=True,
              help="Rounds of artifact tool calls the proxy answers for one request (0: "
                   "cut, but never answer).")
@click.option("--tool-prefix", default="trunc_", show_default=True,
              help="Prefix of the artifact tools' names (trunc_get_artifact ...).")
@click.option("-v", "--verbose", is_flag=True,
              help="Log what the proxy does to stderr (cuts, tool rounds; never content, "
                   "headers or keys).")
@click.pass_obj
def proxy_command(state: AppState | None, upstream: str, anthropic_upstream: str | None,
                  host: str, port: int, config_path: Path | None, session: str | None,
                  timeout: float, max_body_mb: int, max_rounds: int, tool_prefix: str,
                  verbose: bool) -> None:
    """Serve an HTTP proxy in front of the model API that cuts tool results.

    \b
    trunc proxy --upstream https://api.openai.com        # OPENAI_BASE_URL=http://127.0.0.1:8787/v1
    trunc proxy --upstream https://api.anthropic.com     # ANTHROPIC_BASE_URL=http://127.0.0.1:8787

    For OpenAI Chat Completions, OpenAI Responses and Anthropic Messages, streamed or not:
    each tool result over its tool's limit is cut, the full text kept as an artifact, and
    the artifact tools (answered by the proxy itself) are added to the request. Every other
    request passes through untouched.
    """
    from truncation_core.types.tool_names import check_tool_prefix

    try:
        check_tool_prefix(tool_prefix)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--tool-prefix") from None
    _logging(verbose)
    from truncation_core_proxy.server import is_loopback

    if not is_loopback(host):
        say(f"warning: listening on {host}, not loopback: anyone who reaches it can use the "
            "keys that pass through it and read its artifacts", fg="yellow")
    if config_path is not None or state is None:
        state = AppState(config_path=config_path or (state.config_path if state else None))
    loaded = state.load({"store": {"session": session}} if session is not None else None)

    from truncation_core_proxy.cutter import Cutter
    from truncation_core_proxy.relay import ProxyOptions, Relay
    from truncation_core_proxy.server import proxy_app, serve

    with plugin_warnings_to_stderr():
        cutter = Cutter(loaded.config, project_root=loaded.project_root, prefix=tool_prefix)
    options = ProxyOptions(upstream=upstream, anthropic_upstream=anthropic_upstream,
                           timeout=timeout or None, max_body_bytes=max_body_mb * MIB,
                           max_rounds=max_rounds)
    store = cutter.store

    def ready(url: str) -> None:
        say(f"trunc proxy: listening on {url}, forwarding to {upstream}"
            + (f" (Anthropic: {anthropic_upstream})" if anthropic_upstream else "")
            + f"; artifacts in session {store.session_id} ({store.name} store)")
        sys.stderr.flush()

    serve(proxy_app(Relay(cutter, options)), host, port, on_ready=ready)


def _logging(verbose: bool) -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("trunc proxy: %(levelname)s %(message)s"))
    logger = logging.getLogger("truncation_core_proxy")
    logger.addHandler(handler)
    logger.setLevel(logging.INFO if verbose else logging.WARNING)
    logger.propagate = False
