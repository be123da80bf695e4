#!/usr/bin/python3
"""Writes an MNIST8M-like raw float32 file from Fashion-MNIST (issue 28's recipe).

    /usr/bin/python3 bench/mnist8m.py OUT.f32 [--rows 8100000] [--seed 0]

MNIST8M (Loosli, Canu & Bottou 2007) is 8.1 million MNIST digits made by deforming the 60,000
training images. This file is its stand-in at the same shape (8.1 M x 784, 25.4 GB): copies of
the 60,000 Fashion-MNIST training images (pixels / 255), each copy rolled by one random
(dx, dy) in [-2, 2]^2 pixels (np.roll on the 28 x 28 image, copy 0 unrolled too), every pixel
jittered with N(0, 0.02^2) noise and clipped to [0, 1]; the last copy is cut at --rows. Next to
OUT it writes OUT's stem + ".labels.csv" (header "label", the class of every row), the --truth
file of `kkmeans fit`.

The file is written copy by copy (one 60,000-row block in memory, 188 MB), so it may be larger
than the machine's memory; it needs --rows x 3136 bytes of disk. Deterministic for a seed.
Needs Debian's dataset-fashion-mnist (apt-get install dataset-fashion-mnist).
"""
import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from kkm_ctypes import DEFAULT_FASHION_DIR, load_fashion_mnist  # noqa: E402

SHIFT = 2        # |dx|, |dy| <= SHIFT pixels
NOISE = 0.02     # standard deviation of the pixel jitter


def copies(X, y, rows, seed):
    """(block, labels) pairs of the file, in order, until rows rows."""
    rng = np.random.default_rng(seed)
    images = X.reshape(-1, 28, 28)
    written = 0
    while written < rows:
        dx, dy = rng.integers(-SHIFT, SHIFT + 1, size=2)
        block = np.roll(images, shift=(int(dy), int(dx)), axis=(1, 2)).reshape(len(X), 784)
        block = block + rng.standard_normal(block.shape, dtype=np.float32) * np.float32(NOISE)
        np.clip(block, 0.0, 1.0, out=block)
        take = min(len(X), rows - written)
        yield block[:take].astype("<f4", copy=False), y[:take]
        written += take


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--rows", type=int, default=8_100_000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--data-dir", default=DEFAULT_FASHION_DIR)
    args = ap.parse_args()
    if args.rows < 1:
        raise SystemExit("--rows must be positive")
    X, y = load_fashion_mnist(args.data_dir)
    labels_path = args.out.with_name(args.out.stem + ".labels.csv")
    tmp, tmp_labels = args.out.with_suffix(".part"), labels_path.with_suffix(".part")
    with open(tmp, "wb") as data, open(tmp_labels, "w") as labels:
        labels.write("label\n")
        for block, classes in copies(X, y, args.rows, args.seed):
            block.tofile(data)
            labels.write("\n".join(map(str, classes.tolist())) + "\n")
    tmp.replace(args.out)
    tmp_labels.replace(labels_path)
    print(f"{args.out}: {args.rows} x 784 float32 ({args.rows * 3136 / 1e9:.1f} GB); classes in {labels_path}")


if __name__ == "__main__":
    main()
