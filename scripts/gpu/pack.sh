#!/usr/bin/env bash
# Gathers what scripts/gpu/check.sh --prebuilt needs into one folder, so a GPU machine
# without the build's Debian packages can run the execution suite: stripped slopec and
# slope-run, FileCheck, not, spirv-val/spirv-dis, lit, and the shared libraries they
# load that a bare machine may lack.
#
#   scripts/gpu/pack.sh [BUILD_DIR [OUT_DIR]]     defaults: build, gpu-pack
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${1:-$ROOT/build}
OUT=${2:-$ROOT/gpu-pack}
LLVM=/usr/lib/llvm-19
rm -rf "$OUT"
mkdir -p "$OUT/tools/slopec" "$OUT/tools/slope-run" "$OUT/bin" "$OUT/lib"
strip -o "$OUT/tools/slopec/slopec" "$BUILD/tools/slopec/slopec"
strip -o "$OUT/tools/slope-run/slope-run" "$BUILD/tools/slope-run/slope-run"
cp "$LLVM/bin/FileCheck" "$LLVM/bin/not" "$OUT/bin/"
for tool in spirv-val spirv-dis; do
  if command -v "$tool" >/dev/null; then cp "$(command -v "$tool")" "$OUT/bin/"; fi
done
cp -r "$LLVM/build/utils/lit" "$OUT/lit"
rm -rf "$OUT/lit/tests" "$OUT/lit/examples"
# Libraries outside glibc that the binaries load.
for bin in "$OUT"/tools/*/* "$OUT"/bin/*; do
  ldd "$bin" 2>/dev/null | awk '$3 ~ /^\// {print $3}'
done | sort -u | while read -r lib; do
  case "$(basename "$lib")" in
    libc.so*|libm.so*|libdl.so*|libpthread.so*|librt.so*|ld-linux*) ;;
    *) cp -L "$lib" "$OUT/lib/" ;;
  esac
done
du -sh "$OUT"
