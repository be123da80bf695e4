#!/usr/bin/env python3
"""The label-free defaults against the old ones: what a user gets from `k=<classes>` alone.

Fits, each with only k (and the seed) given:
  defaults   the library's defaults: gamma=auto with bandwidth_scale=0.4, n_init=auto (10 restarts
             up to 10000 rows, 1 beyond), method=auto (nystrom, m=auto)
  old        the defaults before issue 27: bandwidth_scale=1 (the papers' beta), n_init=1
  beta=0.3   bandwidth_scale=0.3 with n_init=auto (the README's former advice for rings)
  heat       kernel=heat (the graph kernel, its own defaults), for reference
on the textbook shapes (ARI against the classes, seeds 0..4: scikit-learn's make_circles(1000,
factor=0.4, noise=0.05) and make_moons(1000, noise=0.1), two rings of radii 1 and 3 (500 points
each, noise 0.1, as the tests) and three rings of radii 1, 2.5 and 4 (400 each)), and on the real
sets of bench/datasets.py (NMI against the classes and kkm_fit's wall seconds, means over seeds
0..2 (--real-seeds); letter and Fashion-MNIST also at 10000 rows, the subsample of datasets.load).

    /usr/bin/python3 bench/defaults.py [--seeds 5] [--lib build/src/libkkmeans.so]
"""
import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import datasets  # noqa: E402
from kkm_ctypes import cpu_name, open_library  # noqa: E402

CONFIGS = [
    ("defaults", ""),
    ("old (beta=1, n_init=1)", "bandwidth_scale=1 n_init=1"),
    ("beta=0.3", "bandwidth_scale=0.3"),
    ("heat", "kernel=heat"),
]
REAL = [("digits", 0), ("vowel", 0), ("dna", 0), ("satellite", 0), ("letter", 10000), ("letter", 0),
        ("fashion", 10000), ("fashion", 0)]


def shapes(seed):
    import numpy as np
    from sklearn.datasets import make_circles, make_moons

    def rings(radii, per):
        rng = np.random.default_rng(seed)
        X, y = [], []
        for label, radius in enumerate(radii):
            a = rng.uniform(0, 2 * np.pi, per)
            X.append(np.column_stack([radius * np.cos(a), radius * np.sin(a)]) + rng.normal(0, 0.1, (per, 2)))
            y.append(np.full(per, label))
        return np.vstack(X), np.concatenate(y)

    return {
        "circles": make_circles(1000, factor=0.4, noise=0.05, random_state=seed),
        "moons": make_moons(1000, noise=0.1, random_state=seed),
        "two rings": rings((1, 3), 500),
        "three rings": rings((1, 2.5, 4), 400),
    }


def fit(kkm, X, params):
    import numpy as np
    with kkm.fitted(params, np.ascontiguousarray(X, dtype=np.float32)) as model:
        return np.asarray(model.labels()), model.seconds


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--seeds", type=int, default=5)
    p.add_argument("--real-seeds", type=int, default=3)
    p.add_argument("--lib", default=None)
    p.add_argument("--quick", action="store_true", help="shapes and the small real sets only")
    p.add_argument("--markdown", default=None,
                   help="default: bench/results/defaults.md (--quick: bench/out/quick/defaults.md)")
    args = p.parse_args()
    if args.markdown is None:
        args.markdown = "bench/out/quick/defaults.md" if args.quick else "bench/results/defaults.md"
    import numpy as np
    from sklearn.metrics import adjusted_rand_score, normalized_mutual_info_score

    kkm = open_library(args.lib)
    shape_rows = {}
    for seed in range(args.seeds):
        for name, (X, y) in shapes(seed).items():
            k = len(set(y.tolist()))
            for label, extra in CONFIGS:
                labels, _ = fit(kkm, X, f"k={k} seed={seed} {extra}")
                shape_rows.setdefault((name, label), []).append(adjusted_rand_score(y, labels))
    real_rows = {}
    for name, n in REAL:
        if args.quick and (n == 0 and name in ("letter", "fashion")):
            continue
        X, y = datasets.load(name, n=n)
        k = len(set(y.tolist()))
        for seed in range(args.real_seeds):
            for label, extra in CONFIGS:  # configurations interleaved: drift hits each alike
                labels, seconds = fit(kkm, X, f"k={k} seed={seed} {extra}")
                real_rows.setdefault((name, X.shape[0], label), []).append(
                    (normalized_mutual_info_score(y, labels), seconds))
                print(f"{name} {X.shape[0]} seed {seed} {label}: NMI {real_rows[(name, X.shape[0], label)][-1][0]:.3f} "
                      f"in {seconds:.2f} s", file=sys.stderr, flush=True)

    labels = [label for label, _ in CONFIGS]
    out = ["### Label-free defaults: ARI on the textbook shapes\n",
           f"Mean ARI over seeds 0..{args.seeds - 1} (lowest in brackets); only k and the seed given.\n",
           "| shape | " + " | ".join(labels) + " |", "|---|" + "---:|" * len(labels)]
    for name in ("circles", "moons", "two rings", "three rings"):
        cells = [f"{np.mean(shape_rows[(name, l)]):.2f} ({np.min(shape_rows[(name, l)]):.2f})" for l in labels]
        out.append(f"| {name} | " + " | ".join(cells) + " |")
    out += ["", f"### Label-free defaults: NMI and kkm_fit seconds on the real sets (means over seeds 0..{args.real_seeds - 1})\n",
            "| data | n | " + " | ".join(labels) + " |", "|---|---:|" + "---:|" * len(labels)]
    for (name, n, label) in real_rows:
        if label != labels[0]:
            continue
        cells = [f"{np.mean([r[0] for r in real_rows[(name, n, l)]]):.3f} "
                 f"({np.mean([r[1] for r in real_rows[(name, n, l)]]):.2f} s)" for l in labels]
        out.append(f"| {name} | {n} | " + " | ".join(cells) + " |")
    out += ["", f"kkmeans {kkm.version()}; CPU: {cpu_name()}; threads=0 (all cores)."]
    text = "\n".join(out) + "\n"
    print(text)
    Path(args.markdown).parent.mkdir(parents=True, exist_ok=True)
    Path(args.markdown).write_text(text)


if __name__ == "__main__":
    main()
