"""What the operator's report says, before any layout: the rules as the table runs them (each with its
article, every [A] choice marked) and the exact figures of every bet (edge, return, outcome probabilities
and standard deviation, exact fractions where the analysis is exact).

The rules' words restate `shared/spec/rules.md` (the English digest of the four regulations); a line
marked [A] is an assumption of that digest where the recovered gazette pages are silent — an operator
setting with its default, shown here with the value this table uses.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from tapete.rules.common import CommonRules

GAME_NAMES = {
    "blackjack": "Black Jack",
    "majestic_21": "Majestic 21",
    "punto_y_banca": "Punto y Banca",
    "showdown_poker": "Showdown Póker",
}
REGULATIONS = {
    "blackjack": "Reglamento del juego de Black Jack, 23-12-1999",
    "majestic_21": "Reglamento del juego Majestic 21, 21-10-2005",
    "punto_y_banca": "Reglamento del juego de Punto y Banca, 23-12-1999",
    "showdown_poker": "Reglamento del juego Showdown Póker, 17-08-2000",
}
BET_LABELS = {
    "main": "Main bet",
    "under_13": "Under 13 (−)",
    "over_13": "Over 13 (+)",
    "exactly_13": "Exactly 13 (13)",
    "insurance_ace": "Insurance, Ace up (seguro)",
    "insurance_ten": "Insurance, 10/J/Q/K up",
    "punto": "Punto",
    "banca": "Banca",
    "empate": "Empate (tie)",
    "bet": "Bet (apuesta) with increments",
    "bonus": "Bonus (bono)",
    "pot": "Pot bet (pozo)",
}


@dataclass(frozen=True)
class Rule:
    """One rule as the table runs it: the article, the rule's words, whether it is an [A] assumption."""

    article: str
    text: str
    assumed: bool = False


@dataclass(frozen=True)
class Setting:
    """One operator setting: its key, the value in force, the default, what the model says of it."""

    key: str
    value: Any
    default: Any
    description: str
    in_force: str = ""  # what a null value means at this table (the derived default)

    @property
    def assumed(self) -> bool:
        """An [A] default of rules.md (the regulation is silent)."""
        return "[A" in self.description

    @property
    def is_default(self) -> bool:
        """The table keeps the default."""
        return bool(self.value == self.default)


@dataclass
class BetFigures:
    """One bet's exact (or analysed) figures."""

    name: str
    edge: float
    edge_exact: Fraction | None
    exact: bool
    sd: float | None = None
    sd_exact: bool = False
    per: str = "unit of the initial stake"
    outcomes: list[tuple[str, float, str]] = field(default_factory=list)  # (outcome, probability, pays)
    note: str = ""

    @property
    def label(self) -> str:
        """The bet's name as a person reads it."""
        return BET_LABELS.get(self.name, self.name)

    @property
    def rtp(self) -> float:
        """Return to player per unit staked (1 - house edge)."""
        return 1.0 - self.edge


def settings_table(rules: CommonRules) -> list[Setting]:
    """Every operator setting of the table: value in force, default and the model's article / [A] note;
    a null setting says what it means here (the cut card's depth, the pot bet, a side bet's limits)."""
    values = rules.settings()
    derived: dict[str, str] = {}
    r: Any = rules
    if hasattr(r, "cut_depth"):
        derived["cut_card_depth"] = f"{r.cut_depth} cards (a quarter of the pack)"
    if hasattr(r, "side_limits"):
        derived["side_bet_min"], derived["side_bet_max"] = (f"{x:,} (the table's)" for x in r.side_limits)
    if hasattr(r, "pot_amount"):
        from tapete.games.showdown import bonus_limits

        derived["pot_bet"] = f"{r.pot_amount:,} (the table minimum)"
        derived["bonus_min"], derived["bonus_max"] = (f"{x:,} (the table's)" for x in bonus_limits(r))
        derived["payout_limit"] = "none"
    out = []
    for key, info in type(rules).model_fields.items():
        factory: Any = info.default_factory
        default = factory() if factory is not None else info.default
        value = values.get(key)
        out.append(
            Setting(
                key, value, default, info.description or "", derived.get(key, "") if value is None else ""
            )
        )
    return out


