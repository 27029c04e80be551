// The SPIR-V optimizer's pass list (optimize.h): the passes of each level, less those
// whose time is quadratic in a dimension of the module past the size where it would
// dominate a compile; and the module shape those rules read from the words.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "compiler/targets/spirv/optimize.h"

namespace slope::targets::spirv {
namespace {

bool Has(const std::vector<std::string>& flags, const std::string& flag) {
  return std::find(flags.begin(), flags.end(), flag) != flags.end();
}

TEST(OptimizerPassFlagsTest, AnOrdinaryModuleGetsEveryPassOfItsLevel) {
  ModuleShape small{10, 4};
  EXPECT_TRUE(OptimizerPassFlags(OptLevel::O0, small).empty());
  EXPECT_EQ(OptimizerPassFlags(OptLevel::O1, small), OptimizerPassFlags(OptLevel::O1));
  EXPECT_TRUE(Has(OptimizerPassFlags(OptLevel::O1, small), "--ccp"));
  EXPECT_TRUE(Has(OptimizerPassFlags(OptLevel::O2, small), "--ssa-rewrite"));
}

TEST(OptimizerPassFlagsTest, ManyFunctionsLeaveOutCcp) {
  ModuleShape at_limit{kCcpMostFunctions, 0};
  ModuleShape past{kCcpMostFunctions + 1, 0};
  EXPECT_TRUE(Has(OptimizerPassFlags(OptLevel::O1, at_limit), "--ccp"));
  std::vector<std::string> flags = OptimizerPassFlags(OptLevel::O3, past);
  EXPECT_FALSE(Has(flags, "--ccp"));
  EXPECT_TRUE(Has(flags, "--ssa-rewrite"));
  // Only --ccp goes: O1 has it once.
  EXPECT_EQ(flags.size() + 1, OptimizerPassFlags(OptLevel::O3).size());
}

TEST(OptimizerPassFlagsTest, ALargeSwitchLeavesOutSsaRewrite) {
  ModuleShape past{1, kSsaRewriteLargestSwitch + 1};
  for (OptLevel level : {OptLevel::O1, OptLevel::O2, OptLevel::O3}) {
    std::vector<std::string> flags = OptimizerPassFlags(level, past);
    EXPECT_FALSE(Has(flags, "--ssa-rewrite"));
    EXPECT_TRUE(Has(flags, "--ccp"));
  }
}

TEST(OptimizerPassFlagsTest, ALargeModuleRunsEachCleanupOnce) {
  ModuleShape at_limit{1, 0, kFullListMostWords};
  ModuleShape past{1, 0, kFullListMostWords + 1};
  EXPECT_EQ(OptimizerPassFlags(OptLevel::O1, at_limit), OptimizerPassFlags(OptLevel::O1));
  for (OptLevel level : {OptLevel::O1, OptLevel::O2, OptLevel::O3}) {
    std::vector<std::string> flags = OptimizerPassFlags(level, past);
    EXPECT_FALSE(Has(flags, "--ccp"));
    EXPECT_FALSE(Has(flags, "--eliminate-local-single-block"));
    EXPECT_FALSE(Has(flags, "--eliminate-local-single-store"));
    EXPECT_TRUE(Has(flags, "--ssa-rewrite"));
    // Dead code goes once, after every pass that can leave some.
    EXPECT_EQ(std::count(flags.begin(), flags.end(), "--eliminate-dead-code-aggressive"), 1);
    auto adce = std::find(flags.begin(), flags.end(), "--eliminate-dead-code-aggressive");
    auto ssa = std::find(flags.begin(), flags.end(), "--ssa-rewrite");
    EXPECT_LT(ssa - flags.begin(), adce - flags.begin());
  }
}

TEST(OptimizerPassFlagsTest, NoLocalsRunNoPassAtO1) {
  ModuleShape none{3, 0, 400, 0};
  ModuleShape one{3, 0, 400, 1};
  EXPECT_TRUE(OptimizerPassFlags(OptLevel::O1, none).empty());
  EXPECT_EQ(OptimizerPassFlags(OptLevel::O1, one), OptimizerPassFlags(OptLevel::O1));
  EXPECT_EQ(OptimizerPassFlags(OptLevel::O2, none), OptimizerPassFlags(OptLevel::O2));
}

TEST(OptimizerPassFlagsTest, AHugeModuleRunsNoPassAtTheDefaultLevel) {
  ModuleShape at_limit{1, 0, kDefaultLevelMostWords};
  ModuleShape past{1, 0, kDefaultLevelMostWords + 1};
  EXPECT_FALSE(OptimizerPassFlags(OptLevel::O1, at_limit).empty());
  EXPECT_TRUE(OptimizerPassFlags(OptLevel::O1, past).empty());
  // The levels the user asks for keep the list of a large module.
  EXPECT_TRUE(Has(OptimizerPassFlags(OptLevel::O2, past), "--ssa-rewrite"));
  EXPECT_TRUE(Has(OptimizerPassFlags(OptLevel::O3, past), "--eliminate-dead-code-aggressive"));
}

TEST(MeasureModuleTest, CountsFunctionsAndTheLargestSwitch) {
  // A header, then: OpFunction (5 words), an OpSwitch with a default and 3 cases
  // (3 + 2 * 3 words: 4 targets), an OpSwitch with only its default (3 words), and
  // OpFunctionEnd (1 word) and a second OpFunction. Operand values do not matter.
  std::vector<uint32_t> words = {0x07230203, 0x00010300, 0, 100, 0};
  auto inst = [&](uint32_t opcode, uint32_t count) {
    words.push_back(count << 16 | opcode);
    for (uint32_t i = 1; i < count; ++i) words.push_back(i);
  };
  inst(54, 5);   // OpFunction
  inst(251, 9);  // OpSwitch: 1 + 3 targets
  inst(251, 3);  // OpSwitch: the default alone
  inst(56, 1);   // OpFunctionEnd
  inst(54, 5);
  ModuleShape shape = MeasureModule(words);
  EXPECT_EQ(shape.functions, 2u);
  EXPECT_EQ(shape.largest_switch, 4u);
  EXPECT_EQ(shape.words, words.size());
  EXPECT_EQ(shape.local_variables, 0u);
}

TEST(MeasureModuleTest, CountsFunctionAndPrivateVariables) {
  std::vector<uint32_t> words = {0x07230203, 0x00010300, 0, 100, 0};
  auto variable = [&](uint32_t storage) {
    words.insert(words.end(), {4u << 16 | 59u, 1, 2, storage});  // OpVariable
  };
  variable(12);  // StorageBuffer
  variable(6);   // Private
  variable(7);   // Function
  variable(7);
  EXPECT_EQ(MeasureModule(words).local_variables, 3u);
}

}  // namespace
}  // namespace slope::targets::spirv
