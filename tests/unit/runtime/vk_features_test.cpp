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

TEST(VkFeaturesTest, NanPreservationNeedsTheFloatControlsProperty) {
  ShaderFeatures features;
  std::vector<uint32_t> module = ModuleWith({spv::Capability::SignedZeroInfNanPreserve});
  EXPECT_EQ(MissingFeature(module, features),
            "the Vulkan device lacks shaderSignedZeroInfNanPreserveFloat32, which the kernel "
            "needs for capability SignedZeroInfNanPreserve");
  features.nan_preserve_float32 = true;
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

/// A module whose one function does an atomic add on a 64-bit integer (or a float) in
/// memory of storage class `sc`: only the instructions MissingFeature reads.
std::vector<uint32_t> AtomicModule(bool is_float, spv::StorageClass sc) {
  std::vector<uint32_t> words = ModuleWith({spv::Capability::Shader});
  auto emit = [&](spv::Op op, std::initializer_list<uint32_t> operands) {
    words.push_back(static_cast<uint32_t>(operands.size() + 1) << 16 | static_cast<uint32_t>(op));
    words.insert(words.end(), operands);
  };
  if (is_float) {
    emit(spv::Op::OpTypeFloat, {1, 32});
  } else {
    emit(spv::Op::OpTypeInt, {1, 64, 0});
  }
  emit(spv::Op::OpTypePointer, {2, static_cast<uint32_t>(sc), 1});
  emit(spv::Op::OpVariable, {2, 3, static_cast<uint32_t>(sc)});
  emit(is_float ? spv::Op::OpAtomicFAddEXT : spv::Op::OpAtomicIAdd, {1, 4, 3, 5, 6, 7});
  return words;
}

TEST(VkFeaturesTest, AtomicsNeedTheFeatureOfTheirMemory) {
  ShaderFeatures features;
  features.buffer_int64_atomics = true;
  EXPECT_EQ(MissingFeature(AtomicModule(false, spv::StorageClass::StorageBuffer), features), "");
  EXPECT_EQ(MissingFeature(AtomicModule(false, spv::StorageClass::Workgroup), features),
            "the Vulkan device lacks shaderSharedInt64Atomics, which the kernel needs for a "
            "64-bit atomic operation on groupshared memory");
  features.shared_float32_atomic_add = true;
  EXPECT_EQ(MissingFeature(AtomicModule(true, spv::StorageClass::Workgroup), features), "");
  EXPECT_EQ(MissingFeature(AtomicModule(true, spv::StorageClass::StorageBuffer), features),
            "the Vulkan device lacks shaderBufferFloat32AtomicAdd, which the kernel needs for a "
            "float atomic operation on a buffer");
}

TEST(VkFeaturesTest, SubgroupCapabilitiesNeedTheirOperations) {
  ShaderFeatures features;
  features.subgroup_operations = VK_SUBGROUP_FEATURE_BASIC_BIT | VK_SUBGROUP_FEATURE_VOTE_BIT;
  std::vector<uint32_t> module =
      ModuleWith({spv::Capability::GroupNonUniform, spv::Capability::GroupNonUniformVote,
                  spv::Capability::GroupNonUniformArithmetic});
  EXPECT_EQ(MissingFeature(module, features),
            "the Vulkan device lacks subgroup arithmetic (VK_SUBGROUP_FEATURE_ARITHMETIC_BIT), "
            "which the kernel needs for capability GroupNonUniformArithmetic");
  features.subgroup_operations |= VK_SUBGROUP_FEATURE_ARITHMETIC_BIT;
  EXPECT_EQ(MissingFeature(module, features), "");
}

TEST(VkFeaturesTest, WaveSizeNeedsASubgroupSizeTheDeviceOffers) {
  driver::EntryPointInfo entry{"main", {64, 1, 1}, 0};
  ShaderFeatures features;
  features.subgroup_size = 32;
  EXPECT_EQ(MissingWaveSize(entry, features), "");  // no [WaveSize]
  // Without VK_EXT_subgroup_size_control only the device's one size runs.
  entry.wave_size = 32;
  EXPECT_EQ(MissingWaveSize(entry, features), "");
  entry.wave_size = 16;
  EXPECT_EQ(MissingWaveSize(entry, features),
            "entry point 'main' has [WaveSize(16)], but the device runs subgroups of 32 and "
            "cannot require another size (no VK_EXT_subgroup_size_control for compute)");
  features.subgroup_size_control = true;
  features.min_subgroup_size = 8;
  features.max_subgroup_size = 32;
  features.max_compute_workgroup_subgroups = 4;
  EXPECT_EQ(MissingWaveSize(entry, features), "");
  entry.wave_size = 64;
  EXPECT_EQ(MissingWaveSize(entry, features),
            "entry point 'main' has [WaveSize(64)], but the device's subgroup sizes are 8 to 32 "
            "(VK_EXT_subgroup_size_control)");
  // 64 threads in subgroups of 8 are 8 subgroups, more than 4.
  entry.wave_size = 8;
  EXPECT_EQ(MissingWaveSize(entry, features),
            "entry point 'main' has [WaveSize(8)] and a thread group of 64 invocations, more "
            "subgroups of that size than the device's maxComputeWorkgroupSubgroups (4)");
}

}  // namespace
}  // namespace slope::runtime::vulkan