def _money(x: int) -> str:
    from tapete.money import format_money

    return f"{format_money(x)} ({x:,} units)"


def _shoe_rules(rules: Any, burn_text: str) -> list[Rule]:
    depth = rules.cut_depth
    return [
        Rule(
            "Art.1h, 3-4",
            f"A pack of {rules.decks} English 52-card decks, inspected before use (complete, no duplicate, "
            "no foreign card); jokers never play.",
        ),
        Rule(
            "Art.5-6",
            "New decks are shown, turned and mixed; the pack is shuffled with the operating system's "
            "cryptographic generator and an unbiased Fisher-Yates shuffle (a seeded generator only in "
            "simulation, tests and replay, never at a live table).",
        ),
        Rule("Art.5e", "The cut: a random cut at least 40 cards from either end of the pack.", True),
        Rule(
            "Art.5e",
            f"The cut card leaves {depth} cards behind it (the regulation's window: 40 to half the pack; "
            "default a quarter of the pack).",
            rules.cut_card_depth is None,
        ),
        Rule(
            "Art.2c, 6",
            "When the cut card appears, the round in progress is completed and is the last of the shoe; "
            "the pack is then shuffled, cut, loaded and burned again.",
        ),
        Rule("Art.5g", burn_text, True),
    ]


def _money_rules(rules: Any) -> list[Rule]:
    return [
        Rule(
            "Art.2a, 7",
            f"Only chips; each stake within the table's limits, {_money(rules.table_min)} to "
            f"{_money(rules.table_max)}; bets until the first card leaves the shoe.",
        ),
        Rule(
            "§0",
            "Whatever the house pays that is not whole (3:2 on an odd stake, 95% of a Banca win, half a "
            "stake, a capped payout, a back-bettor's share) is rounded down to the unit, per bettor and per "
            "bet; the fraction is recorded in the round's log.",
            True,
        ),
    ]


