"""What one table step costs the server and PostgreSQL in CPU, step by step, with nothing else running.

One virtual Black Jack table, seven players and a dealer, each with his own WebSocket, as in
`bench_server`; but the steps are taken one at a time: each request is sent, its answer read and every
socket's push of the new version received before the next. Around each step the tool reads the CPU
time (nanoseconds, from /proc's schedstat) of the server's process and of PostgreSQL's, so each step
kind gets its own figure: a bet, the deal, a decision, the decision that ends the round (its settlement)
— pushes to the eight sockets included. The load tool measures throughput under concurrency; this one
says where a step's CPU goes, with little noise, to compare two versions of the code.

    python -m benchmarks.bench_steps --rounds 300            # PostgreSQL (127.0.0.1:5432)
    python -m benchmarks.bench_steps --rounds 300 --sqlite
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import aiohttp
from pydantic_core import from_json
from tests.procs import Server

from benchmarks.bench_server import (
    BET,
    PG,
    Client,
    _total,
    create_database,
    drop_database,
    set_up,
)


def _cpu_ns(pids: list[int]) -> int:
    """CPU nanoseconds used so far by every thread of `pids` (Linux /proc/PID/task/TID/schedstat)."""
    total = 0
    for pid in pids:
        try:
            names = os.listdir(f"/proc/{pid}/task")
        except OSError:  # it ended meanwhile
            continue
        for name in names:
            try:
                with open(f"/proc/{pid}/task/{name}/schedstat") as f:
                    total += int(f.read().split()[0])
            except (OSError, ValueError):
                continue
    return total


def _postgres_pids() -> list[int]:
    """This machine's PostgreSQL processes now (the backends the server holds open included)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if (entry / "comm").read_text().startswith("postgres"):
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


