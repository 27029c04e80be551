#!/usr/bin/env bash
# Runs every test that runs a kernel (the lit tests with `-backend=vulkan` or
# `%gradcheck`: tests/lit/exec, compat, autodiff, ...; on CUDA not tests/lit/glsl, which
# checks the GLSL writer through glslang) on an NVIDIA GPU through the CUDA
# backend, twice: through the CUDA C++ target (NVRTC, else nvcc) and through the ptx
# target (LLVM's NVPTX backend). Each must print what its CHECK lines expect of the
# Vulkan run (lit --param backend=cuda turns the tests' -backend=vulkan into
# -backend=cuda; --param via=ptx adds -via-ptx). Then the bandwidth benchmark
# (tests/bench/saxpy): SAXPY over 256M floats through both targets, as a fraction of a
# device-to-device copy, and the reverse-mode benchmark (tests/bench/autodiff): the 2-D
# box filter's backward time over its forward time, its forward bandwidth against a copy,
# and one atomic per thread against AccumulateWaveReduced under full contention; then
# tests/bench/autodiff/models_bench: a per-thread 3-layer MLP and a loop-heavy kernel,
# forward and backward, against hand-written CUDA backward passes. Prints the machine, the toolkit, the pass / fail / unsupported
# counts per path with the failing tests' names, and the benchmark's figures.
#
#   scripts/gpu/check.sh                    build (make build), then run
#   scripts/gpu/check.sh --prebuilt DIR     use binaries built elsewhere: DIR holds
#       pack.tar.xz from scripts/gpu/pack.sh, or its contents: tools/slopec/slopec,
#       tools/slope-run/slope-run, tests/bench/saxpy_bench, bin/FileCheck, bin/not,
#       lit/lit.py, lib/ (libslope_llvm.so and the shared libraries the binaries need
#       that the machine lacks) and optionally bin/spirv-val and bin/spirv-dis
#   BACKEND=vulkan scripts/gpu/check.sh     the same suite on another backend (one path)
#   TESTS="exec" scripts/gpu/check.sh       only the tests under tests/lit/exec
#   TESTS=none scripts/gpu/check.sh         the benchmarks alone
#   BENCHES="models" scripts/gpu/check.sh   some benchmarks (saxpy autodiff models; default all)
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

if [ -n "$PREBUILT" ] && [ -f "$PREBUILT/pack.tar.xz" ]; then
  UNPACKED=$(mktemp -d /tmp/slope-gpu-prebuilt-XXXXXX)
  tar -C "$UNPACKED" -xJf "$PREBUILT/pack.tar.xz" || { echo "check.sh: bad pack" >&2; exit 1; }
  PREBUILT=$UNPACKED
fi
trap 'rm -rf "${SITE:-}" "${UNPACKED:-}"' EXIT
if [ -n "$PREBUILT" ]; then
  BIN=$PREBUILT
  BENCH=$PREBUILT/tests/bench/saxpy_bench
  AD_BENCH=$PREBUILT/tests/bench/autodiff_bench
  MODELS_BENCH=$PREBUILT/tests/bench/models_bench
  export SLOPE_LLVM_PLUGIN=$PREBUILT/lib/libslope_llvm.so
  FILECHECK=$PREBUILT/bin/FileCheck
  LIT=$PREBUILT/lit/lit.py
  export LD_LIBRARY_PATH="$PREBUILT/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  # spirv-val and spirv-dis, which a few execution tests also run, may be in DIR/bin.
  export PATH="$PREBUILT/bin:$PATH"
else
  make -C "$ROOT" build >/dev/null || { echo "check.sh: the build failed" >&2; exit 1; }
  BIN=${BUILD_DIR:-$ROOT/build}
  BENCH=$BIN/tests/bench/saxpy_bench
  AD_BENCH=$BIN/tests/bench/autodiff_bench
  MODELS_BENCH=$BIN/tests/bench/models_bench
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

