#!/usr/bin/env bash
# Runs the fuzzers for SECONDS in all (default 60) after replaying their saved regression
# inputs:
#   tests/fuzz/run.sh BUILD_DIR [SECONDS [all|compile|ir]]
# all (the default; `make fuzz`, CI): both fuzzers below, each for half of SECONDS (the
#   compile fuzzer gets the odd second).
# compile (`make fuzz-compile`): slope_compile_fuzzer, seeded with every .slang file of
#   the test suite plus the saved corpus; regressions in regressions/.
# ir (`make fuzz-ir`): slope_ir_fuzzer, seeded with every .ir file of the test suite;
#   regressions in ir-regressions/. Its open findings are in ir-findings/README.md.
set -euo pipefail
build=$1
seconds=${2:-60}
which=${3:-all}
here=$(cd "$(dirname "$0")" && pwd)

run_one() {
  local which=$1 seconds=$2 fuzzer corpus regressions
  case "$which" in
    compile)
      fuzzer=$build/tests/fuzz/slope_compile_fuzzer
      corpus=$build/fuzz-corpus
      regressions=$here/regressions
      mkdir -p "$corpus"
      find "$here/../lit" "$here/../../examples" -name '*.slang' -exec cp {} "$corpus/" \;
      if [ -d "$here/corpus" ]; then cp "$here"/corpus/* "$corpus/" 2>/dev/null || true; fi
      ;;
    ir)
      fuzzer=$build/tests/fuzz/slope_ir_fuzzer
      corpus=$build/fuzz-ir-corpus
      regressions=$here/ir-regressions
      mkdir -p "$corpus"
      find "$here/../lit" -name '*.ir' -exec cp {} "$corpus/" \;
      ;;
  esac
  # Every input that once crashed must keep passing.
  if [ -d "$regressions" ] && [ -n "$(ls -A "$regressions")" ]; then
    "$fuzzer" -runs=0 "$regressions"/*
  fi
  echo "== $which fuzzer: $seconds s"
  "$fuzzer" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=4096 \
    -print_final_stats=1 -artifact_prefix="$build/fuzz-$which-" "$corpus"
}

case "$which" in
  all)
    ir_seconds=$((seconds / 2))
    run_one compile $((seconds - ir_seconds))
    # libFuzzer reads -max_total_time=0 as no limit.
    if [ "$ir_seconds" -gt 0 ]; then run_one ir "$ir_seconds"; fi
    ;;
  compile | ir) run_one "$which" "$seconds" ;;
  *) echo "run.sh: unknown fuzzer '$which' (all, compile or ir)" >&2; exit 2 ;;
esac