def blackjack_rules(rules: Any, majestic: bool) -> list[Rule]:
    """The rules of a Black Jack (or Majestic 21) table, article by article."""
    splits = rules.max_splits
    out = _shoe_rules(rules, f"{rules.burn} card(s) burned after every shuffle (operator: a fixed count).")
    out += [
        Rule("Art.3", "Values: Ace 1 or 11; J, Q, K 10; 2-10 face value. Over 21 busts (volar)."),
        Rule(
            "Art.8",
            "Deal: one card face up to each box from the dealer's left, one face down to the dealer, again "
            "one face up to each box and one face down to the dealer; the dealer's FIRST card is turned up. "
            "The dealer does not peek: the hole card is turned at the end.",
        ),
        Rule(
            "Art.13",
            "Black Jack (Ace and a ten-value card as the first two cards) pays 3:2 at once against a 2-9 up; "
            "against an Ace or a ten it waits for the hole card. With an Ace up a Black Jack may take even "
            "money (pago simple).",
        ),
        Rule(
            "Art.10, 13",
            "A box with Black Jack is offered even money (Ace up) and nothing else: even money is the whole "
            "insurance of a Black Jack, settled at once; the offers come in the order retiro, then "
            "insurance and even money, then the drawing stage.",
            True,
        ),
        Rule(
            "Art.9",
            "Retiro (surrender): offered after the deal to every box in seat order, not against an Ace; the "
            "player loses half the bet; final even if the dealer then shows Black Jack. "
            + ("Offered at this table." if rules.surrender else "NOT offered at this table.")
            + (" No Majestic 21 page grants it: an operator setting, on by default." if majestic else ""),
            majestic,
        ),
        Rule(
            "Art.10",
            "Insurance (seguro): only with an Ace up, after the retiro offers and before anyone draws, at "
            "most half the original bet, pays 2:1 if the hole card is ten-valued, settled when the hole "
            "card is turned.",
        ),
    ]
    if majestic:
        out += [
            Rule(
                "Art.2a.2",
                "Insurance with a 10, J, Q or K up: pays 10:1 if the hole card is an Ace; same half-bet cap "
                "and timing, after the retiro offers.",
                True,
            ),
            Rule(
                "Art.1a",
                "Side bets on the box's first two cards, Aces counted as 1: Under 13 (−) pays 1:1 below 13 "
                "and 3:2 on two Aces; Over 13 (+) pays 1:1 above 13; Exactly 13 pays 10:1. Settled as soon "
                "as the box has its two cards; they follow no split or double.",
            ),
            Rule("Art.1a", "Aces count as 1 for the side bets (implied by the two-Ace rule).", True),
        ]
    out += [
        Rule(
            "Art.11",
            f"Split (separación) of two cards of equal value (K-10 too), a second bet equal to the first; "
            f"up to {splits} split(s) per box ({splits + 1} hands), the operator's maximum (at least 1, "
            "default 3); each hand completed in turn, its second "
            "card dealt when its turn comes; split Aces receive one card each; a split hand that busts "
            "loses at once.",
            True,
        ),
        Rule(
            "Art.11",
            "Resplitting Aces: " + ("allowed (an offer)." if rules.resplit_aces else "not allowed."),
            True,
        ),
        Rule("Art.11", "A two-card 21 after a split is 21, not a Black Jack.", True),
        Rule(
            "Art.12",
            "Double (incremento): on the first two cards of any hand, split hands included (not split "
            "Aces), up to the original bet; exactly one more card.",
        ),
        Rule(
            "Art.13",
            "Dealer Black Jack: original bets only. Every hand loses except player Black Jacks, which push; "
            "a player who split or doubled loses only his original bet (the extra stakes are returned); "
            "busted hands stay lost.",
        ),
        Rule(
            "Art.14",
            "The dealer serves each box in turn, one card at a time; then turns his hole card and draws on "
            "16 or less, stands on 17 or more (soft 17 included).",
        ),
        Rule(
            "Art.14",
            "The dealer completes his hand to 17 whatever the boxes hold, and those cards are the round's "
            "(operator setting)."
            if rules.dealer_completes_hand
            else "The dealer draws only while a hand waits for his total: once every hand has busted, "
            "retired or been paid he stops (operator setting: complete the hand).",
            True,
        ),
        Rule(
            "Settlement",
            "A hand above the dealer's (or any live hand when he busts) wins 1:1; equal pushes.",
            True,
        ),
        Rule(
            "Art.7",
            "Seven boxes; back-betting "
            + ("allowed" if rules.back_betting else "not allowed")
            + " when every box is taken; a double, split or insurance is the holder's.",
            True,
        ),
    ]
    out += _money_rules(rules)
    return [_as_majestic(rule) for rule in out] if majestic else out


#: Majestic 21's own articles for the rules it shares with Black Jack (its pages end at Art.5f).
_M21_OWN = {
    "Art.1h, 3-4": "Art.1g, 2b, 3-4",
    "Art.5-6": "Art.5",
    "Art.5e": "Art.5e",
    "Art.2c, 6": "Art.2c",
    "Art.7": "Art.1n, 2a.1",  # seven boxes and the operator's adhesión are on Majestic 21's own pages
    "Art.2a, 7": "Art.2a, 2e",  # the table and its chips
}
#: Black Jack articles Majestic 21 follows by rules.md §4 [A] (no Majestic 21 page holds them).
_BJ_ONLY = {
    *("Art.5g", "Art.8", "Art.9", "Art.10", "Art.10, 13", "Art.11", "Art.12", "Art.13", "Art.14"),
    "Settlement",
}


def _as_majestic(rule: Rule) -> Rule:
    """A Black Jack rule as a Majestic 21 table shows it: under Majestic 21's own article where its pages
    have one, else as Black Jack's article followed by rules.md §4 [A], never as Majestic 21's text."""
    if rule.article in _M21_OWN:
        return Rule(_M21_OWN[rule.article], rule.text, rule.assumed)
    if rule.article in _BJ_ONLY:
        return Rule(f"§4 (BJ {rule.article})", rule.text, True)
    return rule


