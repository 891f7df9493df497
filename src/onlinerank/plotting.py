"""Shared matplotlib style, provenance stamp and atomic saving for the figure scripts."""

from __future__ import annotations

import csv
import os
import tempfile
from pathlib import Path

__all__ = ["use_style", "stamp", "save_figure", "read_table", "SAMPLER_STYLE", "plain_log_axis"]

SAMPLER_STYLE = {
    "plackett-luce": {"color": "#1f77b4", "marker": "o", "ls": "-", "mfc": "#1f77b4",
                      "label": "OnlineRank, Plackett–Luce"},
    "quicksort": {"color": "#d62728", "marker": "s", "ls": "--", "mfc": "none",
                  "label": "OnlineRank, QuickSort"},
}


def plain_log_axis(ax, which: str = "both") -> None:
    """Log axes with plain numbers (100, 1000, ...) instead of 10^x labels."""
    from matplotlib.ticker import FuncFormatter, LogLocator

    fmt = FuncFormatter(lambda v, _: f"{v:g}")
    for name in ("x", "y") if which == "both" else (which,):
        axis = getattr(ax, f"{name}axis")
        axis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
        axis.set_major_formatter(fmt)
        axis.set_minor_formatter(FuncFormatter(lambda v, _: ""))


def use_style() -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.rcParams.update({
        "figure.dpi": 110, "savefig.dpi": 150, "font.size": 9, "axes.titlesize": 10,
        "axes.labelsize": 9, "legend.fontsize": 7.5, "axes.grid": True, "grid.alpha": 0.3,
        "grid.linewidth": 0.5, "lines.linewidth": 1.4, "lines.markersize": 4,
        "svg.hashsalt": "onlinerank", "pdf.compression": 6,
    })


def stamp(fig, config_digest: str, commit: str) -> None:
    """Small provenance text in the lower right corner: config digest and git commit."""
    fig.text(0.995, 0.005, f"config {config_digest} · commit {commit}", ha="right", va="bottom",
             fontsize=6, color="0.45")


def save_figure(fig, *paths: str | os.PathLike) -> None:
    """Save to each path atomically (temp file + rename), format from the suffix."""
    for p in paths:
        p = Path(p)
        p.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=p.parent, prefix=f".{p.stem}.", suffix=p.suffix)
        os.close(fd)
        try:
            fig.savefig(tmp, metadata={"CreationDate": None} if p.suffix == ".pdf" else None)
            os.replace(tmp, p)
        except BaseException:
            if os.path.exists(tmp):
                os.unlink(tmp)
            raise


def read_table(path: str | os.PathLike) -> list[dict]:
    """Read a tidy CSV; numeric-looking fields become floats/ints."""
    def conv(v: str):
        try:
            return int(v)
        except ValueError:
            try:
                return float(v)
            except ValueError:
                return {"True": True, "False": False}.get(v, v)

    with open(path, newline="") as f:
        return [{k: conv(v) for k, v in row.items()} for row in csv.DictReader(f)]
