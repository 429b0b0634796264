"""The report's figures (matplotlib, Agg, PNG at print resolution, sized for an A4 page's width)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

#: An A4 page less 2 x 15 mm margins is 180 mm wide, about 7.1 inches.
WIDTH_IN = 7.0
DPI = 200
INK = "#1b2a41"
ACCENT = "#b5473a"
SOFT = "#5b8bb2"


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.rcParams.update(
        {
            "font.size": 8,
            "axes.titlesize": 9,
            "axes.labelsize": 8,
            "axes.edgecolor": "#777777",
            "axes.spines.top": False,
            "axes.spines.right": False,
            "figure.dpi": DPI,
            "savefig.dpi": DPI,
            "svg.hashsalt": "tapete",
        }
    )
    return plt


def _grid(n: int) -> tuple[int, int]:
    cols = 2 if n == 4 else min(n, 3)
    return (n + cols - 1) // cols, cols


def session_plot(
    path: Path,
    results: npt.NDArray[np.float64],
    names: Sequence[str],
    labels: Sequence[str],
    rounds: int,
) -> list[dict[str, float]]:
    """Histograms of a player's net result after a session of `rounds` rounds (one unit on each bet every
    round), one panel per bet; returns each bet's quantiles and chance of being ahead (for the table)."""
    plt = _pyplot()
    rows, cols = _grid(len(names))
    fig, axes = plt.subplots(rows, cols, figsize=(WIDTH_IN, 2.3 * rows), squeeze=False)
    stats: list[dict[str, float]] = []
    for k, label in enumerate(labels):
        ax = axes[k // cols][k % cols]
        x = results[:, k]
        q05, q25, q50, q75, q95 = (float(v) for v in np.quantile(x, [0.05, 0.25, 0.5, 0.75, 0.95]))
        ahead = float((x > 0).mean())
        even = float((x == 0).mean())
        stats.append(
            {
                "mean": float(x.mean()),
                "sd": float(x.std()),
                "q05": q05,
                "q25": q25,
                "median": q50,
                "q75": q75,
                "q95": q95,
                "ahead": ahead,
                "even": even,
            }
        )
        lo, hi = float(np.quantile(x, 0.005)), float(np.quantile(x, 0.995))  # the extreme 1 % folded in
        width = max(1, int(np.ceil((hi - lo) / 45)))  # whole units: results on a lattice show no comb
        edges = np.arange(np.floor(lo) - 0.5, np.ceil(hi) + width, width)
        ax.hist(np.clip(x, lo, hi), bins=edges, color=SOFT, edgecolor="white", linewidth=0.3)
        ax.axvline(0, color="#999999", linewidth=0.8)
        ax.axvline(float(x.mean()), color=ACCENT, linewidth=1.2)
        for q in (q05, q95):
            ax.axvline(q, color=INK, linewidth=0.8, linestyle="--")
        mean = float(x.mean())
        mean_text = "0.0" if round(mean, 1) == 0 else f"{mean:+.1f}"
        ax.set_title(f"{label}\nmean {mean_text}, ahead {ahead * 100:.1f} %", fontsize=8)
        ax.set_xlabel(f"net after {rounds} rounds (units)")
        ax.set_yticks([])
    for k in range(len(names), rows * cols):
        axes[k // cols][k % cols].axis("off")
    fig.tight_layout()
    fig.savefig(path, metadata={"Software": "tapete"})
    plt.close(fig)
    return stats


def crosscheck_plot(path: Path, rows: Sequence[dict[str, Any]]) -> None:
    """Per bet: the exact house edge (a line) and the simulated edges with their 95 % intervals, on a
    freshly shuffled full pack every round and over the regulation's shoe (cut card)."""
    plt = _pyplot()
    r, cols = _grid(len(rows))
    fig, axes = plt.subplots(r, cols, figsize=(WIDTH_IN * cols / 3, 1.9 * r), squeeze=False)
    for k, row in enumerate(rows):
        ax = axes[k // cols][k % cols]
        ax.axhline(row["exact"] * 100, color=ACCENT, linewidth=1.2, label="exact")
        for i, sim in enumerate((row.get("full"), row.get("shoe"))):
            if not sim:
                continue
            lo, hi = sim["ci95"]
            ax.errorbar(
                [i],
                [sim["house_edge"] * 100],
                yerr=[[(sim["house_edge"] - lo) * 100], [(hi - sim["house_edge"]) * 100]],
                fmt="o",
                color=INK if i == 0 else SOFT,
                capsize=4,
                markersize=4,
            )
        ax.set_xticks([0, 1], ["full shoe", "regulation\nshoe"])
        ax.set_xlim(-0.6, 1.6)
        ax.set_title(row["label"])
        ax.set_ylabel("house edge (%)")
        ax.ticklabel_format(axis="y", useOffset=False)
    for k in range(len(rows), r * cols):
        axes[k // cols][k % cols].axis("off")
    fig.tight_layout()
    fig.savefig(path, metadata={"Software": "tapete"})
    plt.close(fig)


def hands_plot(path: Path, names: Sequence[str], exact: Sequence[float], simulated: Sequence[float]) -> None:
    """Showdown Póker: the final hand's distribution under the optimal play, exact and simulated."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(WIDTH_IN, 2.6))
    x = np.arange(len(names))
    ax.bar(x - 0.2, np.array(exact) * 100, width=0.4, color=ACCENT, label="exact")
    ax.bar(x + 0.2, np.array(simulated) * 100, width=0.4, color=SOFT, label="simulated")
    ax.set_yscale("log")
    ax.set_xticks(x, [n.replace("_", " ") for n in names], rotation=30, ha="right")
    ax.set_ylabel("probability (%)")
    ax.set_title("Final hand (three cards + two community cards), optimal exchange")
    ax.legend(frameon=False)
    fig.tight_layout()
    fig.savefig(path, metadata={"Software": "tapete"})
    plt.close(fig)