def baccarat_rules(rules: Any) -> list[Rule]:
    """The rules of a Punto y Banca table."""
    burn = (
        "Burn: the first card is turned and burned with as many more as its value (ten or face 10)."
        if rules.burn == "first_card_value"
        else f"Burn: {rules.burn} card(s) after every shuffle."
    )
    out = _shoe_rules(rules, burn)
    out += [
        Rule("Art.3", "Values: Ace 1, 2-9 face value, 10/J/Q/K 0; a total is the last digit of the sum."),
        Rule(
            "Art.8",
            f"Punto pays 1:1; Banca pays 1:1 less {rules.commission_percent}% commission; Empate pays "
            f"{rules.tie_pays}:1.",
        ),
        Rule("Art.8", "On a tie, Punto and Banca bets push.", True),
        Rule("Art.8", "Banca + Empate or Punto + Empate in one round, never Punto + Banca.", True),
        Rule(
            "Art.10", "Four cards: 1st and 3rd to Punto, 2nd and 4th to Banca; third cards as Art.11 directs."
        ),
        Rule(
            "Art.11",
            "A natural 8 or 9 on either side: nobody draws. Punto draws on 0-5, stands on 6-7.",
        ),
        Rule("Art.11", "If Punto stood, Banca draws on 0-5 and stands on 6-7 (the page is missing).", True),
        Rule(
            "Art.11",
            "If Punto drew a third card worth x: Banca 0-2 draws; 3 draws unless x = 8; 4 draws on x = 2-7; "
            "5 on x = 4-7; 6 on x = 6-7; 7 stands (the table below).",
            True,
        ),
        Rule(
            "Art.7",
            f"{rules.zones} betting zones, one player per zone and one zone per player; back-betting "
            + ("allowed" if rules.back_betting else "not allowed")
            + " when every zone is taken, on the holder's side only.",
            True,
        ),
        Rule(
            "Art.9",
            "The shoe passes "
            + ("when Banca loses." if rules.shoe_passes == "banca_loses" else "after every round."),
            True,
        ),
    ]
    return out + _money_rules(rules)


def showdown_rules(rules: Any) -> list[Rule]:
    """The rules of a Showdown Póker table."""
    from tapete.games.showdown import bonus_limits
    from tapete.rules.showdown import SHOWDOWN_PAYTABLE

    pays = ", ".join(f"{k.replace('_', ' ')} {v}:1" for k, v in rules.pays.items())
    above = rules.pays != SHOWDOWN_PAYTABLE
    bonus = ", ".join(f"{k.replace('_', ' ')} {v}:1" for k, v in rules.bonus_paytable.items())
    lo, hi = bonus_limits(rules)
    limit = (
        f"a payout limit of {_money(rules.payout_limit)}"
        if rules.payout_limit is not None
        else "no payout limit"
    )
    return [
        Rule("Art.7", f"One deck of 52 cards ({rules.decks} deck(s) at this table; operator: 1 to 8).", True),
        Rule("Art.7", "The deck is shuffled (CSPRNG, Fisher-Yates) and cut, one-handed, before every round."),
        Rule("Art.7", f"{rules.burn} card(s) burned after the cut (the article names no burn).", True),
        Rule(
            "Art.8",
            "At most seven players, one position each, no back-betting; each posts the bet (apuesta) and "
            "the pot bet before the first card; the bonus is optional.",
        ),
        Rule(
            "Art.9.1",
            "Deal, all face down, left to right: first card to each player, community card 1, second card to "
            "each player, community card 2, third card to each player.",
        ),
        Rule(
            "Art.9.2",
            f"Exchange: each player may give up 0 to {rules.max_exchange} of his cards, once, replaced at "
            "once from the deck in seat order.",
            True,
        ),
        Rule(
            "Art.9.2-9.5",
            "Increment Nº1 (equal to the bet) offered to every player; community card 1 shown; increment "
            "Nº2 (equal to the bet) offered to those who made Nº1; community card 2 shown.",
        ),
        Rule(
            "Art.10-11",
            "Final hand: the player's three cards and the two community cards. Below a pair of jacks loses; "
            f"a pair of J, Q, K or A pushes; paid on the bet and on each increment: {pays}"
            + (
                " (the operator pays more than Art.11's figures, which Art.12 calls the minimum)."
                if above
                else "."
            ),
        ),
        *(
            [
                Rule(
                    "§0",
                    f"With more than one deck ({rules.decks} at this table) a hand may hold equal cards: "
                    "five of a kind ranks above a royal flush and is paid as one (bet, increments and "
                    "bonus); a flush holding a pair is still a flush, its five cards compared from the "
                    "highest.",
                    True,
                )
            ]
            if rules.decks > 1
            else []
        ),
        Rule(
            "Art.12-13",
            f"This table has {limit}; when the round's individual payouts add up (SUMA) to more than the "
            "limit (LIMITE), each is paid individual × LIMITE / SUMA, rounded down. It covers the bet and "
            "increments only.",
            True,
        ),
        Rule(
            "§3 pot",
            f"Pot bet: {_money(rules.pot_amount)} from every player into a common pot won by the best final "
            f"hand(s), less {rules.pot_commission_percent}% commission on the whole pot; a tie splits it "
            "equally, the indivisible remainder to the earliest seat from the dealer's left; a lone player's "
            "pot bet is returned.",
            True,
        ),
        Rule(
            "§3 bonus",
            f"Bonus ({_money(lo)} to {_money(hi)}): pays on the final hand by the operator's paytable: "
            f"{bonus}; lower hands lose (each entry 1 to 100000 to 1).",
            True,
        ),
        Rule("§3", "Hands rank as in standard poker: kickers break ties, A-2-3-4-5 is the lowest straight."),
        *_money_rules(rules)[1:],
    ]


