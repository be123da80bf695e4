#!/usr/bin/env bash
# Sanitizer builds and runs (CI runs this after scripts/test.sh; see .ci/run).
#
#   scripts/sanitize.sh                  all three runs below
#   scripts/sanitize.sh asan tsan        only the runs named (asan, tsan, tsan-omp)
#
# asan      build-asan: the library, the CLI, the examples and every C/C++ test built with gcc
#           -fsanitize=address,undefined (plus float-cast-overflow, which -fsanitize=undefined
#           leaves out, and libstdc++'s _GLIBCXX_ASSERTIONS bounds checks), -O2 -g1 (the test
#           programs -Og: tests/meson.build). Every meson test of that build runs except the R,
#           Java, C#, Python bindings, which are not configured there (their runtimes are not
#           instrumented), and two sets left to the main build for time (below). Any finding
#           fails the test: ASan stops at the first error, LeakSanitizer reports leaks at exit
#           (detect_leaks=1), UBSan is built with -fno-sanitize-recover and runs with
#           halt_on_error=1; all of them print a stack trace and abort.
# tsan      build-tsan: the library and one test program built with gcc -fsanitize=thread:
#           the 8-thread concurrent kkm_assign test on one fitted model for every assign path
#           (tests/test_api_handles.cpp, ConcurrentAssign), kkm_partial_fit from two threads
#           beside three reading the model (assign, getters, save: ConcurrentStream) and the
#           thread-local kkm_last_error tests (the same file, LastError). Only the ConcurrentAssign
#           and ConcurrentStream instances with the model's threads=1 run here: the 8 callers are plain std::threads
#           and the library enters no multi-thread OpenMP team. GCC's libgomp is not
#           instrumented, so TSan cannot see the barrier that ends a parallel region and
#           reports every hand-over from an OpenMP worker back to the caller as a race (false
#           positives); no suppressions are used in this run.
# tsan-omp  build-tsan-omp: the same with clang and LLVM's libomp, run with the Archer OMPT tool
#           (libarcher.so), which tells TSan about OpenMP's barriers, so OpenMP regions are
#           checked too: ConcurrentAssign and ConcurrentStream with threads=0 as well (an OpenMP team inside each of
#           the 8 callers) and LastError, all of test_api_quality (the rings, weights and
#           objectives: fits at threads=1, 2, 3; not test_api_edge_cases), all
#           of test_api_progress (progress and cancellation from inside parallel fits, the
#           search's parallel scoring fits), unit_host_threads (fits and assigns on the
#           threads of the host's own OpenMP team), and the api_direct fits that read a file with
#           O_DIRECT (RowStream's reader threads beside the fit's team; the rank restriction
#           summed in the kernel pass). One suppression, for interceptor calls made inside libomp itself
#           (scripts/tsan-libomp.supp, where the reason is written down). Needs clang, libomp-dev
#           (Archer) and libclang-rt-14-dev (clang's TSan runtime); without them this run fails.
#
# Debian's BLIS, LAPACK and OpenMP runtimes are not instrumented: ASan checks our code's
# accesses and the libc functions it intercepts, not reads made inside libblis
# (tests/test_api_bounds.cpp checks those against guard pages instead).
#
# Output: each run's meson test log, then one line per run "<run>: N passed, N failed"
# (GoogleTest cases counted one by one, as scripts/test.sh does). Exit status 0 only if every
# run built and every test passed. Each run leaves its log in BUILD/meson-logs/testlog.json
# (a run that did not build leaves one failed entry there); .ci/run sums those with the main
# build's through scripts/summarize-tests.py.
# Environment: ASAN_BUILD, TSAN_BUILD, TSAN_OMP_BUILD (default build-asan, build-tsan,
# build-tsan-omp), NINJA_JOBS (default: ninja's own), TIMEOUT_MULTIPLIER for meson test
# (default 3: sanitized code is slower).
set -uo pipefail
cd "$(dirname "$0")/.."
root="$(pwd)"
asan_build="${ASAN_BUILD:-build-asan}"
tsan_build="${TSAN_BUILD:-build-tsan}"
tsan_omp_build="${TSAN_OMP_BUILD:-build-tsan-omp}"
jobs=()
[ -n "${NINJA_JOBS:-}" ] && jobs=(-j "$NINJA_JOBS")
multiplier="${TIMEOUT_MULTIPLIER:-3}"
[ $# -eq 0 ] && set -- asan tsan tsan-omp
for run in "$@"; do
    case "$run" in asan | tsan | tsan-omp) ;; *) echo "usage: $0 [asan] [tsan] [tsan-omp]" >&2; exit 2 ;; esac
