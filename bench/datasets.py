#!/usr/bin/python3
"""Every data set of the benchmarks behind one loader: load(name) returns (X, y), X a
C-contiguous float32 matrix (rows = points), y int64 class ids 0..C-1, with the data set's
metadata in .meta; each real data set is checked against a sha256 constant of this file.

Run with Debian's python (numpy, scikit-learn from python3-sklearn):

    /usr/bin/python3 bench/datasets.py [--names fashion,letter,...] [--json FILE]

loads every data set, verifies its checksum and prints a Markdown table (name, n, d,
classes, source, sha256 ok).

| name | rows × d | classes | source | preprocessing |
|---|---|---:|---|---|
| fashion | 60000 train / 10000 test × 784 | 10 | Debian dataset-fashion-mnist (/usr/share/datasets/fashion-mnist) | pixels / 255 |
| letter | 20000 × 16 (train = first 16000, test = last 4000) | 26 | R mlbench LetterRecognition (r-cran-mlbench) | attributes / 15 (integers 0..15), as approximations.py |
| satellite | 6435 × 36 | 6 | R mlbench Satellite (UCI Statlog Landsat) | per-column min-max to [0, 1] |
| dna | 3186 × 180 | 3 | R mlbench DNA (UCI/StatLog splice junctions) | binary factors -> 0/1 (already in [0, 1]) |
| shuttle | 58000 × 9 | 7 | R mlbench Shuttle (UCI Statlog shuttle) | per-column min-max to [0, 1]; very imbalanced |
| vowel | 990 × 9 | 11 | R mlbench Vowel (UCI Deterding vowel recognition) | speaker factor V1 dropped; per-column min-max to [0, 1] |
| vehicle | 846 × 18 | 4 | R mlbench Vehicle (UCI Statlog vehicle silhouettes) | per-column min-max to [0, 1] |
| digits | 1797 × 64 | 10 | scikit-learn load_digits (bundled with python3-sklearn) | pixels / 16 |
| spirals | 300 × 2 | 2 | R mlbench.spirals(300, cycles=1, sd=0.05) after set.seed(1) | none |
| rings | n × 2 (default 2000) | 2 | generated (numpy) | none |
| blobs | n × 2 (default 3000) | 5 | generated (numpy) | none |

Scaling: with the papers' gamma (1 / (2 * mean pairwise squared distance)) a global scale
factor cancels out of the kernel, so only the relative scale of the columns matters. Where the
columns share a unit and a range (fashion, letter, digits) they are divided by their common
maximum; Satellite's 36 spectral values (4 bands × 9 pixels, 0..255 in principle, each column
using its own sub-range) and Shuttle's 9 sensor readings of different units and ranges are
min-max scaled per column to [0, 1], as LIBSVM's satimage.scale / shuttle.scale are (to
[-1, 1], the same up to a global factor). Constant columns are dropped from the mlbench sets
(there are none in the current versions); digits keeps its 64 columns (3 are constant, which
changes no distance).

vowel: mlbench's Vowel has 11 columns, V1..V10 and Class (11 vowels, 90 rows each). V1 is not a
feature but a factor with 15 levels "0".."14", 66 rows each (11 vowels x 6 utterances): the
speaker number of the UCI vowel-context file. It is dropped, leaving the 9 numeric columns
V2..V10 (lpc-derived log area ratios) as features: 990 × 9. Note that UCI (and
ElemStatLearn's vowel.train) have 10 such values per row; mlbench's V2..V10 are 9 of them,
the second one missing (UCI row 1: -3.639 0.418 -0.670 1.779 ...; mlbench row 1: V2..V4 =
-3.639 -0.670 1.779), and the UCI train/test and sex columns are absent. The 9 columns share a
unit but not a range (V2 spans -5.2..-0.9, the others about -2.5..2.4, each its own sub-range),
so they are min-max scaled per column like Satellite and Shuttle.

The R data sets (letter, satellite, dna, shuttle, vowel, spirals) are exported once with Rscript to
bench/out/<file>.csv (gitignored; `write.csv(..., row.names = FALSE)`) and the export is
checksummed: the constants are those of Debian bookworm's r-cran-mlbench 2.1-3-1 under
r-base-core 4.2.2. letter keeps approximations.py's file name (letter_recognition.csv) and
constant. Fashion-MNIST is checked on its four idx.gz files, digits on the bytes of its
arrays (data float64 little-endian, then target int64).

spirals: kernlab's `data(spirals)` is a bare 300 × 2 matrix without labels (its help page says
it was made with mlbench.spirals), so the labelled set comes from mlbench itself:
`set.seed(1); mlbench.spirals(300, cycles = 1, sd = 0.05)` (R >= 3.6 sampling).

rings and blobs are generated with numpy's default_rng(GENERATED_SEED + seed); n (the rows
generated, default 1500 / 3000) and noise are arguments, so they need no checksum.

load(name, n=0, seed=0, split="train"): n > 0 keeps a random subsample of n rows (of a real
data set; for a generated one it is the number of rows generated); seed 0 draws the same rows
as kkm_ctypes.subsample, the --n of the other benchmarks. split is "train", "test" or "all" for
fashion (all = train then test) and letter; the other sets have no split ("train" and "all"
both give every row). Subsampled labels keep the ids of the whole set (a class may be absent).
"""

