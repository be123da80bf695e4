#!/bin/sh
# libkkmeans_mpi.so exports kkm_fit_mpi and nothing else (version script src/mpi/kkmeans_mpi.map),
# and every function kkmeans_mpi.h declares is that one; of libkkmeans it needs only the public
# API and what libkkmeans exports for it in version node KKMEANS_PRIVATE.
# usage: check_exports_mpi.sh path/to/libkkmeans_mpi.so path/to/kkmeans_mpi.h
set -u
lib="$1"
header="$2"
NM=${NM:-nm}
failures=0
fail() { echo "FAIL $*"; failures=$((failures + 1)); }

# Defined exports, without version suffixes or the version nodes' own absolute symbols.
exports=$("$NM" -D --defined-only "$lib" | awk 'NF >= 2 { t = $(NF - 1); n = $NF; sub(/@.*/, "", n);
    if (t == "A" && n ~ /^[A-Z][A-Z0-9_.]*$/) next; print n }' | sort -u)
if [ "$exports" = "kkm_fit_mpi" ]; then
    echo "ok libkkmeans_mpi exports only kkm_fit_mpi"
else
    fail "libkkmeans_mpi exports:" $exports
fi

declared=$(sed -n 's/^KKM_API[^(]*[ *]\(kkm_[A-Za-z0-9_]*\)[ ]*(.*/\1/p' "$header" | sort -u)
if [ "$declared" = "kkm_fit_mpi" ]; then
    echo "ok kkmeans_mpi.h declares kkm_fit_mpi alone"
else
    fail "kkmeans_mpi.h declares:" $declared
fi

# What it takes from libkkmeans: kkm_* symbols it leaves undefined.
needed=$("$NM" -D --undefined-only "$lib" | awk '$NF ~ /^kkm_/ { print $NF }' | sort -u)
bad=$(printf '%s\n' "$needed" | grep -v '@KKMEANS_0$' | grep -v '@KKMEANS_PRIVATE$' | grep . || true)
if [ -n "$bad" ]; then
    fail "libkkmeans_mpi needs symbols outside KKMEANS_0 and KKMEANS_PRIVATE:" $bad
else
    echo "ok it needs from libkkmeans:" $needed
fi

if [ "$failures" -ne 0 ]; then
    echo "$failures check(s) failed"
    exit 1
fi
echo "all export checks passed"
