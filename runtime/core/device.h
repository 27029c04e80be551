#pragma once
// The backend-neutral device API: create buffers, upload, build a kernel from a compiled
// module, dispatch it with buffers bound by their reflected names, read back.
// Errors are returned as values (a false/nullptr result plus a readable message in
// `*error`); nothing here throws.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "compiler/driver/reflection.h"

namespace slope::runtime {

/// The kinds of device a kernel can run on.
enum class Backend : uint8_t { Vulkan, Cuda, Cpu };

/// Returns "vulkan", "cuda" or "cpu".
const char* BackendName(Backend backend);

/// Parses "vulkan", "cuda" or "cpu" (lower case); nullopt for anything else.
std::optional<Backend> ParseBackend(std::string_view text);

/// A block of device memory. Made by Device::CreateBuffer; must not outlive its Device.
class Buffer {
 public:
  virtual ~Buffer() = default;
  /// The size in bytes requested at creation.
  virtual size_t Size() const = 0;
  /// The backend of the device that made this buffer.
  virtual Backend GetBackend() const = 0;
};

/// A compute pipeline for one entry point of a compiled module. Made by
/// Device::CreateKernel; must not outlive its Device.
class Kernel {
 public:
  virtual ~Kernel() = default;
  /// The reflection the kernel was made with (its bindings are bound by name).
  virtual const driver::Reflection& GetReflection() const = 0;
  /// The entry point this kernel runs.
  virtual const driver::EntryPointInfo& GetEntryPoint() const = 0;
  /// The backend of the device that made this kernel.
  virtual Backend GetBackend() const = 0;
};

/// A compiled module in the form its backend runs: SPIR-V words (Vulkan), PTX text
/// (CUDA: the ptx target's output, or what NVRTC or nvcc made of the CUDA C++ target's)
/// or host LLVM bitcode (CPU: the host target's output).
struct KernelCode {
  std::span<const uint32_t> spirv{};
  std::string_view ptx{};
  std::string_view host{};
};

/// The shape and texel format of a texture (runtime/README.md, docs/runtime.md).
struct TextureDesc {
  uint32_t dim = 2;          ///< 1, 2, 3, or 4 for a cube (six square faces per layer)
  bool arrayed = false;      ///< Texture2DArray, ...: `layers` layers
  uint32_t width = 1;
  uint32_t height = 1;       ///< 1 for 1D textures
  uint32_t depth = 1;        ///< 3D textures only
  uint32_t layers = 1;       ///< array layers (a cube has 6, one per face)
  uint32_t mip_levels = 1;
  std::string format = "rgba32f";  ///< "rgba32f", "r32ui", ... (TextureFormatInfo)
  bool storage = false;      ///< bound to an RW texture (a storage image); else sampled
};

/// What a texel format holds: components and their kind and width.
struct TextureFormatInfo {
  uint32_t components = 0;  ///< 0: not a format the runtime knows
  driver::ScalarKind scalar = driver::ScalarKind::Float32;  ///< how the host gives texels
  uint32_t bytes_per_component = 4;
  bool normalized = false;  ///< unorm/snorm: 8-bit integers standing for [0, 1] / [-1, 1]
};
/// Facts about format `name`; components 0 when unknown.
TextureFormatInfo GetTextureFormatInfo(std::string_view name);

/// A texture: an image with its view. Made by Device::CreateTexture; must not outlive its
/// Device.
class Texture {
 public:
  virtual ~Texture() = default;
  virtual const TextureDesc& Desc() const = 0;
  virtual Backend GetBackend() const = 0;
};

/// How a sampler filters and addresses.
struct SamplerDesc {
  bool linear = false;  ///< bilinear (trilinear between mips) filtering; else nearest
  /// Clamp to the edge, wrap (repeat), mirrored repeat, or clamp to a transparent black
  /// border (texels outside the texture read as 0, 0, 0, 0).
  enum class Address : uint8_t { Clamp, Wrap, Mirror, Border };
  Address address = Address::Clamp;  ///< for every axis
  bool comparison = false;  ///< a SamplerComparisonState: compares with `less or equal`
};

/// A sampler. Made by Device::CreateSampler; must not outlive its Device.
class Sampler {
 public:
  virtual ~Sampler() = default;
  virtual const SamplerDesc& Desc() const = 0;
  virtual Backend GetBackend() const = 0;
};

/// One buffer, texture or sampler bound to the reflected resource called `name` (the
/// one the binding's kind takes).
struct BufferBinding {
  std::string name;
  Buffer* buffer = nullptr;
  Texture* texture = nullptr;
  Sampler* sampler = nullptr;
};

/// The number of thread groups to launch in each dimension.
struct GroupCount {
  uint32_t x = 1;
  uint32_t y = 1;
  uint32_t z = 1;
};

/// What a dispatch needs besides buffers.
struct DispatchOptions {
  /// The bytes of the entry point's push-constant block (its `uniform` parameters), laid
  /// out as the reflection's PushConstant binding says; empty when it has none.
  std::span<const std::byte> push_constants{};
  /// Measure the kernel's time on the device (timestamps around the dispatch).
  bool measure_time = false;
};

/// How to open a device.
struct DeviceOptions {
  /// Capture the kernels' `printf` output (Vulkan: through the Khronos validation layer's
  /// debug printf, every other validation off); Device::TakePrintfMessages returns it.
  bool debug_printf = false;
};

/// What a dispatch measured.
struct DispatchStats {
  /// Device time of the dispatch in milliseconds, when measured and the device's queue
  /// has timestamps (timestampValidBits > 0); else negative.
  double kernel_ms = -1.0;
};

/// One compute device. Not thread-safe: use one Device from one thread at a time.
/// Buffers and kernels it makes must be destroyed before it.
class Device {
 public:
  virtual ~Device() = default;

