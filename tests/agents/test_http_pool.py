"""The sharded async transport: a new pool only when every pool is full, busy counts released when a response
is closed or a request fails, bodies passed through intact."""

from __future__ import annotations

import asyncio

import httpx
import pytest

from agents import http_pool
from agents.http_pool import ShardedAsyncTransport


class FakePool(httpx.AsyncBaseTransport):
    """Stands in for one httpx connection pool; answers after ``gate`` opens (or fails for /fail)."""

    gate: asyncio.Event
    made: list[FakePool] = []

    def __init__(self, limits: httpx.Limits) -> None:
        self.limits = limits
        self.requests = 0
        FakePool.made.append(self)

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.requests += 1
        await FakePool.gate.wait()
        if request.url.path == "/fail":
            raise httpx.ConnectError("refused")
        return httpx.Response(200, stream=httpx.ByteStream(b'{"ok": true}'))


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> type[FakePool]:
    FakePool.made = []
    monkeypatch.setattr(http_pool.httpx, "AsyncHTTPTransport", FakePool)
    return FakePool


def test_pools_open_only_when_full_and_are_released(fake: type[FakePool]) -> None:
    async def main() -> None:
        fake.gate = asyncio.Event()
        transport = ShardedAsyncTransport(per_shard=2, max_shards=8)
        async with httpx.AsyncClient(transport=transport, base_url="http://x") as client:
            calls = [asyncio.create_task(client.get(f"/r{i}")) for i in range(5)]
            await asyncio.sleep(0.01)
            assert len(fake.made) == 3 and [p.requests for p in fake.made] == [2, 2, 1]
            assert all(p.limits.max_connections == 2 for p in fake.made)
            fake.gate.set()
            responses = await asyncio.gather(*calls)
            assert [r.json() for r in responses] == [{"ok": True}] * 5
            assert transport.busy == [0, 0, 0]
            for _ in range(4):  # one at a time: the first pool serves them all
                await client.get("/again")
            assert len(fake.made) == 3 and fake.made[0].requests == 6

    asyncio.run(main())


def test_failed_request_releases_its_slot_and_max_shards_is_respected(fake: type[FakePool]) -> None:
    async def main() -> None:
        fake.gate = asyncio.Event()
        fake.gate.set()
        transport = ShardedAsyncTransport(per_shard=1, max_shards=2)
        async with httpx.AsyncClient(transport=transport, base_url="http://x") as client:
            with pytest.raises(httpx.ConnectError):
                await client.get("/fail")
            assert transport.busy == [0]
            fake.gate = asyncio.Event()
            calls = [asyncio.create_task(client.get("/r")) for _ in range(4)]
            await asyncio.sleep(0.01)
            assert len(fake.made) == 2 and sorted(transport.busy) == [2, 2]  # capped at 2 pools: they queue
            fake.gate.set()
            await asyncio.gather(*calls)
            assert transport.busy == [0, 0]

    asyncio.run(main())
