#include "runtime/vulkan/vk_features.h"

#include <spirv/unified1/spirv.hpp11>

#include <cstring>
#include <map>
#include <vector>

namespace slope::runtime::vulkan {

namespace {
bool HasExtension(VkPhysicalDevice device, const char* name) {
  uint32_t count = 0;
  vkEnumerateDeviceExtensionProperties(device, nullptr, &count, nullptr);
  std::vector<VkExtensionProperties> extensions(count);
  vkEnumerateDeviceExtensionProperties(device, nullptr, &count, extensions.data());
  for (const VkExtensionProperties& e : extensions) {
    if (std::strcmp(e.extensionName, name) == 0) return true;
  }
  return false;
}
}  // namespace

ShaderFeatures QueryShaderFeatures(VkPhysicalDevice device) {
  ShaderFeatures f;
  f.atomic_float_extension = HasExtension(device, VK_EXT_SHADER_ATOMIC_FLOAT_EXTENSION_NAME);
  VkPhysicalDeviceShaderAtomicFloatFeaturesEXT atomic_float{};
  atomic_float.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_ATOMIC_FLOAT_FEATURES_EXT;
  VkPhysicalDeviceVulkan12Features v12{};
  v12.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES;
  if (f.atomic_float_extension) v12.pNext = &atomic_float;
  bool size_control = HasExtension(device, VK_EXT_SUBGROUP_SIZE_CONTROL_EXTENSION_NAME);
  VkPhysicalDeviceSubgroupSizeControlFeaturesEXT size_features{};
  size_features.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_SIZE_CONTROL_FEATURES_EXT;
  size_features.pNext = v12.pNext;
  if (size_control) v12.pNext = &size_features;
  VkPhysicalDeviceVulkan11Features v11{};
  v11.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES;
  v11.pNext = &v12;
  VkPhysicalDeviceFeatures2 core{};
  core.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
  core.pNext = &v11;
  vkGetPhysicalDeviceFeatures2(device, &core);
  f.float64 = core.features.shaderFloat64 == VK_TRUE;
  f.int64 = core.features.shaderInt64 == VK_TRUE;
  f.int16 = core.features.shaderInt16 == VK_TRUE;
  f.image_cube_array = core.features.imageCubeArray == VK_TRUE;
  f.storage_image_extended_formats = core.features.shaderStorageImageExtendedFormats == VK_TRUE;
  f.storage_image_read_without_format =
      core.features.shaderStorageImageReadWithoutFormat == VK_TRUE;
  f.storage_image_write_without_format =
      core.features.shaderStorageImageWriteWithoutFormat == VK_TRUE;
  f.float16 = v12.shaderFloat16 == VK_TRUE;
  f.int8 = v12.shaderInt8 == VK_TRUE;
  f.storage_buffer_8bit = v12.storageBuffer8BitAccess == VK_TRUE;
  f.storage_buffer_16bit = v11.storageBuffer16BitAccess == VK_TRUE;
  f.scalar_block_layout = v12.scalarBlockLayout == VK_TRUE;
  f.buffer_device_address = v12.bufferDeviceAddress == VK_TRUE;
  f.buffer_int64_atomics = v12.shaderBufferInt64Atomics == VK_TRUE;
  f.shared_int64_atomics = v12.shaderSharedInt64Atomics == VK_TRUE;
  f.buffer_float32_atomic_add = atomic_float.shaderBufferFloat32AtomicAdd == VK_TRUE;
  f.shared_float32_atomic_add = atomic_float.shaderSharedFloat32AtomicAdd == VK_TRUE;
  VkPhysicalDeviceSubgroupProperties subgroup{};
  subgroup.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES;
  VkPhysicalDeviceProperties2 props{};
  props.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2;
  props.pNext = &subgroup;
  VkPhysicalDeviceFloatControlsProperties float_controls{};
  float_controls.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FLOAT_CONTROLS_PROPERTIES;
  subgroup.pNext = &float_controls;
  VkPhysicalDeviceSubgroupSizeControlPropertiesEXT size_props{};
  size_props.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_SIZE_CONTROL_PROPERTIES_EXT;
  if (size_control) float_controls.pNext = &size_props;
  vkGetPhysicalDeviceProperties2(device, &props);
  f.subgroup_size = subgroup.subgroupSize;
  if (size_control && size_features.subgroupSizeControl == VK_TRUE &&
      (size_props.requiredSubgroupSizeStages & VK_SHADER_STAGE_COMPUTE_BIT) != 0) {
    f.subgroup_size_control = true;
    f.min_subgroup_size = size_props.minSubgroupSize;
    f.max_subgroup_size = size_props.maxSubgroupSize;
    f.max_compute_workgroup_subgroups = size_props.maxComputeWorkgroupSubgroups;
  }
  f.nan_preserve_float32 = float_controls.shaderSignedZeroInfNanPreserveFloat32 == VK_TRUE;
  if ((subgroup.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT) != 0) {
    f.subgroup_operations = subgroup.supportedOperations;
  }
  return f;
}

FeatureChain::FeatureChain(const ShaderFeatures& f) {
  auto flag = [](bool on) { return on ? VK_TRUE : VK_FALSE; };
  v12_.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES;
  v12_.shaderFloat16 = flag(f.float16);
  v12_.shaderInt8 = flag(f.int8);
  v12_.storageBuffer8BitAccess = flag(f.storage_buffer_8bit);
  v12_.scalarBlockLayout = flag(f.scalar_block_layout);
  v12_.bufferDeviceAddress = flag(f.buffer_device_address);
  v12_.shaderBufferInt64Atomics = flag(f.buffer_int64_atomics);
  v12_.shaderSharedInt64Atomics = flag(f.shared_int64_atomics);
  if (f.atomic_float_extension) {
    atomic_float_.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_ATOMIC_FLOAT_FEATURES_EXT;
    atomic_float_.shaderBufferFloat32AtomicAdd = flag(f.buffer_float32_atomic_add);
    atomic_float_.shaderSharedFloat32AtomicAdd = flag(f.shared_float32_atomic_add);
    v12_.pNext = &atomic_float_;
    extensions_.push_back(VK_EXT_SHADER_ATOMIC_FLOAT_EXTENSION_NAME);
  }
  if (f.subgroup_size_control) {
    size_control_.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_SIZE_CONTROL_FEATURES_EXT;
    size_control_.subgroupSizeControl = VK_TRUE;
    size_control_.pNext = v12_.pNext;
    v12_.pNext = &size_control_;
    extensions_.push_back(VK_EXT_SUBGROUP_SIZE_CONTROL_EXTENSION_NAME);
  }
  v11_.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES;
  v11_.pNext = &v12_;
  v11_.storageBuffer16BitAccess = flag(f.storage_buffer_16bit);
  core_.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
  core_.pNext = &v11_;
  core_.features.shaderFloat64 = flag(f.float64);
  core_.features.shaderInt64 = flag(f.int64);
  core_.features.shaderInt16 = flag(f.int16);
  core_.features.imageCubeArray = flag(f.image_cube_array);
  core_.features.shaderStorageImageExtendedFormats = flag(f.storage_image_extended_formats);
  core_.features.shaderStorageImageReadWithoutFormat = flag(f.storage_image_read_without_format);
  core_.features.shaderStorageImageWriteWithoutFormat = flag(f.storage_image_write_without_format);
}

namespace {
/// The feature that capability `c` needs, with whether the device has it; null when
/// the capability needs no optional feature.
const char* FeatureFor(spv::Capability c, const ShaderFeatures& f, bool* present) {
  switch (c) {
    case spv::Capability::Float64: *present = f.float64; return "shaderFloat64";
    case spv::Capability::Int64: *present = f.int64; return "shaderInt64";
    case spv::Capability::Int16: *present = f.int16; return "shaderInt16";
    case spv::Capability::Float16: *present = f.float16; return "shaderFloat16";
    case spv::Capability::Int8: *present = f.int8; return "shaderInt8";
    case spv::Capability::PhysicalStorageBufferAddresses:
      *present = f.buffer_device_address;
      return "bufferDeviceAddress";
    case spv::Capability::StorageBuffer8BitAccess:
      *present = f.storage_buffer_8bit;
      return "storageBuffer8BitAccess";
    case spv::Capability::StorageBuffer16BitAccess:
      *present = f.storage_buffer_16bit;
      return "storageBuffer16BitAccess";
    case spv::Capability::GroupNonUniform:
      *present = (f.subgroup_operations & VK_SUBGROUP_FEATURE_BASIC_BIT) != 0;
      return "subgroup operations (VK_SUBGROUP_FEATURE_BASIC_BIT in compute shaders)";
    case spv::Capability::GroupNonUniformVote:
      *present = (f.subgroup_operations & VK_SUBGROUP_FEATURE_VOTE_BIT) != 0;
      return "subgroup vote operations (VK_SUBGROUP_FEATURE_VOTE_BIT)";
    case spv::Capability::GroupNonUniformArithmetic:
      *present = (f.subgroup_operations & VK_SUBGROUP_FEATURE_ARITHMETIC_BIT) != 0;
      return "subgroup arithmetic (VK_SUBGROUP_FEATURE_ARITHMETIC_BIT)";
    case spv::Capability::GroupNonUniformBallot:
      *present = (f.subgroup_operations & VK_SUBGROUP_FEATURE_BALLOT_BIT) != 0;
      return "subgroup ballots (VK_SUBGROUP_FEATURE_BALLOT_BIT)";
    case spv::Capability::GroupNonUniformShuffle:
      *present = (f.subgroup_operations & VK_SUBGROUP_FEATURE_SHUFFLE_BIT) != 0;
      return "subgroup shuffles (VK_SUBGROUP_FEATURE_SHUFFLE_BIT)";
    case spv::Capability::SignedZeroInfNanPreserve:
      *present = f.nan_preserve_float32;
      return "shaderSignedZeroInfNanPreserveFloat32";
    case spv::Capability::SampledCubeArray:
      *present = f.image_cube_array;
      return "imageCubeArray";
    case spv::Capability::StorageImageExtendedFormats:
      *present = f.storage_image_extended_formats;
      return "shaderStorageImageExtendedFormats";
    case spv::Capability::StorageImageReadWithoutFormat:
      *present = f.storage_image_read_without_format;
      return "shaderStorageImageReadWithoutFormat";
    case spv::Capability::StorageImageWriteWithoutFormat:
      *present = f.storage_image_write_without_format;
      return "shaderStorageImageWriteWithoutFormat";
    default: return nullptr;
  }
}

/// Whether `op` is an atomic instruction whose operands are result type, result and
/// pointer.
bool IsAtomicOnPointer(spv::Op op) {
  switch (op) {
    case spv::Op::OpAtomicIAdd: case spv::Op::OpAtomicAnd: case spv::Op::OpAtomicOr:
    case spv::Op::OpAtomicXor: case spv::Op::OpAtomicSMin: case spv::Op::OpAtomicUMin:
    case spv::Op::OpAtomicSMax: case spv::Op::OpAtomicUMax: case spv::Op::OpAtomicExchange:
    case spv::Op::OpAtomicCompareExchange: case spv::Op::OpAtomicFAddEXT:
    case spv::Op::OpAtomicISub: case spv::Op::OpAtomicLoad:
      return true;
    default:
      return false;
  }
}

/// The feature a 64-bit or float atomic needs on memory of storage class `sc`, or null
/// when the device has it (or the atomic needs none).
const char* AtomicFeature(bool is_float, uint32_t width, spv::StorageClass sc,
                          const ShaderFeatures& f) {
  bool shared = sc == spv::StorageClass::Workgroup;
  if (is_float) {
    if (shared) return f.shared_float32_atomic_add ? nullptr : "shaderSharedFloat32AtomicAdd";
    return f.buffer_float32_atomic_add ? nullptr : "shaderBufferFloat32AtomicAdd";
  }
  if (width != 64) return nullptr;
  if (shared) return f.shared_int64_atomics ? nullptr : "shaderSharedInt64Atomics";
  return f.buffer_int64_atomics ? nullptr : "shaderBufferInt64Atomics";
}

/// The first atomic of `spirv` that needs a feature the device lacks: a message, or "".
std::string MissingAtomicFeature(std::span<const uint32_t> spirv, const ShaderFeatures& f) {
  std::map<uint32_t, std::pair<bool, uint32_t>> scalars;  // type id -> is float, width
  std::map<uint32_t, uint32_t> pointer_classes;           // pointer type id -> class
  std::map<uint32_t, uint32_t> value_types;               // pointer value -> its type
  for (size_t at = 5; at < spirv.size();) {
    uint32_t length = spirv[at] >> 16;
    if (length == 0 || at + length > spirv.size()) break;
    auto op = static_cast<spv::Op>(spirv[at] & 0xffff);
    const uint32_t* w = &spirv[at + 1];
    if ((op == spv::Op::OpTypeInt || op == spv::Op::OpTypeFloat) && length >= 3) {
      scalars[w[0]] = {op == spv::Op::OpTypeFloat, w[1]};
    } else if (op == spv::Op::OpTypePointer && length >= 3) {
      pointer_classes[w[0]] = w[1];
    } else if ((op == spv::Op::OpVariable || op == spv::Op::OpAccessChain) && length >= 3) {
      value_types[w[1]] = w[0];
    } else if (IsAtomicOnPointer(op) && length >= 4) {
      auto scalar = scalars.find(w[0]);
      auto type = value_types.find(w[2]);
      if (scalar != scalars.end() && type != value_types.end()) {
        auto sc = static_cast<spv::StorageClass>(pointer_classes[type->second]);
        auto [is_float, width] = scalar->second;
        if (const char* feature = AtomicFeature(is_float, width, sc, f)) {
          return std::string("the Vulkan device lacks ") + feature +
                 ", which the kernel needs for " + (is_float ? "a float" : "a 64-bit") +
                 " atomic operation on " +
                 (sc == spv::StorageClass::Workgroup ? "groupshared memory" : "a buffer");
        }
      }
    }
    at += length;
  }
  return "";
}

const char* CapabilityName(spv::Capability c) {
  switch (c) {
    case spv::Capability::Float64: return "Float64";
    case spv::Capability::Int64: return "Int64";
    case spv::Capability::Int16: return "Int16";
    case spv::Capability::Float16: return "Float16";
    case spv::Capability::Int8: return "Int8";
    case spv::Capability::PhysicalStorageBufferAddresses: return "PhysicalStorageBufferAddresses";
    case spv::Capability::StorageBuffer8BitAccess: return "StorageBuffer8BitAccess";
    case spv::Capability::StorageBuffer16BitAccess: return "StorageBuffer16BitAccess";
    case spv::Capability::GroupNonUniform: return "GroupNonUniform";
    case spv::Capability::GroupNonUniformVote: return "GroupNonUniformVote";
    case spv::Capability::GroupNonUniformArithmetic: return "GroupNonUniformArithmetic";
    case spv::Capability::GroupNonUniformBallot: return "GroupNonUniformBallot";
    case spv::Capability::GroupNonUniformShuffle: return "GroupNonUniformShuffle";
    case spv::Capability::SignedZeroInfNanPreserve: return "SignedZeroInfNanPreserve";
    case spv::Capability::SampledCubeArray: return "SampledCubeArray";
    case spv::Capability::StorageImageExtendedFormats: return "StorageImageExtendedFormats";
    case spv::Capability::StorageImageReadWithoutFormat: return "StorageImageReadWithoutFormat";
    case spv::Capability::StorageImageWriteWithoutFormat: return "StorageImageWriteWithoutFormat";
    default: return "?";
  }
}
}  // namespace

std::string MissingFeature(std::span<const uint32_t> spirv, const ShaderFeatures& features) {
  // OpCapability instructions open the module, right after the five header words.
  size_t at = 5;
  while (at < spirv.size()) {
    uint32_t length = spirv[at] >> 16;
    auto op = static_cast<spv::Op>(spirv[at] & 0xffff);
    if (length == 0 || op != spv::Op::OpCapability || at + 1 >= spirv.size()) break;
    auto capability = static_cast<spv::Capability>(spirv[at + 1]);
    bool present = true;
    if (const char* feature = FeatureFor(capability, features, &present); !present) {
      return std::string("the Vulkan device lacks ") + feature +
             ", which the kernel needs for capability " + CapabilityName(capability);
    }
    at += length;
  }
  return MissingAtomicFeature(spirv, features);
}

std::string MissingLimit(const driver::Reflection& reflection, const std::string& entry,
                         const VkPhysicalDeviceLimits& limits) {
  auto over = [](const std::string& what, uint64_t needed, const char* limit, uint64_t max) {
    return what + " needs " + std::to_string(needed) + " but the device's " + limit + " is " +
           std::to_string(max);
  };
  uint32_t uniform_buffers = 0;
  uint32_t storage_buffers = 0;
  for (const driver::BindingInfo& b : reflection.bindings) {
    switch (b.kind) {
      case driver::ResourceKind::PushConstant:
        if (b.entry_point == entry && b.element.size > limits.maxPushConstantsSize) {
          return over("the push-constant block of '" + entry + "' (its uniform parameters)",
                      b.element.size, "maxPushConstantsSize", limits.maxPushConstantsSize) +
                 " bytes; pass large data in a ConstantBuffer instead";
        }
        break;
      case driver::ResourceKind::UniformBuffer:
        ++uniform_buffers;
        if (b.element.size > limits.maxUniformBufferRange) {
          return over("uniform buffer '" + b.name + "'", b.element.size, "maxUniformBufferRange",
                      limits.maxUniformBufferRange) + " bytes";
        }
        break;
      case driver::ResourceKind::StructuredBuffer:
      case driver::ResourceKind::RWStructuredBuffer:
        ++storage_buffers;
        break;
      case driver::ResourceKind::Texture:
      case driver::ResourceKind::RWTexture:
      case driver::ResourceKind::Sampler:
      case driver::ResourceKind::SampledTexture:
      case driver::ResourceKind::TexelBuffer:
      case driver::ResourceKind::RWTexelBuffer:
        break;
    }
  }
  if (uniform_buffers > limits.maxPerStageDescriptorUniformBuffers) {
    return over("the kernel's " + std::to_string(uniform_buffers) + " uniform buffers",
                uniform_buffers, "maxPerStageDescriptorUniformBuffers",
                limits.maxPerStageDescriptorUniformBuffers);
  }
  if (storage_buffers > limits.maxPerStageDescriptorStorageBuffers) {
    return over("the kernel's " + std::to_string(storage_buffers) + " storage buffers",
                storage_buffers, "maxPerStageDescriptorStorageBuffers",
                limits.maxPerStageDescriptorStorageBuffers);
  }
  for (const driver::EntryPointInfo& e : reflection.entry_points) {
    if (e.name != entry) continue;
    uint64_t total = uint64_t{e.numthreads[0]} * e.numthreads[1] * e.numthreads[2];
    for (int d = 0; d < 3; ++d) {
      if (e.numthreads[d] > limits.maxComputeWorkGroupSize[d]) {
        return over("numthreads dimension " + std::to_string(d) + " of '" + entry + "'",
                    e.numthreads[d], "maxComputeWorkGroupSize",
                    limits.maxComputeWorkGroupSize[d]);
      }
    }
    if (total > limits.maxComputeWorkGroupInvocations) {
      return over("the thread group of '" + entry + "'", total,
                  "maxComputeWorkGroupInvocations", limits.maxComputeWorkGroupInvocations) +
             " invocations";
    }
  }
  return "";
}

std::string MissingWaveSize(const driver::EntryPointInfo& entry, const ShaderFeatures& features) {
  uint32_t n = entry.wave_size;
  if (n == 0) return "";
  std::string what = "entry point '" + entry.name + "' has [WaveSize(" + std::to_string(n) + ")]";
  if (!features.subgroup_size_control) {
    // Without the extension a pipeline runs with the device's one subgroup size.
    if (n == features.subgroup_size) return "";
    return what + ", but the device runs subgroups of " + std::to_string(features.subgroup_size) +
           " and cannot require another size (no VK_EXT_subgroup_size_control for compute)";
  }
  if (n < features.min_subgroup_size || n > features.max_subgroup_size) {
    return what + ", but the device's subgroup sizes are " +
           std::to_string(features.min_subgroup_size) + " to " +
           std::to_string(features.max_subgroup_size) + " (VK_EXT_subgroup_size_control)";
  }
  uint64_t total = uint64_t{entry.numthreads[0]} * entry.numthreads[1] * entry.numthreads[2];
  if ((total + n - 1) / n > features.max_compute_workgroup_subgroups) {
    return what + " and a thread group of " + std::to_string(total) +
           " invocations, more subgroups of that size than the device's "
           "maxComputeWorkgroupSubgroups (" +
           std::to_string(features.max_compute_workgroup_subgroups) + ")";
  }
  return "";
}

}  // namespace slope::runtime::vulkan