  /// The backend this device belongs to.
  virtual Backend GetBackend() const = 0;

  /// The device's own name, e.g. "llvmpipe (LLVM 15.0.6, 256 bits)".
  virtual std::string Name() const = 0;

  /// Creates a buffer of `size` bytes with unspecified contents (a zero-byte buffer is
  /// allowed). Returns nullptr and sets `*error` on failure.
  virtual std::unique_ptr<Buffer> CreateBuffer(size_t size, std::string* error) = 0;
  /// The address of `buffer`'s first byte as a kernel's pointers (`T*`) hold it; 0 where
  /// the device gives buffers no address (a Vulkan device without bufferDeviceAddress).
  virtual uint64_t BufferAddress(const Buffer& buffer) const { return 0; }

  /// Copies `data` into `buffer` starting at byte `offset`. Fails when the range does
  /// not fit in the buffer or the buffer belongs to another backend.
  virtual bool WriteBuffer(Buffer& buffer, size_t offset, std::span<const std::byte> data,
                           std::string* error) = 0;

  /// Copies `out.size()` bytes of `buffer` starting at byte `offset` into `out`. Fails
  /// when the range does not fit in the buffer or the buffer belongs to another backend.
  virtual bool ReadBuffer(const Buffer& buffer, size_t offset, std::span<std::byte> out,
                          std::string* error) = 0;

  /// Creates a texture of `desc` with unspecified contents, usable as the kind of texture
  /// `desc.storage` says. Fails naming the format or feature the device lacks; backends
  /// without textures (CUDA for now) always fail.
  virtual std::unique_ptr<Texture> CreateTexture(const TextureDesc& desc, std::string* error) {
    (void)desc;
    *error = std::string("textures are not supported on the ") + BackendName(GetBackend()) +
             " backend yet";
    return nullptr;
  }
  /// Copies `data` into mip level `mip` of `texture`: every layer's (and depth slice's)
  /// texels in row-major order, x fastest, tightly packed in the texture's format.
  virtual bool WriteTexture(Texture& texture, uint32_t mip, std::span<const std::byte> data,
                            std::string* error) {
    (void)texture, (void)mip, (void)data;
    *error = "textures are not supported on this backend yet";
    return false;
  }
  /// Reads mip level `mip` of `texture` into `out`, laid out as WriteTexture takes it.
  virtual bool ReadTexture(const Texture& texture, uint32_t mip, std::span<std::byte> out,
                           std::string* error) {
    (void)texture, (void)mip, (void)out;
    *error = "textures are not supported on this backend yet";
    return false;
  }
  virtual std::unique_ptr<Sampler> CreateSampler(const SamplerDesc& desc, std::string* error) {
    (void)desc;
    *error = std::string("samplers are not supported on the ") + BackendName(GetBackend()) +
             " backend yet";
    return nullptr;
  }