import argparse
import csv
import hashlib
import json
import shutil
import subprocess
import sys
from pathlib import Path

from kkm_ctypes import (DEFAULT_FASHION_DIR, REPO_ROOT, SUBSAMPLE_SEED, load_fashion_mnist, log,
                        papers_gamma)

__all__ = ["NAMES", "SPECS", "load", "describe", "papers_gamma", "make_rings", "make_blobs",
           "verify", "sha256_of", "DatasetError"]

DEFAULT_CACHE_DIR = REPO_ROOT / "bench" / "out"
R_PACKAGES_HINT = "apt-get install --no-install-recommends r-base-core r-cran-mlbench"
FASHION_HINT = "apt-get install dataset-fashion-mnist"
SKLEARN_HINT = "apt-get install python3-sklearn"
GENERATED_SEED = 20240607

# sha256 of the Debian dataset-fashion-mnist files (the upstream zalando release).
FASHION_SHA256 = {
    "train-images-idx3-ubyte.gz": "b0564c3eedabfbf835052cff8503ea422014ce006caf5b757f851416ee8300c7",
    "train-labels-idx1-ubyte.gz": "0ae29f65d86684f32d1b9c85147786c547b9c6aebcaf235f0400a0cce308b056",
    "t10k-images-idx3-ubyte.gz": "cc1d090a38ace84dfa1aa66e3ada7c336ef481a96936906477e6dd344da56eaa",
    "t10k-labels-idx1-ubyte.gz": "8d3605d196f4be44669e46906da9733c8131fef761fdbfec72c424d5222f1a05",
}
FASHION_CLASSES = ["T-shirt/top", "Trouser", "Pullover", "Dress", "Coat", "Sandal", "Shirt",
                   "Sneaker", "Bag", "Ankle boot"]

# LetterRecognition, also for approximations.py and minibatch.py (they import these): the
# sha256 of write.csv(LetterRecognition, row.names = FALSE) from Debian bookworm's
# r-cran-mlbench 2.1-3-1 with r-base-core 4.2.2 (20000 rows + header, column lettr first).
LETTER_CSV_NAME = "letter_recognition.csv"
LETTER_SHA256 = "b63c465dbba15552b15f1932b259704e5547c1b5a7a39fd9a15ef94c2ba99114"
LETTER_TRAIN_ROWS = 16000  # UCI convention: first 16000 rows train, last 4000 test
LETTER_EXPORT_R = ("suppressPackageStartupMessages(library(mlbench)); data(LetterRecognition); "
                   "write.csv(LetterRecognition, commandArgs(TRUE)[1], row.names = FALSE)")