def _server_pids(root: int) -> list[int]:
    """The server's process and its children (workers), by process group."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[2]) == root:
                found.append(int(entry.name))
    return found


class Viewer:
    """One WebSocket on the table: the newest state pushed to it."""

    def __init__(self) -> None:
        self.seq = -1
        self.state: dict[str, Any] | None = None
        self.moved = asyncio.Event()
        self.pushes = self.bytes = 0

    async def run(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        async for msg in ws:
            self.pushes += 1
            self.bytes += len(msg.data)
            data = from_json(msg.data)
            if data.get("type") == "state" and data["seq"] > self.seq:
                self.seq, self.state = data["seq"], data["state"]
                self.moved.set()

    async def at_least(self, seq: int) -> None:
        while self.seq < seq:
            self.moved.clear()
            await asyncio.wait_for(self.moved.wait(), 10)


async def run(url: str, server_pid: int, rounds: int, postgres: bool) -> dict[str, list[int]]:
    costs: dict[str, list[int]] = {"bet": [], "deal": [], "decision": [], "decision+settle": []}
    pg_costs: dict[str, list[int]] = {k: [] for k in costs}
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) as session:
        _admin, ids, clients = await set_up(session, [url], 1, os.environ["TAPETE_ADMIN_PASSWORD"])
        table = ids[0]
        players, dealer = clients[:7], clients[7]
        viewers = [Viewer() for _ in range(8)]
        sockets, readers = [], []
        for client, viewer in zip([*players, dealer], viewers, strict=True):
            ws = await session.ws_connect(
                url.replace("http", "ws", 1) + f"/ws/tables/{table}?token={client.token}"
            )
            sockets.append(ws)
            readers.append(asyncio.create_task(viewer.run(ws)))
        await asyncio.sleep(0.5)
        server = _server_pids(server_pid)

        async def step(kind: str, client: Client, path: str, body: Any) -> dict[str, Any]:
            pg_now = _postgres_pids() if postgres else []
            before = max(v.seq for v in viewers)
            s0, p0 = _cpu_ns(server), _cpu_ns(pg_now)
            status, data = await client.call("POST", f"/api/tables/{table}{path}", body)
            if status >= 300:
                raise RuntimeError(f"{path} {body} -> {status} {data}")
            for viewer in viewers:
                await viewer.at_least(data.get("seq", before + 1))
            s1, p1 = _cpu_ns(server), _cpu_ns(pg_now)
            settled = kind == "decision" and data.get("phase") == "betting"
            name = "decision+settle" if settled else kind
            if counting:
                costs[name].append(s1 - s0)
                pg_costs[name].append(p1 - p0)
            return data

        counting = False
        for n in range(rounds + 5):
            counting = n >= 5  # the first rounds warm the caches
            for seat, player in enumerate(players, 1):
                await step("bet", player, "/bets", {"seat": seat, "spot": "main", "amount": BET})
            state = await step("deal", dealer, "/deal", None)
            while state.get("phase") == "playing":
                pending = state.get("pending") or {}
                if pending.get("kind") != "decision":
                    await asyncio.sleep(0.01)
                    state = viewers[0].state or state
                    continue
                seat = pending["seat"]
                legal = pending["legal"]
                mine = viewers[seat - 1].state or state
                if "decline" in legal:
                    action = "decline"
                else:
                    box = next(s for s in mine["view"]["seats"] if s["seat"] == seat)
                    hand = box["hands"][pending.get("hand") or 0]
                    action = "hit" if _total(hand["cards"]) < 17 and "hit" in legal else "stand"
                body = {"seat": seat, "action": action, "hand": pending.get("hand") or 0}
                state = await step("decision", players[seat - 1], "/actions", body)
        for ws in sockets:
            await ws.close()
        await asyncio.gather(*readers, return_exceptions=True)
        pushes = sum(v.pushes for v in viewers)
        print(
            f"{pushes} pushes received, {sum(v.bytes for v in viewers) / max(pushes, 1):.0f} characters each"
        )
    return {**{k: v for k, v in costs.items()}, **{f"pg {k}": v for k, v in pg_costs.items()}}


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rounds", type=int, default=200)
    parser.add_argument("--sqlite", action="store_true")
    parser.add_argument("--profile", metavar="FILE", help="run the server under cProfile, its stats to FILE")
    args = parser.parse_args()
    password = "bench-admin-password"
    os.environ["TAPETE_ADMIN_PASSWORD"] = password
    with tempfile.TemporaryDirectory() as home:
        db_name = None
        if args.sqlite:
            url = f"sqlite:///{home}/tapete.db"
        else:
            db_name = create_database()
            url = f"{PG}/{db_name}"
        python = ("-m", "benchmarks.profiled", str(Path(args.profile).resolve())) if args.profile else ()
        server = Server(
            url, Path(home), python=python, env={"TAPETE_SHOE_KEY": "22" * 32}, admin_password=password
        )
        try:
            server.start()
            assert server.proc is not None
            t0 = time.perf_counter()
            costs = asyncio.run(run(server.url, server.proc.pid, args.rounds, not args.sqlite))
            took = time.perf_counter() - t0
        finally:
            server.stop()
            if db_name:
                drop_database(db_name)
    print(
        f"{'sqlite' if args.sqlite else 'postgresql'}: {args.rounds} rounds in {took:.1f} s; CPU per step, µs"
    )
    print(f"  {'step':<18}{'n':>7}{'median':>9}{'mean':>9}  {'pg median':>10}{'pg mean':>9}")
    for kind in ("bet", "deal", "decision", "decision+settle"):
        ns, pg = costs[kind], costs[f"pg {kind}"]
        if not ns:
            continue
        print(
            f"  {kind:<18}{len(ns):>7}{statistics.median(ns) / 1000:>9.0f}{statistics.fmean(ns) / 1000:>9.0f}"
            + (
                f"  {statistics.median(pg) / 1000:>10.0f}{statistics.fmean(pg) / 1000:>9.0f}"
                if pg and any(pg)
                else ""
            )
        )
    per_round = {
        k: sum(costs[k]) / args.rounds / 1000 for k in ("bet", "deal", "decision", "decision+settle")
    }
    decisions = (len(costs["decision"]) + len(costs["decision+settle"])) / args.rounds
    print(
        f"  a round: {sum(per_round.values()):.0f} µs of server CPU, {decisions:.1f} decisions: "
        f"{sum(per_round.values()) / decisions:.0f} µs per decision all included"
    )


if __name__ == "__main__":
    main()
