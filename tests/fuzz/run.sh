#!/usr/bin/env bash
# Runs the fuzzers for SECONDS in all (default 60) after replaying their saved regression
# inputs:
#   tests/fuzz/run.sh BUILD_DIR [SECONDS [all|compile|struct|ir]]
# all (the default; `make fuzz`, CI): the three fuzzers below, each for a third of SECONDS
#   (the compile and struct fuzzers get the seconds left over).
# compile (`make fuzz-compile`): slope_compile_fuzzer, seeded with every .slang file of
#   the test suite plus the saved corpus; regressions in regressions/.
# struct (`make fuzz-struct`): slope_struct_fuzzer, which mutates programs by structure,
#   seeded like compile plus its minimized corpus struct-corpus/; regressions in
#   struct-regressions/, open findings in struct-findings/README.md.
# ir (`make fuzz-ir`): slope_ir_fuzzer, seeded with every .ir file of the test suite;
#   regressions in ir-regressions/. Its open findings are in ir-findings/README.md.
set -euo pipefail
build=$1
seconds=${2:-60}
which=${3:-all}
here=$(cd "$(dirname "$0")" && pwd)

run_one() {
  local which=$1 seconds=$2 fuzzer corpus regressions max_len=4096
  case "$which" in
    compile)
      fuzzer=$build/tests/fuzz/slope_compile_fuzzer
      corpus=$build/fuzz-corpus
      regressions=$here/regressions
      mkdir -p "$corpus"
      find "$here/../lit" "$here/../../examples" -name '*.slang' -exec cp {} "$corpus/" \;
      if [ -d "$here/corpus" ]; then cp "$here"/corpus/* "$corpus/" 2>/dev/null || true; fi
      ;;
    struct)
      fuzzer=$build/tests/fuzz/slope_struct_fuzzer
      corpus=$build/fuzz-struct-corpus
      regressions=$here/struct-regressions
      mkdir -p "$corpus"
      find "$here/../lit" "$here/../../examples" -name '*.slang' -exec cp {} "$corpus/" \;
      if [ -d "$here/struct-corpus" ]; then cp "$here"/struct-corpus/* "$corpus/" 2>/dev/null || true; fi
      # Its mutations grow programs: room for the larger seeds and what they become.
      max_len=16384
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
  if [ -d "$regressions" ] && [ -n "$(ls "$regressions" | grep -v README)" ]; then
    "$fuzzer" -runs=0 $(ls -d "$regressions"/* | grep -v '/README')
  fi
  echo "== $which fuzzer: $seconds s"
  "$fuzzer" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len="$max_len" \
    -print_final_stats=1 -artifact_prefix="$build/fuzz-$which-" "$corpus"
}

case "$which" in
  all)
    ir_seconds=$((seconds / 3))
    struct_seconds=$(((seconds - ir_seconds) / 2))
    run_one compile $((seconds - ir_seconds - struct_seconds))
    # libFuzzer reads -max_total_time=0 as no limit.
    if [ "$struct_seconds" -gt 0 ]; then run_one struct "$struct_seconds"; fi
    if [ "$ir_seconds" -gt 0 ]; then run_one ir "$ir_seconds"; fi
    ;;
  compile | struct | ir) run_one "$which" "$seconds" ;;
  *) echo "run.sh: unknown fuzzer '$which' (all, compile, struct or ir)" >&2; exit 2 ;;
esac
