#!/usr/bin/env bash
# Installs, only when missing, every Debian 12 package Slope needs to build and test.
# Safe to run repeatedly; does nothing when everything is present.
set -euo pipefail

packages=(
  build-essential cmake ninja-build ccache
  llvm-19-dev llvm-19-tools
  spirv-tools spirv-headers
  glslang-dev glslang-tools
  libcli11-dev googletest libgtest-dev
  libvulkan-dev mesa-vulkan-drivers vulkan-tools vulkan-validationlayers
  nlohmann-json3-dev python3 pkgconf libjemalloc-dev
  clang libclang-rt-14-dev time
)

missing=()
for pkg in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$pkg")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  SUDO="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
