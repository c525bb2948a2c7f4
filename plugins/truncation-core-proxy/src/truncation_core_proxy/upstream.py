"""The proxy's HTTP client to the upstream: aiohttp, one pooled keep-alive session.

aiohttp rather than httpx: on the path every request takes, httpx (httpcore over anyio) cost
the proxy about twice the CPU of aiohttp's client, 2.5 against 1.4 ms a request, and 6 to 7 ms
of added latency against 2 to 3.5 on the loaded development VM (a minimal relay of each, same
run, bench/bench_proxy.py's requests): more than the 5 ms the proxy may add (issue 30).

What goes upstream is what the agent sent: its headers (less hop-by-hop ones, which the
relay drops), none of aiohttp's own (no User-Agent, Accept or Content-Type of its choosing),
its path and query byte for byte, no cookie remembered from one agent's answer for another's
request, no redirect followed, no proxy from the environment.
"""

from __future__ import annotations

import codecs
import io
import ssl
from collections.abc import AsyncIterator, Mapping

import aiohttp
import certifi
from multidict import CIMultiDictProxy
from yarl import URL

__all__ = ["Upstream", "UpstreamError", "UpstreamResponse", "UpstreamTimeout"]

#: Bodies larger than this go to aiohttp as a file, which it sends in pieces.
_BYTES_BODY = 1024 * 1024
#: Headers aiohttp would add of its own accord; the agent's own pass as they came.
_SKIP_AUTO = frozenset({"User-Agent", "Accept", "Accept-Encoding", "Content-Type"})


class UpstreamError(Exception):
    """The upstream could not be reached, or its answer broke off."""


class UpstreamTimeout(UpstreamError):
    """The upstream did not answer in time (connect, or between two bytes)."""


class UpstreamResponse:
    """An answer of the upstream, its body not read yet."""

    def __init__(self, response: aiohttp.ClientResponse) -> None:
        self._response = response
        self.status_code = response.status
        self.headers: CIMultiDictProxy[str] = response.headers

    async def aread(self) -> bytes:
        try:
            return await self._response.read()
        except TimeoutError as exc:
            raise UpstreamTimeout(type(exc).__name__) from exc
        except aiohttp.ClientError as exc:
            raise UpstreamError(type(exc).__name__) from exc

    async def aiter_raw(self) -> AsyncIterator[bytes]:
        """The body as it arrives (decoded when the request asked aiohttp to decode)."""
        try:
            async for chunk in self._response.content.iter_any():
                yield chunk
        except TimeoutError as exc:
            raise UpstreamTimeout(type(exc).__name__) from exc
        except aiohttp.ClientError as exc:
            raise UpstreamError(type(exc).__name__) from exc

    async def aiter_text(self) -> AsyncIterator[str]:
        """The body as UTF-8 text (what httpx-sse's ``EventSource`` reads)."""
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        async for chunk in self.aiter_raw():
            text = decoder.decode(chunk)
            if text:
                yield text
        text = decoder.decode(b"", final=True)
        if text:
            yield text

    async def aclose(self) -> None:
        # A body read to its end gives the connection back to the pool; one not read to
        # its end closes it.
        self._response.release()


class Upstream:
    """``await upstream.open(...)`` once :meth:`start`'ed (on the serving loop)."""

    def __init__(self, *, timeout: float | None, connect_timeout: float) -> None:
        self._timeout = aiohttp.ClientTimeout(total=None, connect=connect_timeout,
                                              sock_read=timeout)
        self._session: aiohttp.ClientSession | None = None

    async def start(self) -> None:
        # Certificates from certifi, as httpx (the proxy's client before) trusts them: not
        # the system's store, which some Pythons (macOS installers) leave empty.
        trusted = ssl.create_default_context(cafile=certifi.where())
        self._session = aiohttp.ClientSession(
            connector=aiohttp.TCPConnector(limit=0, ssl=trusted), timeout=self._timeout,
            cookie_jar=aiohttp.DummyCookieJar(), skip_auto_headers=_SKIP_AUTO,
            trust_env=False, auto_decompress=False)

    async def close(self) -> None:
        if self._session is not None:
            await self._session.close()
            self._session = None

    async def open(self, method: str, url: str, headers: Mapping[str, str],
                   content: bytes | AsyncIterator[bytes] | None, *,
                   decode: bool) -> UpstreamResponse:
        """Send a request; its answer once its headers are in. *url* as the agent wrote it
        (escaped already: not quoted again). *decode*: the body read decompressed."""
        if self._session is None:
            raise RuntimeError("the relay is not started")
        try:
            target = URL(url, encoded=True)
        except ValueError as exc:
            raise UpstreamError(type(exc).__name__) from exc
        data: bytes | io.BytesIO | AsyncIterator[bytes] | None = content
        if isinstance(content, bytes) and len(content) > _BYTES_BODY:
            data = io.BytesIO(content)  # sent in pieces (aiohttp warns of one large write)
        try:
            response = await self._session.request(
                method, target, headers=dict(headers), data=data, allow_redirects=False,
                auto_decompress=decode)
        except TimeoutError as exc:
            raise UpstreamTimeout(type(exc).__name__) from exc
        except (aiohttp.ClientError, ValueError) as exc:
            raise UpstreamError(type(exc).__name__) from exc
        return UpstreamResponse(response)
