"""Load on the table server: tables x 7 bots playing Black Jack over HTTP and WebSocket.

Each table has seven player bots (one per box) and a dealer bot, each with its own WebSocket to the
table and his own keep-alive HTTP connection (`benchmarks.lean_client`: asyncio protocols, so that the
140 players take as little of the server's machine as can be). A bot acts on what the server pushes him:
between rounds he bets on his box; the dealer deals once every box has its bet; a bot whose box holds
the pending decision answers it over HTTP (a simple hit-below-17 player, declining every offer).
Decisions/s counts the answers the server took; p50/p99 are the round trips of those answers (the
request written until its answer read).

    python -m benchmarks.bench_server --tables 20 --seconds 60                       # SQLite
    python -m benchmarks.bench_server --tables 20 --postgres                         # PostgreSQL
    python -m benchmarks.bench_server --tables 20 --postgres --socket                # ... its Unix socket
    python -m benchmarks.bench_server --tables 20 --postgres --workers 2 --redis     # 2 processes
    python -m benchmarks.bench_server --soak 30 --kill-every 180 --tables 20          # the soak run
    python -m benchmarks.bench_server --tables 20 --postgres --rate 500              # latency at 500/s

The tool starts its own `tapete serve` (a fresh SQLite file, or a fresh PostgreSQL database on
127.0.0.1:5432 dropped afterwards), or drives a running one with `--url` and `--admin-password`.
`--soak MINUTES` runs two server processes on one PostgreSQL database and one Redis, SIGKILLs one of
them every `--kill-every` seconds and starts it again; the bots fail over to the other. At the end
every table's chain is verified, the ledger must sum to zero, every round must be finished or voided
and every player's balance must equal his buy-in plus what the rounds' settlements gave him.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import re
import shutil
import sys
import tempfile
import time
import urllib.parse
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp
from pydantic_core import from_json  # several times the standard library's speed: bots parse every push
from tests.procs import Server

from benchmarks import lean_client

PASSWORD = "bench-password-123"
ADMIN_PASSWORD = "bench-admin-password"
CHIPS = 10_000_000
BET = 1_000
#: the PostgreSQL server the tool makes its database on (TAPETE_BENCH_POSTGRES: another, e.g. one with
#: pg_stat_statements loaded to see what the load asks of the database)
PG = os.environ.get("TAPETE_BENCH_POSTGRES", "postgresql://postgres@127.0.0.1:5432")


def pg_url(database: str, socket_dir: str | None = None) -> str:
    """The URL of `database` on the benchmark's PostgreSQL server (`PG`), or on the same server and user
    through its Unix socket in `socket_dir` (as a server on the database's host reaches it)."""
    if socket_dir is None:
        return f"{PG}/{database}"
    user = urllib.parse.urlsplit(PG).username or "postgres"
    return f"postgresql://{user}@/{database}?host={socket_dir}"


# ---------------------------------------------------------------------------------------- servers
def postgres_cpu_seconds() -> float:
    """User + system CPU seconds of this machine's PostgreSQL processes (Linux /proc): what the database
    spent on the load, beside the servers and the bots (other databases of the cluster included)."""
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        if stat[stat.index("(") + 1 : stat.rindex(")")].startswith("postgres"):
            fields = stat.rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])
    return total / ticks


def machine_cpu() -> dict[str, float]:
    """This machine's CPU seconds so far (Linux /proc/stat): idle, and stolen by the hypervisor for
    other guests, a cause of the runs' spread on a shared host."""
    fields = Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]
    ticks = os.sysconf("SC_CLK_TCK")
    return {"idle": (int(fields[3]) + int(fields[4])) / ticks, "steal": int(fields[7]) / ticks}


_PROBE_DOCUMENT = {
    "seats": [{"seat": n, "cards": ["AS", "10H"] * 3, "bets": [{"amount": 1000}]} for n in range(7)]
}


def machine_probe() -> float:
    """CPU seconds of a fixed pure-Python workload (20,000 JSON round trips of one table-like document):
    how fast this machine runs Python at this moment. Its speed moves by a third within minutes here, so
    runs compare by CPU per decision only beside their probes."""
    start = time.process_time()
    for _ in range(20_000):
        json.loads(json.dumps(_PROBE_DOCUMENT))
    return time.process_time() - start


