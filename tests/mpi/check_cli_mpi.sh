#!/bin/sh
# kkmeans-mpi end to end: `mpirun -np P kkmeans-mpi fit` on a raw float32 file writes the same
# labels (raw int32) as `kkmeans fit` in one process (CSV), for P = 2 and 3 (an uneven split);
# the model rank 0 saved assigns those labels with `kkmeans assign`; a failure on the ranks is
# one error, printed once, and every rank exits with the same nonzero status.
# usage: check_cli_mpi.sh MPIRUN KKMEANS_MPI KKMEANS
set -u
mpirun="$1"
case "$2" in /*) kkm_mpi="$2" ;; *) kkm_mpi="$PWD/$2" ;; esac  # absolute: a check cds
kkm="$3"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
passed=0
failed=0
check() {  # check NAME COMMAND...: the command must succeed
    name="$1"; shift
    if "$@" >"$dir/out" 2>"$dir/err"; then passed=$((passed + 1)); echo "ok   $name"
    else failed=$((failed + 1)); echo "FAIL $name"; cat "$dir/out" "$dir/err"; fi
}
run_mpi() {  # run_mpi P ARGS...
    np="$1"; shift
    timeout 100 "$mpirun" --allow-run-as-root --oversubscribe -np "$np" "$kkm_mpi" "$@"
}
# Two rings (radius 1 and 4) of 150 points each, as tests/check_cli.sh, as CSV and as raw
# little-endian float32 (python3 writes the same floats the CSV parser reads).
awk 'BEGIN { srand(7);
  for (i = 0; i < 300; i++) { r = (i < 150) ? 1 : 4; t = rand() * 6.2831853;
    printf "%.6f,%.6f\n", r * cos(t) + (rand() - 0.5) * 0.2, r * sin(t) + (rand() - 0.5) * 0.2 } }' >"$dir/rings.csv"
python3 -c '
import struct, sys
rows = [line.split(",") for line in open(sys.argv[1])]
open(sys.argv[2], "wb").write(b"".join(struct.pack("<ff", float(x), float(y)) for x, y in rows))
' "$dir/rings.csv" "$dir/rings.f32"
to_csv() {  # raw int32 labels -> the CSV kkmeans writes
    python3 -c '
import struct, sys
data = open(sys.argv[1], "rb").read()
print("label")
for (v,) in struct.iter_unpack("<i", data): print(v)
' "$1"
}
same_labels() {  # same_labels LABELS.i32: the same labels as $dir/one.csv
    to_csv "$1" >"$1.csv" && cmp "$dir/one.csv" "$1.csv"
}
params="k=2 method=nystrom m=60 gamma=0.5 n_init=3 seed=4 threads=1"
check "kkmeans fit (one process)" "$kkm" fit -q "$dir/rings.f32" --dims 2 $params -l "$dir/one.csv"
# The ranks map their slices of rings.f32 (as the one process maps the file); a gzip copy is
# read into memory instead: the same labels, so the mapped input changes nothing.
gzip -c "$dir/rings.f32" >"$dir/rings.f32.gz"
check "a read (gzip) copy gives the labels of the mapped file" sh -c \
    "'$kkm' fit '$dir/rings.f32.gz' --dims 2 $params -l '$dir/read.csv' > '$dir/read.out' &&
     grep -q 'raw float32)' '$dir/read.out' && cmp '$dir/one.csv' '$dir/read.csv'"
for np in 2 3; do
    check "kkmeans-mpi fit -np $np" run_mpi $np fit -q --dims 2 "$dir/rings.f32" $params \
        -l "$dir/labels$np.i32" -o "$dir/model$np.kkm"
    check "-np $np: the labels file holds n int32" test "$(wc -c <"$dir/labels$np.i32")" -eq 1200
    check "-np $np: the same labels as one process" same_labels "$dir/labels$np.i32"
    check "-np $np: the saved model assigns the same labels" sh -c \
        "'$kkm' assign -q '$dir/model$np.kkm' '$dir/rings.f32' --dims 2 > '$dir/assign$np.csv' &&
         cmp '$dir/one.csv' '$dir/assign$np.csv'"
done
check "the summary is printed once, by rank 0" sh -c \
    "timeout 100 '$mpirun' --allow-run-as-root --oversubscribe -np 2 '$kkm_mpi' fit -q --dims 2 '$dir/rings.f32' $params > '$dir/summary' &&
     test \$(grep -c '^objective' '$dir/summary') -eq 1 && grep -q '^ranks  *2\$' '$dir/summary' && grep -q '^n  *300\$' '$dir/summary'"
# Failures: a file that is not a whole number of rows, a missing file, a bad parameter, a
# usage error, the library's refusal; each printed once (by rank 0), every rank exits with
# the same status (each rank's status is written down by a shell around it, which exits 0:
# mpirun kills the other ranks once one exits nonzero).
head -c 1202 "$dir/rings.f32" >"$dir/ragged.f32"
fails() {  # fails STATUS WORD ARGS...: all 3 ranks exit STATUS, WORD printed exactly once
    want="$1"; word="$2"; shift 2
    rm -f "$dir/exits"
    timeout 100 "$mpirun" --allow-run-as-root --oversubscribe -np 3 \
        sh -c '"$0" "$@"; echo "exit $?" >>"'"$dir/exits"'"' "$kkm_mpi" "$@" >"$dir/o" 2>"$dir/e"
    test "$(grep -c "^exit $want\$" "$dir/exits")" -eq 3 && test "$(grep -c -- "$word" "$dir/e")" -eq 1
}
check "a ragged file: status 1 on every rank, one message" fails 1 "not a positive multiple" fit -q --dims 2 "$dir/ragged.f32" k=2
check "a missing file: status 1 on every rank, one message" fails 1 "none.f32" fit -q --dims 2 "$dir/none.f32" k=2
check "a bad parameter: status 1 on every rank, one message" fails 1 "parameter 'k'" fit -q --dims 2 "$dir/rings.f32" k=0
check "no --dims: status 2 on every rank, one message" fails 2 "is required" fit -q "$dir/rings.f32" k=2
check "k above the rows: the library's message, once" fails 1 "k=400" fit -q --dims 2 "$dir/rings.f32" k=400
# Outputs that would destroy a file or that no rank can write at its offset (issue 26): the
# labels onto the input, and a FIFO as the labels file, are refused before the fit.
cp "$dir/rings.f32" "$dir/input.f32"
check "-l naming the input: refused, the input kept" sh -c \
    "! timeout 100 '$mpirun' --allow-run-as-root --oversubscribe -np 2 '$kkm_mpi' fit -q --dims 2 '$dir/input.f32' k=2 \
         -l '$dir/input.f32' 2>'$dir/e' && grep -q 'same file' '$dir/e' && cmp '$dir/input.f32' '$dir/rings.f32'"
mkdir "$dir/dash" && cp "$dir/rings.f32" "$dir/dash/-"
check "-l - and -o - (standard output, where the summary goes): refused, an input named - kept" sh -c \
    "cd '$dir/dash' && ! timeout 100 '$mpirun' --allow-run-as-root --oversubscribe -np 2 '$kkm_mpi' fit -q --dims 2 ./- \
         k=2 -l - 2>'$dir/e' && grep -q 'cannot go to standard output' '$dir/e' && cmp ./- '$dir/rings.f32' &&
     ! timeout 100 '$mpirun' --allow-run-as-root --oversubscribe -np 2 '$kkm_mpi' fit -q --dims 2 ./- \
         k=2 -o - 2>'$dir/e' && grep -q 'cannot go to standard output' '$dir/e' && cmp ./- '$dir/rings.f32'"
mkfifo "$dir/labels.fifo"
check "-l naming a FIFO: refused (each rank writes at its offset), the FIFO kept" sh -c \
    "! timeout 100 '$mpirun' --allow-run-as-root --oversubscribe -np 2 '$kkm_mpi' fit -q --dims 2 '$dir/input.f32' k=2 \
         -l '$dir/labels.fifo' 2>'$dir/e' && grep -q 'must be a regular file' '$dir/e' && test -p '$dir/labels.fifo'"
check "a failed run leaves the labels file as it was" sh -c \
    "cp '$dir/labels2.i32' '$dir/keep.i32' &&
     ! timeout 100 '$mpirun' --allow-run-as-root --oversubscribe -np 2 '$kkm_mpi' fit -q --dims 2 '$dir/rings.f32' k=400 -l '$dir/labels2.i32' 2>/dev/null &&
     cmp '$dir/keep.i32' '$dir/labels2.i32' && test -z \"\$(ls '$dir' | grep tmp-)\""
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