cat >"$SITE/paths.json" <<JSON
{"src_root": "$ROOT", "bin_dir": "$BIN", "filecheck": "$FILECHECK", "sanitize": ""}
JSON

# The tests that run a kernel, as the lit-cpu ctest tests choose them.
cd "$ROOT/tests/lit"
if [ "${TESTS:-}" = none ]; then
  FILES=""
elif [ -n "${TESTS:-}" ]; then
  FILES=$(grep -rlE --include='*.slang' --include='*.test' -e '-backend=vulkan|%gradcheck' $TESTS \
          | grep -v '/Inputs/' | sort)
else
  FILES=$(grep -rlE --include='*.slang' --include='*.test' -e '-backend=vulkan|%gradcheck' . \
          | grep -v '/Inputs/' | sed 's|^\./||' | sort)
  # tests/lit/glsl checks the GLSL writer through glslang on Vulkan: not a CUDA path.
  [ "$BACKEND" = cuda ] && FILES=$(echo "$FILES" | grep -v '^glsl/')
fi
cd - >/dev/null
PATHS=""
[ "$BACKEND" = cuda ] && PATHS="cuda ptx" || PATHS="$BACKEND"
[ "${TESTS:-}" = none ] && PATHS=""
BENCHES=${BENCHES:-saxpy autodiff models}
any_failed=0
for via in $PATHS; do
  label=$BACKEND
  params=(--param site="$SITE" --param backend="$BACKEND" --param run=gpu)
  if [ "$via" = ptx ]; then
    label="cuda via ptx (LLVM NVPTX)"
    params+=(--param via=ptx)
  elif [ "$via" = cuda ]; then
    label="cuda via CUDA C++ (NVRTC)"
  fi
  echo "== $(echo "$FILES" | wc -l) tests on $label"
  LOG=$SITE/lit-$via.log
  start=$(date +%s)
  (cd "$ROOT/tests/lit" && python3 "$LIT" -v "${params[@]}" $FILES) >"$LOG" 2>&1
  end=$(date +%s)
  passed=$(grep -c '^PASS: ' "$LOG")
  failed=$(grep -c '^FAIL: ' "$LOG")
  unsupported=$(grep -c '^UNSUPPORTED: ' "$LOG")
  if [ "$failed" -ne 0 ]; then
    any_failed=1
    echo "-- failures"
    # Each failing test's name, then the first lines that say why.
    awk '/^\*\*\*\*\*\*\*\*\*\* TEST .* FAILED/ {show = 40; print; next}
         show > 0 && /(error|Error|FAIL|expected|note: scanning|^[A-Za-z]+: )/ {print "   " $0; show--}
         /^\*\*\*\*\*\*\*\*\*\*$/ {show = 0}' "$LOG" | head -200
  fi
  grep '^UNSUPPORTED: ' "$LOG" | sed 's/^/  /'
  grep '^FAIL: ' "$LOG" | sed 's/^/  /'
  echo "== $label: $passed passed, $failed failed, $unsupported unsupported ($((end - start)) s)"
  [ -n "${OUT:-}" ] && cp "$LOG" "$OUT/lit-$via.log"
done

if [ "$BACKEND" = cuda ]; then
  for bench in $BENCHES; do
    case $bench in
      saxpy)
        echo "== bandwidth: SAXPY over 256M floats vs a device-to-device copy"
        "$BENCH" "$ROOT/tests/bench/saxpy/saxpy.slang" || any_failed=1 ;;
      autodiff)
        echo "== reverse mode: the 2-D box filter's backward over forward; accumulation under contention"
        "$AD_BENCH" "$ROOT/tests/bench/autodiff" || any_failed=1 ;;
      models)
        echo "== reverse mode against hand-written CUDA: a per-thread MLP and a loop-heavy kernel"
        "$MODELS_BENCH" "$ROOT/tests/bench/autodiff" || any_failed=1 ;;
      *) echo "check.sh: unknown benchmark '$bench'" >&2; any_failed=1 ;;
    esac
  done
fi
[ "$any_failed" -eq 0 ]
