"""`tapete simulate`: the fast kernels over many rounds, in fixed chunks, on one core, several worker
processes or a Ray cluster, with the same numbers for the same seed whichever way it runs.

A run of N rounds is cut into chunks of `CHUNK_ROUNDS` (the last one shorter). Chunk i starts from a
fresh shoe with its own generator, ``SeedSequence(seed).spawn(...)[i]``; each chunk's sums are exact
integers or floats computed in a fixed order, and chunks are merged in chunk order. So the JSON depends
on (game, settings, strategy, seats, seed, rounds) only — not on `workers`, on Ray, or on the machines.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any

from tapete.errors import InvalidRules
from tapete.sim.kernels import Plan, make_plan
from tapete.sim.kernels.rng import seed_state
from tapete.sim.kernels.tally import ChunkResult, bet_summary

ProgressFn = Callable[[int, int], None]
#: Rounds per chunk: a fixed unit of work (a few tenths of a second of one core for Black Jack).
CHUNK_ROUNDS = 1_000_000


def chunks(rounds: int, size: int = CHUNK_ROUNDS) -> list[tuple[int, int]]:
    """(chunk index, rounds) of a run: full chunks of `size`, then the remainder."""
    out = [(i, size) for i in range(rounds // size)]
    if rounds % size:
        out.append((len(out), rounds % size))
    return out


def play_chunk(plan: Plan, index: int, rounds: int, seed: int) -> ChunkResult:
    """Chunk `index` of a run seeded `seed`: `rounds` rounds from a fresh shoe, its own generator."""
    return plan.play(index, rounds, seed_state(seed, index))


_WORKER_PLAN: list[Plan] = []


def _init_worker(plan: Plan) -> None:
    _WORKER_PLAN[:] = [plan]


def _worker_chunk(args: tuple[int, int, int]) -> ChunkResult:
    index, rounds, seed = args
    return play_chunk(_WORKER_PLAN[0], index, rounds, seed)


@dataclass
class FastResult:
    """A finished run: the plan, the merged chunks and the wall time of playing them."""

    plan: Plan
    rounds: int
    seed: int
    total: ChunkResult
    elapsed: float
    setup: float = 0.0
    chunk_rounds: int = CHUNK_ROUNDS

    def to_json(self) -> dict[str, Any]:
        """The `tapete simulate --json` document (bet names as `tapete analyze` names them)."""
        plan = self.plan
        t = self.total
        bets = {
            name: bet_summary(tally, stake, t.clusters, outcomes)
            for name, tally, stake, outcomes in zip(
                plan.bets, t.bets, plan.stakes, plan.outcome_names, strict=True
            )
        }
        return {
            "game": plan.game,
            "rounds": self.rounds,
            "seed": self.seed,
            "elapsed_s": round(self.elapsed, 4),
            "rounds_per_second": round(self.rounds / self.elapsed) if self.elapsed > 0 else None,
            "engine": "kernel",
            "shoe": "full" if getattr(plan, "full_shoe", False) else "regulation",
            "seats": plan.seats,
            "strategy": plan.strategy,
            "rules": plan.settings,
            "chunk_rounds": self.chunk_rounds,
            "shoes": t.shuffles,
            "bets": bets,
            "events": {name: k / self.rounds for name, k in zip(plan.events_names, t.events, strict=True)},
        }


def _merge(parts: Sequence[ChunkResult]) -> ChunkResult:
    ordered = sorted(parts, key=lambda c: c.index)
    total = ChunkResult(0, 0, 0, 0, [type(b)() for b in ordered[0].bets], [])
    for part in ordered:
        total.merge(part)
    return total


def run_plan(
    plan: Plan,
    rounds: int,
    seed: int,
    *,
    workers: int = 1,
    ray_address: str | None = None,
    progress: ProgressFn | None = None,
    chunk_rounds: int = CHUNK_ROUNDS,
) -> FastResult:
    """Play `rounds` rounds of `plan`: in this process (workers=1), in `workers` processes, or as Ray
    tasks (`ray_address` = "auto" to join a running cluster or start a local one, or an address)."""
    if rounds < 1:
        raise InvalidRules(
            f"rounds={rounds}: a simulation plays at least one round", key="err.sim.rounds", rounds=rounds
        )
    if seed < 0:
        raise InvalidRules(f"seed={seed}: a seed is a whole number >= 0", key="err.sim.seed", seed=seed)
    if workers < 1:
        raise InvalidRules(f"workers={workers}: at least one", key="err.sim.workers", workers=workers)
    work = chunks(rounds, chunk_rounds)
    done = 0
    parts: list[ChunkResult] = []

    def tick(part: ChunkResult) -> None:
        nonlocal done
        parts.append(part)
        done += part.rounds
        if progress is not None:
            progress(done, rounds)

    t0 = time.perf_counter()
    if ray_address is not None:
        _run_ray(plan, work, seed, ray_address, workers, tick)
    elif workers == 1 or len(work) == 1:
        for index, n in work:
            tick(play_chunk(plan, index, n, seed))
    else:
        with ProcessPoolExecutor(
            max_workers=min(workers, len(work)), initializer=_init_worker, initargs=(plan,)
        ) as pool:
            for part in pool.map(_worker_chunk, [(i, n, seed) for i, n in work]):
                tick(part)
    elapsed = time.perf_counter() - t0
    return FastResult(plan, rounds, seed, _merge(parts), elapsed, chunk_rounds=chunk_rounds)


def _run_ray(
    plan: Plan,
    work: list[tuple[int, int]],
    seed: int,
    address: str,
    workers: int,
    tick: Callable[[ChunkResult], None],
) -> None:
    """The chunks as Ray tasks; the plan is put in the object store once. Starts a local Ray (and stops
    it afterwards) when `address` is "auto" and no cluster is running."""
    try:
        import ray
    except ImportError:
        raise InvalidRules("--ray needs Ray: pip install 'tapete[cluster]'", key="err.sim.no_ray") from None
    started = False
    if not ray.is_initialized():
        opts: dict[str, Any] = {"logging_level": logging.WARNING, "log_to_driver": False}
        if address == "auto":
            try:
                ray.init(address="auto", **opts)
            except ConnectionError:
                # a local Ray: `workers` CPUs when asked for, else every CPU of this machine
                ray.init(num_cpus=workers if workers > 1 else None, include_dashboard=False, **opts)
        else:
            ray.init(address=address, **opts)
        started = True
    try:
        plan_ref = ray.put(plan)
        task = ray.remote(play_chunk)
        pending = [task.remote(plan_ref, index, n, seed) for index, n in work]
        while pending:
            ready, pending = ray.wait(pending, num_returns=1)
            for ref in ready:
                tick(ray.get(ref))
    finally:
        if started:
            ray.shutdown()


def simulate_fast(
    game: str,
    rounds: int,
    *,
    seed: int = 1,
    settings: dict[str, Any] | None = None,
    strategy: str = "basic",
    seats: int | None = None,
    full_shoe: bool = False,
    workers: int = 1,
    ray_address: str | None = None,
    progress: ProgressFn | None = None,
) -> FastResult:
    """Build the plan (the strategy from the analysis) and run it; `setup` is the plan's build time."""
    t0 = time.perf_counter()
    plan = make_plan(game, settings, strategy=strategy, seats=seats, full_shoe=full_shoe)
    setup = time.perf_counter() - t0
    result = run_plan(plan, rounds, seed, workers=workers, ray_address=ray_address, progress=progress)
    result.setup = setup
    return result


def engine_json(result: Any, seed: int, elapsed: float, settings: dict[str, Any]) -> dict[str, Any]:
    """`tapete simulate --engine --json`: the engine simulation's tallies (`tapete.sim.SimResult`) in the
    kernel's shape (its rounds are independent draws of the tally, so the interval is the plain one)."""
    import math

    from tapete.sim.kernels.tally import Z95

    bets: dict[str, Any] = {}
    for name, t in result.tallies.items():
        edge = t.edge
        sd = t.stderr * math.sqrt(t.n) if t.n > 1 else math.nan
        bets[name] = {
            "house_edge": edge,
            "ci95": [edge - Z95 * t.stderr, edge + Z95 * t.stderr],
            "sd": sd,
            "se": t.stderr,
            "n": t.n,
        }
    return {
        "game": result.game,
        "rounds": result.rounds,
        "seed": seed,
        "elapsed_s": round(elapsed, 4),
        "rounds_per_second": round(result.rounds / elapsed) if elapsed > 0 else None,
        "engine": "engine",
        "rules": settings,
        "bets": bets,
    }
