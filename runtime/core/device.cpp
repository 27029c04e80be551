#include "runtime/core/device.h"

#include "runtime/cpu/cpu_device.h"
#include "runtime/cuda/cuda_device.h"
#if SLOPE_HAVE_VULKAN
#include "runtime/vulkan/vulkan_device.h"
#endif

namespace slope::runtime {

const char* BackendName(Backend backend) {
  switch (backend) {
    case Backend::Vulkan:
      return "vulkan";
    case Backend::Cuda:
      return "cuda";
    case Backend::Cpu:
      return "cpu";
  }
  return "?";
}

std::optional<Backend> ParseBackend(std::string_view text) {
  if (text == "vulkan") return Backend::Vulkan;
  if (text == "cuda") return Backend::Cuda;
  if (text == "cpu") return Backend::Cpu;
  return std::nullopt;
}

namespace {

std::string DescribeBinding(const driver::BindingInfo& info) {
  return "'" + info.name + "' (set " + std::to_string(info.set) + ", binding " +
         std::to_string(info.binding) + ")";
}

}  // namespace

bool ResolveBindings(const driver::Reflection& reflection, std::span<const BufferBinding> bindings,
                     std::vector<Buffer*>* resolved, std::string* error) {
  resolved->assign(reflection.bindings.size(), nullptr);
  for (const BufferBinding& given : bindings) {
    size_t index = reflection.bindings.size();
    for (size_t i = 0; i < reflection.bindings.size(); ++i) {
      if (reflection.bindings[i].name == given.name) {
        index = i;
        break;
      }
    }
    if (index == reflection.bindings.size()) {
      std::string known;
      for (const driver::BindingInfo& info : reflection.bindings) {
        known += known.empty() ? "" : ", ";
        known += "'" + info.name + "'";
      }
      *error = "no binding named '" + given.name + "' in the kernel (it has " +
               (known.empty() ? std::string("none") : known) + ")";
      return false;
    }
    if (given.buffer == nullptr) {
      *error = "null buffer given for binding '" + given.name + "'";
      return false;
    }
    if ((*resolved)[index] != nullptr) {
      *error = "binding '" + given.name + "' is given more than once";
      return false;
    }
    (*resolved)[index] = given.buffer;
  }
  for (size_t i = 0; i < reflection.bindings.size(); ++i) {
    // A push-constant block is set with the dispatch, not bound to a buffer.
    if (reflection.bindings[i].kind == driver::ResourceKind::PushConstant) {
      if ((*resolved)[i] != nullptr) {
        *error = "binding '" + reflection.bindings[i].name +
                 "' is a push-constant block and takes no buffer";
        return false;
      }
      continue;
    }
    if ((*resolved)[i] == nullptr) {
      *error = "no buffer given for binding " + DescribeBinding(reflection.bindings[i]);
      return false;
    }
  }
  return true;
}

TextureFormatInfo GetTextureFormatInfo(std::string_view name) {
  using driver::ScalarKind;
  struct Entry {
    std::string_view name;
    TextureFormatInfo info;
  };
  static const Entry kFormats[] = {
      {"rgba32f", {4, ScalarKind::Float32, 4, false}}, {"rg32f", {2, ScalarKind::Float32, 4, false}},
      {"r32f", {1, ScalarKind::Float32, 4, false}},    {"rgba16f", {4, ScalarKind::Float16, 2, false}},
      {"rg16f", {2, ScalarKind::Float16, 2, false}},   {"r16f", {1, ScalarKind::Float16, 2, false}},
      {"rgba8", {4, ScalarKind::Float32, 1, true}},    {"rg8", {2, ScalarKind::Float32, 1, true}},
      {"r8", {1, ScalarKind::Float32, 1, true}},       {"rgba8snorm", {4, ScalarKind::Float32, 1, true}},
      {"rgba32i", {4, ScalarKind::Int32, 4, false}},   {"rg32i", {2, ScalarKind::Int32, 4, false}},
      {"r32i", {1, ScalarKind::Int32, 4, false}},      {"rgba16i", {4, ScalarKind::Int16, 2, false}},
      {"rgba8i", {4, ScalarKind::Int8, 1, false}},     {"rgba32ui", {4, ScalarKind::UInt32, 4, false}},
      {"rg32ui", {2, ScalarKind::UInt32, 4, false}},   {"r32ui", {1, ScalarKind::UInt32, 4, false}},
      {"rgba16ui", {4, ScalarKind::UInt16, 2, false}}, {"rgba8ui", {4, ScalarKind::UInt8, 1, false}},
      // A depth texture: sampled with a SamplerComparisonState, or read as float.
      {"d32f", {1, ScalarKind::Float32, 4, false}},
      // 3-component formats: typed buffers (Buffer<float3>) only, on most devices.
      {"rgb32f", {3, ScalarKind::Float32, 4, false}},  {"rgb32i", {3, ScalarKind::Int32, 4, false}},
      {"rgb32ui", {3, ScalarKind::UInt32, 4, false}},
  };
  for (const Entry& e : kFormats) {
    if (e.name == name) return e.info;
  }
  return {};
}

bool ResolveResources(const driver::Reflection& reflection, std::span<const BufferBinding> bindings,
                      std::vector<const BufferBinding*>* resolved, std::string* error) {
  using driver::ResourceKind;
  resolved->assign(reflection.bindings.size(), nullptr);
  for (const BufferBinding& given : bindings) {
    size_t index = reflection.bindings.size();
    for (size_t i = 0; i < reflection.bindings.size(); ++i) {
      if (reflection.bindings[i].name == given.name) index = i;
    }
    if (index == reflection.bindings.size()) {
      std::string known;
      for (const driver::BindingInfo& info : reflection.bindings) {
        known += known.empty() ? "" : ", ";
        known += "'" + info.name + "'";
      }
      *error = "no binding named '" + given.name + "' in the kernel (it has " +
               (known.empty() ? std::string("none") : known) + ")";
      return false;
    }
    if (given.buffer == nullptr && given.texture == nullptr && given.sampler == nullptr) {
      *error = "null buffer given for binding '" + given.name + "'";
      return false;
    }
    if ((*resolved)[index] != nullptr) {
      *error = "binding '" + given.name + "' is given more than once";
      return false;
    }
    (*resolved)[index] = &given;
  }
  for (size_t i = 0; i < reflection.bindings.size(); ++i) {
    const driver::BindingInfo& info = reflection.bindings[i];
    const BufferBinding* given = (*resolved)[i];
    if (info.kind == ResourceKind::PushConstant) {
      if (given != nullptr) {
        *error = "binding '" + info.name + "' is a push-constant block and takes no buffer";
        return false;
      }
      continue;
    }
    // A combined texture and sampler (Sampler2D) takes both.
    bool combined = info.kind == ResourceKind::SampledTexture;
    bool texture = info.kind == ResourceKind::Texture || info.kind == ResourceKind::RWTexture ||
                   combined;
    bool sampler = info.kind == ResourceKind::Sampler || combined;
    const char* wanted = combined ? "texture and sampler" : texture ? "texture"
                         : sampler ? "sampler" : "buffer";
    bool present = given != nullptr && (texture || sampler
                                            ? (!texture || given->texture != nullptr) &&
                                                  (!sampler || given->sampler != nullptr)
                                            : given->buffer != nullptr);
    if (!present) {
      *error = std::string("no ") + wanted + " given for binding " + DescribeBinding(info);
      return false;
    }
    if (texture) {
      const TextureDesc& desc = given->texture->Desc();
      bool rw = info.kind == ResourceKind::RWTexture;
      if (desc.dim != info.texture.dim || desc.arrayed != info.texture.arrayed) {
        *error = "the texture given for binding " + DescribeBinding(info) +
                 " has another shape than the kernel's";
        return false;
      }
      if (rw && !desc.storage) {
        *error = "binding " + DescribeBinding(info) + " is an RW texture, but its texture was "
                 "not made for storage";
        return false;
      }
      if (rw && !info.texture.format.empty() && desc.format != info.texture.format) {
        *error = "binding " + DescribeBinding(info) + " has format " + info.texture.format +
                 ", but its texture has " + desc.format;
        return false;
      }
    }
    if (sampler && given->sampler->Desc().comparison != info.texture.comparison) {
      bool combined = info.kind == ResourceKind::SampledTexture;
      *error = "binding " + DescribeBinding(info) +
               (info.texture.comparison ? (combined ? " is a shadow sampler (compares)"
                                                    : " is a SamplerComparisonState")
                                        : " is a SamplerState") +
               ", but its sampler is not";
      return false;
    }
  }
  return true;
}

const driver::EntryPointInfo* FindEntryPoint(const driver::Reflection& reflection,
                                             const std::string& entry, std::string* error) {
  if (reflection.entry_points.empty()) {
    *error = "the module has no entry points";
    return nullptr;
  }
  if (entry.empty()) return &reflection.entry_points.front();
  for (const driver::EntryPointInfo& info : reflection.entry_points) {
    if (info.name == entry) return &info;
  }
  *error = "no entry point named '" + entry + "' in the module";
  return nullptr;
}

bool PrintfAvailable(Backend backend, std::string* why) {
#if SLOPE_HAVE_VULKAN
  if (backend == Backend::Vulkan) return vulkan::VulkanPrintfAvailable(why);
#endif
  if (backend == Backend::Cpu) return true;  // the runtime formats the messages itself
  if (backend == Backend::Cuda) return true;  // device printf, read from standard output
  *why = std::string("the ") + BackendName(backend) + " backend cannot capture printf output";
  return false;
}

std::unique_ptr<Device> CreateDevice(Backend backend, int device_index, std::string* error,
                                     const DeviceOptions& options) {
  switch (backend) {
    case Backend::Vulkan:
#if SLOPE_HAVE_VULKAN
      return vulkan::CreateVulkanDevice(device_index, error, options);
#else
      *error = "the vulkan backend is not built in";
      return nullptr;
#endif
    case Backend::Cuda:
      return cuda::CreateCudaDevice(device_index, error, options);
    case Backend::Cpu:
      return cpu::CreateCpuDevice(device_index, error, options);
  }
  *error = "unknown backend";
  return nullptr;
}

std::unique_ptr<Device> CreateDefaultDevice(std::string* error) {
  std::string reasons;
  for (Backend backend : {Backend::Cuda, Backend::Vulkan, Backend::Cpu}) {
    std::string why;
    std::unique_ptr<Device> device = CreateDevice(backend, -1, &why);
    if (device != nullptr) return device;
    reasons += reasons.empty() ? "" : "; ";
    reasons += std::string(BackendName(backend)) + ": " + why;
  }
  *error = "no device available (" + reasons + ")";
  return nullptr;
}

bool RefuseSpecConstantOverrides(const driver::Reflection& reflection, Backend backend,
                                 std::string* error) {
  for (const driver::SpecConstantInfo& s : reflection.spec_constants) {
    if (!s.overridden) continue;
    *error = std::string("specialization constant '") + s.name + "' (constant_id " +
             std::to_string(s.id) + ") cannot be set on the " + BackendName(backend) +
             " backend: its code has the default value compiled in; only Vulkan sets "
             "specialization constants when it creates the pipeline";
    return false;
  }
  return true;
}

}  // namespace slope::runtime