# sha256 of sklearn.datasets.load_digits(): data as '<f8' bytes then target as '<i8' bytes.
DIGITS_SHA256 = "f6d9e39f37dc45d327f6db33428ee58970ccceabb2535a5c179de35886b70443"


def _mlbench_export(dataset):
    return ("suppressPackageStartupMessages(library(mlbench)); "
            f"data({dataset}); write.csv({dataset}, commandArgs(TRUE)[1], row.names = FALSE)")


SPIRALS_EXPORT_R = ("suppressPackageStartupMessages(library(mlbench)); set.seed(1); "
                    "s <- mlbench.spirals(300, cycles = 1, sd = 0.05); "
                    "write.csv(data.frame(x1 = s$x[, 1], x2 = s$x[, 2], classes = s$classes), "
                    "commandArgs(TRUE)[1], row.names = FALSE)")

# R exports: file name, R expression (the path is commandArgs(TRUE)[1]), sha256 of the file,
# rows, feature columns, columns of the file that are no features (drop, optional), name of the
# class column, class labels in R's level order (= ids).
R_EXPORTS = {
    "letter": dict(file=LETTER_CSV_NAME, r=LETTER_EXPORT_R, sha256=LETTER_SHA256, rows=20000,
                   d=16, label="lettr", label_first=True,
                   classes=[chr(ord("A") + i) for i in range(26)]),
    "satellite": dict(file="satellite.csv", r=_mlbench_export("Satellite"),
                      sha256="27ae219dba00d559961c99fcdec7ad0a30db524febcafb438a421fdf7b0107ba",
                      rows=6435, d=36, label="classes", label_first=False,
                      classes=["red soil", "cotton crop", "grey soil", "damp grey soil",
                               "vegetation stubble", "very damp grey soil"]),
    "dna": dict(file="dna.csv", r=_mlbench_export("DNA"),
                sha256="279ecaf3353b1b8c1966aec10286ee5888f4de8ca426295720fd0e1eb5615003",
                rows=3186, d=180, label="Class", label_first=False, classes=["ei", "ie", "n"]),
    "shuttle": dict(file="shuttle.csv", r=_mlbench_export("Shuttle"),
                    sha256="1a95c027d5a37afee401a5334fc69e863e75cb1cfc22be81dc88b6c8938c8af7",
                    rows=58000, d=9, label="Class", label_first=False,
                    classes=["Rad.Flow", "Fpv.Close", "Fpv.Open", "High", "Bypass", "Bpv.Close",
                             "Bpv.Open"]),
    "vowel": dict(file="vowel.csv", r=_mlbench_export("Vowel"),
                  sha256="a994bb4b8cdb6d1be5dbe57c54116fcd611bfd4b3aaedb78607b37cb86ee8f31",
                  rows=990, d=9, drop=["V1"], label="Class", label_first=False,
                  classes=["hid", "hId", "hEd", "hAd", "hYd", "had", "hOd", "hod", "hUd", "hud",
                           "hed"]),
    "vehicle": dict(file="vehicle.csv", r=_mlbench_export("Vehicle"),
                    sha256="6ac6c57691c9db640e54a973cde46928366b77b20b9f06341c66cc5a8bcf14c5",
                    rows=846, d=18, label="Class", label_first=False, classes=["bus", "opel", "saab", "van"]),
    "spirals": dict(file="spirals.csv", r=SPIRALS_EXPORT_R,
                    sha256="9223215a658c1687d850143786361cf07f45b1cac26e9500a61f2dd59759b2e4",
                    rows=300, d=2, label="classes", label_first=False, classes=["1", "2"]),
}

