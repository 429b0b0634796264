"""The fast kernels play the engine's game: their generator and shoe, their strategy tables against the
exact analysis, and every kernel checked round by round against the ENGINE through scenario documents
(`tapete.sim.crosscheck`, which talks to the engine only through `tapete.scenario.run`)."""

from __future__ import annotations

import json
import math
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tapete.errors import InvalidRules
from tapete.math.blackjack import analyze_blackjack, hand_states
from tapete.math.blackjack_tables import SPLIT, basic_tables, chart_tables
from tapete.math.showdown import _symmetry, analyze_showdown, increment_decisions, strategy_tables
from tapete.sim.crosscheck import CrossCheck, compare, cross_check, record_rounds
from tapete.sim.fast import run_plan
from tapete.sim.kernels import MAX_KERNEL_STAKE, make_plan, read_chart
from tapete.sim.kernels.blackjack import BlackjackPlan
from tapete.sim.kernels.rng import fill_below, fill_u64, seed_state
from tapete.sim.kernels.showdown import ShowdownPlan
from tapete.strategy import DEFAULT_CHART

M64 = (1 << 64) - 1


# ------------------------------------------------------------------------------------------ generator
def _xoshiro_reference(s: list[int], n: int) -> list[int]:
    """xoshiro256** as its authors' C code writes it, in Python integers."""

    def rotl(x: int, k: int) -> int:
        return ((x << k) | (x >> (64 - k))) & M64

    out = []
    for _ in range(n):
        out.append(rotl(s[1] * 5 & M64, 7) * 9 & M64)
        t = s[1] << 17 & M64
        s[2] ^= s[0]
        s[3] ^= s[1]
        s[1] ^= s[2]
        s[0] ^= s[3]
        s[2] ^= t
        s[3] = rotl(s[3], 45)
    return out


def test_generator_is_xoshiro256starstar() -> None:
    state = np.array([1, 2, 3, 4], dtype=np.uint64)
    out = np.zeros(1000, dtype=np.uint64)
    fill_u64(state, out)
    assert [int(x) for x in out] == _xoshiro_reference([1, 2, 3, 4], 1000)
    assert int(out[0]) == 11520  # (2 * 5) rotated by 7, times 9


def test_chunk_seeds_are_seedsequence_children() -> None:
    for chunk in (0, 1, 7):
        expected = np.random.SeedSequence(42).spawn(8)[chunk].generate_state(4, np.uint64)
        assert (seed_state(42, chunk) == expected).all()
    assert (seed_state(42, 0) != seed_state(43, 0)).any()


@pytest.mark.parametrize("n", [2, 7, 52, 416])
def test_bounded_draws_are_uniform(n: int) -> None:
    """Chi-square of 200 draws per value against uniform, under its 99.9 % point (Wilson-Hilferty)."""
    out = np.zeros(200 * n, dtype=np.int64)
    fill_below(seed_state(5, n), n, out)
    assert out.min() >= 0 and out.max() < n
    counts = np.bincount(out, minlength=n)
    chi2 = float(((counts - 200.0) ** 2 / 200.0).sum())
    k = n - 1
    crit = k * (1 - 2 / (9 * k) + 3.09 * math.sqrt(2 / (9 * k))) ** 3
    assert chi2 < crit, (chi2, crit)


# ------------------------------------------------------------------------------------------ the shoe
def _bj_rounds(settings: dict[str, Any], seats: int, rounds: int) -> tuple[Any, Any]:
    plan = make_plan("blackjack", settings, seats=seats)
    return plan, record_rounds(plan, rounds, seed=3)


def test_blackjack_shoe_burns_deals_to_the_cut_card_and_the_crossing_round_is_the_last() -> None:
    """BJ Art.5-6 as `tapete.shoe.Shoe` does it: burn first, rounds take consecutive cards, the round in
    which the card behind position size - cut_card_depth is dealt is completed and is the shoe's last,
    no earlier round passes it; every shoe is one pack (no card more often than there are decks)."""
    settings = {"decks": 4, "burn": 3, "cut_card_depth": 52}
    _, rec = _bj_rounds(settings, 5, 4000)
    stop = 52 * 4 - 52
    shoes = rec.pos[:, 0]
    assert shoes[-1] >= 40  # many shoes seen
    for shoe in range(int(shoes[-1])):
        rows = np.nonzero(shoes == shoe)[0]
        start, end = rec.pos[rows, 1], rec.pos[rows, 2]
        assert start[0] == 3  # burned
        assert (start[1:] == end[:-1]).all()  # no card skipped or reused
        assert end[-1] > stop and (end[:-1] <= stop).all()  # the crossing round is the last
        assert ((end - start) == rec.ncards[rows]).all()
        dealt = Counter(int(c) for r in rows for c in rec.cards[r, : rec.ncards[r]])
        assert max(dealt.values()) <= 4