def rules_of(game: str, rules: CommonRules) -> list[Rule]:
    """The rules a table runs (`game`'s list)."""
    if game == "punto_y_banca":
        return baccarat_rules(rules)
    if game == "showdown_poker":
        return showdown_rules(rules)
    return blackjack_rules(rules, game == "majestic_21")


# --------------------------------------------------------------------------------------------------- figures
def _sd(outcomes: list[tuple[Fraction, Fraction]]) -> float:
    """Standard deviation of a result given (probability, net per unit) pairs."""
    mean = sum(p * x for p, x in outcomes)
    return math.sqrt(float(sum(p * x * x for p, x in outcomes) - mean * mean))


def exact_figures(game: str, rules: Any, analysis_doc: dict[str, Any]) -> list[BetFigures]:
    """Every bet's analysed figures: exact fractions and exact standard deviations where the analysis is
    exact (Punto y Banca, the Majestic 21 side bets and insurances, Showdown's bonus and pot), the
    analyzer's edge for Black Jack's main bet; other standard deviations come from the simulation."""
    out: list[BetFigures] = []
    bets = analysis_doc["bets"]
    if game == "punto_y_banca":
        from tapete.math.baccarat import analyze_baccarat

        a = analyze_baccarat(rules.decks, rules.commission_percent, rules.tie_pays)
        wins = {
            "punto": Fraction(1),
            "banca": Fraction(100 - rules.commission_percent, 100),
            "empate": Fraction(rules.tie_pays),
        }
        for name, edge in a.edges().items():
            probs = a.outcomes(name)
            pays = {"win": wins[name], "push": Fraction(0), "lose": Fraction(-1)}
            out.append(
                BetFigures(
                    name,
                    float(edge),
                    edge,
                    True,
                    sd=_sd([(probs[k], pays[k]) for k in probs]),
                    sd_exact=True,
                    outcomes=[(k, float(v), _pays(pays[k])) for k, v in probs.items() if v or k != "push"],
                )
            )
        return out
    if game == "showdown_poker":
        return _showdown_figures(rules, bets)
    main = bets["main"]
    analysis = analysis_doc.get("_analysis")
    extra: list[tuple[str, float, str]] = []
    if analysis is not None:
        extra = [
            ("player Black Jack", analysis.outcome_probabilities["player_blackjack"], "3:2"),
            ("dealer Black Jack", analysis.outcome_probabilities["dealer_blackjack"], "—"),
        ]
    out.append(
        BetFigures(
            "main",
            main["house_edge"],
            None,
            bool(main.get("exact")),
            outcomes=extra,
            note="Exact finite-shoe combinatorial analysis (every split hand exact, resplits included) "
            "with the basic strategy below; composition-dependent play (CDZ-) gives "
            f"{main['house_edge_composition_dependent'] * 100:.4f} % (see docs/math-blackjack.md); the "
            "standard deviation is simulated.",
        )
    )
    if game == "majestic_21":
        from tapete.math.majestic21 import analyze_majestic_side_bets

        side_pays: dict[str, dict[str, Fraction]] = {
            "under_13": {"win": Fraction(1), "win_two_aces": Fraction(3, 2), "lose": Fraction(-1)},
            "over_13": {"win": Fraction(1), "lose": Fraction(-1)},
            "exactly_13": {"win": Fraction(10), "lose": Fraction(-1)},
            "insurance_ace": {"win": Fraction(2), "lose": Fraction(-1)},
            "insurance_ten": {"win": Fraction(10), "lose": Fraction(-1)},
        }
        for name, bet in analyze_majestic_side_bets(rules.decks).items():
            pays = side_pays[name]
            note = ""
            offered = bets.get(name, {}).get("as_offered")
            if offered:
                offered_text = f"{offered['house_edge'] * 100:.4f} % ({offered['house_edge_exact']})"
                note = (
                    "Valued given the up-card only: a bettor who insures whatever his own cards. As the "
                    "table offers it (never to a Black Jack box, nor to a box that retired, under the "
                    f"basic strategy) its edge is {offered_text}: what a simulation of a bettor who "
                    "insures every time he is asked measures."
                )
            out.append(
                BetFigures(
                    name,
                    float(bet["house_edge"]),
                    bet["house_edge"],
                    True,
                    sd=_sd([(p, pays[k]) for k, p in bet["outcomes"].items()]),
                    sd_exact=True,
                    per="unit of the insurance stake" if name.startswith("insurance") else "unit staked",
                    outcomes=[(k, float(p), _pays(pays[k])) for k, p in bet["outcomes"].items()],
                    note=note,
                )
            )
    return out


