#!/usr/bin/env python3
"""How long a cancel takes during the Nystrom fit's m x m eigen-decomposition (issue 27, item 6).

The progress callback (kkm_set_progress) cancels a fit at its next call, and the library calls
it about every 0.1 s between pieces of work. The eigen-decomposition of the landmark kernel
K_LL (stage "kernel+eigen") was one LAPACK dsyevd call that nothing interrupted, m^3 in time:
Ctrl-C at m = 2000 took 1.57 s. It now runs dsyevd's steps one by one with polls between
pieces (src/core/linalg_lapack.cpp). For each m this script measures:

  old      the one uninterruptible LAPACKE dsyevd call on an m x m RBF kernel matrix of the
           same data (column-major, uplo 'U', as the library called it), through ctypes in
           this process. libkkmeans.so is loaded before numpy, so that LAPACK's BLAS calls
           reach BLIS as in a C host (where numpy loads LAPACK first they reach numpy's
           OpenBLAS: README, "BLIS stays the BLAS"). A cancel requested during the call
           waited for its end: its time is the worst-case wait (half of it on average), plus
           up to one poll interval.
  eigen    the new decomposition's whole time: the "kernel+eigen" stage of a fit on n = m
           rows with threads=1 (kkm_get_timings), which besides the decomposition only
           evaluates K_LL and the m x m kernel rows (O(m^2 d), a few hundredths of a second).
  latency  fits of method=nystrom m=M on n x d Gaussian data (default 200000 x 50, as in the
           issue), threads=all: a cancel is requested at a chosen moment D after the
           "kernel+eigen" stage starts (as Ctrl-C would set a flag), the callback returns 1 at
           its first call at or after D, and the latency is the time from D until kkm_fit
           returns KKM_ERR_CANCELLED. D runs over --points moments spread evenly across the
           old call's duration (the decomposition runs on the calling thread, beside the
           kernel rows on the others); each row reports the median and the largest latency
           and how many of those cancels landed in the stage.

Goal (issue 27): latency <= 0.3 s at m = 2000. The machine's load average is printed: on a
shared machine every time here stretches with the load. Writes the table to
bench/results/cancel_latency.md (--quick: bench/out/quick/cancel_latency.md).

    /usr/bin/python3 bench/cancel_latency.py [--n 200000] [--d 50] [--m 1000,2000,4000]
        [--points 8] [--threads 0] [--seed 0] [--quick] [--lib build/src/libkkmeans.so] [--markdown FILE]
"""
import argparse
import ctypes
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from kkm_ctypes import REPO_ROOT, SIGNATURES, KkmeansError, cpu_name, log, open_library, papers_gamma  # noqa: E402

KKM_ERR_CANCELLED = 7  # include/kkmeans.h (status numbers are frozen)


def old_dsyevd_seconds(kkm, X, gamma, m, seed):
    """Seconds of one LAPACKE_dsyevd_work call (the old path) on the RBF kernel of m rows of X."""
    import numpy as np
    rng = np.random.default_rng(seed)
    L = X[rng.choice(X.shape[0], size=m, replace=False)].astype(np.float32)
    sq = (L * L).sum(axis=1, dtype=np.float32)
    D = np.maximum(sq[:, None] + sq[None, :] - 2 * (L @ L.T), 0)
    K = np.exp(-np.float32(gamma) * D).astype(np.float32).astype(np.float64)
    K = np.asfortranarray((K + K.T) / 2)
    w = np.empty(m)
    lapacke = ctypes.CDLL("liblapacke.so.3")  # the library's own (already loaded with it)
    fn = lapacke.LAPACKE_dsyevd_work
    fn.restype = ctypes.c_int
    dp, ip = ctypes.POINTER(ctypes.c_double), ctypes.POINTER(ctypes.c_int)
    fn.argtypes = [ctypes.c_int, ctypes.c_char, ctypes.c_char, ctypes.c_int, dp, ctypes.c_int, dp, dp,
                   ctypes.c_int, ip, ctypes.c_int]
    col_major = 102
    work_size, iwork_size = ctypes.c_double(0), ctypes.c_int(0)
    a = K.ctypes.data_as(dp)
    info = fn(col_major, b"V", b"U", m, a, m, w.ctypes.data_as(dp), ctypes.byref(work_size), -1,
              ctypes.byref(iwork_size), -1)
    assert info == 0, info
    work = np.zeros(int(work_size.value))
    iwork = np.zeros(iwork_size.value, dtype=np.int32)
    start = time.perf_counter()
    info = fn(col_major, b"V", b"U", m, a, m, w.ctypes.data_as(dp), work.ctypes.data_as(dp), work.size,
              iwork.ctypes.data_as(ip), iwork.size)
    seconds = time.perf_counter() - start
    assert info == 0, info
    return seconds


def eigen_stage_seconds(kkm, X, gamma, m, seed):
    """The "kernel+eigen" stage of a one-thread Nystrom fit on m rows: the new decomposition."""
    with kkm.fitted(f"k=4 method=nystrom m={m} gamma={gamma!r} seed={seed} threads=1 n_init=1", X[:m]) as model:
        timings = dict(item.split("=", 1) for item in model.timings().split())
    return float(timings["kernel+eigen"])


