#!/bin/sh
# The command-line program end to end: fit -o saves a model, assign reloads it and labels
# the training rows exactly as fit did; a damaged model file and a wrong d are clear errors;
# bad sizes, CSV first rows and output files (tests/BAD_INPUT.md, "The command-line program").
# usage: check_cli.sh path/to/kkmeans
set -u
case "$1" in /*) kkm="$1" ;; *) kkm="$PWD/$1" ;; esac  # absolute: some checks cd
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
passed=0
failed=0
check() {  # check NAME COMMAND...: the command must succeed
    name="$1"; shift
    if "$@" >"$dir/out" 2>"$dir/err"; then passed=$((passed + 1)); echo "ok   $name"
    else failed=$((failed + 1)); echo "FAIL $name"; cat "$dir/out" "$dir/err"; fi
}
# Two rings (radius 1 and 4) of 150 points each, a deterministic generator in awk. Kernel
# k-means on rings needs restarts (n_init=5): single seedings often split both rings.
awk 'BEGIN { srand(7); print "x,y";
  for (i = 0; i < 300; i++) { r = (i < 150) ? 1 : 4; t = rand() * 6.2831853;
    printf "%.6f,%.6f\n", r * cos(t) + (rand() - 0.5) * 0.2, r * sin(t) + (rand() - 0.5) * 0.2 } }' >"$dir/rings.csv"
awk 'BEGIN { for (i = 0; i < 300; i++) print (i < 150) ? 0 : 1 }' >"$dir/truth.csv"
awk -F, 'NR > 1 { print $1 "," $2 ",0" }' "$dir/rings.csv" >"$dir/three_columns.csv"

for method in exact nystrom sketch rff minibatch; do
    check "fit -o ($method)" "$kkm" fit -q "$dir/rings.csv" k=2 method=$method gamma=0.5 n_init=5 m=60 batch_size=64 \
        -o "$dir/$method.kkm" -l "$dir/$method.fit.csv"
    check "assign reproduces the fit's labels ($method)" sh -c \
        "'$kkm' assign -q '$dir/$method.kkm' '$dir/rings.csv' > '$dir/$method.assign.csv' &&
         cmp '$dir/$method.fit.csv' '$dir/$method.assign.csv'"
done
check "rings are separated (ARI 1 on stderr)" sh -c \
    "'$kkm' assign '$dir/exact.kkm' '$dir/rings.csv' --truth '$dir/truth.csv' -l '$dir/x.csv' 2>&1 | grep -q 'ARI *1.0000'"
# A damaged model: flip one byte in the middle.
size=$(wc -c <"$dir/nystrom.kkm")
cp "$dir/nystrom.kkm" "$dir/bad.kkm"
printf 'Z' | dd of="$dir/bad.kkm" bs=1 seek=$((size / 2)) conv=notrunc 2>/dev/null
check "a damaged model is refused with a format error" sh -c \
    "! '$kkm' assign -q '$dir/bad.kkm' '$dir/rings.csv' 2>'$dir/e' && grep -q 'corrupted model' '$dir/e'"
check "a missing model names the file" sh -c \
    "! '$kkm' assign -q '$dir/none.kkm' '$dir/rings.csv' 2>'$dir/e' && grep -q 'none.kkm' '$dir/e'"
check "wrong d at assign names d" sh -c \
    "! '$kkm' assign -q '$dir/exact.kkm' '$dir/three_columns.csv' 2>'$dir/e' && grep -q 'd=3' '$dir/e'"

# gamma=search k=auto (issue 15): rings of radius 1 and 3, 250 points each. The summary
# reports the chosen gamma and k=2, then the scan: a "search" line and one row per candidate.
awk 'BEGIN { srand(11); print "x,y";
  for (i = 0; i < 500; i++) { r = (i < 250) ? 1 : 3; t = rand() * 6.2831853;
    printf "%.6f,%.6f\n", r * cos(t) + (rand() - 0.5) * 0.2, r * sin(t) + (rand() - 0.5) * 0.2 } }' >"$dir/rings3.csv"
awk 'BEGIN { for (i = 0; i < 500; i++) print (i < 250) ? 0 : 1 }' >"$dir/truth3.csv"
check "fit gamma=search k=auto prints the chosen gamma and k and the scan" sh -c \
    "'$kkm' fit -q '$dir/rings3.csv' --params 'gamma=search k=auto' method=exact seed=1 --truth '$dir/truth3.csv' \
         >'$dir/o' && grep -q '^k  *2\$' '$dir/o' && grep -Eq '^gamma  *[0-9.e+-]+\$' '$dir/o' &&
     grep -Eq '^search  *[0-9]+ candidates; chose gamma=[0-9.e+-]+ k=2\$' '$dir/o' &&
     grep -Eq '^  gamma  *k  *score  *criterion\$' '$dir/o' &&
     grep -Eq '^  [0-9.e+-]+ +3 +[0-9.e+-]+  stability\$' '$dir/o' &&
     test \$(grep -Ec '^  [0-9.e+-]+ +2 +[0-9.e+-]+  stability  \(chosen\)\$' '$dir/o') -eq 1 &&
     grep -q 'ARI  *1.0000' '$dir/o'"
# The graph kernels from the command line: only k; the report names the graph; assign of the
# training rows gives the fit's labels (and a perturbed copy lands in the same rings).
for kernel in knn heat; do
    check "fit kernel=$kernel separates the rings with only k, reports its graph and reassigns them" sh -c \
        "'$kkm' fit -q '$dir/rings3.csv' k=2 kernel=$kernel seed=3 --truth '$dir/truth3.csv' -l '$dir/g.csv' \
             -o '$dir/g.kkm' >'$dir/o' && grep -q 'ARI  *1.0000' '$dir/o' && grep -q '^neighbors  *10\$' '$dir/o' &&
         grep -q '^method  *exact\$' '$dir/o' && '$kkm' assign '$dir/g.kkm' '$dir/rings3.csv' >'$dir/a.csv' 2>/dev/null &&
         cmp '$dir/g.csv' '$dir/a.csv'"
done
check "fit without a search prints no search block" sh -c \
    "'$kkm' fit -q '$dir/rings3.csv' k=2 method=exact gamma=0.5 >'$dir/o' && ! grep -q '^search' '$dir/o'"
check "fit with a bad search_criterion is an error naming it" sh -c \
    "! '$kkm' fit -q '$dir/rings3.csv' gamma=search search_criterion=bogus 2>'$dir/e' && grep -q 'search_criterion' '$dir/e'"

# ---------------------------------------------------------------- input checks (issue 13)
# Raw float32 with a --dims whose row of 4*dims bytes overflows 64 bits: a usage error naming
# the option, not a division by zero (2^62) or a wrapped row size that spins (2^62 + 1).
head -c 64 /dev/zero >"$dir/zeros.f32"
for dims in 4611686018427387904 4611686018427387905; do
    check "--dims $dims is a usage error, not a crash or a hang" sh -c \
        "timeout 20 '$kkm' fit -q '$dir/zeros.f32' --dims $dims k=2 2>'$dir/e'; test \$? -eq 2 &&
         grep -q -- \"--dims'\" '$dir/e' && grep -q 'overflow' '$dir/e'"
done
# IDX images whose three u32 sizes multiply to 2^64 + 4: the product wrapped to the 4 data
# bytes the file holds, and the 769546 x 2.4e13 "images" were read from 4 bytes.
mkdir "$dir/idx"
printf '\000\000\010\003\000\013\276\012\000\007\214\262\002\343\104\225\001\002\003\004' \
    >"$dir/idx/train-images-idx3-ubyte.gz"
printf '\000\000\010\001\000\013\276\012' >"$dir/idx/train-labels-idx1-ubyte.gz"
head -c 769546 /dev/zero >>"$dir/idx/train-labels-idx1-ubyte.gz"
check "IDX sizes whose product overflows are an error naming the file" sh -c \
    "! timeout 60 '$kkm' demo -q --data-dir '$dir/idx' k=2 2>'$dir/e' && grep -q 'train-images-idx3-ubyte.gz' '$dir/e' &&
     grep -q 'overflow' '$dir/e'"

# CSV header detection. The first row is a header only if no field is a number, after a UTF-8
# byte-order mark is skipped: a BOM before a data row made that row a "header" (one row lost,
# every label shifted); a BOM before a header is a header.
awk -F, 'NR > 1 { print $1 "," $2 }' "$dir/rings.csv" >"$dir/rings_data.csv"
{ printf '\357\273\277'; cat "$dir/rings_data.csv"; } >"$dir/bom_data.csv"
{ printf '\357\273\277'; cat "$dir/rings.csv"; } >"$dir/bom_header.csv"
for input in bom_data bom_header; do
    check "a UTF-8 BOM does not change the rows read ($input)" sh -c \
        "'$kkm' fit -q '$dir/$input.csv' k=2 method=exact gamma=0.5 -l '$dir/$input.labels' >'$dir/o' &&
         grep -q '^n  *300\$' '$dir/o' && test \$(wc -l <'$dir/$input.labels') -eq 301"
done
# A first row with numbers and text is neither: a typo in the first data row ("2.O") or a
# header field named like a number. It was taken as a header (the row lost): now an error
# naming the line and both columns.
{ echo "0.5,2.O"; cat "$dir/rings_data.csv"; } >"$dir/typo.csv"
check "a typo in the first row is an error naming line and column" sh -c \
    "! '$kkm' fit -q '$dir/typo.csv' k=2 2>'$dir/e' && grep -q 'typo.csv:1:' '$dir/e' &&
     grep -q \"column 2 '2.O' is not a number\" '$dir/e' && grep -q \"column 1 '0.5'\" '$dir/e'"
{ echo "x,2019"; cat "$dir/rings_data.csv"; } >"$dir/numeric_name.csv"
check "a header field named like a number is an error naming it" sh -c \
    "! '$kkm' fit -q '$dir/numeric_name.csv' k=2 2>'$dir/e' && grep -q 'numeric_name.csv:1:' '$dir/e' &&
     grep -q \"column 2 '2019'\" '$dir/e'"
# CR-only line ends (old Mac files): the whole file was one line, read as a header, then "no
# data rows". Now CR ends a line as LF and CRLF do.
tr '\n' '\r' <"$dir/rings.csv" >"$dir/cr.csv"
check "CR-only line ends are read as lines" sh -c \
    "'$kkm' fit -q '$dir/cr.csv' k=2 method=exact gamma=0.5 n_init=5 -l '$dir/cr.labels' >'$dir/o' &&
     grep -q '^n  *300\$' '$dir/o' && cmp '$dir/cr.labels' '$dir/exact.fit.csv'"

# Outputs are replaced only whole and only on success.
echo "the labels written before" >"$dir/kept.csv"
awk 'BEGIN { for (i = 0; i < 299; i++) print 0 }' >"$dir/short_truth.csv"
check "assign -l keeps the old file when --truth is bad" sh -c \
    "! '$kkm' assign -q '$dir/exact.kkm' '$dir/rings.csv' -l '$dir/kept.csv' --truth '$dir/short_truth.csv' 2>'$dir/e' &&
     grep -q '299 labels' '$dir/e' && test \"\$(cat '$dir/kept.csv')\" = 'the labels written before'"
mkdir "$dir/a_directory.kkm"
check "fit -l keeps the old labels when the model cannot be saved" sh -c \
    "! '$kkm' fit -q '$dir/rings.csv' k=2 method=exact gamma=0.5 -l '$dir/kept.csv' -o '$dir/a_directory.kkm' 2>'$dir/e' &&
     grep -q 'a_directory.kkm' '$dir/e' && test \"\$(cat '$dir/kept.csv')\" = 'the labels written before' &&
     test -z \"\$(ls '$dir' | grep tmp)\""
check "fit -l -o replace existing files on success" sh -c \
    "cp '$dir/exact.kkm' '$dir/replaced.kkm' && '$kkm' fit -q '$dir/rings.csv' k=2 method=nystrom m=60 gamma=0.5 \
         -l '$dir/kept.csv' -o '$dir/replaced.kkm' && test \$(wc -l <'$dir/kept.csv') -eq 301 &&
     '$kkm' assign -q '$dir/replaced.kkm' '$dir/rings.csv' | cmp - '$dir/kept.csv' && test -z \"\$(ls '$dir' | grep tmp)\""
# Special files and the same file twice (issue 26): a device, FIFO or terminal is written
# through and stays what it was; two outputs that are one file, or an output that is an input
# (by device and inode: hard and symbolic links too), are refused before the fit, leaving
# every file as it was. Private nodes only, never the real /dev.
cp "$dir/rings.csv" "$dir/input.csv"
if mknod "$dir/null" c 1 3 2>/dev/null; then
    check "-o and -l to a character device write through it; it stays a device" sh -c \
        "'$kkm' fit -q '$dir/input.csv' k=2 -o '$dir/null' -l '$dir/null' >/dev/null && test -c '$dir/null'"
else
    echo "skip a private character device (mknod needs root)"
fi
mkfifo "$dir/fifo"
check "-l to a FIFO with a reader writes through it; it stays a FIFO" sh -c \
    "cat '$dir/fifo' >'$dir/from_fifo' & sleep 0.2; timeout 60 '$kkm' fit -q '$dir/input.csv' k=2 method=exact gamma=0.5 \
         n_init=5 -l '$dir/fifo' >/dev/null && wait && test -p '$dir/fifo' && cmp '$dir/from_fifo' '$dir/exact.fit.csv'"
check "-o to a FIFO without a reader is an error, not a hang" sh -c \
    "timeout 60 '$kkm' fit -q '$dir/input.csv' k=2 -o '$dir/fifo' 2>'$dir/e'; test \$? -eq 1 &&
     grep -q 'FIFO with no reader' '$dir/e' && test -p '$dir/fifo'"
ln -s /proc/self/fd/1 "$dir/stdout_link"
check "-l through a link to /proc/self/fd/1 writes standard output; the link stays a link" sh -c \
    "'$kkm' fit -q '$dir/input.csv' k=2 method=exact gamma=0.5 n_init=5 -l '$dir/stdout_link' | head -301 >'$dir/o' &&
     cmp '$dir/o' '$dir/exact.fit.csv' && test -L '$dir/stdout_link' &&
     '$kkm' fit -q '$dir/input.csv' k=2 method=exact gamma=0.5 n_init=5 -l '$dir/stdout_link' >'$dir/redirected' &&
     head -301 '$dir/redirected' | cmp - '$dir/exact.fit.csv' && grep -q '^n  *300\$' '$dir/redirected'"
check "-o and -l naming one file are refused before the fit" sh -c \
    "! '$kkm' fit -q '$dir/input.csv' k=2 -o '$dir/twice' -l '$dir/twice' 2>'$dir/e' &&
     grep -q 'same file' '$dir/e' && test ! -e '$dir/twice'"
ln -s twice_target "$dir/twice_link"
check "-o and -l naming one file through a symbolic link are refused" sh -c \
    "! '$kkm' fit -q '$dir/input.csv' k=2 -o '$dir/twice_target' -l '$dir/twice_link' 2>'$dir/e' &&
     grep -q 'same file' '$dir/e' && test ! -e '$dir/twice_target'"
check "-o naming the input is refused and the input is kept" sh -c \
    "! '$kkm' fit -q '$dir/input.csv' k=2 -o '$dir/input.csv' 2>'$dir/e' && grep -q 'destroy the input' '$dir/e' &&
     cmp '$dir/input.csv' '$dir/rings.csv'"
ln "$dir/input.csv" "$dir/input_hardlink.csv"
check "-l naming a hard link of the input is refused and the input is kept" sh -c \
    "! '$kkm' fit -q '$dir/input.csv' k=2 -l '$dir/input_hardlink.csv' 2>'$dir/e' && grep -q 'same file' '$dir/e' &&
     cmp '$dir/input.csv' '$dir/rings.csv'"
cp "$dir/exact.kkm" "$dir/model_copy.kkm"
check "assign -l naming the model is refused and the model is kept" sh -c \
    "! '$kkm' assign -q '$dir/model_copy.kkm' '$dir/input.csv' -l '$dir/model_copy.kkm' 2>'$dir/e' &&
     grep -q 'same file' '$dir/e' && cmp '$dir/model_copy.kkm' '$dir/exact.kkm'"
# The model beside the summary on standard output: -o - (a file named "-" is an input here)
# and -o naming the file standard output is redirected to are refused before the fit; a
# summary standard output cannot take (a full device, a closed descriptor) is exit 1.
mkdir "$dir/dash" && cp "$dir/rings.csv" "$dir/dash/-"
check "-o - is refused, and an input file named - is kept" sh -c \
    "cd '$dir/dash' && ! '$kkm' fit -q ./- k=2 -o - >/dev/null 2>'$dir/e' &&
     grep -q -e \"'-': this output cannot go to standard output\" '$dir/e' && cmp ./- '$dir/rings.csv'"
check "-o naming the file standard output goes to is refused" sh -c \
    "! '$kkm' fit -q '$dir/input.csv' k=2 -o /dev/stdout >'$dir/model_out' 2>'$dir/e' &&
     grep -q 'the file standard output goes to' '$dir/e' && test ! -s '$dir/model_out' &&
     ! '$kkm' fit -q '$dir/input.csv' k=2 -o '$dir/model_out' >>'$dir/model_out' 2>'$dir/e' &&
     grep -q 'the file standard output goes to' '$dir/e'"
check "-o /dev/stdout into a pipe is refused; -o /dev/null with standard output on /dev/null is written" sh -c \
    "'$kkm' fit -q '$dir/input.csv' k=2 -o /dev/stdout 2>'$dir/e' | cat >'$dir/piped' &&
     grep -q 'the file standard output goes to' '$dir/e' && test ! -s '$dir/piped' &&
     '$kkm' fit -q '$dir/input.csv' k=2 method=exact gamma=0.5 -o /dev/null >/dev/null"
if [ -c /dev/full ]; then
    check "a summary to a full device: exit 1, saying so" sh -c \
        "'$kkm' fit -q '$dir/input.csv' k=2 method=exact gamma=0.5 >/dev/full 2>'$dir/e'; test \$? -eq 1 &&
         grep -q 'cannot write to standard output' '$dir/e' &&
         { '$kkm' params >/dev/full 2>'$dir/e'; test \$? -eq 1; }"
fi
check "closed standard output: exit 1; the labels file (opened before the summary) is whole" sh -c \
    "'$kkm' fit -q '$dir/input.csv' k=2 method=exact gamma=0.5 n_init=5 -l '$dir/closed.csv' >&- 2>'$dir/e';
     test \$? -eq 1 && grep -q 'cannot write to standard output' '$dir/e' && cmp '$dir/closed.csv' '$dir/exact.fit.csv'"
long_name=$(printf 'a%.0s' $(seq 1 246)).kkm  # 250 bytes: "<name>.tmp-<pid>-<n>" passed NAME_MAX
check "outputs with 250-byte names are written (the temporary name is cut to 255 bytes)" sh -c \
    "'$kkm' fit -q '$dir/input.csv' k=2 method=exact gamma=0.5 n_init=5 -o '$dir/$long_name' -l '$dir/$long_name.csv' &&
     cmp '$dir/$long_name.csv' '$dir/exact.fit.csv' && '$kkm' assign -q '$dir/$long_name' '$dir/input.csv' |
     cmp - '$dir/exact.fit.csv' && test -z \"\$(ls '$dir' | grep tmp-)\""
# Unbounded input: an endless stream stops at max_memory_mb with an error naming it.
check "an endless standard input stops at max_memory_mb" sh -c \
    "yes 1,2 | timeout 60 '$kkm' fit -q - k=2 max_memory_mb=1 2>'$dir/e'; test \$? -eq 1 &&
     grep -q 'max_memory_mb=1 MiB' '$dir/e'"
awk 'BEGIN { for (i = 0; i < 120000; i++) print i % 7 "," i % 11 }' >"$dir/two_mib.csv"
check "a CSV larger than max_memory_mb is refused naming the limit; within it, read" sh -c \
    "! '$kkm' fit -q '$dir/two_mib.csv' k=2 max_memory_mb=1 2>'$dir/e' && grep -q 'max_memory_mb' '$dir/e' &&
     '$kkm' fit -q '$dir/two_mib.csv' k=2 method=rff m=16 max_memory_mb=64 >/dev/null"
awk 'BEGIN { for (i = 0; i < 400000; i++) print i % 7 "," i % 11 }' >"$dir/over_one_mib.csv"  # 1.6 MB
check "assign reads input past the model's max_memory_mb with max_memory_mb= (its one parameter)" sh -c \
    "'$kkm' fit -q '$dir/input.csv' k=2 method=exact gamma=0.5 max_memory_mb=1 -o '$dir/tiny_budget.kkm' >/dev/null &&
     ! '$kkm' assign -q '$dir/tiny_budget.kkm' '$dir/over_one_mib.csv' -l '$dir/o.csv' 2>'$dir/e' &&
     grep -q 'raise max_memory_mb' '$dir/e' && test ! -e '$dir/o.csv' &&
     '$kkm' assign -q '$dir/tiny_budget.kkm' '$dir/over_one_mib.csv' max_memory_mb=64 -l '$dir/o.csv' &&
     test \$(wc -l <'$dir/o.csv') -eq 400001 &&
     { '$kkm' assign -q '$dir/tiny_budget.kkm' '$dir/input.csv' k=3 2>'$dir/e'; test \$? -eq 2; } &&
     grep -q 'assign takes no parameters but max_memory_mb=' '$dir/e' &&
     ! '$kkm' assign -q '$dir/tiny_budget.kkm' '$dir/input.csv' max_memory_mb=0 2>'$dir/e' &&
     grep -q 'max_memory_mb' '$dir/e'"
# Raw float32 in a regular file is mapped, not read: the summary says so, the labels are those
# of the same rows read from a CSV, and -l *.i32 writes them as raw int32 (4 bytes a row).
awk -F, 'NR > 1 { print $1 "," $2 }' "$dir/rings.csv" >"$dir/plain.csv"
python3 -c '
import struct, sys
rows = [line.split(",") for line in open(sys.argv[1])]
open(sys.argv[2], "wb").write(b"".join(struct.pack("<ff", float(x), float(y)) for x, y in rows))
' "$dir/plain.csv" "$dir/rings.f32"
check "raw float32 input is mapped and fits as the CSV" sh -c \
    "'$kkm' fit '$dir/rings.f32' --dims 2 k=2 gamma=0.5 n_init=5 -l '$dir/mapped.csv' > '$dir/m.out' &&
     grep -q 'raw float32, mapped' '$dir/m.out' &&
     '$kkm' fit -q '$dir/plain.csv' k=2 gamma=0.5 n_init=5 -l '$dir/csv.csv' && cmp '$dir/mapped.csv' '$dir/csv.csv'"
check "-l x.i32 writes raw int32 labels" sh -c \
    "'$kkm' fit -q '$dir/rings.f32' --dims 2 k=2 gamma=0.5 n_init=5 -l '$dir/labels.i32' &&
     test \$(wc -c <'$dir/labels.i32') -eq 1200 &&
     python3 -c 'import struct,sys; v=[x for (x,) in struct.iter_unpack(\"<i\", open(sys.argv[1],\"rb\").read())];
l=[int(x) for x in open(sys.argv[2]).read().split()[1:]]; sys.exit(v != l)' '$dir/labels.i32' '$dir/mapped.csv'"
check "assign maps raw input too" sh -c \
    "'$kkm' fit -q '$dir/rings.f32' --dims 2 k=2 gamma=0.5 n_init=5 -o '$dir/r.kkm' &&
     '$kkm' assign '$dir/r.kkm' '$dir/rings.f32' --dims 2 -l '$dir/a.csv' 2>'$dir/e' && grep -q 'mapped' '$dir/e' &&
     cmp '$dir/a.csv' '$dir/mapped.csv'"
{ printf '\037\213\010\100'; tail -c +5 "$dir/rings.f32"; } >"$dir/gzip_like.f32"
check "raw rows whose first float starts 1f 8b (2.1335) are mapped, not taken for gzip" sh -c \
    "'$kkm' fit '$dir/gzip_like.f32' --dims 2 k=2 gamma=0.5 n_init=5 > '$dir/m.out' &&
     grep -q 'raw float32, mapped' '$dir/m.out'"
# assign labels 2^20 rows at a time, writing each piece as it comes (into the staged file):
# 1100000 rows are two pieces; the labels are the fit's in every format, a bad value in the
# second piece is named by its row in the input, and the labels file it would replace is kept.
python3 -c '
import array, random, sys
random.seed(3)
v = array.array("f")
for i in range(1100000):
    c = i % 3
    v.append(random.gauss(3.0 * (c == 1), 0.3)); v.append(random.gauss(3.0 * (c == 2), 0.3))
open(sys.argv[1], "wb").write(v.tobytes())
v[2 * 1099990 + 1] = float("nan")
open(sys.argv[2], "wb").write(v.tobytes())
' "$dir/big.f32" "$dir/big_nan.f32"
check "assign in pieces writes the fit's labels (i32, CSV, standard output)" sh -c \
    "'$kkm' fit -q '$dir/big.f32' --dims 2 k=3 method=nystrom m=50 seed=1 -o '$dir/big.kkm' -l '$dir/fit.i32' &&
     '$kkm' fit -q '$dir/big.f32' --dims 2 k=3 method=nystrom m=50 seed=1 -l '$dir/fit.csv' &&
     '$kkm' assign -q '$dir/big.kkm' '$dir/big.f32' --dims 2 -l '$dir/assign.i32' && cmp '$dir/fit.i32' '$dir/assign.i32' &&
     '$kkm' assign -q '$dir/big.kkm' '$dir/big.f32' --dims 2 -l '$dir/assign.csv' && cmp '$dir/fit.csv' '$dir/assign.csv' &&
     '$kkm' assign -q '$dir/big.kkm' '$dir/big.f32' --dims 2 | cmp - '$dir/fit.csv'"
check "assign in pieces names a bad row by its place in the input and keeps the old labels" sh -c \
    "! '$kkm' assign -q '$dir/big.kkm' '$dir/big_nan.f32' --dims 2 -l '$dir/assign.csv' 2>'$dir/e' &&
     grep -q 'row 1099990, column 1' '$dir/e' && cmp '$dir/fit.csv' '$dir/assign.csv' &&
     test -z \"\$(ls '$dir' | grep tmp)\""
# Numbers and labels read exactly or refused: "+-7" is no number (was read as -7); a truth
# label of 2^24 or more (16777217 became 16777216 in float32, merging two classes) is refused.
printf '0,0\n+-7,1\n' >"$dir/plus_minus.csv"
check "a field '+-7' is not a number" sh -c \
    "! '$kkm' fit -q '$dir/plus_minus.csv' k=1 2>'$dir/e' && grep -q \"column 1: '+-7' is not a number\" '$dir/e'"
awk 'NR > 1 { print (NR <= 151) ? 16777215 : 16777217 }' "$dir/rings.csv" >"$dir/big_labels.csv"
check "truth labels at or above 2^24 are refused naming the label; below, exact" sh -c \
    "! '$kkm' fit -q '$dir/input.csv' k=2 method=exact gamma=0.5 --truth '$dir/big_labels.csv' 2>'$dir/e' &&
     grep -q 'label 151 (16777216) is not a whole number between -16777215 and 16777215' '$dir/e' &&
     sed 's/16777217/-16777215/' '$dir/big_labels.csv' >'$dir/ok_labels.csv' &&
     '$kkm' fit -q '$dir/input.csv' k=2 method=exact gamma=0.5 n_init=5 --truth '$dir/ok_labels.csv' | grep -q 'ARI  *1.0000'"
# A field's bytes are quoted printable (a NUL ended the message after "column 1: '"); UTF-16
# is named.
printf '1,2\n3,4\0005\n' >"$dir/nul.csv"
printf '\377\3761\000,\0002\000\n\000' >"$dir/utf16.csv"
printf 'Gr\303\266\303\237e,2019\n1,2\n' >"$dir/utf8_header.csv"
printf "column 1 'Gr\303\266\303\237e' is not" >"$dir/utf8_expected"
check "a NUL in a field is quoted as \\x00, UTF-8 as it is; UTF-16 text is named" sh -c \
    "! '$kkm' fit -q '$dir/nul.csv' k=1 2>'$dir/e' && grep -qF \"column 2: '4\\x005' is not a number\" '$dir/e' &&
     ! '$kkm' fit -q '$dir/utf8_header.csv' k=1 2>'$dir/e' && grep -qFf '$dir/utf8_expected' '$dir/e' &&
     ! '$kkm' fit -q '$dir/utf16.csv' k=1 2>'$dir/e' && grep -q 'UTF-16 text' '$dir/e'"
# CSV and label files are read in 64 KiB pieces, never whole (a 16 MB --truth file read whole
# freed blocks that raised glibc's mmap threshold: the fit then held 0.4-0.8 GB more). Byte
# 65535 of crlf.csv is the CR of a CRLF whose LF opens the second piece: one line end, so the
# line numbers past it are the file's; a last line without a line end is read; a line longer
# than a piece is read whole.
awk 'BEGIN { srand(3); printf "#"; for (i = 0; i < 150; i++) printf "p"; printf "\r\nx,y\r\n";
  for (i = 0; i < 4000; i++) printf "%.6f,%.6f\r\n", rand(), rand() }' >"$dir/crlf.csv"
awk 'NR == 3445 { print "0.5,oops"; next } { print }' "$dir/crlf.csv" >"$dir/crlf_bad.csv"
tr -d '\r' <"$dir/crlf.csv" >"$dir/lf.csv"
check "a CRLF split between two 64 KiB pieces is one line end" sh -c \
    "test \"\$(od -A n -c -j 65535 -N 2 '$dir/crlf.csv' | tr -d ' ')\" = '\\r\\n' &&
     '$kkm' fit -q '$dir/crlf.csv' k=2 method=exact gamma=0.5 -l '$dir/crlf.labels' >'$dir/o' &&
     grep -q '^n  *4000\$' '$dir/o' && '$kkm' fit -q '$dir/lf.csv' k=2 method=exact gamma=0.5 -l '$dir/lf.labels' &&
     cmp '$dir/crlf.labels' '$dir/lf.labels' && head -c -1 '$dir/lf.csv' >'$dir/no_final_newline.csv' &&
     '$kkm' fit -q '$dir/no_final_newline.csv' k=2 method=exact gamma=0.5 -l '$dir/nfn.labels' >'$dir/o' &&
     grep -q '^n  *4000\$' '$dir/o' && cmp '$dir/nfn.labels' '$dir/lf.labels' &&
     ! '$kkm' fit -q '$dir/crlf_bad.csv' k=2 2>'$dir/e' && grep -q \"crlf_bad.csv:3445: column 2: 'oops'\" '$dir/e'"
awk 'BEGIN { for (r = 0; r < 4; r++) { for (j = 0; j < 20000; j++) printf "%s%d.25", (j ? "," : ""), (r + j) % 3;
  print "" } }' >"$dir/wide.csv"
awk 'BEGIN { srand(5); for (i = 0; i < 4000; i++) printf "%d.0000000000000\r\n", rand() < 0.5 }' | gzip >"$dir/truth.csv.gz"
check "a row longer than a piece is read whole; a gzip --truth file is read in pieces" sh -c \
    "'$kkm' fit -q '$dir/wide.csv' k=2 method=exact gamma=0.001 >'$dir/o' && grep -q '^n  *4\$' '$dir/o' &&
     grep -q '^d  *20000\$' '$dir/o' &&
     '$kkm' fit -q '$dir/lf.csv' k=2 method=exact gamma=0.5 --truth '$dir/truth.csv.gz' | grep -q '^NMI ' &&
     head -c \$((\$(wc -c <'$dir/truth.csv.gz') / 2)) '$dir/truth.csv.gz' >'$dir/cut.csv.gz' &&
     ! '$kkm' fit -q '$dir/lf.csv' k=2 --truth '$dir/cut.csv.gz' 2>'$dir/e' && grep -q 'cut.csv.gz' '$dir/e'"
# A mapped input truncated during the fit (issue 60): the process died of SIGBUS (status 135,
# no message); now it ends with status 1 and a message naming the file. 2 million rows of 8
# floats (64 MB): the fit takes seconds, the file is cut after 0.3 s.
python3 -c '
import array, random, sys
random.seed(3)
block = array.array("f", [random.gauss(0, 1) for _ in range(1 << 20)]).tobytes()
with open(sys.argv[1], "wb") as out:
    for _ in range(16): out.write(block)
' "$dir/big.f32"
check "a mapped input truncated during the fit ends with a message naming it, not SIGBUS" sh -c \
    "'$kkm' fit -q --dims 8 '$dir/big.f32' k=3 method=nystrom m=200 >/dev/null 2>'$dir/e' & pid=\$!;
     sleep 0.3; truncate -s 4096 '$dir/big.f32'; wait \$pid; rc=\$?; cat '$dir/e';
     [ \$rc -eq 1 ] && grep -q \"big.f32' was truncated\" '$dir/e' && grep -q SIGBUS '$dir/e'"
# threads beyond what the system can start (issue 60): libgomp ended the process with status 1
# and no message; now fit and assign fail with a message naming threads. Under a sanitizer the
# program cannot run under ulimit -v at all (its shadow memory): skipped there.
if (ulimit -v 2000000 && "$kkm" fit -q "$dir/rings.csv" k=2 threads=1 >/dev/null 2>&1); then
    check "threads=1000 under ulimit -v is an error naming threads (fit and assign), and works without it" sh -c \
        "(ulimit -v 2000000; ! '$kkm' fit -q '$dir/rings.csv' k=2 threads=1000 2>'$dir/e') &&
         grep -q 'threads=1000' '$dir/e' && grep -q 'ulimit -v' '$dir/e' &&
         '$kkm' fit -q '$dir/rings.csv' k=2 threads=1000 -o '$dir/t1000.kkm' >/dev/null &&
         (ulimit -v 2000000; ! '$kkm' assign -q '$dir/t1000.kkm' '$dir/rings.csv' 2>'$dir/e') &&
         grep -q 'threads=1000' '$dir/e' && '$kkm' assign -q '$dir/t1000.kkm' '$dir/rings.csv' >/dev/null"
    # max_memory_mb=auto follows the address-space limit (issue 60): an endless input under
    # ulimit -v ended "out of memory"; now the limit is named (the budget's, or ulimit's).
    check "an endless input under ulimit -v is an error naming max_memory_mb (raw and CSV)" sh -c \
        "(ulimit -v 2000000; ! '$kkm' fit -q --dims 8 /dev/zero k=2 2>'$dir/e') &&
         grep -q 'max_memory_mb=' '$dir/e' && grep -q 'ulimit -v' '$dir/e' &&
         (ulimit -v 2000000; yes 1,2 | head -c 3000000000 | '$kkm' fit -q - k=2 2>'$dir/e'; true) &&
         grep -q 'max_memory_mb=' '$dir/e' && ! grep -qx 'kkmeans: error: out of memory' '$dir/e'"
else
    echo "skip threads=1000 and endless input under ulimit -v (this build cannot run under an address-space limit)"
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
