"""Shared helpers of the paper reproductions (bench/repro_*.py) and bench/minibatch.py: where
their outputs go, a Markdown report that is printed and written to bench/results/<name>.md,
mean / sd, and matplotlib (Agg backend) figures saved as SVG.

Output layout (one name per script, e.g. "repro_yin"):
  bench/results/<name>.md    the Markdown tables (committed)
  bench/results/<name>*.svg  the figures (committed)
  bench/out/<name>.json      raw per-fit records (not committed)
With --quick the default for both is bench/out/quick/, so that a smoke run never overwrites
the paper-scale results; --results-dir and --json override. BENCH_PNG=1 in the environment
also writes each figure as PNG (for checking it where no SVG viewer is at hand).

numpy and matplotlib are imported inside the functions, as in kkm_ctypes.py: the scripts set
OPENBLAS_CORETYPE before numpy loads.
"""

import json
import math
import os
import statistics
import sys
import time
from pathlib import Path

from kkm_ctypes import REPO_ROOT, choose_openblas_core, cpu_name, open_library

RESULTS_DIR = REPO_ROOT / "bench" / "results"
OUT_DIR = REPO_ROOT / "bench" / "out"
QUICK_DIR = OUT_DIR / "quick"


# ---------------------------------------------------------------------------- outputs

def add_output_args(parser):
    """--quick, --results-dir and --json, the same in every script."""
    parser.add_argument("--quick", action="store_true",
                        help="small smoke run (< 1 min; see the script's docstring), written to "
                        f"{QUICK_DIR.relative_to(REPO_ROOT)}/ unless --results-dir / --json say otherwise")
    parser.add_argument("--results-dir",
                        help=f"where the Markdown tables and SVG figures go (default: "
                        f"{RESULTS_DIR.relative_to(REPO_ROOT)}, with --quick "
                        f"{QUICK_DIR.relative_to(REPO_ROOT)})")
    parser.add_argument("--json", help=f"raw per-fit records (default: "
                        f"{OUT_DIR.relative_to(REPO_ROOT)}/<script>.json, with --quick "
                        f"{QUICK_DIR.relative_to(REPO_ROOT)}/<script>.json)")


def fill_unset(args, values):
    """Sets every option named in values that the command line left unset (None) to its value."""
    for key, value in values.items():
        if getattr(args, key) is None:
            setattr(args, key, value)


def output_paths(name, args):
    """(results directory, JSON path) for script `name` under the options of add_output_args."""
    results = Path(args.results_dir) if args.results_dir else (QUICK_DIR if args.quick else RESULTS_DIR)
    json_path = Path(args.json) if args.json else (QUICK_DIR if args.quick else OUT_DIR) / f"{name}.json"
    return results, json_path


def start(name, args):
    """The first steps of a script's main: OPENBLAS_CORETYPE (before numpy loads OpenBLAS, which
    importing sklearn does), sklearn.metrics, the library and the output paths. Returns
    (OpenBLAS core note, sklearn.metrics, Kkmeans, results directory, JSON path)."""
    core_note = choose_openblas_core(args.openblas_core)
    from sklearn import metrics
    kkm = open_library(args.lib)
    results_dir, json_path = output_paths(name, args)
    return core_note, metrics, kkm, results_dir, json_path


def run_fields(kkm, args, core_note, total):
    """The fields the JSON records of every script start with: library, machine, settings."""
    return dict(library=str(kkm.path), version=kkm.version(), threads=args.threads,
                seeds=args.seeds, cpu=cpu_name(), cpu_count=os.cpu_count(),
                openblas_core=core_note, quick=args.quick, total_seconds=total)


def has_errors(out):
    """Whether a run's out lists failed fits (out["errors"])."""
    return bool(out["errors"])


def reproduce(name, args, run, report, failed=has_errors):
    """The main of a reproduction: out = run(args, kkm, metrics), timed; the JSON records
    (run_fields, then out); report(out, args, kkm, core_note, results_dir, json_path, total);
    exit status 1 when failed(out)."""
    core_note, metrics, kkm, results_dir, json_path = start(name, args)
    started = time.perf_counter()
    out = run(args, kkm, metrics)
    total = time.perf_counter() - started
    write_json(json_path, dict(run_fields(kkm, args, core_note, total), **out))
    report(out, args, kkm, core_note, results_dir, json_path, total)
    if failed(out):
        sys.exit(1)


def write_json(path, data):
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2, default=_json_default) + "\n")


def _json_default(value):
    # numpy scalars and arrays
    if hasattr(value, "tolist"):
        return value.tolist()
    raise TypeError(f"not JSON serialisable: {type(value).__name__}")