def test_baccarat_shoe_burns_by_the_first_cards_value_and_stops_at_the_cut_card() -> None:
    plan = make_plan("punto_y_banca", {})
    rec = plan.new_record(20_000)  # type: ignore[attr-defined]
    plan.play(0, 20_000, seed_state(8, 0), rec)  # type: ignore[call-arg]
    shoe, start, end = rec.info[:, 0], rec.info[:, 1], rec.info[:, 2]
    stop = 416 - 104
    firsts = []
    for s in range(int(shoe[-1])):
        rows = np.nonzero(shoe == s)[0]
        firsts.append(int(start[rows[0]]))
        assert (start[rows[1:]] == end[rows[:-1]]).all()
        assert end[rows[-1]] > stop and (end[rows[:-1]] <= stop).all()
    # PyB Art.5g [A]: the first card and as many as its value (a ten or face 10): 2 to 11 cards burned
    assert set(firsts) == set(range(2, 12))
    fixed = make_plan("punto_y_banca", {"burn": 5})
    rec = fixed.new_record(500)  # type: ignore[attr-defined]
    fixed.play(0, 500, seed_state(8, 0), rec)  # type: ignore[call-arg]
    assert rec.info[0, 1] == 5


def test_full_shoe_mode_deals_every_round_from_a_full_pack() -> None:
    plan = make_plan("blackjack", {}, seats=2, full_shoe=True)
    rec = record_rounds(plan, 300, seed=2)
    assert (rec.pos[:, 0] == np.arange(300)).all() and (rec.pos[:, 1] == 1).all()
    chunk = plan.play(0, 300, seed_state(2, 0))
    assert chunk.clusters == 300 == chunk.shuffles


# ------------------------------------------------------------------------------------------ strategies
def test_basic_tables_are_the_analysis_basic_strategy() -> None:
    """The kernel's first decisions are the analysis chart's codes (two-card rows and pairs), and its
    3+ card play is the analysis's multi-card policy, which the chart's row does not always give."""
    analysis = analyze_blackjack()
    t = basic_tables(analysis, 3)
    st = hand_states()
    rows = dict(analysis.chart())
    ups = (1, 2, 3, 4, 5, 6, 7, 8, 9, 0)
    labels = "A23456789T"
    checked = 0
    for a in range(10):
        for b in range(a, 10):
            s = st.index[tuple(int(i == a) + int(i == b) for i in range(10))]
            if (a, b) == (0, 9):
                continue
            label = (
                f"{labels[a]}-{labels[a]}" if a == b else f"{'soft' if st.soft[s] else 'hard'} {st.tot[s]}"
            )
            for col, up in enumerate(ups):
                code = rows[label][col]
                kernel = "SHDP"[t.first[up, s]]
                assert bool(t.surrender[up, s]) == code.startswith("R"), (label, up)
                expected = code[1].upper() if code.startswith("R") else code[0]
                assert kernel == expected, (label, up, code, kernel)
                checked += 1
    assert checked == 54 * 10
    for up in range(10):
        for (soft, tot), act in analysis.multi_card[up].items():
            states = np.nonzero((st.ncards >= 3) & (st.soft == soft) & (st.tot == tot))[0]
            assert all(t.multi[up, s] == (act == "H") for s in states)
    assert analysis.multi_card_exceptions()  # the 3+ card policy really differs somewhere


