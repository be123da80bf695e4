#!/usr/bin/env bash
# Builds the libFuzzer targets of fuzz/ (clang, ASan + UBSan) and runs each for a fixed number
# of executions, starting from a temporary copy of the committed seed corpus fuzz/corpus/<target>
# (the committed corpus is never modified). See fuzz/README.md.
#
#   scripts/fuzz.sh [RUNS] [TARGET...]
#     RUNS     executions per target (default 1000000; e.g. 20000 for a quick check)
#     TARGET   fuzz_params, fuzz_load, fuzz_fit, fuzz_shapes, fuzz_graph (default: all five)
#   Environment:
#     BUILD_FUZZ   build directory (default build-fuzz; configured here if it has no build.ninja)
#     FUZZ_JOBS    targets run at the same time (default 1)
#     FUZZ_SEED    libFuzzer -seed (default 0: a random seed, printed in the log)
#     FUZZ_OUT     where logs and crash inputs go (default $BUILD_FUZZ/fuzz-out)
#     FUZZ_ARGS    extra libFuzzer flags
# Prints one line per target (executions, seconds, exec/s, coverage, result); exits 1 if any
# target crashed (a crash input is kept as $FUZZ_OUT/<target>-crash-<sha1>; reproduce it with
# $BUILD_FUZZ/fuzz/<target> <that file>).
set -uo pipefail
cd "$(dirname "$0")/.."
root="$(pwd)"

runs="${1:-1000000}"
[ $# -gt 0 ] && shift
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(fuzz_params fuzz_load fuzz_fit fuzz_shapes fuzz_graph)
case "$runs" in '' | *[!0-9]*) echo "fuzz.sh: RUNS must be a number, got '$runs'" >&2; exit 2 ;; esac
for t in "${targets[@]}"; do
  case "$t" in fuzz_params | fuzz_load | fuzz_fit | fuzz_shapes | fuzz_graph) ;; *) echo "fuzz.sh: unknown target '$t'" >&2; exit 2 ;; esac
done

build="${BUILD_FUZZ:-build-fuzz}"
jobs="${FUZZ_JOBS:-1}"
seed="${FUZZ_SEED:-0}"
out="${FUZZ_OUT:-$build/fuzz-out}"

# ---------------------------------------------------------------- build
if ! command -v clang++ >/dev/null; then
  echo "fuzz.sh: clang++ not found (Debian: apt-get install clang libomp-dev)" >&2
  exit 2
fi
if [ ! -f "$build/build.ninja" ]; then
  # Coverage for libFuzzer (fuzzer-no-link) without comparison tracing: trace-cmp in the
  # numerical loops made fuzz_fit 1.7x slower, and measured no coverage gain for the parsers
  # (the dictionaries fuzz/*.dict give them their tokens).
  flags="-fsanitize=fuzzer-no-link -fno-sanitize-coverage=trace-cmp -fno-sanitize-recover=all"
  flags="$flags -fno-omit-frame-pointer -Wno-pass-failed"
  CC=clang CXX=clang++ meson setup "$build" -Dfuzz=true -Dtests=false -Dtools=false \
    -Djava=disabled -Dcsharp=disabled -Dr=disabled \
    -Dbuildtype=debugoptimized -Db_ndebug=false -Dwerror=false \
    -Db_sanitize=address,undefined -Db_lundef=false \
    "-Dc_args=$flags" "-Dcpp_args=$flags" || exit 2
fi
ninja -C "$build" "${targets[@]/#/fuzz/}" || exit 2

# ---------------------------------------------------------------- run
mkdir -p "$out"
work="$(mktemp -d "${TMPDIR:-/tmp}/kkm-fuzz.XXXXXX")"