# Static metadata of every data set, in the benchmark's order.
SPECS = {
    "fashion": dict(title="Fashion-MNIST", rows=60000, d=784, classes=10, kind="real",
                    source="Debian dataset-fashion-mnist (/usr/share/datasets/fashion-mnist)",
                    package="dataset-fashion-mnist", preprocessing="pixels / 255",
                    splits="train 60000 / test 10000 (t10k); all = train then test",
                    checksum="sha256 of the four idx.gz files"),
    "letter": dict(title="LetterRecognition", rows=20000, d=16, classes=26, kind="real",
                   source="R mlbench LetterRecognition (UCI letter)", package="r-cran-mlbench",
                   preprocessing="attributes / 15 (integers 0..15)",
                   splits="train = first 16000 rows, test = last 4000, all = 20000",
                   checksum=f"sha256 of the Rscript export bench/out/{LETTER_CSV_NAME}"),
    "satellite": dict(title="Satellite", rows=6435, d=36, classes=6, kind="real",
                      source="R mlbench Satellite (UCI Statlog Landsat)", package="r-cran-mlbench",
                      preprocessing="per-column min-max to [0, 1]; constant columns dropped",
                      splits="none", checksum="sha256 of the Rscript export bench/out/satellite.csv"),
    "dna": dict(title="DNA", rows=3186, d=180, classes=3, kind="real",
                source="R mlbench DNA (StatLog splice junctions)", package="r-cran-mlbench",
                preprocessing="180 binary factors -> 0/1; constant columns dropped",
                splits="none", checksum="sha256 of the Rscript export bench/out/dna.csv"),
    "shuttle": dict(title="Shuttle", rows=58000, d=9, classes=7, kind="real",
                    source="R mlbench Shuttle (UCI Statlog shuttle)", package="r-cran-mlbench",
                    preprocessing="per-column min-max to [0, 1]; constant columns dropped",
                    splits="none", checksum="sha256 of the Rscript export bench/out/shuttle.csv",
                    note="very imbalanced: Rad.Flow 78.6%, High 15.4%, Bypass 5.6%, the other "
                    "four classes 244 rows together (Bpv.Close 10, Bpv.Open 13, Fpv.Close 50, "
                    "Fpv.Open 171); NMI/ARI are dominated by the three large classes"),
    "digits": dict(title="digits", rows=1797, d=64, classes=10, kind="real",
                   source="scikit-learn load_digits (UCI optdigits test set, 8x8)",
                   package="python3-sklearn", preprocessing="pixels / 16", splits="none",
                   checksum="sha256 of the data ('<f8') and target ('<i8') bytes"),
    "vowel": dict(title="Vowel", rows=990, d=9, classes=11, kind="real",
                  source="R mlbench Vowel (UCI Deterding vowel recognition)", package="r-cran-mlbench",
                  preprocessing="speaker factor V1 dropped; V2..V10 per-column min-max to [0, 1]",
                  splits="none", checksum="sha256 of the Rscript export bench/out/vowel.csv",
                  note="mlbench's V1 is the speaker (a factor, 15 speakers x 66 rows), dropped; "
                  "V2..V10 are 9 of UCI's 10 log area ratios (UCI's second value is missing)"),
    "vehicle": dict(title="Vehicle", rows=846, d=18, classes=4, kind="real",
                    source="R mlbench Vehicle (UCI Statlog vehicle silhouettes)", package="r-cran-mlbench",
                    preprocessing="per-column min-max to [0, 1]",
                    splits="none", checksum="sha256 of the Rscript export bench/out/vehicle.csv"),
    "spirals": dict(title="spirals", rows=300, d=2, classes=2, kind="real",
                    source="R mlbench.spirals(300, cycles=1, sd=0.05) after set.seed(1) "
                    "(kernlab's data(spirals) has no labels)", package="r-cran-mlbench",
                    preprocessing="none", splits="none",
                    checksum="sha256 of the Rscript export bench/out/spirals.csv"),
    "rings": dict(title="rings", rows=2000, d=2, classes=2, kind="generated",
                  source="generated: 2 concentric rings, radii 1 and 3 (as in the tests), n/2 points each, "
                  "uniform angle, isotropic Gaussian noise sd=noise (default 0.1)",
                  package=None, preprocessing="none", splits="none", checksum="none (deterministic)"),
    "blobs": dict(title="blobs", rows=3000, d=2, classes=5, kind="generated",
                  source="generated: 5 isotropic Gaussian blobs, sd=noise (default 1.0), centers "
                  "uniform in [-10, 10]^2, n/5 points each", package=None, preprocessing="none",
                  splits="none", checksum="none (deterministic)"),
}
NAMES = list(SPECS)


