#pragma once
// The optional Vulkan features a compute kernel may need: 8/16/64-bit arithmetic types,
// 8/16-bit storage buffer access, the scalar block layout, buffer device addresses
// (pointers), 64-bit and float atomics
// (on buffers and on workgroup memory) and subgroup operations. A device enables every one
// it supports when it opens; a kernel whose SPIR-V declares a capability the device lacks
// is refused with the feature's name before the driver sees it.

#include <vulkan/vulkan.h>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "compiler/driver/reflection.h"

namespace slope::runtime::vulkan {

/// Which optional features a physical device supports (and so the device enables).
struct ShaderFeatures {
  bool float64 = false;          ///< shaderFloat64: capability Float64
  bool int64 = false;            ///< shaderInt64: capability Int64
  bool int16 = false;            ///< shaderInt16: capability Int16
  bool float16 = false;          ///< shaderFloat16: capability Float16
  bool int8 = false;             ///< shaderInt8: capability Int8
  bool storage_buffer_8bit = false;   ///< storageBuffer8BitAccess
  bool storage_buffer_16bit = false;  ///< storageBuffer16BitAccess
  bool scalar_block_layout = false;   ///< scalarBlockLayout
  bool buffer_int64_atomics = false;  ///< shaderBufferInt64Atomics
  bool shared_int64_atomics = false;  ///< shaderSharedInt64Atomics
  /// VK_EXT_shader_atomic_float is available (the two float features below need it).
  bool atomic_float_extension = false;
  bool buffer_float32_atomic_add = false;  ///< shaderBufferFloat32AtomicAdd
  bool shared_float32_atomic_add = false;  ///< shaderSharedFloat32AtomicAdd
  /// VkPhysicalDeviceSubgroupProperties::supportedOperations, when compute shaders are
  /// among its supportedStages (else 0).
  VkSubgroupFeatureFlags subgroup_operations = 0;
  /// shaderSignedZeroInfNanPreserveFloat32 (a property, not a feature): capability
  /// SignedZeroInfNanPreserve, which kernels testing isnan/isinf declare.
  bool nan_preserve_float32 = false;
  /// imageCubeArray: capability SampledCubeArray (TextureCubeArray, SamplerCubeArray).
  bool image_cube_array = false;
  /// shaderStorageImageExtendedFormats: storage textures of rg32f, r16f, ... formats.
  bool storage_image_extended_formats = false;
  /// shaderStorageImage{Read,Write}WithoutFormat: storage textures of 3-component texels.
  bool storage_image_read_without_format = false;
  bool storage_image_write_without_format = false;
  /// bufferDeviceAddress: capability PhysicalStorageBufferAddresses (the language's
  /// pointers), and the buffers' addresses (Device::BufferAddress).
  bool buffer_device_address = false;
  /// VK_EXT_subgroup_size_control's subgroupSizeControl, with compute among its
  /// requiredSubgroupSizeStages: a pipeline may require a subgroup size from
  /// min_subgroup_size to max_subgroup_size ([WaveSize(n)]), of which a thread group
  /// holds at most max_compute_workgroup_subgroups.
  bool subgroup_size_control = false;
  uint32_t min_subgroup_size = 0;
  uint32_t max_subgroup_size = 0;
  uint32_t max_compute_workgroup_subgroups = 0;
  uint32_t subgroup_size = 0;  ///< VkPhysicalDeviceSubgroupProperties::subgroupSize
};

/// Queries what `device` supports (Vulkan 1.2 feature structures).
ShaderFeatures QueryShaderFeatures(VkPhysicalDevice device);

/// The feature structures that enable `features` at vkCreateDevice: pass `Head()` as
/// VkDeviceCreateInfo::pNext. Not copyable (the structures point at each other).
class FeatureChain {
 public:
  explicit FeatureChain(const ShaderFeatures& features);
  FeatureChain(const FeatureChain&) = delete;
  FeatureChain& operator=(const FeatureChain&) = delete;
  const void* Head() const { return &core_; }
  /// The device extensions the enabled features need, for VkDeviceCreateInfo.
  const std::vector<const char*>& Extensions() const { return extensions_; }

 private:
  VkPhysicalDeviceFeatures2 core_{};
  VkPhysicalDeviceShaderAtomicFloatFeaturesEXT atomic_float_{};
  VkPhysicalDeviceSubgroupSizeControlFeaturesEXT size_control_{};
  std::vector<const char*> extensions_;
  VkPhysicalDeviceVulkan11Features v11_{};
  VkPhysicalDeviceVulkan12Features v12_{};
};

/// Returns "" when the device can run `spirv`, else a message naming the first
/// capability the module declares that the device lacks and the Vulkan feature behind it
/// ("the device lacks shaderFloat64, which the kernel needs for capability Float64").
/// 64-bit and float atomics are checked per storage class of the memory they update
/// (shaderBufferInt64Atomics for a storage buffer, shaderSharedInt64Atomics for
/// workgroup memory, ...).
std::string MissingFeature(std::span<const uint32_t> spirv, const ShaderFeatures& features);

/// Returns "" when entry point `entry` of a module reflected as `reflection` fits the
/// device's `limits`, else a message naming the first limit it exceeds and both numbers:
/// the push-constant block against maxPushConstantsSize, each uniform buffer against
/// maxUniformBufferRange, the uniform and storage buffers per stage against
/// maxPerStageDescriptor{Uniform,Storage}Buffers, and the thread-group size against
/// maxComputeWorkGroupSize / maxComputeWorkGroupInvocations.
std::string MissingLimit(const driver::Reflection& reflection, const std::string& entry,
                         const VkPhysicalDeviceLimits& limits);

/// Returns "" when the device can run `entry` with the subgroup size its [WaveSize(n)]
/// names (or it names none), else a message naming the size and what the device offers.
std::string MissingWaveSize(const driver::EntryPointInfo& entry, const ShaderFeatures& features);

}  // namespace slope::runtime::vulkan