done

# werror=false: GCC's sanitizer instrumentation can raise warnings of its own (and code under
# #ifdef __SANITIZE_ADDRESS__ differs); the main build (-Werror) polices warnings, these builds
# exist for their run-time checks.
# -Dmpi=disabled: OpenMPI is not instrumented and is known to leave allocations LeakSanitizer
# reports. The main build runs the mpi suite; here the distributed core is still checked, in one
# process with ranks as threads (unit_distributed).
# -O2 -g1 (every build here): -g1 keeps the line tables, so every report's stack trace still
# names file and line; full -g (variables, types) only serves a debugger and costs a third of
# the build (the ASan build of src/graph/spectrum.cpp: 76 s at -g, 47 s at -g1, on Zen 3).
common=(-Doptimization=2 -Ddebug=false -Db_lundef=false -Dwerror=false -Djava=disabled -Dcsharp=disabled -Dr=disabled
        -Dmpi=disabled -Dpython=disabled)

status=0
summary=()
# setup DIR OPTION...: meson setup, or reconfigure an existing build directory.
setup() {
    local dir="$1"; shift
    if [ -f "$dir/build.ninja" ]; then
        meson setup --reconfigure "$dir" "$@"
    else
        rm -rf "$dir"
        meson setup "$dir" "$@"
    fi
}

# test_one DIR TEST [GTEST_FILTER]: runs one meson test of DIR and appends its log entry to
# DIR/meson-logs/sanitize.json (each meson test call replaces testlog.json).
test_one() {
    local dir="$1" name="$2" filter="${3:-}"
    local args=()
    [ -n "$filter" ] && args=(--test-args="--gtest_filter=$filter")
    meson test -C "$dir" --no-rebuild --print-errorlogs -t "$multiplier" "$name" "${args[@]}" || status=1
    cat "$dir/meson-logs/testlog.json" >> "$dir/meson-logs/sanitize.json"
}

# finish RUN DIR OK START BUILT: writes DIR's log (one failed entry if the build failed) and
# the run's summary line.
finish() {
    local run="$1" dir="$2" ok="$3" start="$4" built="$5" line
    mkdir -p "$dir/meson-logs"
    if [ "$ok" = yes ]; then
        echo "sanitize: $run build $((built - start)) s, tests $((SECONDS - built)) s"
    else
        status=1
        printf '{"name": "%s build", "result": "FAIL", "stdout": "the %s build failed"}\n' "$run" "$run" \
            > "$dir/meson-logs/testlog.json"
    fi
    line=$(python3 "$root/scripts/summarize-tests.py" "$dir/meson-logs/testlog.json") || status=1
    summary+=("$run: $line")
}