class DatasetError(SystemExit):
    """A missing package or file, or a checksum mismatch: stops a script with the message."""


class Loaded(tuple):
    """(X, y), with the data set's metadata in .meta; unpacks as X, y = load(...)."""

    def __new__(cls, X, y, meta):
        self = super().__new__(cls, (X, y))
        self.meta = meta
        return self

    @property
    def X(self):
        return self[0]

    @property
    def y(self):
        return self[1]


# ---------------------------------------------------------------------------- helpers

def sha256_of(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _subsample_index(total, n, seed):
    """The first n of a fixed permutation of range(total), sorted; seed 0 is the permutation of
    kkm_ctypes.subsample (the --n of the other benchmarks)."""
    import numpy as np
    if not n or n >= total:
        return None
    return np.sort(np.random.default_rng(SUBSAMPLE_SEED + seed).permutation(total)[:n])


def _finish(X, y):
    import numpy as np
    return np.ascontiguousarray(X, dtype=np.float32), np.ascontiguousarray(y, dtype=np.int64)


def _minmax_columns(X):
    lo, hi = X.min(axis=0), X.max(axis=0)
    return (X - lo) / (hi - lo)


def _drop_constant(X):
    keep = X.max(axis=0) > X.min(axis=0)
    return X[:, keep], int((~keep).sum())


# ---------------------------------------------------------------------------- real data sets

def _load_fashion(split, data_dir):
    import numpy as np
    data_dir = Path(data_dir or DEFAULT_FASHION_DIR)
    prefixes = {"train": ["train"], "test": ["t10k"], "all": ["train", "t10k"]}[split]
    for prefix in prefixes:
        for kind in ("images-idx3", "labels-idx1"):
            name = f"{prefix}-{kind}-ubyte.gz"
            path = data_dir / name
            if not path.exists():
                raise DatasetError(f"{path} not found: Fashion-MNIST comes from Debian's "
                                   f"dataset-fashion-mnist ({FASHION_HINT})")
            digest = sha256_of(path)
            if digest != FASHION_SHA256[name]:
                raise DatasetError(f"{path}: sha256 {digest}, expected {FASHION_SHA256[name]} "
                                   f"(not the dataset-fashion-mnist release; reinstall it: "
                                   f"{FASHION_HINT} --reinstall)")
    parts = [load_fashion_mnist(data_dir, 0, split={"train": "train", "t10k": "test"}[p])
             for p in prefixes]
    X = np.concatenate([p[0] for p in parts]) if len(parts) > 1 else parts[0][0]
    y = np.concatenate([p[1] for p in parts]) if len(parts) > 1 else parts[0][1]
    return X, y, dict(sha256_ok=True, sha256=[FASHION_SHA256[f"{p}-{k}-ubyte.gz"] for p in prefixes
                                              for k in ("images-idx3", "labels-idx1")],
                      class_names=FASHION_CLASSES, file=str(data_dir))


def export_r(name, path):
    """Writes R_EXPORTS[name] to path with Rscript (once: the CSV is the cache) and checks it."""
    spec = R_EXPORTS[name]
    rscript = shutil.which("Rscript")
    if rscript is None:
        raise DatasetError(f"Rscript not found: {name} comes from R's mlbench package; "
                           f"{R_PACKAGES_HINT}")
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".csv.tmp")
    log(f"exporting {name} with {rscript} to {path}...")
    done = subprocess.run([rscript, "-e", spec["r"], str(tmp)],
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if done.returncode != 0 or not tmp.exists():
        tmp.unlink(missing_ok=True)
        raise DatasetError(f"Rscript could not export {name} (is mlbench installed? "
                           f"{R_PACKAGES_HINT}):\n{done.stdout.strip()}")
    digest = sha256_of(tmp)
    if digest != spec["sha256"]:
        bad = path.with_suffix(".csv.bad")
        tmp.replace(bad)
        raise DatasetError(f"{name} export has sha256 {digest}, expected {spec['sha256']} "
                           f"(another mlbench or R version than Debian bookworm's r-cran-mlbench "
                           f"2.1-3-1 / r-base-core 4.2.2?); kept it as {bad}")
    tmp.replace(path)


def _load_r_export(name, cache_dir):
    import numpy as np
    spec = R_EXPORTS[name]
    path = Path(cache_dir or DEFAULT_CACHE_DIR) / spec["file"]
    if not path.exists():
        export_r(name, path)
    digest = sha256_of(path)
    if digest != spec["sha256"]:
        raise DatasetError(f"{path}: sha256 {digest}, expected {spec['sha256']}; delete the file "
                           f"to export it again with Rscript ({R_PACKAGES_HINT})")
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    header, rows = rows[0], rows[1:]
    label_col = 0 if spec["label_first"] else len(header) - 1
    drop = spec.get("drop", [])
    if (header[label_col] != spec["label"] or len(header) != spec["d"] + 1 + len(drop)
            or not set(drop) <= set(header) or len(rows) != spec["rows"]):
        raise DatasetError(f"{path}: expected {spec['rows']} rows of {spec['d']} attributes, "
                           f"the class column {spec['label']!r} and the columns {drop}, got "
                           f"{len(rows)} rows with columns {header[:4]}...")
    ids = {c: i for i, c in enumerate(spec["classes"])}
    try:
        y = np.array([ids[r[label_col]] for r in rows], dtype=np.int64)
    except KeyError as e:
        raise DatasetError(f"{path}: unknown class {e}; expected {spec['classes']}")
    keep = [i for i, h in enumerate(header) if i != label_col and h not in drop]
    X = np.array([[r[i] for i in keep] for r in rows], dtype=np.float64)
    return X, y, dict(sha256_ok=True, sha256=[digest], class_names=spec["classes"], file=str(path))


def _load_letter(split, cache_dir):
    X, y, info = _load_r_export("letter", cache_dir)
    if X.min() < 0 or X.max() > 15:
        raise DatasetError("letter: attributes outside 0..15")
    X = X / 15.0
    rows = {"train": slice(0, LETTER_TRAIN_ROWS), "test": slice(LETTER_TRAIN_ROWS, None),
            "all": slice(None)}[split]
    return X[rows], y[rows], info


def _load_scaled(name, cache_dir, minmax):
    X, y, info = _load_r_export(name, cache_dir)
    X, dropped = _drop_constant(X)
    if minmax:
        X = _minmax_columns(X)
    info["dropped_constant_columns"] = dropped
    return X, y, info


def _load_dna(cache_dir):
    X, y, info = _load_scaled("dna", cache_dir, minmax=False)
    if not set(map(float, set(X.ravel().tolist()))) <= {0.0, 1.0}:
        raise DatasetError("dna: attributes other than 0/1")
    return X, y, info


def _load_digits():
    import numpy as np
    try:
        from sklearn.datasets import load_digits
    except ImportError:
        raise DatasetError(f"scikit-learn not found: digits comes from sklearn.datasets; "
                           f"{SKLEARN_HINT} (and run /usr/bin/python3)")
    d = load_digits()
    data = np.ascontiguousarray(d.data, dtype="<f8")
    target = np.ascontiguousarray(d.target, dtype="<i8")
    digest = hashlib.sha256(data.tobytes() + target.tobytes()).hexdigest()
    if digest != DIGITS_SHA256:
        raise DatasetError(f"digits: sha256 of load_digits()'s arrays is {digest}, expected "
                           f"{DIGITS_SHA256} (another scikit-learn? {SKLEARN_HINT})")
    return data / 16.0, target, dict(sha256_ok=True, sha256=[digest],
                                     class_names=[str(i) for i in range(10)], file="load_digits()")


# ---------------------------------------------------------------------------- generated

def make_rings(n=1500, noise=0.1, rings=2, seed=0):
    """rings concentric circles of radii 1, 3, 5, ... in 2-D (the tests' two rings: radii 1, 3), n // rings points each (the first
    n % rings rings get one more), uniform angles, isotropic Gaussian noise of sd noise."""
    import numpy as np
    rng = np.random.default_rng(GENERATED_SEED + seed)
    sizes = [n // rings + (1 if i < n % rings else 0) for i in range(rings)]
    y = np.repeat(np.arange(rings), sizes)
    angle = rng.uniform(0.0, 2.0 * np.pi, n)
    radius = (2 * y + 1).astype(np.float64)
    X = np.column_stack([radius * np.cos(angle), radius * np.sin(angle)])
    X += rng.normal(0.0, noise, X.shape)
    return X, y


def make_blobs(n=3000, noise=1.0, centers=5, d=2, box=10.0, seed=0):
    """centers isotropic Gaussian blobs (sd noise) in d dimensions, centers uniform in
    [-box, box]^d, n // centers points each (the first n % centers blobs get one more)."""
    import numpy as np
    rng = np.random.default_rng(GENERATED_SEED + 1000 + seed)
    mu = rng.uniform(-box, box, (centers, d))
    sizes = [n // centers + (1 if i < n % centers else 0) for i in range(centers)]
    y = np.repeat(np.arange(centers), sizes)
    X = mu[y] + rng.normal(0.0, noise, (n, d))
    return X, y


# ---------------------------------------------------------------------------- public entry

def load(name, n=0, seed=0, split="train", noise=None, data_dir=None, cache_dir=None):
    """(X float32 C-contiguous, y int64) of data set name, with .meta (a dict: name, title,
    source, package, preprocessing, split, n, d, classes, classes_present, class_counts,
    sha256, sha256_ok, note, subsample).

    n > 0: a random subsample of n rows (seed 0 = the rows of the other benchmarks' --n); for
    rings/blobs the number of rows generated (0 = default) and seed picks the generated set.
    split: "train", "test" or "all" (fashion, letter; the others have every row in "train" and
    "all"). noise: rings/blobs only (default 0.1 / 1.0). data_dir: the Fashion-MNIST directory;
    cache_dir: where the Rscript exports live (default bench/out)."""
    import numpy as np
    if name not in SPECS:
        raise ValueError(f"unknown data set {name!r}; choose from {', '.join(NAMES)}")
    if split not in ("train", "test", "all"):
        raise ValueError(f"split must be train, test or all, not {split!r}")
    spec = SPECS[name]
    if split == "test" and name not in ("fashion", "letter"):
        raise ValueError(f"{name} has no test split (only fashion and letter do)")
    if noise is not None and spec["kind"] != "generated":
        raise ValueError(f"noise applies to rings and blobs only, not {name}")
    subsample = None
    if name == "fashion":
        X, y, info = _load_fashion(split, data_dir)
    elif name == "letter":
        X, y, info = _load_letter(split, cache_dir)
    elif name in ("satellite", "shuttle", "vowel", "vehicle"):
        X, y, info = _load_scaled(name, cache_dir, minmax=True)
    elif name == "dna":
        X, y, info = _load_dna(cache_dir)
    elif name == "spirals":
        X, y, info = _load_r_export("spirals", cache_dir)
    elif name == "digits":
        X, y, info = _load_digits()
    elif name == "rings":
        noise = 0.1 if noise is None else noise
        X, y = make_rings(n or spec["rows"], noise, spec["classes"], seed)
        info = dict(sha256_ok=None, sha256=[], class_names=[f"radius {i + 1}" for i in range(3)],
                    generator=dict(n=n or spec["rows"], noise=noise, seed=GENERATED_SEED + seed))
    else:  # blobs
        noise = 1.0 if noise is None else noise
        X, y = make_blobs(n or spec["rows"], noise, spec["classes"], seed=seed)
        info = dict(sha256_ok=None, sha256=[], class_names=[f"blob {i}" for i in range(5)],
                    generator=dict(n=n or spec["rows"], noise=noise, seed=GENERATED_SEED + 1000 + seed))
    if spec["kind"] == "real":
        keep = _subsample_index(X.shape[0], n, seed)
        if keep is not None:
            X, y = X[keep], y[keep]
            subsample = dict(n=int(n), seed=SUBSAMPLE_SEED + seed)
    X, y = _finish(X, y)
    counts = np.bincount(y, minlength=spec["classes"])
    meta = dict(name=name, title=spec["title"], source=spec["source"], package=spec["package"],
                preprocessing=spec["preprocessing"], split=split, n=int(X.shape[0]),
                d=int(X.shape[1]), classes=spec["classes"],
                classes_present=int(np.count_nonzero(counts)), class_counts=counts.tolist(),
                note=spec.get("note", ""), subsample=subsample, **info)
    return Loaded(X, y, meta)


def verify(name, **kwargs):
    """Loads name (raising DatasetError on a missing package or a mismatch); returns its meta."""
    return load(name, **kwargs).meta


def describe():
    """A Markdown table of the data sets (static metadata, nothing is loaded)."""
    lines = ["| name | rows | d | classes | source | preprocessing | checksum |",
             "|---|---:|---:|---:|---|---|---|"]
    for name, s in SPECS.items():
        lines.append(f"| {name} | {s['rows']} | {s['d']} | {s['classes']} | {s['source']} | "
                     f"{s['preprocessing']} | {s['checksum']} |")
    return "\n".join(lines)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--names", default=",".join(NAMES),
                   help="comma-separated data sets (default: all: %(default)s)")
    p.add_argument("--data-dir", default=str(DEFAULT_FASHION_DIR),
                   help="directory of the Fashion-MNIST *-idx?-ubyte.gz files (default: %(default)s)")
    p.add_argument("--cache-dir", default=str(DEFAULT_CACHE_DIR),
                   help="where the Rscript exports are kept (default: %(default)s)")
    p.add_argument("--describe", action="store_true", help="print the static table only")
    p.add_argument("--json", help="also write every data set's metadata to this JSON file")
    args = p.parse_args()
    names = [s.strip() for s in args.names.split(",") if s.strip()]
    bad = [s for s in names if s not in SPECS]
    if bad:
        p.error(f"--names: unknown {bad}; choose from {', '.join(NAMES)}")
    if args.describe:
        print(describe())
        return
    metas, failed = [], []
    for name in names:
        split = "all" if name in ("fashion", "letter") else "train"
        try:
            meta = verify(name, split=split, data_dir=args.data_dir, cache_dir=args.cache_dir)
        except DatasetError as e:
            log(f"{name}: {e}")
            failed.append(name)
            meta = dict(name=name, error=str(e), **{k: SPECS[name][k] for k in ("source", "d", "classes")})
        metas.append(meta)
    print("| name | n | d | classes | source | preprocessing | sha256 ok |")
    print("|---|---:|---:|---:|---|---|---|")
    for m in metas:
        if "error" in m:
            print(f"| {m['name']} | — | {m['d']} | {m['classes']} | {m['source']} | — | **NO**: "
                  f"{m['error'].splitlines()[0]} |")
            continue
        ok = {True: "yes", None: "— (generated)"}[m["sha256_ok"]]
        extra = f" ({m['split']})" if m["name"] in ("fashion", "letter") else ""
        print(f"| {m['name']} | {m['n']}{extra} | {m['d']} | {m['classes']} | {m['source']} | "
              f"{m['preprocessing']} | {ok} |")
    for m in metas:
        if m.get("note"):
            print(f"\n- {m['name']}: {m['note']}")
    if args.json:
        Path(args.json).write_text(json.dumps(metas, indent=2) + "\n")
    if failed:
        sys.exit(1)


if __name__ == "__main__":
    main()
