#!/usr/bin/env bash
# Runs one fuzz target (or every target in turn) for a set time, at the lowest CPU priority.
#
#   fuzz/run.sh <target|all> <seconds> [extra libFuzzer flags...]
#   fuzz/run.sh cbor 600
#   fuzz/run.sh all 600        # one after another, never two at once
#
# Targets: cbor transaction submission payload wasm wasm_smith state_sync system_calls.
# Needs `cargo install cargo-fuzz`. The stable toolchain takes cargo-fuzz's nightly flags
# with RUSTC_BOOTSTRAP=1. Builds are without a sanitizer (`-s none`): the code under test is
# safe Rust, and AddressSanitizer would halve the executions on two shared cores; the harness's
# own allocator bounds every allocation by the input's size instead (fuzz/src/alloc.rs).
# The grown corpus goes to fuzz/corpus/<target> (seeded from fuzz/seeds/<target>), crashes to
# fuzz/artifacts/<target>, the log to fuzz/logs/<target>.log.
set -euo pipefail
cd "$(dirname "$0")"

TARGETS=(cbor transaction submission payload wasm wasm_smith state_sync system_calls)
if [[ $# -lt 2 ]]; then
    sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
fi
target=$1
seconds=$2
shift 2

if [[ $target == all ]]; then
    for t in "${TARGETS[@]}"; do
        "$0" "$t" "$seconds" "$@" || echo "$t: exit $?"
    done
    exit 0
fi

export RUSTC_BOOTSTRAP=1
mkdir -p "corpus/$target" "seeds/$target" logs
nice -n 10 cargo fuzz build -s none "$target"
# -rss_limit_mb catches memory that is really used; -timeout a single input that hangs.
nice -n 19 cargo fuzz run -s none "$target" "corpus/$target" "seeds/$target" -- \
    -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 "$@" \
    2>&1 | tee "logs/$target.log"
