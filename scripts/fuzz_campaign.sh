#!/usr/bin/env bash
# A long fuzzing campaign that runs in the background during development (issue 26: the goal
# is 10 million executions per target). The targets of fuzz/ run in turn, CHUNK seconds each,
# each on a working corpus of its own that grows from chunk to chunk and from one campaign to
# the next (build-fuzz/campaign/<target>/, seeded from fuzz/corpus/<target>/); every chunk's
# executions are appended to build-fuzz/campaign/executions.tsv, which `status` sums.
#
#   scripts/fuzz_campaign.sh start [HOURS] [TARGET...]  in the background (nice 19, one target
#                                                        at a time: one core); default 8 hours,
#                                                        every target; prints the log's path
#   scripts/fuzz_campaign.sh status                      executions, seconds and crashes per
#                                                        target so far; whether one is running
#   scripts/fuzz_campaign.sh stop                        ends the running campaign
#   scripts/fuzz_campaign.sh minimise                    merges every campaign corpus with the
#                                                        committed one into fuzz/corpus/<target>
#                                                        (libFuzzer -merge=1: the smallest set
#                                                        with the same coverage; the regress-*
#                                                        inputs are kept), to commit
#   Environment: BUILD_FUZZ (default build-fuzz), CHUNK (seconds, default 600).
# The build is scripts/fuzz.sh's (ASan + UBSan + libFuzzer). A crash stops nothing: its input
# is kept as build-fuzz/campaign/<target>/crash-<sha1> and the chunk's line says "crash".
set -uo pipefail
cd "$(dirname "$0")/.."
root="$(pwd)"
build="${BUILD_FUZZ:-build-fuzz}"
home="$build/campaign"
chunk="${CHUNK:-600}"
all_targets=(fuzz_params fuzz_load fuzz_fit fuzz_shapes fuzz_graph)
mkdir -p "$home"

max_len() {
  case "$1" in fuzz_params) echo 512 ;; fuzz_load) echo 16384 ;; fuzz_fit) echo 2048 ;; fuzz_shapes) echo 128 ;; fuzz_graph) echo 2048 ;; esac
}
# The entropic scheduler's bookkeeping grows with the coverage features: fuzz_fit ran 1.9x
# faster without it (1111 against 588 exec/s, AMD EPYC Zen 4); fuzz_shapes spent a fifth of its
# time there; fuzz_graph has as many features.
entropic() {
  case "$1" in fuzz_fit | fuzz_graph | fuzz_shapes) echo 0 ;; *) echo 1 ;; esac
}

chunk_of() {  # chunk_of TARGET: one chunk, one line of executions.tsv
  local t="$1" dir="$home/$1"
  mkdir -p "$dir/corpus"
  local dict=()
  [ -f "$root/fuzz/$t.dict" ] && dict=("-dict=$root/fuzz/$t.dict")
  local start result execs
  start=$(date +%s)
  # malloc_context_size=0: ASan's allocation stack traces took a fifth of fuzz_fit's time.
  ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:malloc_context_size=0" \
  UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1" \
    nice -n 19 "$build/fuzz/$t" "$dir/corpus" "$root/fuzz/corpus/$t" -max_total_time="$chunk" \
      -max_len="$(max_len "$t")" -rss_limit_mb=2048 -malloc_limit_mb=512 -timeout=30 \
      -print_final_stats=1 -entropic="$(entropic "$t")" -artifact_prefix="$dir/" "${dict[@]}" \
      >"$dir/last.log" 2>&1
  result=$([ $? -eq 0 ] && echo ok || echo crash)
  execs="$(grep -oE 'stat::number_of_executed_units: *[0-9]+' "$dir/last.log" | grep -oE '[0-9]+$')"
  printf '%s\t%s\t%s\t%s\t%s\n' "$(date -u +%FT%TZ)" "$t" "${execs:-0}" "$(($(date +%s) - start))" "$result" \
    >>"$home/executions.tsv"
}

case "${1:-status}" in
  start)
    hours="${2:-8}"
    shift $(($# >= 2 ? 2 : $#))
    targets=("$@")
    [ ${#targets[@]} -eq 0 ] && targets=("${all_targets[@]}")
    if [ -f "$home/pid" ] && kill -0 "$(cat "$home/pid")" 2>/dev/null; then
      echo "fuzz_campaign.sh: already running (pid $(cat "$home/pid"))" >&2
      exit 1
    fi
    scripts/fuzz.sh 1 "${targets[@]}" >/dev/null || { echo "fuzz_campaign.sh: the build failed (scripts/fuzz.sh 1)" >&2; exit 2; }
    nohup "$0" run "$hours" "${targets[@]}" >"$home/campaign.log" 2>&1 &
    echo $! >"$home/pid"
    echo "fuzz_campaign.sh: running for $hours h (pid $!); log $home/campaign.log; see: $0 status"
    ;;
  run)
    end=$(($(date +%s) + $(awk "BEGIN { printf \"%d\", $2 * 3600 }")))
    shift 2
    while [ "$(date +%s)" -lt "$end" ]; do
      for t in "$@"; do
        [ "$(date +%s)" -lt "$end" ] || break
        chunk_of "$t"
      done
    done
    rm -f "$home/pid"
    ;;
  status)
    if [ -f "$home/pid" ] && kill -0 "$(cat "$home/pid")" 2>/dev/null; then
      echo "running (pid $(cat "$home/pid"))"
    else
      echo "not running"
    fi
    [ -f "$home/executions.tsv" ] || { echo "no campaign yet"; exit 0; }
    awk -F'\t' '{ e[$2] += $3; s[$2] += $4; if ($5 != "ok") c[$2]++ }
      END { printf "%-12s %14s %10s %8s %7s\n", "target", "executions", "seconds", "exec/s", "crashes";
            for (t in e) printf "%-12s %14d %10d %8d %7d\n", t, e[t], s[t], s[t] ? e[t] / s[t] : 0, c[t] }' \
      "$home/executions.tsv" | sort
    ;;
  stop)
    [ -f "$home/pid" ] && pkill -P "$(cat "$home/pid")" 2>/dev/null; [ -f "$home/pid" ] && kill "$(cat "$home/pid")" 2>/dev/null
    pkill -f "$build/fuzz/fuzz_" 2>/dev/null
    rm -f "$home/pid"
    echo "stopped"
    ;;
  minimise)
    for t in "${all_targets[@]}"; do
      [ -d "$home/$t/corpus" ] || continue
      merged="$(mktemp -d)"
      "$build/fuzz/$t" -merge=1 -max_len="$(max_len "$t")" "$merged" "$root/fuzz/corpus/$t" "$home/$t/corpus" \
        >"$home/$t/merge.log" 2>&1 || { echo "$t: merge failed, see $home/$t/merge.log"; rm -rf "$merged"; continue; }
      # the regress-* inputs of fixed bugs stay, under their names (fuzz/README.md)
      find "$root/fuzz/corpus/$t" -maxdepth 1 -type f ! -name 'regress-*' -delete
      cp "$merged/"* "$root/fuzz/corpus/$t/"
      rm -rf "$merged"
      echo "$t: $(ls "$root/fuzz/corpus/$t" | wc -l) inputs in fuzz/corpus/$t"
    done
    ;;
  *) echo "usage: $0 start [HOURS] [TARGET...] | status | stop | minimise" >&2; exit 2 ;;
esac
