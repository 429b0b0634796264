"""Every command answers a person's bad input with a clear message and exit 2, never a traceback."""

from __future__ import annotations

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
