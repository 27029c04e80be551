#include "runtime/vulkan/vk_features.h"

#include <spirv/unified1/spirv.hpp11>

namespace slope::runtime::vulkan {

ShaderFeatures QueryShaderFeatures(VkPhysicalDevice device) {
  VkPhysicalDeviceVulkan12Features v12{};
  v12.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES;
  VkPhysicalDeviceVulkan11Features v11{};
  v11.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES;
  v11.pNext = &v12;
  VkPhysicalDeviceFeatures2 core{};
  core.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
  core.pNext = &v11;
  vkGetPhysicalDeviceFeatures2(device, &core);
  ShaderFeatures f;
  f.float64 = core.features.shaderFloat64 == VK_TRUE;
  f.int64 = core.features.shaderInt64 == VK_TRUE;
  f.int16 = core.features.shaderInt16 == VK_TRUE;
  f.float16 = v12.shaderFloat16 == VK_TRUE;
  f.int8 = v12.shaderInt8 == VK_TRUE;
  f.storage_buffer_8bit = v12.storageBuffer8BitAccess == VK_TRUE;
  f.storage_buffer_16bit = v11.storageBuffer16BitAccess == VK_TRUE;
  f.scalar_block_layout = v12.scalarBlockLayout == VK_TRUE;
  return f;
}

FeatureChain::FeatureChain(const ShaderFeatures& f) {
  auto flag = [](bool on) { return on ? VK_TRUE : VK_FALSE; };
  v12_.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES;
  v12_.shaderFloat16 = flag(f.float16);
  v12_.shaderInt8 = flag(f.int8);
  v12_.storageBuffer8BitAccess = flag(f.storage_buffer_8bit);
  v12_.scalarBlockLayout = flag(f.scalar_block_layout);
  v11_.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES;
  v11_.pNext = &v12_;
  v11_.storageBuffer16BitAccess = flag(f.storage_buffer_16bit);
  core_.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
  core_.pNext = &v11_;
  core_.features.shaderFloat64 = flag(f.float64);
  core_.features.shaderInt64 = flag(f.int64);
  core_.features.shaderInt16 = flag(f.int16);
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
    case spv::Capability::StorageBuffer8BitAccess:
      *present = f.storage_buffer_8bit;
      return "storageBuffer8BitAccess";
    case spv::Capability::StorageBuffer16BitAccess:
      *present = f.storage_buffer_16bit;
      return "storageBuffer16BitAccess";
    default: return nullptr;
  }
}

const char* CapabilityName(spv::Capability c) {
  switch (c) {
    case spv::Capability::Float64: return "Float64";
    case spv::Capability::Int64: return "Int64";
    case spv::Capability::Int16: return "Int16";
    case spv::Capability::Float16: return "Float16";
    case spv::Capability::Int8: return "Int8";
    case spv::Capability::StorageBuffer8BitAccess: return "StorageBuffer8BitAccess";
    case spv::Capability::StorageBuffer16BitAccess: return "StorageBuffer16BitAccess";
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
  return "";
}

}  // namespace slope::runtime::vulkan
