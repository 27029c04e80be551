// The Vulkan backend refuses a kernel whose capabilities need a feature the device lacks,
// naming the feature. The modules here are hand-assembled capability lists.

#include "runtime/vulkan/vk_features.h"

#include <gtest/gtest.h>

#include <spirv/unified1/spirv.hpp11>

#include <vector>

namespace slope::runtime::vulkan {
namespace {

/// A module header followed by one OpCapability per entry and an OpMemoryModel.
std::vector<uint32_t> ModuleWith(std::initializer_list<spv::Capability> capabilities) {
  std::vector<uint32_t> words{spv::MagicNumber, 0x00010300u, 0, 100, 0};
  for (spv::Capability c : capabilities) {
    words.push_back(2u << 16 | static_cast<uint32_t>(spv::Op::OpCapability));
    words.push_back(static_cast<uint32_t>(c));
  }
  words.push_back(3u << 16 | static_cast<uint32_t>(spv::Op::OpMemoryModel));
  words.push_back(0);
  words.push_back(1);
  return words;
}

TEST(VkFeaturesTest, NamesTheMissingFeature) {
  ShaderFeatures features;
  features.int64 = true;
  std::vector<uint32_t> module =
      ModuleWith({spv::Capability::Shader, spv::Capability::Int64, spv::Capability::Float64});
  EXPECT_EQ(MissingFeature(module, features),
            "the Vulkan device lacks shaderFloat64, which the kernel needs for capability "
            "Float64");
  features.float64 = true;
  EXPECT_EQ(MissingFeature(module, features), "");
}

TEST(VkFeaturesTest, StorageCapabilitiesNeedTheirFeatures) {
  ShaderFeatures features;
  features.int8 = true;
  std::vector<uint32_t> module =
      ModuleWith({spv::Capability::Int8, spv::Capability::StorageBuffer8BitAccess});
  EXPECT_EQ(MissingFeature(module, features),
            "the Vulkan device lacks storageBuffer8BitAccess, which the kernel needs for "
            "capability StorageBuffer8BitAccess");
  features.storage_buffer_8bit = true;
  EXPECT_EQ(MissingFeature(module, features), "");
  EXPECT_NE(MissingFeature(ModuleWith({spv::Capability::StorageBuffer16BitAccess}), features)
                .find("storageBuffer16BitAccess"),
            std::string::npos);
}

}  // namespace
}  // namespace slope::runtime::vulkan
