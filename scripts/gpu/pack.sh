#!/usr/bin/env bash
# Gathers what scripts/gpu/check.sh --prebuilt needs into one archive, so a GPU machine
# without the build's Debian packages can run the execution suite and the benchmark:
# stripped slopec, slope-run, saxpy_bench, autodiff_bench, models_bench and the LLVM plugin (the ptx target), FileCheck,
# not, spirv-val/spirv-dis, glslangValidator (tests/lit/pointers checks the GLSL it
# compiles), lit, and the shared libraries they load that a bare machine
# may lack (libLLVM among them), as OUT_DIR/pack.tar.xz.
#
#   scripts/gpu/pack.sh [BUILD_DIR [OUT_DIR]]     defaults: build, gpu-pack
#   BENCHES="autodiff" scripts/gpu/pack.sh          only these benchmarks' binaries
#       (saxpy autodiff models; default all): the archive and the working tree must stay
#       under the device machine's 64 MiB, and each benchmark adds about 3 MB
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${1:-$ROOT/build}
OUT=${2:-$ROOT/gpu-pack}
LLVM=/usr/lib/llvm-19
ARCHIVE_DIR=$OUT
OUT=$(mktemp -d /tmp/slope-gpu-pack-XXXXXX)
trap 'rm -rf "$OUT"' EXIT
mkdir -p "$OUT/tools/slopec" "$OUT/tools/slope-run" "$OUT/tests/bench" "$OUT/bin" "$OUT/lib"
strip -o "$OUT/tools/slopec/slopec" "$BUILD/tools/slopec/slopec"
strip -o "$OUT/tools/slope-run/slope-run" "$BUILD/tools/slope-run/slope-run"
for bench in ${BENCHES:-saxpy autodiff models}; do
  strip -o "$OUT/tests/bench/${bench}_bench" "$BUILD/tests/bench/${bench}_bench"
done
strip -o "$OUT/lib/libslope_llvm.so" "$BUILD/lib/libslope_llvm.so"
cp "$LLVM/bin/FileCheck" "$LLVM/bin/not" "$OUT/bin/"
for tool in spirv-val spirv-dis glslangValidator; do
  if command -v "$tool" >/dev/null; then cp "$(command -v "$tool")" "$OUT/bin/"; fi
done
cp -r "$LLVM/build/utils/lit" "$OUT/lit"
rm -rf "$OUT/lit/tests" "$OUT/lit/examples"
# Libraries outside glibc that the binaries load.
for bin in "$OUT"/tools/*/* "$OUT"/tests/bench/* "$OUT"/lib/libslope_llvm.so "$OUT"/bin/*; do
  ldd "$bin" 2>/dev/null | awk '$3 ~ /^\// {print $3}'
done | sort -u | while read -r lib; do
  case "$(basename "$lib")" in
    libc.so*|libm.so*|libdl.so*|libpthread.so*|librt.so*|ld-linux*) ;;
    libslope_llvm.so) ;;
    *) cp -L "$lib" "$OUT/lib/" ;;
  esac
done
du -sh "$OUT"
rm -rf "$ARCHIVE_DIR"
mkdir -p "$ARCHIVE_DIR"
tar -C "$OUT" -cf - . | xz -T0 -6 >"$ARCHIVE_DIR/pack.tar.xz"
du -sh "$ARCHIVE_DIR/pack.tar.xz"
