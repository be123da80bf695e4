#!/usr/bin/env bash
# Runs every test suite of the build in BUILD (default: build) and ends with one line
# "N passed, N failed" that counts every test case (GoogleTest cases individually).
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
build="${BUILD:-build}"
meson test -C "$build" --print-errorlogs "$@"
status=$?
python3 "$here/summarize-tests.py" "$build/meson-logs/testlog.json" || status=1
exit $status