def test_chart_tables_answer_as_the_chart_does() -> None:
    """A chart's tables: 16 v T surrender (Rh), 8-8 v T split after the retiro is declined... and an
    A-A resplit offer declined, as `Chart.decide` declines every non-play offer."""
    t = chart_tables(DEFAULT_CHART, 3)
    st = hand_states()

    def state(*values: int) -> int:
        c = [0] * 10
        for v in values:
            c[v] += 1
        return st.index[tuple(c)]

    assert t.surrender[9, state(9, 5)] and not t.surrender[9, state(9, 6)]
    assert t.first[9, state(7, 7)] == SPLIT and t.surrender[9, state(7, 7)]
    assert t.multi[9, state(9, 1, 3)] == 1  # three-card 16 v T: the chart's row says Rh: hit
    assert not t.resplit_aces.any()


def test_a_chart_file_is_read_in_each_shape(tmp_path: Path) -> None:
    rows = {label: " ".join(DEFAULT_CHART.pairs[1]) for label in ["A-A"]}
    names = {1: "A", 10: "T"}
    full = {
        **{f"hard {t}": " ".join(c) for t, c in DEFAULT_CHART.hard.items()},
        **{f"soft {t}": " ".join(c) for t, c in DEFAULT_CHART.soft.items()},
        **{f"{names.get(v, v)}-{names.get(v, v)}": " ".join(c) for v, c in DEFAULT_CHART.pairs.items()},
    }
    for i, doc in enumerate(
        [
            full,
            {"chart": full},
            {"strategy": {"chart": [{"row": k, "codes": v.split()} for k, v in full.items()]}},
        ]
    ):
        path = tmp_path / f"chart{i}.json"
        path.write_text(json.dumps(doc))
        assert read_chart(path) == DEFAULT_CHART
    toml = tmp_path / "chart.toml"
    toml.write_text("\n".join(f'"{k}" = "{v}"' for k, v in full.items()))
    assert read_chart(toml) == DEFAULT_CHART
    bad = tmp_path / "bad.json"
    for doc in (rows, {**full, "hard 12": "H H X S S H H H H H"}, [1, 2]):
        bad.write_text(json.dumps(doc))
        with pytest.raises(InvalidRules):
            read_chart(bad)


def test_showdown_tables_play_the_analysis_exchange_and_increments() -> None:
    """The exchange table is `best_keep` for every one of the 22,100 starting hands, and the increment
    rule gives `increment_decisions` on random final hands, discards and first community cards."""
    analysis = analyze_showdown()
    tables = strategy_tables(analysis)
    sym = _symmetry()
    for t, hand in enumerate(sym.triples):
        h = tuple(int(c) for c in hand)
        kept = tuple(h[i] for i in range(3) if tables.keep[t] >> i & 1)
        assert kept == analysis.best_keep(h), h
    plan = make_plan("showdown_poker", {}, seats=3)
    rec = record_rounds(plan, 400, seed=4)
    checked = 0
    for r in range(400):
        cards = [int(c) for c in rec.cards[r, : rec.ncards[r]]]
        comm1 = cards[3]  # seat 1, 2, 3, community 1
        # rebuild each seat's final three cards and discards from the recorded exchange
        replacement = iter(cards[11:])
        for s in range(3):
            hand = [cards[s], cards[4 + s], cards[8 + s]]
            ex = [a for a in rec.actions[r, : rec.nactions[r]] if a[0] == s + 1 and a[1] == 0]
            gone = [int(c) for c in ex[0][2:] if c >= 0] if ex else []
            final = [next(replacement) if c in gone else c for c in hand]
            one, two = increment_decisions(final, gone, comm1)
            kernel = [a[1] for a in rec.actions[r, : rec.nactions[r]] if a[0] == s + 1 and a[1] > 0]
            assert (1 in kernel) == one and (2 in kernel) == bool(one and two), (r, s)
            checked += 1
    assert checked == 1200


# ------------------------------------------------------------------------------------------ vs the engine
def _assert_agrees(check: CrossCheck, rounds: int, must_see: set[str]) -> None:
    assert check.rounds == rounds
    assert check.ok, check.mismatches[:5]
    assert check.compared >= rounds
    missing = must_see - set(check.features)
    assert not missing, (missing, check.features)


def test_punto_y_banca_kernel_is_the_engine_round_by_round() -> None:
    check = cross_check(make_plan("punto_y_banca", {}), 5000, seed=11)
    _assert_agrees(check, 5000, {"natural", "banca_third_card", "tie"})