def cancel_latency(kkm, X, params, delay):
    """Fits with a cancel requested `delay` s after "kernel+eigen" starts; returns (latency s,
    stage of the cancelling call) or None if the fit ended before the request."""
    import numpy as np
    state = dict(start=None, cancelled_stage=None)

    def callback(stage, fraction, user):
        now = time.perf_counter()
        stage = stage.decode()
        if stage == "kernel+eigen" and state["start"] is None:
            state["start"] = now
        if state["start"] is not None and now >= state["start"] + delay:
            state["cancelled_stage"] = stage
            return 1
        return 0

    fn = SIGNATURES.PROGRESS_FN(callback)
    X = np.ascontiguousarray(X, dtype=np.float32)
    model = kkm.model()
    try:
        model.set_params(params)
        kkm.check(kkm.lib.kkm_set_progress(model.handle, fn, None), "kkm_set_progress")
        status = kkm.lib.kkm_fit(model.handle, X.ctypes.data_as(ctypes.POINTER(ctypes.c_float)), X.shape[0],
                                 X.shape[1], None)
        returned = time.perf_counter()
    finally:
        model.close()
    if status != KKM_ERR_CANCELLED:
        kkm.check(status, "kkm_fit")
        return None
    return returned - (state["start"] + delay), state["cancelled_stage"]


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--n", type=int, default=200000)
    p.add_argument("--d", type=int, default=50)
    p.add_argument("--m", default="1000,2000,4000")
    p.add_argument("--points", type=int, default=8, help="cancel moments per m")
    p.add_argument("--threads", type=int, default=0, help="threads of the cancelled fits (0: all)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--quick", action="store_true", help="n = 20000, m = 1000 and 2000, 4 moments")
    p.add_argument("--lib", default=None)
    p.add_argument("--markdown", default=None,
                   help="where the table goes (default bench/results/cancel_latency.md; --quick: bench/out/quick/)")
    args = p.parse_args()
    if args.quick:
        args.n, args.m, args.points = 20000, "1000,2000", 4
    kkm = open_library(args.lib)
    import numpy as np
    X = np.random.default_rng(args.seed).standard_normal((args.n, args.d), dtype=np.float32)
    gamma = papers_gamma(X)
    rows = []
    for m in [int(v) for v in args.m.split(",")]:
        log(f"m = {m}: old dsyevd ...")
        old = old_dsyevd_seconds(kkm, X, gamma, m, args.seed)
        log(f"m = {m}: old {old:.2f} s; new decomposition ...")
        new = eigen_stage_seconds(kkm, X, gamma, m, args.seed)
        log(f"m = {m}: new {new:.2f} s; cancels ...")
        params = f"k=10 method=nystrom m={m} gamma={gamma!r} seed={args.seed} threads={args.threads} n_init=1"
        latencies, in_stage = [], 0
        for j in range(args.points):
            delay = (j + 0.5) / args.points * old
            result = cancel_latency(kkm, X, params, delay)
            if result is None:
                log(f"  D = {delay:.2f} s: the fit ended first")
                continue
            latency, stage = result
            latencies.append(latency)
            in_stage += stage == "kernel+eigen"
            log(f"  D = {delay:.2f} s: latency {latency:.3f} s (cancelled in {stage})")
        rows.append((m, old, new, latencies, in_stage))
    load = os.getloadavg()
    lines = [f"Cancel latency during the eigen-decomposition, n = {args.n}, d = {args.d}, "
             f"threads = {args.threads or 'all'} ({os.cpu_count()} cores), {cpu_name()}, "
             f"load average {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f} (1 / 5 / 15 min)", "",
             "| m | old: one dsyevd call (s) = worst-case wait | new: whole decomposition (s) "
             "| new: cancel latency, median (s) | new: largest (s) | cancels in kernel+eigen |",
             "|---:|---:|---:|---:|---:|---:|"]
    for m, old, new, lat, in_stage in rows:
        med = f"{statistics.median(lat):.3f}" if lat else "-"
        top = f"{max(lat):.3f}" if lat else "-"
        lines.append(f"| {m} | {old:.2f} | {new:.2f} | {med} | {top} | {in_stage} of {len(lat)} |")
    lines += ["", f"kkmeans {kkm.version()} ({kkm.path}); goal: <= 0.3 s at m = 2000"]
    text = "\n".join(lines) + "\n"
    print("\n" + text)
    out = Path(args.markdown) if args.markdown else REPO_ROOT / "bench" / (
        "out/quick/cancel_latency.md" if args.quick else "results/cancel_latency.md")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("# Cancel latency during the eigen-decomposition (bench/cancel_latency.py)\n\n" + text)
    log(f"wrote {out}")


if __name__ == "__main__":
    try:
        main()
    except KkmeansError as error:
        raise SystemExit(str(error))