def _pays(x: Fraction) -> str:
    if x < 0:
        return "loses"
    if x == 0:
        return "push"
    return f"{x.numerator}:{x.denominator}"


def _showdown_figures(rules: Any, bets: dict[str, Any]) -> list[BetFigures]:
    from tapete.math.showdown import OUTCOMES, analyze_showdown
    from tapete.sim.kernels.showdown import bonus_vector

    a = analyze_showdown(
        max_exchange=rules.max_exchange,
        paytable=rules.pays,
        bonus_paytable=rules.bonus_paytable,
        pot_commission_percent=rules.pot_commission_percent,
    )
    bet = bets["bet"]
    names = {o: o.replace("_", " ") for o in OUTCOMES}
    bet_pays = {o: f"{n}:1" for o, n in rules.pays.items() if o in OUTCOMES}
    bet_pays.update({"high_card": "loses", "low_pair": "loses", "high_pair": "push"})
    vec = bonus_vector(dict(rules.bonus_paytable))
    bonus_net = {o: Fraction(int(vec[i])) for i, o in enumerate(OUTCOMES)}
    return [
        BetFigures(
            "bet",
            float(a.house_edge),
            a.house_edge,
            True,
            per="unit of the initial bet, increments made optimally",
            outcomes=[(names[o], float(p), bet_pays[o]) for o, p in a.final_hands.items()],
            note=f"Average wager {float(a.average_wager):.4f} units per unit of initial bet "
            f"(edge per unit wagered {bet['edge_per_unit_wagered'] * 100:.4f} %); the standard deviation "
            "is simulated.",
        ),
        BetFigures(
            "bonus",
            float(a.bonus_edge),
            a.bonus_edge,
            True,
            sd=_sd([(p, bonus_net[o]) for o, p in a.final_hands.items()]),
            sd_exact=True,
            outcomes=[
                (names[o], float(p), _pays(bonus_net[o]))
                for o, p in a.final_hands.items()
                if bonus_net[o] > 0
            ],
            note="Settled on the final hand of the bet's optimal play.",
        ),
        BetFigures(
            "pot",
            float(a.pot_edge),
            a.pot_edge,
            True,
            per="unit of pot bet, two or more players (a lone player's pot bet is returned)",
            note="The commission; the standard deviation depends on the players and is simulated.",
        ),
    ]