  /// Builds a kernel for entry point `entry` (empty = the first entry point in
  /// `reflection`) of the SPIR-V module `spirv`, whose resources are described by
  /// `reflection`. Returns nullptr and sets `*error` on failure.
  virtual std::unique_ptr<Kernel> CreateKernel(std::span<const uint32_t> spirv,
                                               const driver::Reflection& reflection,
                                               const std::string& entry, std::string* error) = 0;

  /// Builds a kernel from `code` in the backend's form: SPIR-V goes to CreateKernel; a
  /// backend that runs PTX overrides this. Returns nullptr and sets `*error` when the
  /// code is not in a form the backend runs.
  virtual std::unique_ptr<Kernel> CreateKernelFromCode(const KernelCode& code,
                                                       const driver::Reflection& reflection,
                                                       const std::string& entry,
                                                       std::string* error) {
    if (!code.ptx.empty() || !code.host.empty()) {
      *error = std::string("the ") + BackendName(GetBackend()) + " backend does not run " +
               (code.ptx.empty() ? "host code" : "PTX");
      return nullptr;
    }
    return CreateKernel(code.spirv, reflection, entry, error);
  }

  /// Runs `kernel` over `groups` thread groups with every reflected binding given a
  /// buffer in `bindings` (by name; a uniform buffer too), and waits for it to finish. An
  /// unknown, missing or repeated name is an error and nothing runs, as is a
  /// push-constant block whose size differs from the reflected one.
  virtual bool Dispatch(Kernel& kernel, std::span<const BufferBinding> bindings, GroupCount groups,
                        std::string* error, const DispatchOptions& options = {},
                        DispatchStats* stats = nullptr) = 0;

  /// The `printf` messages of the kernels run since the last call, one string each
  /// (without the validation layer's prefix and the trailing newline), in the order the
  /// device reported them; always empty unless opened with DeviceOptions::debug_printf.
  virtual std::vector<std::string> TakePrintfMessages() { return {}; }
};

/// Matches `bindings` against `reflection.bindings` by name: on success, returns one
/// buffer per reflected binding, in reflection order. Fails with a readable message on
/// an unknown, repeated, missing or null binding. Backends call this from Dispatch.
bool ResolveBindings(const driver::Reflection& reflection, std::span<const BufferBinding> bindings,
                     std::vector<Buffer*>* resolved, std::string* error);

/// Like ResolveBindings for kernels that also bind textures and samplers: one binding per
/// reflected binding (null for a push-constant block), each holding the buffer, texture
/// or sampler its kind takes (a texture's format and kind are checked against the
/// reflection too).
bool ResolveResources(const driver::Reflection& reflection, std::span<const BufferBinding> bindings,
                      std::vector<const BufferBinding*>* resolved, std::string* error);

/// For backends that compile specialization constants' defaults in (CPU, CUDA): fails
/// naming the first constant `reflection` overrides (SpecConstantInfo::overridden).
bool RefuseSpecConstantOverrides(const driver::Reflection& reflection, Backend backend,
                                 std::string* error);

/// Returns the entry point called `entry` in `reflection` (the first one when `entry` is
/// empty), or nullptr with `*error` set.
const driver::EntryPointInfo* FindEntryPoint(const driver::Reflection& reflection,
                                             const std::string& entry, std::string* error);

/// Opens device number `device_index` of `backend` (-1 = the backend's preferred device).
/// Returns nullptr and sets `*error` when the backend is not built in or has no usable
/// device.
std::unique_ptr<Device> CreateDevice(Backend backend, int device_index, std::string* error,
                                     const DeviceOptions& options = {});

/// Whether `backend` can capture `printf` output here (Vulkan: the Khronos validation
/// layer is installed); when not, `*why` says what is missing.
bool PrintfAvailable(Backend backend, std::string* why);

/// Opens the first backend that works, in the order CUDA, Vulkan, CPU, each with its
/// preferred device. On failure `*error` lists why each backend was unavailable.
std::unique_ptr<Device> CreateDefaultDevice(std::string* error);

}  // namespace slope::runtime
