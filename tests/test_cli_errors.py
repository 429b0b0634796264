"""Every command answers a person's bad input with a clear message and exit 2, never a traceback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tapete.cli import _register_optional, app

_register_optional()
runner = CliRunner()


@pytest.fixture()
def binary(tmp_path: Path) -> Path:
    path = tmp_path / "b.json"
    path.write_bytes(b"\xff\xfe\x00junk")
    return path


@pytest.mark.parametrize(
    "args",
    [
        ["verify", "{missing}"],
        ["verify", "{binary}"],
        ["recall", "{missing}", "1"],
        ["recall", "{binary}", "1"],
        ["scenario", "{missing}"],
        ["scenario", "{binary}"],
        ["analyze", "blackjack", "--rules", "{binary}"],
        ["analyze", "roulette"],
        ["simulate", "roulette", "--rounds", "10"],
        ["simulate", "blackjack", "--rounds", "0"],
        ["play", "roulette"],
        ["play", "blackjack", "--seats", "9"],
        ["rng", "raw", "--bytes", "-5"],
    ],
)
def test_bad_input_exits_2_without_a_traceback(args: list[str], tmp_path: Path, binary: Path) -> None:
    argv = [a.format(missing=tmp_path / "missing.json", binary=binary) for a in args]
    result = runner.invoke(app, argv, input="")
    assert result.exit_code == 2, (argv, result.output)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert "Traceback" not in result.output


# ------------------------------------------------------------------ what Python's parsers cannot hold
SCENARIO = (
    '{"game": "blackjack", "rules": {"decks": 6}, "cards": ["Ts", "9h", "9c", "Kc", "5s", "7d", "6h", "Th"],'
    ' "bets": [{"seat": 1, "player": "ana", "spot": "main", "amount": 1000}],'
    ' "actions": [{"seat": 1, "action": "stand"}]}'
)
HUGE = "1" * 5000  # Python refuses to turn more than 4300 digits into an int (ValueError)
#: (what, the scenario text, the message id of its refusal)
UNREADABLE = [
    ("a 5000-digit setting", SCENARIO.replace('"decks": 6', f'"decks": {HUGE}'), "err.file.digits"),
    ("a 5000-digit card", SCENARIO.replace('"cards": [', f'"cards": [{HUGE}, '), "err.file.digits"),
    ("a 5000-digit amount", SCENARIO.replace('"amount": 1000', f'"amount": -{HUGE}'), "err.file.digits"),
    ("100,000 [", "[" * 100_000 + "]" * 100_000, "err.file.depth"),
    ("100,000 nested objects", '{"a": ' * 100_000 + "1" + "}" * 100_000, "err.file.depth"),
    ("900 [ as the game", SCENARIO.replace('"blackjack"', "[" * 900 + "]" * 900, 1), "err.file.depth"),
    ("NaN", SCENARIO.replace('"decks": 6', '"decks": NaN'), "err.file.not_json"),
    ("NaN as the game", SCENARIO.replace('"blackjack"', "NaN", 1), "err.file.not_json"),
    ("Infinity", SCENARIO.replace('"amount": 1000', '"amount": Infinity'), "err.file.not_json"),
    ("-Infinity", SCENARIO.replace('"seat": 1,', '"seat": -Infinity,', 1), "err.file.not_json"),
    ("1e400", SCENARIO.replace('"blackjack"', "1e400", 1), "err.file.not_finite"),
]


def strict_json(text: str) -> object:
    """`text` read as RFC 8259 JSON: no NaN or Infinity (Python's json takes them); whole numbers of any
    length (Python's limit of digits is a reader's, not JSON's)."""

    def refuse(token: str) -> object:
        raise AssertionError(f"{token} is not JSON")

    return json.loads(text, parse_constant=refuse, parse_int=int if len(text) < 4000 else str)


@pytest.mark.parametrize(("what", "text", "key"), UNREADABLE, ids=[u[0] for u in UNREADABLE])
def test_a_scenario_python_cannot_read_is_bad_file(what: str, text: str, key: str, tmp_path: Path) -> None:
    """scenario.md: a bad file exits 2 with the JSON error on stdout: it was a traceback (exit 1, nothing on
    stdout) for a number of more than 4300 digits and for deep nesting, and NaN/Infinity were accepted
    (then echoed as bare NaN, which is not JSON)."""
    path = tmp_path / "s.json"
    path.write_text(text)
    result = runner.invoke(app, ["scenario", str(path)])
    assert result.exit_code == 2, (what, result.output[-500:])
    doc = strict_json(result.stdout)
    assert doc == {"error": doc["error"]} and doc["error"]["code"] == "bad_file"  # type: ignore[index]
    assert doc["error"]["key"] == key, doc  # type: ignore[index]


@pytest.mark.parametrize("suffix", [".json", ".toml"])
def test_settings_files_are_read_by_the_same_parser(suffix: str, tmp_path: Path) -> None:
    """`tapete analyze/simulate/play --rules` and a strategy chart read their files as a scenario is read:
    each limit is a refusal (exit 2), never a traceback; TOML's nan and inf are no numbers of ours."""
    if suffix == ".json":
        texts = {
            "err.file.digits": f'{{"decks": {HUGE}}}',
            "err.file.depth": '{"decks": ' + "[" * 5000 + "]" * 5000 + "}",
            "err.file.not_json": '{"decks": NaN}',
            "err.file.not_finite": '{"decks": -1e999}',
        }
    else:
        texts = {
            "err.file.digits": f"decks = {HUGE}\n",
            "err.file.depth": "decks = " + "[" * 5000 + "]" * 5000 + "\n",
            "err.file.not_finite": "decks = nan\n",
        }
    for key, text in texts.items():
        path = tmp_path / f"r{suffix}"
        path.write_text(text)
        result = runner.invoke(app, ["analyze", "blackjack", "--json", "--rules", str(path)])
        assert result.exit_code == 2, (key, result.output[-300:])
        error = strict_json(result.stdout)["error"]  # type: ignore[index]
        assert (error["code"], error["key"]) == ("invalid_rules", key), error
        for argv in (
            ["simulate", "blackjack", "--rounds", "10", "--rules", str(path)],
            ["play", "blackjack", "--rounds", "1", "--rules", str(path)],
            ["simulate", "blackjack", "--rounds", "10", "--strategy", str(path)],
        ):
            result = runner.invoke(app, argv, input="")
            assert result.exit_code == 2, (key, argv, result.output[-300:])
            assert result.exception is None or isinstance(result.exception, SystemExit), result.exception


def test_every_json_the_cli_prints_is_strict(tmp_path: Path) -> None:
    """A simulation of one round has no spread: its sd was printed as a bare NaN (not JSON); it is null.
    A scenario of 4299-digit stakes (the most a file holds) pays 10:1 on Exactly 13: the payout has more
    digits than Python writes by default, and was a traceback after the round was played."""
    for argv in (
        ["simulate", "blackjack", "--rounds", "1", "--json"],
        ["simulate", "punto_y_banca", "--rounds", "1", "--json", "--engine"],
    ):
        result = runner.invoke(app, argv)
        assert result.exit_code == 0, result.output
        doc = strict_json(result.stdout)
        bet = next(iter(doc["bets"].values()))  # type: ignore[index]
        assert "sd" in bet and bet["sd"] is None
    big = 10**4299 - 1
    rules = {"table_max": big, "side_bet_max": big}
    cards = ["6s", "9c", "7h", "Kd", "Th"]  # 6 + 7: exactly 13; the dealer's 19 beats the box's 23
    bets = [{"seat": 1, "player": "ana", "spot": s, "amount": big} for s in ("main", "exactly_13")]
    doc = {
        "game": "majestic_21",
        "rules": rules,
        "cards": cards,
        "bets": bets,
        "actions": [{"seat": 1, "action": "hit"}],
    }
    path = tmp_path / "big.json"
    path.write_text(json.dumps(doc))
    result = runner.invoke(app, ["scenario", str(path)])
    assert result.exit_code == 0, result.output[-300:]
    out = strict_json(result.stdout)
    assert out["players"]["ana"]["net"] == str(9 * big)  # type: ignore[index]


def test_a_log_record_python_cannot_read_is_a_broken_record(tmp_path: Path) -> None:
    """`tapete verify`: a record with a 5000-digit number is a broken chain (exit 1), not a traceback."""
    path = tmp_path / "t.log"
    path.write_text(f'{{"seq": {HUGE}}}\n')
    result = runner.invoke(app, ["verify", str(path)])
    assert result.exit_code == 1 and "record 0 is not valid JSON" in result.output, result.output