class Report:
    """Markdown lines, printed as they come (stdout) and written to a file at the end."""

    def __init__(self):
        self.lines = []

    def __call__(self, text=""):
        self.lines.append(text)
        print(text)
        sys.stdout.flush()

    def table(self, header, rows, align=None):
        """header: column names; rows: lists of cells; align: 'l'/'r' per column (default:
        first column left, the others right)."""
        align = align or ["l"] + ["r"] * (len(header) - 1)
        self("| " + " | ".join(header) + " |")
        self("|" + "|".join("---" if a == "l" else "---:" for a in align) + "|")
        for row in rows:
            self("| " + " | ".join(str(c) for c in row) + " |")
        self()

    def write(self, path):
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("\n".join(self.lines).rstrip() + "\n")


def close_report(R, path, svg, json_path, machine, figure_note=""):
    """The last lines of a report (where the figure and the raw records are, then the machine
    line), and the report written to path."""
    R(f"- figure: {rel(svg)}{figure_note}; raw records: {rel(json_path)}")
    R(machine)
    R.write(path)


def rel(path):
    """path relative to the repository root when it lies under it (for the report)."""
    try:
        return str(Path(path).resolve().relative_to(REPO_ROOT))
    except ValueError:
        return str(path)


# ---------------------------------------------------------------------------- statistics

def mean_sd(values):
    """(mean, sample sd; 0 for one value), nan for no values."""
    values = [v for v in values if v is not None and not (isinstance(v, float) and math.isnan(v))]
    if not values:
        return float("nan"), float("nan")
    if len(values) == 1:
        return float(values[0]), 0.0
    return statistics.mean(values), statistics.stdev(values)


def fmt(values, digits, sd=True):
    """'mean ± sd' of values (just the value for one), 'error' for none."""
    values = [v for v in values if v is not None]
    if not values:
        return "error"
    m, s = mean_sd(values)
    if len(values) == 1 or not sd:
        return f"{m:.{digits}f}"
    return f"{m:.{digits}f} ± {s:.{digits}f}"


# ---------------------------------------------------------------------------- figures

def pyplot():
    """matplotlib.pyplot on the Agg backend, with SVG output made reproducible (no date, fixed
    id salt, text kept as text)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    plt.rcParams.update({"svg.hashsalt": "kkmeans-bench", "svg.fonttype": "none",
                         "figure.dpi": 100, "font.size": 9, "axes.grid": True,
                         "grid.alpha": 0.3})
    return plt


def save_svg(fig, path):
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.tight_layout()
    fig.savefig(path, format="svg", metadata={"Date": None}, bbox_inches="tight")
    if os.environ.get("BENCH_PNG"):  # a PNG beside it, for viewers without SVG support
        fig.savefig(path.with_suffix(".png"), format="png", dpi=110, bbox_inches="tight")
    import matplotlib.pyplot as plt
    plt.close(fig)
    return path


def log_axis(ax, axis="x"):
    """Log scale with plain tick labels at 1, 2, 5 x 10^k (no 4x10^-1 style labels)."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter
    target = ax.xaxis if axis == "x" else ax.yaxis
    (ax.set_xscale if axis == "x" else ax.set_yscale)("log")
    target.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    target.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    target.set_minor_formatter(NullFormatter())


def seeds_text(seeds):
    return "1 seed" if seeds == 1 else f"{seeds} seeds, mean ± sd"


def band(ax, xs, series, label=None, color=None, marker="o", **kwargs):
    """Mean line with a ± sd band: series[i] holds the values at xs[i] (seeds)."""
    import numpy as np
    stats = [mean_sd(v) for v in series]
    mean = np.array([m for m, _ in stats])
    sd = np.array([s for _, s in stats])
    line, = ax.plot(xs, mean, marker=marker, label=label, color=color, ms=4, **kwargs)
    ax.fill_between(xs, mean - sd, mean + sd, color=line.get_color(), alpha=0.2, linewidth=0)
    return line


def grouped_bars(ax, groups, names, values, ylabel=None):
    """Bars per group (x axis) and name (colour), mean ± sd error bars; values[g][n] = list of
    values or None (missing: no bar)."""
    import numpy as np
    width = 0.8 / max(1, len(names))
    x = np.arange(len(groups))
    for j, name in enumerate(names):
        if not any(values[g][j] for g in range(len(groups))):
            continue  # every fit of this one failed: no bars (matplotlib cannot draw all-NaN)
        means, sds = [], []
        for g in range(len(groups)):
            v = values[g][j]
            m, s = mean_sd(v) if v else (float("nan"), float("nan"))
            means.append(m)
            sds.append(s)
        ax.bar(x + (j - (len(names) - 1) / 2) * width, means, width, yerr=sds, label=name,
               capsize=2, error_kw=dict(lw=0.8))
    ax.set_xticks(x)
    ax.set_xticklabels(groups)
    if ylabel:
        ax.set_ylabel(ylabel)