max_len() {
  case "$1" in fuzz_params) echo 512 ;; fuzz_load) echo 16384 ;; fuzz_fit) echo 2048 ;; fuzz_shapes) echo 128 ;; fuzz_graph) echo 2048 ;; esac
}
# The entropic input scheduler's bookkeeping grows with the number of coverage features;
# fuzz_fit has ~15000 and ran 2.5x faster without it, at the same coverage (fuzz_graph alike).
entropic() {
  case "$1" in fuzz_fit | fuzz_graph | fuzz_shapes) echo 0 ;; *) echo 1 ;; esac
}

run_one() {
  local t="$1"
  local corpus="$work/$t"
  mkdir -p "$corpus"
  cp "$root/fuzz/corpus/$t/"* "$corpus/" 2>/dev/null || true
  local dict=()
  [ -f "$root/fuzz/$t.dict" ] && dict=("-dict=$root/fuzz/$t.dict")
  touch "$out/$t.start"  # crash files newer than this one are this run's
  # malloc_context_size=0: ASan recording every allocation's stack took a fifth of fuzz_fit's time.
  # shellcheck disable=SC2086
  ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:malloc_context_size=0}" \
  UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}" \
    "$build/fuzz/$t" "$corpus" -runs="$runs" -seed="$seed" -max_len="$(max_len "$t")" \
      -rss_limit_mb=2048 -malloc_limit_mb=512 -timeout=30 -print_final_stats=1 -detect_leaks=1 \
      -entropic="$(entropic "$t")" \
      -artifact_prefix="$out/$t-" "${dict[@]}" ${FUZZ_ARGS:-} >"$out/$t.log" 2>&1
  echo $? >"$out/$t.rc"
}

summary() {
  local t="$1" rc log="$out/$t.log"
  rc="$(cat "$out/$t.rc")"
  local done_line cov execs secs
  done_line="$(grep -E '^Done [0-9]+ runs in [0-9]+ second' "$log" | tail -1)"
  cov="$(grep -oE 'cov: [0-9]+ ft: [0-9]+' "$log" | tail -1)"
  execs="$(grep -oE 'stat::number_of_executed_units: *[0-9]+' "$log" | grep -oE '[0-9]+$')"
  secs="$(echo "$done_line" | grep -oE 'in [0-9]+ second' | grep -oE '[0-9]+')"
  [ -z "$secs" ] && secs="$(cat "$out/$t.secs")"
  local rate="-"
  [ -n "$execs" ] && [ "${secs:-0}" -gt 0 ] && rate=$((execs / secs))
  local result="ok"
  if [ "$rc" != 0 ]; then
    local file
    file="$(find "$out" -maxdepth 1 -name "$t-*" -newer "$out/$t.start" | head -1)"
    if [ -n "$file" ]; then
      result="CRASH (rc=$rc): $file"
    elif grep -q "LeakSanitizer: detected memory leaks" "$log"; then
      result="LEAK at exit (rc=$rc): see $log"
    else
      result="FAILED (rc=$rc): see $log"
    fi
  fi
  printf '%-12s %10s execs %6ss %6s exec/s  %-22s %s\n' "$t" "${execs:-?}" "$secs" "$rate" "${cov:-cov: ?}" "$result"
  [ "$rc" = 0 ]
}

echo "fuzz.sh: $runs executions per target (${targets[*]}), $jobs at a time; logs in $out"
status=0
pending=()
for t in "${targets[@]}"; do
  (
    start=$(date +%s)
    run_one "$t"
    echo $(($(date +%s) - start)) >"$out/$t.secs"
  ) &
  pending+=("$!")
  if [ ${#pending[@]} -ge "$jobs" ]; then
    wait "${pending[0]}"
    pending=("${pending[@]:1}")
  fi
done
wait
for t in "${targets[@]}"; do
  summary "$t" || status=1
done
if [ $status -ne 0 ]; then
  echo "fuzz.sh: a target failed; see $out/<target>.log and reproduce with $build/fuzz/<target> <crash file>"
  echo "fuzz.sh: the working corpus is kept in $work (delete it when done)"
else
  rm -rf "$work"
fi
exit $status