def test_punto_y_banca_kernel_other_settings() -> None:
    check = cross_check(
        make_plan("punto_y_banca", {"decks": 6, "burn": 2, "cut_card_depth": 60}), 2000, seed=12
    )
    _assert_agrees(check, 2000, {"natural", "tie"})


def test_blackjack_kernel_is_the_engine_round_by_round() -> None:
    check = cross_check(make_plan("blackjack", {}, seats=3), 4000, seed=13)
    _assert_agrees(
        check,
        4000,
        {"blackjack", "surrender", "dealer_blackjack", "double_after_split", "resplit", "split_hand_bust"},
    )
    assert {"hit", "stand", "double", "split", "surrender"} <= set(check.actions)


def test_blackjack_kernel_resplits_aces_and_many_hands_on_a_short_shoe() -> None:
    settings = {"decks": 4, "burn": 2, "cut_card_depth": 60, "resplit_aces": True, "max_splits": 5}
    check = cross_check(make_plan("blackjack", settings, seats=7), 3000, seed=14)
    _assert_agrees(check, 3000, {"resplit_aces", "resplit_offer", "split_returned_on_dealer_blackjack"})


def test_blackjack_kernel_sizes_its_hands_by_the_splits_the_pack_allows() -> None:
    """Art.11 sets no maximum: `max_splits` 10**6 plays as the 4 decks' 63 (tens less one), so the plan,
    its tables and the kernel's hands are sized by 63 (they were by the setting: out of memory), and the
    rounds are the engine's, played with the setting itself, round by round."""
    settings = {"decks": 4, "cut_card_depth": 60, "resplit_aces": True, "max_splits": 10**6}
    plan = make_plan("blackjack", settings, seats=7)
    assert isinstance(plan, BlackjackPlan) and plan.max_splits == 63
    assert plan.tables.split_first.shape[2] == 63
    check = cross_check(plan, 1500, seed=18)
    _assert_agrees(check, 1500, {"resplit", "double_after_split"})
    same = make_plan("blackjack", {**settings, "max_splits": 63}, seats=7)
    assert run_plan(plan, 3000, 19).to_json()["bets"] == run_plan(same, 3000, 19).to_json()["bets"]


@pytest.mark.parametrize(
    ("game", "settings"),
    [
        ("blackjack", {"table_min": 10**19, "table_max": 10**19}),
        ("majestic_21", {"side_bet_min": 10**300, "side_bet_max": 10**300}),
        ("punto_y_banca", {"table_min": 10**300, "table_max": 10**300}),
        ("showdown_poker", {"bonus_min": 10**19}),
    ],
)
def test_a_stake_beyond_the_kernels_integers_is_refused(game: str, settings: dict[str, Any]) -> None:
    """A table whose minimum is beyond what the kernels' 64-bit sums hold (a legal table) was a traceback
    (OverflowError); it is refused, said: the simulation's stakes go up to MAX_KERNEL_STAKE."""
    with pytest.raises(InvalidRules) as info:
        make_plan(game, settings)
    assert info.value.key == "err.sim.stake" and info.value.params["most"] == MAX_KERNEL_STAKE


def test_a_payout_limit_beyond_64_bits_plays_as_none() -> None:
    """Art.12-13's limit is any whole number; one that no round of kernel stakes can reach never binds,
    so 10**19 (a traceback: int64) plays exactly as no limit."""
    plan = make_plan("showdown_poker", {"payout_limit": 10**19})
    assert isinstance(plan, ShowdownPlan) and plan.limit == -1
    free = make_plan("showdown_poker", {})
    assert run_plan(plan, 2000, 5).to_json()["bets"] == run_plan(free, 2000, 5).to_json()["bets"]
    assert make_plan("showdown_poker", {"payout_limit": 5000}).limit == 5000  # type: ignore[attr-defined]


def test_blackjack_kernel_with_the_composition_strategy_and_a_chart(tmp_path: Path) -> None:
    check = cross_check(make_plan("blackjack", {}, strategy="composition", seats=2), 2000, seed=15)
    _assert_agrees(check, 2000, {"blackjack", "surrender"})
    path = tmp_path / "chart.json"
    path.write_text(json.dumps({label: " ".join(c) for label, c in _chart_rows()}))
    settings = {"resplit_aces": True}
    check = cross_check(make_plan("blackjack", settings, strategy=str(path), seats=4), 2000, seed=16)
    _assert_agrees(check, 2000, {"resplit_offer", "surrender"})  # offers declined by the chart