def create_database() -> str:
    import psycopg

    name = f"tapete_bench_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(pg_url("postgres"), autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    return name


def drop_database(name: str) -> None:
    import psycopg

    with psycopg.connect(pg_url("postgres"), autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


# ------------------------------------------------------------------------------------------- client
class Client:
    """HTTP to any of the server's addresses (the next one when one does not answer: a load balancer)."""

    def __init__(self, session: aiohttp.ClientSession, urls: list[str], token: str = "") -> None:
        self.session, self.urls, self.token = session, urls, token
        self.at = random.randrange(len(urls))

    @property
    def url(self) -> str:
        return self.urls[self.at]

    def failover(self) -> None:
        self.at = (self.at + 1) % len(self.urls)

    async def call(
        self, method: str, path: str, body: Any = None, *, tries: int = 1, key: str | None = None
    ) -> tuple[int, Any]:
        headers = {"Authorization": f"Bearer {self.token}"} if self.token else {}
        if key:
            headers["Idempotency-Key"] = key
        last: Exception | None = None
        for _ in range(max(tries, 1)):
            try:
                async with self.session.request(
                    method,
                    self.url + path,
                    json=body,
                    headers=headers,
                    timeout=aiohttp.ClientTimeout(total=30),
                ) as r:
                    return r.status, from_json(await r.read() or b"null")
            except (TimeoutError, aiohttp.ClientError) as exc:
                last = exc
                self.failover()
                await asyncio.sleep(0.2)
        raise ConnectionError(f"{method} {path}: {last!r}")

    async def ok(self, method: str, path: str, body: Any = None) -> Any:
        status, data = await self.call(method, path, body, tries=20)
        if status >= 300:
            raise RuntimeError(f"{method} {path} -> {status} {data}")
        return data


class Pacer:
    """Decisions let go at a fixed rate across all the bots (`--rate`): a bot ready to answer waits for
    the next free slot, so the load offered is that rate (as wrk2 keeps one), not as much as the server
    can take. Where the server falls behind, the slots are past and nobody waits: the closed loop again,
    and the rate measured says so. A decision's round trip is timed from when it is let go."""

    def __init__(self, rate: float) -> None:
        self.gap = 1.0 / rate
        self.next = 0.0

    async def wait(self) -> None:
        now = time.perf_counter()
        slot = max(now, self.next)
        self.next = slot + self.gap
        if slot > now:
            await asyncio.sleep(slot - now)


@dataclass
class Stats:
    """What the bots measured."""

    decisions: list[float] = field(default_factory=list)  # round trips of the answers taken (s)
    bets: list[float] = field(default_factory=list)
    deals: list[float] = field(default_factory=list)
    #: the decisions whose answer ended the round (the dealer's play and the settlement inside them)
    last_decisions: list[float] = field(default_factory=list)
    #: the others (a decision the next box's holder, or the dealer's draw, follows)
    other_decisions: list[float] = field(default_factory=list)
    refused: dict[str, int] = field(default_factory=dict)
    #: the first few refusals' error keys and messages, to say why (`refused` only counts them)
    refusals: list[str] = field(default_factory=list)
    failures: int = 0
    bot_errors: int = 0
    #: send every play with an Idempotency-Key (the soak does: its processes die under requests)
    keys: bool = False
    pushes: int = 0
    rounds: int = 0
    counting: bool = False
    #: decisions let go at a fixed rate (`--rate`), or None: every bot answers as soon as he can
    pacer: Pacer | None = None

    def note(self, kind: str, seconds: float, status: int, data: Any) -> None:
        if status < 300:
            if self.counting:
                getattr(self, kind).append(seconds)
            return
        error = data.get("error") if isinstance(data, dict) else None
        error = error if isinstance(error, dict) else {}
        code = error.get("code", str(status))
        self.refused[f"{kind}:{code}"] = self.refused.get(f"{kind}:{code}", 0) + 1
        if len(self.refusals) < 10:
            said = error.get("message", str(data)[:200])
            self.refusals.append(
                f"{time.strftime('%H:%M:%S')} {kind}: {status} {error.get('key', '')} {said}"
            )


def _total(cards: list[str]) -> int:
    values = {"A": 1, "T": 10, "J": 10, "Q": 10, "K": 10}
    total = sum(values.get(c[0], int(c[0]) if c[0].isdigit() else 10) for c in cards)
    if any(c[0] == "A" for c in cards) and total + 10 <= 21:
        total += 10
    return total


#: the seat of a push's pending decision (server.md's state: ``"pending": {"kind": "decision", …}``)
_PENDING_SEAT = re.compile(rb'"pending":\{"kind":"decision","decision":"\w+","seat":(\d+)')


class Bot:
    """A player at one box (or the table's dealer when `seat` is 0), acting on the pushes he receives."""

    def __init__(self, client: Client, table: int, seat: int, stats: Stats, stop: asyncio.Event) -> None:
        self.client, self.table, self.seat, self.stats, self.stop = client, table, seat, stats, stop
        self.http = lean_client.Http(client)  # his plays, over his own keep-alive connection
        self.seen = -1  # the newest table version this bot acted on or was answered with
        self.wake = asyncio.Event()
        self.latest: dict[str, Any] | None = None
        #: the round after which this bot's bet was taken (its box has a bet for the next one)
        self.bet_after: object = "none yet"

    async def run(self) -> None:
        while not self.stop.is_set():
            try:
                await self._connected()
            except (TimeoutError, aiohttp.ClientError, ConnectionError, OSError):
                self.client.failover()
                await asyncio.sleep(0.3)

    async def _connected(self) -> None:
        since = f"&since={self.seen}" if self.seen >= 0 else ""
        target = f"/ws/tables/{self.table}?token={self.client.token}{since}"
        ws = await lean_client.websocket(self.client.url, target, self._pushed)
        actor = asyncio.create_task(self._act())
        self.wake.set()  # what it had not acted on when the last connection went away
        try:
            await ws.closed
        finally:
            actor.cancel()
            with contextlib.suppress(BaseException):
                await actor
            ws.close()
        if not self.stop.is_set():
            raise ConnectionError("the WebSocket closed")

    def _pushed(self, data: bytes) -> None:
        """A push, as its socket reads it: parsed and kept only when it may ask something of him."""
        self.stats.pushes += 1
        try:
            if self.concerns(data):
                message = from_json(data)
                if message.get("type") == "state":
                    self.offer(message["state"])
        except Exception as exc:  # a bot that cannot read a push says so and goes on
            self.stats.bot_errors += 1
            if self.stats.bot_errors <= 5:
                print(f"  bot {self.table}/{self.seat}: {exc!r}", file=sys.stderr, flush=True)

    def concerns(self, data: bytes) -> bool:
        """Whether a push may ask something of this bot, read from its bytes before it is parsed (most
        of a table's pushes are another box's turn; parsing all of them cost the load tool more than
        the server spent on them): between rounds every bot looks; during a round, only the holder of
        the pending decision."""
        if b'"phase":"betting"' in data:
            return True
        found = _PENDING_SEAT.search(data)
        return found is None or int(found.group(1)) == self.seat

    def offer(self, state: dict[str, Any]) -> None:
        """A state pushed or answered: kept when it is the newest this bot has."""
        if self.latest is None or state["seq"] > self.latest["seq"]:
            self.latest = state
            self.wake.set()

    async def _act(self) -> None:
        while not self.stop.is_set():
            await self.wake.wait()
            self.wake.clear()
            state = self.latest
            if state is None or state["seq"] <= self.seen:
                continue
            try:
                await self.step(state)
            except Exception as exc:  # a bot that cannot read a state says so and goes on
                self.stats.bot_errors += 1
                if self.stats.bot_errors <= 5:
                    print(f"  bot {self.table}/{self.seat}: {exc!r}", file=sys.stderr, flush=True)

    async def _post(self, kind: str, path: str, body: Any) -> int:
        """One play, under an Idempotency-Key made of the table version it answers: when the process
        dies under it (no answer, or the bot's connection cancelled), the bot forgets it acted and sends
        it again to the other process with the same key, which takes it once whatever happened."""
        t0 = time.perf_counter()
        acted_on = self.seen
        key = f"{self.client.token[:12]}-{self.table}-{self.seat}-{acted_on}" if self.stats.keys else None
        try:
            status, data = await self.http.call("POST", path, body, key=key)
        except ConnectionError:
            self.stats.failures += 1
            self.seen = acted_on - 1
            self.wake.set()
            return 0
        except asyncio.CancelledError:
            self.seen = acted_on - 1
            raise
        seconds = time.perf_counter() - t0
        self.stats.note(kind, seconds, status, data)
        ended = isinstance(data, dict) and data.get("phase") != "playing"
        if kind == "decisions" and status < 300 and self.stats.counting and ended:
            self.stats.last_decisions.append(seconds)
        elif kind == "decisions" and status < 300 and self.stats.counting:
            self.stats.other_decisions.append(seconds)
        if status < 300 and isinstance(data, dict) and "seq" in data:
            self.offer(data)  # the answer is the newest state: act on it at once if it asks for more
        return status

    async def step(self, state: dict[str, Any]) -> None:
        path = f"/api/tables/{self.table}"
        if state["phase"] == "betting":
            seats = state["seats"]
            if self.seat == 0:
                if all(s["bets"] for s in seats):
                    self.seen = state["seq"]
                    await self._post("deals", f"{path}/deal", None)
                    self.stats.rounds += 1 if self.stats.counting else 0
                return
            # a push made before his bet was taken still shows his box empty: one bet per betting phase
            if not seats[self.seat - 1]["bets"] and self.bet_after != state["last_round"]:
                self.seen = state["seq"]
                body = {"seat": self.seat, "spot": "main", "amount": BET}
                if await self._post("bets", f"{path}/bets", body) < 300:
                    self.bet_after = state["last_round"]
            return
        pending = state.get("pending")
        if (
            self.seat == 0
            or not pending
            or pending.get("kind") != "decision"
            or pending.get("seat") != self.seat
        ):
            return
        self.seen = state["seq"]
        legal = pending["legal"]
        if "decline" in legal:
            action = "decline"
        else:
            box = next(s for s in state["view"]["seats"] if s["seat"] == self.seat)
            hand = box["hands"][pending.get("hand") or 0]
            action = "hit" if _total(hand["cards"]) < 17 and "hit" in legal else "stand"
        body = {"seat": self.seat, "action": action, "hand": pending.get("hand") or 0}
        if self.stats.pacer is not None:
            await self.stats.pacer.wait()
        await self._post("decisions", f"{path}/actions", body)


# ------------------------------------------------------------------------------------------- set-up
async def login(session: aiohttp.ClientSession, urls: list[str], name: str, password: str) -> Client:
    client = Client(session, urls)
    data = await client.ok("POST", "/api/login", {"username": name, "password": password})
    client.token = data["token"]
    return client


async def set_up(
    session: aiohttp.ClientSession, urls: list[str], tables: int, admin_password: str
) -> tuple[Client, list[int], list[Client]]:
    admin = await login(session, urls, "admin", admin_password)
    tag = uuid.uuid4().hex[:6]
    names = [f"bot{tag}{k}" for k in range(tables * 7)]
    dealer = f"dealer{tag}"
    await admin.ok("POST", "/api/users", {"username": dealer, "password": PASSWORD, "role": "dealer"})
    sem = asyncio.Semaphore(8)

    async def player(name: str) -> Client:
        async with sem:
            await admin.ok("POST", "/api/users", {"username": name, "password": PASSWORD, "role": "player"})
            await admin.ok("POST", "/api/cashier/buy-in", {"player": name, "amount": CHIPS})
            return await login(session, urls, name, PASSWORD)

    players = list(await asyncio.gather(*(player(n) for n in names)))
    ids = []
    for t in range(tables):
        data = await admin.ok(
            "POST",
            "/api/tables",
            {
                "game": "blackjack",
                "name": f"Bench {tag} {t + 1}",
                "mode": "virtual",
                "rules": {"turn_seconds": 600},
            },
        )
        ids.append(int(data["id"]))
    for t, table in enumerate(ids):
        for seat in range(1, 8):
            await players[t * 7 + seat - 1].ok("POST", f"/api/tables/{table}/seats", {"seat": seat})
    dealers = [await login(session, urls, dealer, PASSWORD) for _ in ids]
    return admin, ids, players + dealers


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000


async def drive(
    urls: list[str],
    args: argparse.Namespace,
    admin_password: str,
    chaos: Any = None,
    cpu: Callable[[], float] | None = None,
) -> dict[str, Any]:
    connector = aiohttp.TCPConnector(limit=0)
    probe_before = machine_probe()
    async with aiohttp.ClientSession(connector=connector) as session:
        print(f"setting up {args.tables} tables x 7 players ...", flush=True)
        admin, ids, clients = await set_up(session, urls, args.tables, admin_password)
        stats, stop = Stats(keys=bool(args.soak) or getattr(args, "keys", False)), asyncio.Event()
        if getattr(args, "rate", None):
            stats.pacer = Pacer(args.rate)
        bots = []
        for t, table in enumerate(ids):
            for seat in range(1, 8):
                bots.append(Bot(clients[t * 7 + seat - 1], table, seat, stats, stop))
            bots.append(Bot(clients[len(ids) * 7 + t], table, 0, stats, stop))
        if args.route == "table":  # a load balancer that hashes the table in the path: one process each
            for bot in bots:
                bot.client.at = bot.table % len(urls)
        tasks = [asyncio.create_task(b.run()) for b in bots]
        await asyncio.sleep(args.warmup)
        stats.counting = True
        cpu0 = cpu() if cpu else 0.0
        bots0, pg0, machine0 = time.process_time(), postgres_cpu_seconds(), machine_cpu()
        t0 = time.perf_counter()
        seconds = args.soak * 60 if args.soak else args.seconds
        chaos_task = asyncio.create_task(chaos(stats)) if chaos else None
        last = stalled = 0
        while (elapsed := time.perf_counter() - t0) < seconds:
            await asyncio.sleep(min(5.0, seconds - elapsed))
            n = len(stats.decisions)
            print(
                f"  {time.perf_counter() - t0:6.0f} s  decisions {n:7d}  ({(n - last) / 5:6.0f}/s)"
                f"  rounds {stats.rounds}  p99 {pct(stats.decisions, 0.99):6.1f} ms"
                f"  refused {sum(stats.refused.values())}  failures {stats.failures}",
                flush=True,
            )
            stalled = stalled + 1 if n == last else 0
            if stalled == 2:  # ten seconds without a decision: say what every table and bot waits for
                with contextlib.suppress(Exception):
                    await diagnose(await login(session, urls, "admin", admin_password), ids, bots)
            last = n
        elapsed = time.perf_counter() - t0
        cpu_used = cpu() - cpu0 if cpu else None
        bots_used, pg_used = time.process_time() - bots0, postgres_cpu_seconds() - pg0
        machine = {k: v - machine0[k] for k, v in machine_cpu().items()}
        stats.counting = False
        if chaos_task:
            chaos_task.cancel()
            with contextlib.suppress(BaseException):
                await chaos_task
        stop.set()
        for b in bots:
            b.wake.set()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        for b in bots:
            b.http.close()
        result = {
            "tables": args.tables,
            "players": args.tables * 7,
            "seconds": round(elapsed, 1),
            "decisions": len(stats.decisions),
            "decisions_per_second": round(len(stats.decisions) / elapsed, 1),
            "decision_ms": {
                "p50": round(pct(stats.decisions, 0.5), 1),
                "p99": round(pct(stats.decisions, 0.99), 1),
            },
            "round_ending_decision_ms": {
                "count": len(stats.last_decisions),
                "p50": round(pct(stats.last_decisions, 0.5), 1),
                "p99": round(pct(stats.last_decisions, 0.99), 1),
            },
            "other_decision_ms": {
                "p50": round(pct(stats.other_decisions, 0.5), 1),
                "p99": round(pct(stats.other_decisions, 0.99), 1),
            },
            "bets_per_second": round(len(stats.bets) / elapsed, 1),
            "bet_ms": {"p50": round(pct(stats.bets, 0.5), 1), "p99": round(pct(stats.bets, 0.99), 1)},
            "deal_ms": {"p50": round(pct(stats.deals, 0.5), 1), "p99": round(pct(stats.deals, 0.99), 1)},
            "rounds": stats.rounds,
            "pushes": stats.pushes,
            "refused": stats.refused,
            "refusals": stats.refusals,
            "failures": stats.failures,
            "bot_errors": stats.bot_errors,
            "probe_seconds": [round(probe_before, 3), round(machine_probe(), 3)],  # before and after the load
        }
        if stats.last_decisions and stats.other_decisions:  # measured inside one run: machine-independent
            result["round_end_to_others_p50"] = round(
                pct(stats.last_decisions, 0.5) / pct(stats.other_decisions, 0.5), 2
            )
        # what the servers spent, bets and pushes included (not in a soak: a killed process's CPU dies too)
        if cpu_used is not None and stats.decisions and not args.soak:
            result["server_cpu_ms_per_decision"] = round(cpu_used * 1000 / len(stats.decisions), 2)
            result["server_cores_busy"] = round(cpu_used / elapsed, 2)
        if not args.soak:  # the rest of the machine: the bots (this process) and PostgreSQL
            result["bots_cores_busy"] = round(bots_used / elapsed, 2)
            if args.postgres:
                result["postgres_cores_busy"] = round(pg_used / elapsed, 2)
            result["machine_idle_cores"] = round(machine["idle"] / elapsed, 2)
            result["machine_steal_cores"] = round(machine["steal"] / elapsed, 2)
        if args.soak:  # the administrator's session went idle long ago: a new one
            admin = await login(session, urls, "admin", admin_password)
            result["checks"] = await soak_checks(session, urls, admin, ids, clients[: len(ids) * 7])
        return result


async def diagnose(admin: Client, ids: list[int], bots: list[Bot]) -> None:
    """Print each table's state (as the administrator reads it) beside what its bots last saw."""
    for table in ids:
        try:
            state = await admin.ok("GET", f"/api/tables/{table}/state")
        except Exception as exc:
            print(f"  table {table}: {exc!r}", flush=True)
            continue
        pending = state.get("pending") or {}
        print(
            f"  table {table}: {state['table']['status']} {state['phase']} seq {state['seq']}"
            f" pending {pending.get('kind')} seat {pending.get('seat')} {pending.get('legal')}"
            f" bets {[len(s['bets']) for s in state['seats']]}",
            flush=True,
        )
        for bot in bots:
            if bot.table == table:
                latest = bot.latest or {}
                print(
                    f"    bot {bot.seat}: seen {bot.seen} latest {latest.get('seq')} {latest.get('phase')}"
                    f" via {bot.client.url}",
                    flush=True,
                )


def _round_net(events: list[dict[str, Any]]) -> dict[str, int]:
    """Each bettor's result in a round from its events alone (stakes out, payouts and returns in)."""
    net: dict[str, int] = {}
    for ev in events:
        ev = ev.get("event", ev)
        kind = ev.get("type")
        if kind == "stake":
            net[ev["player"]] = net.get(ev["player"], 0) - ev["amount"]
        elif kind == "settle":
            net[ev["player"]] = net.get(ev["player"], 0) + ev.get("paid", 0)
        elif kind == "round_voided":
            for who, amount in ev.get("returned", {}).items():
                net[who] = net.get(who, 0) + amount
    return net


async def soak_checks(
    session: aiohttp.ClientSession, urls: list[str], admin: Client, ids: list[int], players: list[Client]
) -> dict[str, Any]:
    """After the soak: let every round end (the turn timer answers), then check chains, rounds, ledger
    and every player's balance against his buy-in plus what the rounds' recalls paid him."""
    del session, urls
    deadline = time.monotonic() + 900
    for table in ids:
        while True:
            state = await admin.ok("GET", f"/api/tables/{table}/state")
            if state["phase"] == "betting":
                break
            pending = state.get("pending") or {}
            if pending.get("kind") == "decision":  # answer for the holder as the timer would
                holder = players[ids.index(table) * 7 + pending["seat"] - 1]
                action = "decline" if "decline" in pending["legal"] else "stand"
                await holder.call(
                    "POST",
                    f"/api/tables/{table}/actions",
                    {"seat": pending["seat"], "action": action, "hand": pending.get("hand") or 0},
                    tries=5,
                )
            if time.monotonic() > deadline:
                raise RuntimeError(f"table {table} did not finish its round")
            await asyncio.sleep(0.2)
    chains = {}
    mismatches: list[dict[str, Any]] = []
    statuses: dict[str, int] = {}
    net: dict[str, int] = {}
    for table in ids:
        chains[table] = await admin.ok("GET", f"/api/tables/{table}/verify")
        rounds = (await admin.ok("GET", f"/api/tables/{table}/rounds"))["rounds"]
        for r in rounds:
            statuses[r["status"]] = statuses.get(r["status"], 0) + 1
            recall = await admin.ok("GET", f"/api/tables/{table}/rounds/{r['round']}")
            if sum(e["amount"] for e in recall["ledger"]) != 0:
                raise RuntimeError(f"table {table} round {r['round']}: its ledger entries do not sum to zero")
            booked: dict[str, int] = {}
            for e in recall["ledger"]:
                if e.get("account", "").startswith("wallet:"):
                    who = e["account"].split(":", 1)[1]
                    booked[who] = booked.get(who, 0) + e["amount"]
            played = _round_net(recall["events"])  # what the engine's own events say each bettor won
            if {k: v for k, v in booked.items() if v} != {k: v for k, v in played.items() if v}:
                mismatches.append({"table": table, "round": r["round"], "ledger": booked, "events": played})
            for who, amount in played.items():
                net[who] = net.get(who, 0) + amount
    balances = {}
    for client in players:
        me = await client.ok("GET", "/api/me")
        balances[me["name"]] = me["balance"]
    wrong = {n: (b, CHIPS + net.get(n, 0)) for n, b in balances.items() if b != CHIPS + net.get(n, 0)}
    return {
        "chains_ok": all(c.get("ok") for c in chains.values()),
        "records": sum(c.get("records", 0) for c in chains.values()),
        "rounds": statuses,
        "balances_wrong": wrong,
        "ledger_not_events": mismatches[:5],
    }


def summary(result: dict[str, Any], label: str) -> str:
    return (
        f"{label}: {result['tables']} tables, {result['players']} players, {result['seconds']} s: "
        f"{result['decisions_per_second']} decisions/s (p50 {result['decision_ms']['p50']} ms, "
        f"p99 {result['decision_ms']['p99']} ms; the {result['round_ending_decision_ms']['count']} that "
        f"ended a round p50 {result['round_ending_decision_ms']['p50']} ms, "
        f"p99 {result['round_ending_decision_ms']['p99']} ms, the others p50 "
        f"{result['other_decision_ms']['p50']} ms, p99 {result['other_decision_ms']['p99']} ms), "
        f"{result['bets_per_second']} bets/s "
        f"(p99 {result['bet_ms']['p99']} ms), deals p99 {result['deal_ms']['p99']} ms, "
        f"{result['rounds']} rounds, refused {result['refused']}, "
        f"failures {result['failures']}"
        + (
            f"; servers {result['server_cores_busy']} cores busy, "
            f"{result['server_cpu_ms_per_decision']} ms CPU per decision"
            if "server_cpu_ms_per_decision" in result
            else ""
        )
        + (f"; bots {result['bots_cores_busy']} cores" if "bots_cores_busy" in result else "")
        + (f"; postgres {result['postgres_cores_busy']} cores" if "postgres_cores_busy" in result else "")
        + (
            f"; machine idle {result['machine_idle_cores']}, stolen {result['machine_steal_cores']} cores"
            if "machine_idle_cores" in result
            else ""
        )
        + (
            f"; round's end / others p50 {result['round_end_to_others_p50']}"
            if "round_end_to_others_p50" in result
            else ""
        )
        + f"; probe {result['probe_seconds'][0]} / {result['probe_seconds'][1]} s"
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--tables", type=int, default=1)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--warmup", type=float, default=5)
    parser.add_argument("--postgres", action="store_true", help="a fresh database on 127.0.0.1:5432")
    parser.add_argument(
        "--socket",
        metavar="DIR",
        nargs="?",
        const="/var/run/postgresql",
        help="the servers reach PostgreSQL through its Unix socket in DIR (default /var/run/postgresql),"
        " as a server on the database's host would, not through 127.0.0.1:5432",
    )
    parser.add_argument("--workers", type=int, default=1, help="tapete serve --workers N (one port)")
    parser.add_argument("--processes", type=int, default=1, help="separate tapete serve processes")
    parser.add_argument(
        "--route",
        choices=["table", "any"],
        default="table",
        help="with --processes: each table's bots on one process (a balancer hashing the table), or any",
    )
    parser.add_argument("--redis", action="store_true", help="pushes through redis://127.0.0.1:6379/0")
    parser.add_argument("--url", action="append", help="drive a running server (repeat for several)")
    parser.add_argument("--admin-password", default=os.environ.get("TAPETE_ADMIN_PASSWORD", ADMIN_PASSWORD))
    parser.add_argument(
        "--soak", type=float, default=0, help="minutes of load on two processes, one killed now and then"
    )
    parser.add_argument("--kill-every", type=float, default=180)
    parser.add_argument(
        "--profile", metavar="FILE", help="each server under cProfile, its stats to FILE.0, FILE.1, ..."
    )
    parser.add_argument("--json", action="store_true")
    parser.add_argument(
        "--rate",
        type=float,
        help="decisions let go at this rate across all bots (an offered load), not as fast as answered",
    )
    parser.add_argument(
        "--keys", action="store_true", help="every play with an Idempotency-Key (on in --soak)"
    )
    args = parser.parse_args()
    with contextlib.suppress(ImportError):
        import uvloop

        uvloop.install()
    label = "sqlite"
    if args.url:
        result = asyncio.run(drive(args.url, args, args.admin_password))
        label = "running server"
    else:
        home = Path(tempfile.mkdtemp(prefix="tapete-bench-"))
        db_name = None
        servers: list[Server] = []
        try:
            if args.postgres or args.soak:
                db_name = create_database()
                url = pg_url(db_name, args.socket)
                label = "postgresql" + (" (Unix socket)" if args.socket else "")
            else:
                url = f"sqlite:///{home / 'casino.db'}"
            broker = "redis://127.0.0.1:6379/0" if (args.redis or args.soak) else None
            count = 2 if args.soak else args.processes
            for k in range(count):
                python = ("-m", "benchmarks.profiled", f"{args.profile}.{k}") if args.profile else ()
                servers.append(
                    Server(
                        url,
                        home / f"s{k}",
                        broker_url=broker,
                        workers=args.workers,
                        python=python,
                        env={"TAPETE_SHOE_KEY": "22" * 32},
                        admin_password=ADMIN_PASSWORD,
                    )
                )
                servers[-1].start()
            label += f", {args.workers * count} process(es)"
            if args.rate:
                label += f", decisions let go at {args.rate:g}/s"
            if count > 1:
                label += f", routed by {args.route}"
            chaos = None
            if args.soak:
                label += f", soak {args.soak} min, a process killed every {args.kill_every:.0f} s"

                async def chaos(stats: Stats) -> None:
                    k = 0
                    while True:
                        await asyncio.sleep(args.kill_every)
                        victim = servers[k % len(servers)]
                        print(f"  SIGKILL {victim.url}", flush=True)
                        victim.kill()
                        await asyncio.sleep(5)
                        await asyncio.get_running_loop().run_in_executor(None, victim.start)
                        print(f"  started {victim.url} again", flush=True)
                        k += 1

            result = asyncio.run(
                drive(
                    [s.url for s in servers],
                    args,
                    ADMIN_PASSWORD,
                    chaos,
                    lambda: sum(s.cpu_seconds() for s in servers),
                )
            )
        finally:
            for s in servers:
                s.stop()
            if db_name:
                drop_database(db_name)
            if not os.environ.get("BENCH_KEEP"):
                shutil.rmtree(home, ignore_errors=True)
            else:
                print(f"kept {home}")
    result["setup"] = label
    print(json.dumps(result) if args.json else summary(result, label))
    if result["refusals"] and not args.json:
        print("refusals (the first ten):", *result["refusals"], sep="\n  ")
    if args.soak:
        checks = result["checks"]
        print(json.dumps(checks, indent=1))
        ok = (
            checks["chains_ok"]
            and not checks["balances_wrong"]
            and set(checks["rounds"]) <= {"finished", "voided"}
        )
        print("soak checks:", "all hold" if ok else "FAILED")
        sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