for run in "$@"; do
    start=$SECONDS
    built=$SECONDS
    ok=yes
    case "$run" in
    asan)
        echo "=== sanitize: AddressSanitizer + UndefinedBehaviorSanitizer ($asan_build)"
        extra="-g1 -fsanitize=float-cast-overflow -fno-sanitize-recover=undefined,float-cast-overflow -D_GLIBCXX_ASSERTIONS"
        rm -f "$asan_build/meson-logs/testlog.json"
        if setup "$asan_build" "${common[@]}" -Db_sanitize=address,undefined -Dc_args="$extra" -Dcpp_args="$extra" &&
           ninja -C "$asan_build" "${jobs[@]}"; then
            built=$SECONDS
            # The method tests again on the narrower engine paths (suite isa-variants) are left to
            # the main build: under ASan they take 5 minutes, and unit_engine already runs every
            # path's tiles on every edge size here.
            # unit_search's four RingsSearch cases (gamma and k both searched on the rings, 140 s
            # under ASan, its longest test) are left to the main build too: api_search's rings
            # case runs the same search here through the C API (exact and nystrom, stability
            # scoring every (gamma, k), MATR the gammas at the chosen k).
            # detect_stack_use_after_return: use of a returned frame's locals; strict_init_order:
            # static initialisers that read another file's; abort_on_error: a nonzero status
            # whatever the test program does with exit codes.
            ASAN_OPTIONS=detect_leaks=1:halt_on_error=1:abort_on_error=1:detect_stack_use_after_return=1:check_initialization_order=1:strict_init_order=1 \
            UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1:abort_on_error=1 GTEST_FILTER='-Search/RingsSearch.*' \
                meson test -C "$asan_build" --no-rebuild --print-errorlogs -t "$multiplier" --no-suite isa-variants || status=1
        else
            ok=no
        fi
        finish asan+ubsan "$asan_build" "$ok" "$start" "$built"
        ;;
    tsan)
        echo "=== sanitize: ThreadSanitizer, gcc ($tsan_build)"
        rm -f "$tsan_build/meson-logs/testlog.json" "$tsan_build/meson-logs/sanitize.json"
        if setup "$tsan_build" "${common[@]}" -Db_sanitize=thread -Dc_args=-g1 -Dcpp_args=-g1 &&
           ninja -C "$tsan_build" "${jobs[@]}" tests/test_api_handles; then
            built=$SECONDS
            # halt_on_error=0: print every race, then exit with status 66 (the test fails).
            export TSAN_OPTIONS=halt_on_error=0:exitcode=66:second_deadlock_stack=1
            test_one "$tsan_build" api_handles 'Paths/ConcurrentAssign.*/*_threads1'
            test_one "$tsan_build" api_handles 'LastError.*'
            test_one "$tsan_build" api_handles 'Methods/ConcurrentStream.*/*_threads1'
            unset TSAN_OPTIONS
            mv "$tsan_build/meson-logs/sanitize.json" "$tsan_build/meson-logs/testlog.json"
        else
            ok=no
        fi
        finish tsan "$tsan_build" "$ok" "$start" "$built"
        ;;
    tsan-omp)
        echo "=== sanitize: ThreadSanitizer, clang + libomp + Archer ($tsan_omp_build)"
        rm -f "$tsan_omp_build/meson-logs/testlog.json" "$tsan_omp_build/meson-logs/sanitize.json"
        archer=""
        if command -v clang++ > /dev/null; then
            archer="$(dirname "$(readlink -f "$(command -v clang++)")")/../lib/libarcher.so"
        fi
        if [ -z "$archer" ] || [ ! -f "$archer" ]; then
            echo "sanitize: tsan-omp needs clang++ and libarcher.so (Debian: apt-get install clang libomp-dev libclang-rt-14-dev)" >&2
            ok=no
        elif CC=clang CXX=clang++ setup "$tsan_omp_build" "${common[@]}" -Db_sanitize=thread -Dc_args=-g1 -Dcpp_args=-g1 &&
             ninja -C "$tsan_omp_build" "${jobs[@]}" tests/test_api_quality tests/test_api_progress tests/test_api_handles \
                 tests/test_unit_host_threads tests/test_api_direct; then
            built=$SECONDS
            export OMP_TOOL_LIBRARIES="$archer"
            export TSAN_OPTIONS="halt_on_error=0:exitcode=66:second_deadlock_stack=1:suppressions=$root/scripts/tsan-libomp.supp"
            test_one "$tsan_omp_build" api_quality
            test_one "$tsan_omp_build" api_progress
            test_one "$tsan_omp_build" api_handles 'Paths/ConcurrentAssign.*:LastError.*:Methods/ConcurrentStream.*'
            test_one "$tsan_omp_build" unit_host_threads  # fits inside the host's own OpenMP team
            # direct reads: RowStream's reader threads beside the fit's OpenMP team
            test_one "$tsan_omp_build" api_direct 'Direct.ReadingTheFileDirectly*:Direct.RankRestriction*'
            unset OMP_TOOL_LIBRARIES TSAN_OPTIONS
            mv "$tsan_omp_build/meson-logs/sanitize.json" "$tsan_omp_build/meson-logs/testlog.json"
        else
            ok=no
        fi
        finish tsan-omp "$tsan_omp_build" "$ok" "$start" "$built"
        ;;
    esac
done
printf '%s\n' "${summary[@]}"
exit $status
