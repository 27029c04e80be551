#!/usr/bin/env bash
# Runs the compile fuzzer for SECONDS (default 60), seeded with every .slang file of the
# test suite plus the saved corpus, after replaying the saved regression inputs.
# Usage: tests/fuzz/run.sh BUILD_DIR [SECONDS]
set -euo pipefail
build=$1
seconds=${2:-60}
here=$(cd "$(dirname "$0")" && pwd)
fuzzer=$build/tests/fuzz/slope_compile_fuzzer
corpus=$build/fuzz-corpus
mkdir -p "$corpus"
find "$here/../lit" "$here/../../examples" -name '*.slang' -exec cp {} "$corpus/" \;
if [ -d "$here/corpus" ]; then cp "$here"/corpus/* "$corpus/" 2>/dev/null || true; fi
# Every input that once crashed must keep passing.
if [ -d "$here/regressions" ] && [ -n "$(ls -A "$here/regressions")" ]; then
  "$fuzzer" -runs=0 "$here"/regressions/*
fi
"$fuzzer" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=4096 \
  -print_final_stats=1 -artifact_prefix="$build/fuzz-" "$corpus"
