"""Two replicas of the API on two ports, sharing PostgreSQL and a real Redis (REDIS_URL): the
control plane and the rate limits work whichever replica a request reaches."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import time
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from redis.asyncio import Redis
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from arena_api.cluster import ClusterUnavailable, open_cluster
from arena_api.cluster.bus import ReplicaBus
from arena_api.cluster.join import _PENDING as JOIN_PENDING
from arena_api.cluster.join import RedisJoinBroker
from arena_api.core.errors import ArenaError
from arena_api.core.join import FollowerRole, join_scope
from arena_api.settings import SettingsError
from tests.integration.arena_harness import SECRET, Arena, serve_arena
from tests.integration.test_control import Reader, stop_round
from tests.integration.test_control import _control as control_messages
from tests.integration.test_join import _body, _post, _slots_seen, leave_one
from tests.support import RedisServer, free_port, make_settings

SLOW = {"ARENA_MOCK_TOKENS_PER_SECOND": "20", "ARENA_MOCK_TOKENS": "400"}


@contextlib.asynccontextmanager
async def replicas(
    db: AsyncEngine, database_url: str, tmp_path: Path, redis_url: str, **env: str
) -> AsyncIterator[tuple[Arena, Arena]]:
    """Two servers of the same arena: one database, one Redis, data dirs of their own."""
    env = {"REDIS_URL": redis_url, **env}
    async with (
        serve_arena(db, database_url, tmp_path / "one", **env) as one,
        serve_arena(db, database_url, tmp_path / "two", **env) as two,
    ):
        yield one, two


async def _control(arena: Arena, message: dict[str, Any]) -> dict[str, Any]:
    return (await control_messages(arena, message))[0]


async def test_a_stop_sent_to_the_other_replica_stops_the_round(
    db: AsyncEngine, database_url: str, tmp_path: Path, redis_url: str
) -> None:
    async with replicas(db, database_url, tmp_path, redis_url, **SLOW) as (one, two):
        stopped = await stop_round(one, two)
    matchup = stopped.matchup

    assert stopped.reply == {"type": "stopped", "matchupId": matchup, "ok": True}
    assert stopped.ended_after < 2
    assert stopped.reader.frames[-1][0] == "matchup_done"
    assert [row.error for row in stopped.stored] == ["stopped", "stopped"]
    assert stopped.again == {
        "type": "stopped",
        "matchupId": matchup,
        "ok": False,
        "reason": "unknown or finished matchup",
    }


async def test_a_steer_sent_to_the_other_replica_is_checked_and_applied_where_the_round_runs(
    db: AsyncEngine, database_url: str, tmp_path: Path, redis_url: str
) -> None:
    env = {"ARENA_MOCK_TOKENS_PER_SECOND": "50", "ARENA_MOCK_TOKENS": "30"}
    async with replicas(db, database_url, tmp_path, redis_url, **env) as (one, two):
        reader = Reader(one, {"prompt": "explain"})
        await reader.started.wait()
        started = reader.frames[0][1]
        matchup = started["matchupId"]
        other = Reader(one, {"prompt": "another"})
        await other.started.wait()
        foreign_token = other.frames[0][1]["matchupToken"]

        refused = await _control(
            two,
            {
                "type": "steer",
                "matchupId": matchup,
                "instruction": "x",
                "matchupToken": foreign_token,
            },
        )
        accepted = await _control(
            two,
            {
                "type": "steer",
                "matchupId": matchup,
                "instruction": "be concise",
                "matchupToken": started["matchupToken"],
            },
        )
        await asyncio.wait_for(asyncio.gather(reader.task, other.task), timeout=15)
        steers = await one.scalar(
            "SELECT steers FROM matchups WHERE id = :id", id=uuid.UUID(matchup)
        )

    assert refused == {
        "type": "steer_ack",
        "matchupId": matchup,
        "accepted": False,
        "reason": "the matchup token does not match this matchup",
    }
    assert accepted == {"type": "steer_ack", "matchupId": matchup, "accepted": True}
    assert "steered" in [name for name, _ in reader.frames]
    assert [s["instruction"] for s in steers] == ["be concise"]


async def test_a_replica_that_does_not_answer_times_out_with_its_code(
    db: AsyncEngine, database_url: str, tmp_path: Path, redis_url: str
) -> None:
    matchup = str(uuid.uuid4())
    redis = Redis.from_url(redis_url)
    async with replicas(db, database_url, tmp_path, redis_url, ARENA_CLUSTER_TIMEOUT_MS="300") as (
        one,
        _,
    ):
        # A third replica that hears requests but never answers (hung)...
        async with redis.pubsub() as hung:
            await hung.subscribe("arena:replicas")
            asked_at = time.monotonic()
            timed_out = await _control(one, {"type": "stop", "matchupId": matchup})
            waited = time.monotonic() - asked_at
        # ... and once it is gone, every replica left says no round of that id runs there.
        asked_at = time.monotonic()
        unknown = await _control(one, {"type": "stop", "matchupId": matchup})
        answered_in = time.monotonic() - asked_at
    await redis.aclose()

    assert timed_out == {
        "type": "stopped",
        "matchupId": matchup,
        "ok": False,
        "reason": "the replica running this matchup did not answer",
        "code": "cluster_timeout",
    }
    assert 0.3 <= waited < 2
    assert unknown["ok"] is False and unknown["reason"] == "unknown or finished matchup"
    assert answered_in < 0.3


async def test_rate_limits_count_across_replicas(
    db: AsyncEngine, database_url: str, tmp_path: Path, redis_url: str
) -> None:
    async with replicas(db, database_url, tmp_path, redis_url, ARENA_RATE_LIMIT="3/minute") as (
        one,
        two,
    ):
        admitted = [(await arena.chat())[0].status_code for arena in (one, two, one)]
        refused, _ = await two.chat()
        other_group = (await one.client.post("/api/arena/vote", json={})).status_code

    assert admitted == [200, 200, 200]
    assert refused.status_code == 429
    assert refused.json()["code"] == "rate_limited"
    assert 55 <= int(refused.headers["retry-after"]) <= 60
    assert other_group == 400  # the vote budget is its own: the request got to validation


async def test_wrong_passphrases_count_across_replicas(
    db: AsyncEngine, database_url: str, tmp_path: Path, redis_url: str
) -> None:
    env = {"ARENA_PASSPHRASE": "open sesame", "ARENA_LOGIN_RATE_LIMIT": "2/minute"}
    async with replicas(db, database_url, tmp_path, redis_url, **env) as (one, two):
        wrong = {"passphrase": "guess"}
        first = await one.client.post("/login", json=wrong)
        second = await two.client.post("/login", json=wrong)
        locked = await one.client.post("/login", json={"passphrase": "open sesame"})

    assert [first.status_code, second.status_code] == [401, 401]
    assert locked.status_code == 429
    assert locked.json()["code"] == "rate_limited"


def test_a_cluster_needs_a_shared_database_and_secret() -> None:
    with pytest.raises(SettingsError, match="MATCHUP_TOKEN_SECRET"):
        make_settings("postgresql://x/y", REDIS_URL="redis://127.0.0.1:1").check_serving()
    with pytest.raises(SettingsError, match="must be a URL"):
        make_settings("postgresql://x/y", REDIS_URL="http://127.0.0.1:1")


async def test_an_unreachable_redis_is_a_clear_error_at_start() -> None:
    with pytest.raises(ClusterUnavailable, match="cannot be reached"):
        async with open_cluster(f"redis://127.0.0.1:{free_port()}/0", 1.0):
            pass


# -- slot join across replicas -------------------------------------------------------------------


@pytest.mark.parametrize("order", ["one first", "two first"])
async def test_siblings_on_two_replicas_share_one_matchup(
    db: AsyncEngine, database_url: str, tmp_path: Path, redis_url: str, order: str
) -> None:
    redis = Redis.from_url(redis_url)
    env = {"ARENA_JOIN_WINDOW_MS": "10000"}  # room for all twenty claims on a busy machine
    async with replicas(db, database_url, tmp_path, redis_url, **env) as (one, two):
        first, second = (one, two) if order == "one first" else (two, one)
        keys = [f"{order}-{i}" for i in range(20)]
        waiting = await redis.zcard(JOIN_PENDING)
        leading = [asyncio.create_task(_post(first, _body(key))) for key in keys]
        # Every first request has claimed its scope (it leads) before its sibling is sent: a
        # fixed pause loses that race on a busy machine.
        deadline = time.monotonic() + 5.0
        while await redis.zcard(JOIN_PENDING) < waiting + len(keys):
            assert time.monotonic() < deadline, "the leading requests did not claim in time"
            await asyncio.sleep(0.01)
        following = await asyncio.gather(*(_post(second, _body(key)) for key in keys))
        pairs = list(zip(await asyncio.gather(*leading), following, strict=True))
        matchups = await one.scalar("SELECT count(*) FROM matchups")
        responses = await one.scalar("SELECT count(*) FROM responses")
        (_, leader, _), (_, follower, _) = pairs[0]
        vote = await second.vote(follower[0][1], "right")
        again = await first.vote(leader[0][1])
    await redis.aclose()

    assert matchups == 20 and responses == 40
    for (status_1, frames_1, _), (status_2, frames_2, _) in pairs:
        assert (status_1, status_2) == (200, 200)
        started_1, started_2 = frames_1[0][1], frames_2[0][1]
        assert [started_1["slots"], started_2["slots"]] == [["A"], ["B"]]
        for key in ("matchupId", "matchupToken", "conversationId", "turnIndex"):
            assert started_1[key] == started_2[key]
        for frames, started in ((frames_1, started_1), (frames_2, started_2)):
            assert _slots_seen(frames) == set(started["slots"])
            assert [name for name, _ in frames].count("token") > 0
            assert frames[-1][0] == "matchup_done"
    assert vote.status_code == 200 and again.status_code == 409


async def test_a_third_sibling_on_either_replica_is_refused(
    db: AsyncEngine, database_url: str, tmp_path: Path, redis_url: str
) -> None:
    async with replicas(db, database_url, tmp_path, redis_url) as (one, two):
        results = await asyncio.gather(*(_post(a, _body("crowd")) for a in (one, two, two)))
        later, _, error = await _post(one, _body("crowd"))

    statuses = sorted(status for status, _, _ in results)
    refused = [error for status, _, error in results if status != 200]
    assert statuses == [200, 200, 409] and refused[0]["code"] == "join_slots_exhausted"
    assert (later, error["code"]) == (409, "join_slots_exhausted")


async def test_a_late_sibling_on_the_other_replica_has_expired(
    db: AsyncEngine, database_url: str, tmp_path: Path, redis_url: str
) -> None:
    env = {"ARENA_JOIN_WINDOW_MS": "150"}
    async with replicas(db, database_url, tmp_path, redis_url, **env) as (one, two):
        status, frames, _ = await _post(one, _body("alone"))
        late_status, _, late_error = await _post(two, _body("alone"))

    assert status == 200 and frames[0][1]["slots"] == ["A", "B"]
    assert _slots_seen(frames) == {"A", "B"}
    assert (late_status, late_error["code"]) == (409, "join_expired")


async def test_the_pending_cap_counts_unpaired_scopes_of_every_replica(
    db: AsyncEngine, database_url: str, tmp_path: Path, redis_url: str
) -> None:
    env = {"ARENA_JOIN_MAX_PENDING": "1", "ARENA_JOIN_WINDOW_MS": "1500"}
    redis = Redis.from_url(redis_url)
    async with replicas(db, database_url, tmp_path, redis_url, **env) as (one, two):
        pending = await redis.zcard(JOIN_PENDING)
        waiting = asyncio.create_task(_post(one, _body("first")))
        # The first request has claimed its scope (it leads) before the second is sent.
        deadline = time.monotonic() + 10.0
        while await redis.zcard(JOIN_PENDING) <= pending:
            assert time.monotonic() < deadline, "the first request did not claim in time"
            await asyncio.sleep(0.01)
        status, _, error = await _post(two, _body("second"))
        await waiting
    await redis.aclose()

    assert (status, error["code"]) == (503, "join_unavailable")


async def test_a_pre_stream_failure_of_the_leader_reaches_the_follower_on_the_other_replica(
    db: AsyncEngine, database_url: str, tmp_path: Path, redis_url: str
) -> None:
    async with replicas(db, database_url, tmp_path, redis_url) as (one, two):
        body = _body("ghost", conversationId=str(uuid.uuid4()))
        results = await asyncio.gather(_post(one, body), _post(two, body))

    codes = sorted(error["code"] for _, _, error in results)
    assert codes[0] == "conversation_not_found"
    assert codes[1] in {"conversation_not_found", "join_expired"}


async def test_a_leader_failing_before_it_reads_its_followers_message_still_tells_it(
    redis_url: str,
) -> None:
    # The race behind the test above, made certain: the follower claims its slot, and the
    # leader fails before its inbox delivers the follower's "join_followed".
    async with contextlib.AsyncExitStack() as stack:
        brokers = []
        for _ in range(2):
            cluster = await stack.enter_async_context(open_cluster(redis_url, 2.0))
            bus = ReplicaBus(cluster)
            broker = RedisJoinBroker(
                bus, secret=b"s", window_s=5.0, max_pending=10, max_queued=10, leader_timeout_s=3
            )
            await bus.start()
            stack.push_async_callback(bus.close)
            brokers.append((bus, broker))
        (leader_bus, leaders), (_, followers) = brokers
        leader_bus.on("join_followed", lambda body: None)  # the message is late
        leader = await leaders.join("scope-1")
        follower = await followers.join("scope-1")
        assert not isinstance(leader, FollowerRole) and isinstance(follower, FollowerRole)
        leader.fail(ArenaError("No such conversation", status=404, code="conversation_not_found"))
        with pytest.raises(ArenaError) as caught:
            await follower.handshake()

    assert (caught.value.status, caught.value.code) == (404, "conversation_not_found")


async def test_the_rounds_of_a_replica_that_died_get_their_missing_answers_marked(
    db: AsyncEngine, database_url: str, tmp_path: Path, redis_url: str
) -> None:
    redis = Redis.from_url(redis_url)
    async with replicas(db, database_url, tmp_path, redis_url) as (one, _):
        _, frames = await one.chat()
        matchup = uuid.UUID(frames[0][1]["matchupId"])
        replica = await one.scalar("SELECT replica FROM matchups WHERE id = :m", m=matchup)
        _, finished = await one.chat()
        # As if a replica had died while streaming the first round: no answers stored, the
        # round is its own, it is listed as running, and it has no heartbeat.
        async with db.begin() as conn:
            await conn.execute(text("DELETE FROM responses WHERE matchup_id = :m"), {"m": matchup})
            await conn.execute(
                text("UPDATE matchups SET replica = 'dead' WHERE id = :m"), {"m": matchup}
            )
        await redis.sadd("arena:replicas", "dead")
        rows: list[Any] = []
        for _ in range(100):
            rows = await one.rows(
                "SELECT slot, content, error FROM responses WHERE matchup_id = :m ORDER BY slot",
                m=matchup,
            )
            if rows:
                break
            await asyncio.sleep(0.1)
        listed = await redis.smembers("arena:replicas")
        untouched = await one.rows(
            "SELECT error FROM responses WHERE matchup_id = :m",
            m=uuid.UUID(finished[0][1]["matchupId"]),
        )
    await redis.aclose()

    assert [(r.slot, r.content, r.error) for r in rows] == [
        ("A", "", "replica_lost"),
        ("B", "", "replica_lost"),
    ]
    assert b"dead" not in listed and len(listed) == 2
    assert isinstance(replica, str) and len(replica) == 16
    assert [r.error for r in untouched] == [None, None]


@pytest.mark.parametrize("who", ["leader", "follower"])
async def test_one_sibling_disconnecting_on_its_replica_leaves_the_other_and_the_record_intact(
    db: AsyncEngine, database_url: str, tmp_path: Path, redis_url: str, who: str
) -> None:
    env = {"ARENA_MOCK_TOKENS_PER_SECOND": "40", "ARENA_MOCK_TOKENS": "20"}
    async with replicas(db, database_url, tmp_path, redis_url, **env) as (one, two):
        await leave_one(one, two, who)


async def test_a_follower_whose_leader_replica_is_gone_gets_the_leader_timeout_at_once(
    db: AsyncEngine, database_url: str, tmp_path: Path, redis_url: str
) -> None:
    body = _body("orphan")
    secret = hmac.new(SECRET.encode(), b"arena-join-scope", hashlib.sha256).digest()
    scope = join_scope(secret, body["sessionId"], None, body["prompt"], body["joinKey"])
    redis = Redis.from_url(redis_url)
    async with replicas(db, database_url, tmp_path, redis_url) as (one, _):
        # A leader claimed the scope on a replica that died before it handed the round over.
        await redis.hset(
            f"arena:join:{scope}",
            mapping={"slot": "A", "leader": "gone", "lid": "x", "followed": 0},
        )
        asked_at = time.monotonic()
        status, _, error = await _post(one, body)
        waited = time.monotonic() - asked_at
    await redis.aclose()

    assert (status, error["code"]) == (504, "join_leader_timeout")
    assert waited < 5  # not the window + 30 s a live but silent leader would get


async def test_when_redis_goes_away_replicas_say_so_and_keep_what_needs_no_redis(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    env = {"ARENA_RATE_LIMIT": "100/minute", "ARENA_CLUSTER_TIMEOUT_MS": "500"}
    with RedisServer(tmp_path) as redis:
        async with replicas(db, database_url, tmp_path, redis.url, **env) as (one, two):
            healthy = await one.client.get("/health")
            redis.__exit__()  # Redis stops
            unhealthy = await one.client.get("/health")
            response, frames = await one.chat()  # the rate limit fails open
            control = await _control(two, {"type": "stop", "matchupId": str(uuid.uuid4())})
            joined = await one.client.post("/api/arena/chat", json=_body("no-redis"))

    assert healthy.status_code == 200 and healthy.json()["redis"] == "reachable"
    assert unhealthy.status_code == 503 and unhealthy.json()["redis"] == "unreachable"
    assert response.status_code == 200 and frames[-1][0] == "matchup_done"
    assert control["ok"] is False and control["code"] == "cluster_unavailable"
    assert joined.status_code == 503 and joined.json()["code"] == "cluster_unavailable"