def _chart_rows() -> list[tuple[str, tuple[str, ...]]]:
    names = {1: "A", 10: "T"}
    return (
        [(f"hard {t}", c) for t, c in DEFAULT_CHART.hard.items()]
        + [(f"soft {t}", c) for t, c in DEFAULT_CHART.soft.items()]
        + [(f"{names.get(v, v)}-{names.get(v, v)}", c) for v, c in DEFAULT_CHART.pairs.items()]
    )


def test_majestic_21_kernel_is_the_engine_round_by_round() -> None:
    check = cross_check(make_plan("majestic_21", {}, seats=3), 4000, seed=17)
    _assert_agrees(check, 4000, {"insurance_won", "dealer_blackjack", "surrender", "blackjack"})
    assert check.actions["insurance"] > 100


def test_showdown_kernel_is_the_engine_round_by_round() -> None:
    check = cross_check(make_plan("showdown_poker", {}, seats=2), 2000, seed=18)
    _assert_agrees(check, 2000, {"increment_2", "bonus_win"})
    assert {"exchange", "increment_1", "increment_2"} <= set(check.actions)


def test_showdown_kernel_with_a_payout_limit_and_seven_players() -> None:
    plan = make_plan("showdown_poker", {"payout_limit": 4000, "burn": 1}, seats=7)
    check = cross_check(plan, 3000, seed=19)
    _assert_agrees(check, 3000, {"payout_limit", "pot_split", "increment_2"})


def test_a_mismatch_is_reported() -> None:
    """The cross-check can fail: a kernel result altered by one unit, a card too many, a decision the
    engine refuses, are each named."""
    plan = make_plan("blackjack", {})
    rec = record_rounds(plan, 6, seed=1)
    assert compare(plan, rec, 6).ok
    rec.nets[2, 0, 0] += 1
    rec.ncards[3] += 1
    rec.cards[3, rec.ncards[3] - 1] = rec.cards[3, 0]
    rec.actions[4, 0, 1] = 5  # an insurance nobody was offered (no Ace up? then illegal)
    rec.nactions[4] = max(int(rec.nactions[4]), 1)
    bad = compare(plan, rec, 6)
    named = {m.split(":")[0] for m in bad.mismatches}
    assert named == {"round 2", "round 3", "round 4"}, bad.mismatches


def test_plans_refuse_what_the_table_would() -> None:
    with pytest.raises(InvalidRules):
        make_plan("punto_y_banca", {}, strategy="composition")
    with pytest.raises(InvalidRules):
        make_plan("punto_y_banca", {}, seats=2)
    with pytest.raises(InvalidRules):
        make_plan("blackjack", {}, seats=8)
    with pytest.raises(InvalidRules):
        make_plan("showdown_poker", {"decks": 2})
    with pytest.raises(InvalidRules):
        make_plan("blackjack", {"decks": 2})


def test_art14_kernels_with_dealer_completes_hand_are_the_engine_round_by_round() -> None:
    """Issue 31: with `dealer_completes_hand` the dealer draws to 17 after every box has busted, so the
    kernel takes the same cards from the shoe as the engine, round after round (Majestic 21 without the
    retiro, which it may switch off, too)."""
    check = cross_check(make_plan("blackjack", {"dealer_completes_hand": True}, seats=1), 3000, seed=20)
    _assert_agrees(check, 3000, {"blackjack", "surrender"})
    settings = {"dealer_completes_hand": True, "surrender": False}
    check = cross_check(make_plan("majestic_21", settings, seats=2), 2000, seed=21)
    _assert_agrees(check, 2000, {"insurance_won"})
    assert "surrender" not in check.actions


def test_art12_showdown_kernel_pays_by_the_tables_paytable() -> None:
    """Issue 31: the kernel settles the bet by the table's paytable (Art.11's figures or more), as the
    engine does, and plays the analysis made for that paytable."""
    plan = make_plan("showdown_poker", {"max_exchange": 1, "paytable": {"flush": 40, "two_pair": 3}}, seats=3)
    check = cross_check(plan, 2000, seed=22)
    _assert_agrees(check, 2000, {"increment_2"})
