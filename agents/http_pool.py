"""An async HTTP transport that spreads requests over several small connection pools.

httpcore's connection pool walks every pooled connection (and polls each idle socket) whenever a request is
queued or released, so its CPU cost per request grows with the number of connections: measured here
(``benchmarks/run.py concurrency``), one pool of 64 connections to a 50 ms endpoint gave fewer samples/s than
one of 16. :class:`ShardedAsyncTransport` keeps up to ``per_shard`` requests on each of several pools, opening a
new pool only when every existing one is full, so a run with few connections uses a single ordinary pool.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator

import httpx

DEFAULT_MAX_REPLY_BYTES = 4 * 1024 * 1024


class ReplyTooLarge(Exception):
    """A response body longer than the cap; reading stopped there (the rest was never read)."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"the reply exceeded {limit} bytes (--max-reply-bytes) and was cut off")
        self.limit = limit


class _CappedAsync(httpx.AsyncByteStream):
    def __init__(self, inner: httpx.AsyncByteStream, limit: int) -> None:
        self.inner, self.limit, self.seen = inner, limit, 0

    async def __aiter__(self) -> AsyncIterator[bytes]:
        async for chunk in self.inner:
            self.seen += len(chunk)
            if self.seen > self.limit:
                raise ReplyTooLarge(self.limit)
            yield chunk

    async def aclose(self) -> None:
        await self.inner.aclose()


class _CappedSync(httpx.SyncByteStream):
    def __init__(self, inner: httpx.SyncByteStream, limit: int) -> None:
        self.inner, self.limit, self.seen = inner, limit, 0

    def __iter__(self) -> Iterator[bytes]:
        for chunk in self.inner:
            self.seen += len(chunk)
            if self.seen > self.limit:
                raise ReplyTooLarge(self.limit)
            yield chunk

    def close(self) -> None:
        self.inner.close()


class CappedAsyncTransport(httpx.AsyncBaseTransport):
    """Sends through ``inner`` and stops reading a response body after ``max_bytes`` (raises ReplyTooLarge)."""

    def __init__(self, inner: httpx.AsyncBaseTransport, max_bytes: int = DEFAULT_MAX_REPLY_BYTES) -> None:
        self.inner, self.max_bytes = inner, max_bytes

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        response = await self.inner.handle_async_request(request)
        assert isinstance(response.stream, httpx.AsyncByteStream)
        return httpx.Response(status_code=response.status_code, headers=response.headers,
                              stream=_CappedAsync(response.stream, self.max_bytes), extensions=response.extensions)

    async def aclose(self) -> None:
        await self.inner.aclose()


class CappedTransport(httpx.BaseTransport):
    """Sync twin of :class:`CappedAsyncTransport`."""

    def __init__(self, inner: httpx.BaseTransport, max_bytes: int = DEFAULT_MAX_REPLY_BYTES) -> None:
        self.inner, self.max_bytes = inner, max_bytes

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        response = self.inner.handle_request(request)
        assert isinstance(response.stream, httpx.SyncByteStream)
        return httpx.Response(status_code=response.status_code, headers=response.headers,
                              stream=_CappedSync(response.stream, self.max_bytes), extensions=response.extensions)

    def close(self) -> None:
        self.inner.close()


class _Release(httpx.AsyncByteStream):
    """A response body that tells its shard when the response is closed (the connection is free again)."""

    def __init__(self, inner: httpx.AsyncByteStream, release: Callable[[], None]) -> None:
        self.inner = inner
        self.release: Callable[[], None] | None = release

    async def __aiter__(self) -> AsyncIterator[bytes]:
        async for chunk in self.inner:
            yield chunk

    async def aclose(self) -> None:
        try:
            await self.inner.aclose()
        finally:
            if self.release is not None:
                self.release()
                self.release = None


class ShardedAsyncTransport(httpx.AsyncBaseTransport):
    """Requests go to the least busy of up to ``max_shards`` pools of ``per_shard`` connections each."""

    def __init__(self, per_shard: int = 16, max_shards: int = 64, keepalive_expiry: float = 5.0) -> None:
        self.per_shard = per_shard
        self.max_shards = max_shards
        self.limits = httpx.Limits(max_connections=per_shard, max_keepalive_connections=per_shard,
                                   keepalive_expiry=keepalive_expiry)
        self.shards: list[httpx.AsyncHTTPTransport] = []
        self.busy: list[int] = []

    def _pick(self) -> int:
        if self.shards:
            i = min(range(len(self.shards)), key=self.busy.__getitem__)
            if self.busy[i] < self.per_shard or len(self.shards) >= self.max_shards:
                return i
        self.shards.append(httpx.AsyncHTTPTransport(limits=self.limits))
        self.busy.append(0)
        return len(self.shards) - 1

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        i = self._pick()
        self.busy[i] += 1

        def release() -> None:
            self.busy[i] -= 1

        try:
            response = await self.shards[i].handle_async_request(request)
        except BaseException:
            release()
            raise
        assert isinstance(response.stream, httpx.AsyncByteStream)
        return httpx.Response(status_code=response.status_code, headers=response.headers,
                              stream=_Release(response.stream, release), extensions=response.extensions)

    async def aclose(self) -> None:
        for shard in self.shards:
            await shard.aclose()
