#!/bin/sh
# The command-line program end to end: fit -o saves a model, assign reloads it and labels
# the training rows exactly as fit did; a damaged model file and a wrong d are clear errors.
# usage: check_cli.sh path/to/kkmeans
set -u
kkm="$1"
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
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
