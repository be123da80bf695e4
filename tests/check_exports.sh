#!/bin/sh
# Checks the dynamic symbol table of the shared library: every defined, exported symbol
# must start with "kkm_" (no C++ or third-party symbol may leak), and at least 20 must be
# exported. With a second argument (kkmeans.h), also checks that every function the header
# declares is exported, and that every export the header does not declare belongs to the
# version node KKMEANS_PRIVATE (for the project's own libkkmeans_mpi, not part of the API).
#
# usage: check_exports.sh path/to/libkkmeans.so [path/to/kkmeans.h]
set -u

lib=${1:-}
header=${2:-}
if [ -z "$lib" ] || [ ! -f "$lib" ]; then
    echo "FAIL usage: $0 LIBRARY.so [kkmeans.h] (got '${lib}')" >&2
    exit 2
fi
NM=${NM:-nm}
if ! syms=$("$NM" -D --defined-only "$lib"); then
    echo "FAIL $NM -D --defined-only $lib failed" >&2
    exit 2
fi

# Lines are "ADDRESS TYPE NAME" (the address may be missing). Names may carry a version
# suffix (kkm_fit@@KKMEANS_0). Absolute symbols (type A) named like a version node
# (KKMEANS_0) are the version script's definitions, not code or data: skip those.
# versioned: "TYPE NAME VERSION" (VERSION "-" when none); names: "TYPE NAME".
versioned=$(printf '%s\n' "$syms" | awk '
    NF >= 2 {
        type = $(NF - 1); name = $NF; version = "-"
        if (name ~ /@/) { version = name; sub(/^[^@]*@+/, "", version) }
        sub(/@.*/, "", name)
        if (type == "A" && name ~ /^[A-Z][A-Z0-9_.]*$/) next
        print type, name, version
    }')
names=$(printf '%s\n' "$versioned" | awk 'NF == 3 { print $1, $2 }')

failures=0
bad=$(printf '%s\n' "$names" | awk 'NF == 2 && $2 !~ /^kkm_/ { print "  " $1 " " $2 }')
if [ -n "$bad" ]; then
    echo "FAIL exported symbols not starting with kkm_:"
    printf '%s\n' "$bad"
    failures=$((failures + 1))
else
    echo "ok every exported symbol starts with kkm_"
fi

count=$(printf '%s\n' "$names" | awk 'NF == 2 && $2 ~ /^kkm_/' | wc -l)
if [ "$count" -lt 20 ]; then
    echo "FAIL only $count kkm_ symbols exported (expected at least 20)"
    failures=$((failures + 1))
else
    echo "ok $count kkm_ symbols exported"
fi

if [ -n "$header" ]; then
    if [ ! -f "$header" ]; then
        echo "FAIL header '$header' not found"
        failures=$((failures + 1))
    else
        # Function names declared with KKM_API in the header.
        declared=$(sed -n 's/^KKM_API[^(]*[ *]\(kkm_[A-Za-z0-9_]*\)[ ]*(.*/\1/p' "$header" | sort -u)
        ndeclared=$(printf '%s\n' "$declared" | grep -c . || true)
        missing=""
        for f in $declared; do
            if ! printf '%s\n' "$names" | awk -v f="$f" 'NF == 2 && $2 == f { found = 1 } END { exit !found }'; then
                missing="$missing $f"
            fi
        done
        if [ -n "$missing" ]; then
            echo "FAIL declared in kkmeans.h but not exported:$missing"
            failures=$((failures + 1))
        elif [ "$ndeclared" -lt 20 ]; then
            echo "FAIL found only $ndeclared KKM_API functions in $header (parser out of date?)"
            failures=$((failures + 1))
        else
            echo "ok all $ndeclared functions of kkmeans.h are exported"
        fi
        # An export the header does not declare is private to the project's own libraries and
        # must say so by its version node (src/kkmeans.map: KKMEANS_PRIVATE, used by
        # libkkmeans_mpi); anything else would be an undocumented part of the ABI.
        undeclared=$(printf '%s\n' "$versioned" | awk -v declared=" $(echo $declared) " '
            NF == 3 && $2 ~ /^kkm_/ && index(declared, " " $2 " ") == 0 && $3 != "KKMEANS_PRIVATE" { print "  " $2 "@" $3 }')
        private=$(printf '%s\n' "$versioned" | awk 'NF == 3 && $3 == "KKMEANS_PRIVATE" { printf " %s", $2 }')
        if [ -n "$undeclared" ]; then
            echo "FAIL exported but neither declared in kkmeans.h nor in version node KKMEANS_PRIVATE:"
            printf '%s\n' "$undeclared"
            failures=$((failures + 1))
        else
            echo "ok every other export is in version node KKMEANS_PRIVATE:${private:- (none)}"
        fi
    fi
fi

if [ "$failures" -ne 0 ]; then
    echo "$failures check(s) failed"
    exit 1
fi
echo "all export checks passed"
exit 0
