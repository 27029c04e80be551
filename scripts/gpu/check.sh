#!/usr/bin/env bash
# Runs every execution test (tests/lit/exec) on an NVIDIA GPU through the CUDA backend:
# each kernel goes through the CUDA C++ target, NVRTC (or nvcc) and the driver API, and
# must print what its CHECK lines expect of the Vulkan run (lit --param backend=cuda
# turns the tests' -backend=vulkan into -backend=cuda). Prints the machine, the toolkit
# and the pass / fail / unsupported counts with the failing tests' names.
#
#   scripts/gpu/check.sh                    build (make build), then run
#   scripts/gpu/check.sh --prebuilt DIR     use binaries built elsewhere: DIR holds
#       tools/slopec/slopec, tools/slope-run/slope-run, bin/FileCheck, bin/not,
#       lit/lit.py, lib/ (shared libraries the binaries need that the machine lacks) and
#       optionally bin/spirv-val and bin/spirv-dis
#   BACKEND=vulkan scripts/gpu/check.sh     the same suite on another backend
#
# Installs nothing. Exit status: 0 all ran tests passed, 1 a test failed, 77 no device.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BACKEND=${BACKEND:-cuda}
PREBUILT=""
while [ $# -gt 0 ]; do
  case "$1" in
    --prebuilt) PREBUILT=$(cd "$2" && pwd); shift 2 ;;
    *) echo "check.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done

if [ -n "$PREBUILT" ]; then
  BIN=$PREBUILT
  FILECHECK=$PREBUILT/bin/FileCheck
  LIT=$PREBUILT/lit/lit.py
  export LD_LIBRARY_PATH="$PREBUILT/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  # spirv-val and spirv-dis, which a few execution tests also run, may be in DIR/bin.
  export PATH="$PREBUILT/bin:$PATH"
else
  make -C "$ROOT" build >/dev/null || { echo "check.sh: the build failed" >&2; exit 1; }
  BIN=${BUILD_DIR:-$ROOT/build}
  FILECHECK=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["filecheck"])' \
              "$BIN/tests/lit/paths.json")
  LIT=$(sed -n 's/^SLOPE_LIT:[A-Z]*=//p' "$BIN/CMakeCache.txt")
  [ -n "$LIT" ] || LIT=$(dirname "$FILECHECK")/../build/utils/lit/lit.py
fi
SLOPE_RUN=$BIN/tools/slope-run/slope-run
# NVRTC loads its builtins library from the toolkit's lib64.
CUDA_ROOT=${CUDA_HOME:-${CUDA_PATH:-/usr/local/cuda}}
[ -d "$CUDA_ROOT/lib64" ] && export LD_LIBRARY_PATH="${LD_LIBRARY_PATH:+$LD_LIBRARY_PATH:}$CUDA_ROOT/lib64"

echo "== machine"
if command -v nvidia-smi >/dev/null; then
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
fi
NVCC=$(python3 -c "import sys; sys.path.insert(0, sys.argv[1]); import nvcc_path; print(nvcc_path.find_nvcc() or '')" \
       "$ROOT/tests/lit/cuda")
[ -n "$NVCC" ] && echo "nvcc: $NVCC ($("$NVCC" --version | tail -1))"
echo "backend: $("$SLOPE_RUN" -probe -backend="$BACKEND" 2>&1)"
"$SLOPE_RUN" -probe -backend="$BACKEND" >/dev/null 2>&1
status=$?
if [ $status -ne 0 ]; then
  echo "check.sh: no $BACKEND device here: nothing run"
  exit 77
fi

# lit reads the binaries' places from SITE/paths.json.
SITE=$(mktemp -d /tmp/slope-gpu-check-XXXXXX)
trap 'rm -rf "$SITE"' EXIT
cat >"$SITE/paths.json" <<JSON
{"src_root": "$ROOT", "bin_dir": "$BIN", "filecheck": "$FILECHECK", "sanitize": ""}
JSON

echo "== tests/lit/exec on $BACKEND"
LOG=$SITE/lit.log
start=$(date +%s)
python3 "$LIT" -v --param site="$SITE" --param backend="$BACKEND" --param run=gpu \
  "$ROOT/tests/lit/exec" >"$LOG" 2>&1
end=$(date +%s)
passed=$(grep -c '^PASS: ' "$LOG")
failed=$(grep -c '^FAIL: ' "$LOG")
unsupported=$(grep -c '^UNSUPPORTED: ' "$LOG")
if [ "$failed" -ne 0 ]; then
  echo "-- failures"
  # Each failing test's name, then the first lines that say why.
  awk '/^\*\*\*\*\*\*\*\*\*\* TEST .* FAILED/ {show = 40; print; next}
       show > 0 && /(error|Error|FAIL|expected|note: scanning|^[A-Za-z]+: )/ {print "   " $0; show--}
       /^\*\*\*\*\*\*\*\*\*\*$/ {show = 0}' "$LOG" | head -200
fi
grep '^UNSUPPORTED: ' "$LOG" | sed 's/^/  /'
grep '^FAIL: ' "$LOG" | sed 's/^/  /'
echo "== $BACKEND: $passed passed, $failed failed, $unsupported unsupported ($((end - start)) s)"
[ -n "${OUT:-}" ] && cp "$LOG" "$OUT/lit-$BACKEND.log"
[ "$failed" -eq 0 ]
