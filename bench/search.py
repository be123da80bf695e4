#!/usr/bin/env python3
"""gamma=search and k=auto on the data sets of issue 15: letter, satellite, dna, vowel, vehicle,
digits and Fashion-MNIST 10k (k = the number of classes unless k=auto).

For each data set the script fits method=nystrom (the default method, m=auto, one start) with
  auto       gamma=auto (the papers' rule, sigma^2 = mean pairwise squared distance)
  stability  gamma=search search_criterion=stability
  matr       gamma=search search_criterion=matr
  hindsight  every gamma of the search's grid, the one with the best NMI against the classes
  k=auto     gamma=search k=auto search_criterion=stability
and reports NMI, the chosen gamma and k, and the time of each searching fit relative to one
gamma=auto fit in the same process. Goal (issue 15): search within 3x of one fit's time.

    /usr/bin/python3 bench/search.py [--sets letter,...] [--seed 0] [--markdown bench/results/search.md]
"""
import argparse
import sys
from pathlib import Path

from sklearn.metrics import normalized_mutual_info_score as nmi

sys.path.insert(0, str(Path(__file__).resolve().parent))
import datasets  # noqa: E402
from kkm_ctypes import cpu_name, open_library  # noqa: E402

SETS = ["letter", "satellite", "dna", "vowel", "vehicle", "digits", "fashion"]


def run(kkm, X, params):
    with kkm.fitted(params, X) as model:
        return dict(labels=model.labels(), seconds=model.seconds, gamma=float(model.param("gamma")),
                    k=model.k(), scan=model.search())


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--sets", default=",".join(SETS))
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--lib", default=None)
    p.add_argument("--markdown", default="bench/results/search.md")
    args = p.parse_args()
    kkm = open_library(args.lib)
    rows = []
    for name in args.sets.split(","):
        X, y = datasets.load(name, n=10000 if name == "fashion" else 0)
        k = len(set(y.tolist()))
        base = f"method=nystrom seed={args.seed} threads=0"
        auto = run(kkm, X, f"{base} k={k}")
        stab = run(kkm, X, f"{base} k={k} gamma=search search_criterion=stability")
        matr = run(kkm, X, f"{base} k={k} gamma=search search_criterion=matr")
        grid = sorted({g for g, _, _, _ in stab["scan"]})
        hind = max((nmi(y, run(kkm, X, f"{base} k={k} gamma={g!r}")["labels"]), g) for g in grid)
        kauto = run(kkm, X, f"{base} k=auto gamma=search search_criterion=stability")
        row = dict(name=name, n=X.shape[0], d=X.shape[1], k=k,
                   auto=(nmi(y, auto["labels"]), auto["gamma"], auto["seconds"]),
                   stab=(nmi(y, stab["labels"]), stab["gamma"], stab["seconds"]),
                   matr=(nmi(y, matr["labels"]), matr["gamma"], matr["seconds"]),
                   hind=hind, kauto=(kauto["k"], nmi(y, kauto["labels"]), kauto["gamma"], kauto["seconds"]))
        rows.append(row)
        print(row, file=sys.stderr, flush=True)
    lines = [f"### gamma=search and k=auto, method=nystrom (m=auto, one start), seed {args.seed}\n",
             f"CPU: {cpu_name()}. NMI against the classes; gamma as chosen; time = kkm_fit's wall seconds "
             "relative to the gamma=auto fit of the same data in the same process (threads=0).\n",
             "| data | n | d | k | NMI auto | NMI stability | NMI matr | NMI best gamma (hindsight) | "
             "gamma auto / stability / matr / best | time stability | time matr | k=auto chose | NMI k=auto "
             "| time k=auto |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|"]
    for r in rows:
        a, s, m, h, ka = r["auto"], r["stab"], r["matr"], r["hind"], r["kauto"]
        lines.append(f"| {r['name']} | {r['n']} | {r['d']} | {r['k']} | {a[0]:.3f} | {s[0]:.3f} | {m[0]:.3f} | "
                     f"{h[0]:.3f} | {a[1]:.3g} / {s[1]:.3g} / {m[1]:.3g} / {h[1]:.3g} | {s[2] / a[2]:.1f}x | "
                     f"{m[2] / a[2]:.1f}x | {ka[0]} (true {r['k']}) | {ka[1]:.3f} | {ka[3] / a[2]:.1f}x |")
    for key, label in (("stab", "stability"), ("matr", "matr")):
        better = sum(1 for r in rows if r[key][0] > r["auto"][0] + 0.005)
        worse = sum(1 for r in rows if r[key][0] < r["auto"][0] - 0.005)
        mean = sum(r[key][0] - r["auto"][0] for r in rows) / len(rows)
        lines.append(f"\n{label}: NMI above gamma=auto's by more than 0.005 on {better} of {len(rows)} sets, below "
                     f"on {worse}; mean difference {mean:+.3f}.")
    Path(args.markdown).write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
