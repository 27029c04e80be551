#pragma once
// Textures and samplers of the CPU device: host memory holding every mip level, and the
// SlopeCpuTexture / SlopeCpuSampler that kernels receive for them (cpu_abi.h). The
// kernels' texture operations call slope_cpu_texture (cpu_texture.cpp), which follows
// Vulkan's rules for texel coordinates, filtering, addressing and comparison.

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "compiler/targets/llvm/cpu_abi.h"
#include "runtime/core/device.h"

namespace slope::runtime::cpu {

class CpuTexture : public Texture {
 public:
  const TextureDesc& Desc() const override { return desc_; }
  Backend GetBackend() const override { return Backend::Cpu; }
  /// What a kernel receives for this texture (its `sampler` unset).
  const SlopeCpuTexture& View() const { return view_; }
  /// Mip level `mip`'s bytes.
  std::span<std::byte> Level(uint32_t mip);

  /// A texture of `desc`, zero-filled; nullptr with `*error` for an unknown format or a
  /// size its shape cannot have.
  static std::unique_ptr<CpuTexture> Create(const TextureDesc& desc, std::string* error);

 private:
  TextureDesc desc_;
  std::vector<std::byte> data_;
  SlopeCpuTexture view_{};
};

/// A typed buffer's view (Buffer<T>, RWBuffer<T>): the `bytes` bytes at `data` as a
/// 1D texture of texels of `format` ("rgba32f", ...), read and written in place. False
/// with `*error` for a format the runtime does not know.
bool TexelBufferView(std::byte* data, uint64_t bytes, const std::string& format,
                     SlopeCpuTexture* view, std::string* error);

class CpuSampler : public Sampler {
 public:
  explicit CpuSampler(const SamplerDesc& desc);
  const SamplerDesc& Desc() const override { return desc_; }
  Backend GetBackend() const override { return Backend::Cpu; }
  const SlopeCpuSampler& View() const { return view_; }

 private:
  SamplerDesc desc_;
  SlopeCpuSampler view_{};
};

}  // namespace slope::runtime::cpu
