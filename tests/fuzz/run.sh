#!/usr/bin/env bash
# Runs a fuzzer for SECONDS (default 60) after replaying its saved regression inputs:
#   tests/fuzz/run.sh BUILD_DIR [SECONDS [compile|ir]]
# compile (the default; `make fuzz`, CI): slope_compile_fuzzer, seeded with every .slang
#   file of the test suite plus the saved corpus; regressions in regressions/.
# ir (`make fuzz-ir`): slope_ir_fuzzer, seeded with every .ir file of the test suite;
#   regressions in ir-regressions/. Its open findings are in ir-findings/README.md.
set -euo pipefail
build=$1
seconds=${2:-60}
which=${3:-compile}
here=$(cd "$(dirname "$0")" && pwd)

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
  *) echo "run.sh: unknown fuzzer '$which' (compile or ir)" >&2; exit 2 ;;
esac

# Every input that once crashed must keep passing.
if [ -d "$regressions" ] && [ -n "$(ls -A "$regressions")" ]; then
  "$fuzzer" -runs=0 "$regressions"/*
fi
"$fuzzer" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=4096 \
  -print_final_stats=1 -artifact_prefix="$build/fuzz-$which-" "$corpus"
