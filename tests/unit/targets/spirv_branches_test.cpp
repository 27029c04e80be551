// The SPIR-V writer's plans for `if`s (select_arms.h, else_chains.h), on IR text: which
// diamonds become OpSelect and which `else if` chains become a loop that runs once.

#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "compiler/diag/diag.h"
#include "compiler/ir/parser.h"
#include "compiler/targets/spirv/else_chains.h"
#include "compiler/targets/spirv/select_arms.h"

namespace slope::targets::spirv {
namespace {

std::unique_ptr<ir::Module> Parse(const std::string& text) {
  source::SourceManager sources;
  std::ostringstream out;
  diag::DiagEngine diags(sources, out);
  std::unique_ptr<ir::Module> m = ir::ParseModule(sources.AddFile("test.ir", text), diags);
  EXPECT_NE(m, nullptr) << out.str();
  return m;
}

/// A function `pick` whose one diamond has `then_arm` and `else_arm` as arm bodies
/// (each defines %2 or %3 from the parameter %0) passing them to the merge block.
std::string Diamond(const std::string& then_arm, const std::string& else_arm) {
  return "global @outBuf : rwbuffer<i32> set(0) binding(0)\n"
         "func @pick(%0: i32) -> i32 {\n^0:\n  %1 = eq %0, i32 0 : bool\n"
         "  if %1, ^1, ^2, merge ^3\n^1:\n" + then_arm + "  br ^3(%2)\n^2:\n" + else_arm +
         "  br ^3(%3)\n^3(%4: i32):\n  ret %4\n}\n";
}

bool Converted(const std::string& text) {
  std::unique_ptr<ir::Module> m = Parse(text);
  const ir::Function& f = *m->functions.front();
  SelectPlan plan = PlanSelects(f);
  bool converted = plan.Converted(f.blocks[0]);
  if (converted) {
    // The arms and the merge block are written inside the header.
    for (size_t i = 1; i < 4; ++i) EXPECT_EQ(plan.owner.at(f.blocks[i]), f.blocks[0]);
  }
  return converted;
}

TEST(SelectArms, ArmsThatOnlyComputeBecomeSelects) {
  EXPECT_TRUE(Converted(Diamond("  %2 = mul %0, i32 3 : i32\n", "  %3 = add %0, i32 7 : i32\n")));
  // Float division cannot trap; integer division by a zero the program never divided
  // by could.
  EXPECT_TRUE(Converted(
      "func @pick(%0: f32) -> f32 {\n^0:\n  %1 = eq %0, f32 0.0 : bool\n"
      "  if %1, ^1, ^2, merge ^3\n^1:\n  %2 = div f32 1.0, %0 : f32\n  br ^3(%2)\n"
      "^2:\n  %3 = neg %0 : f32\n  br ^3(%3)\n^3(%4: f32):\n  ret %4\n}\n"));
  EXPECT_FALSE(Converted(Diamond("  %2 = mul %0, i32 3 : i32\n", "  %3 = div i32 7, %0 : i32\n")));
}

TEST(SelectArms, ArmsWithMemoryOrCallsStay) {
  EXPECT_FALSE(Converted(Diamond(
      "  %2 = mul %0, i32 3 : i32\n  %5 = element_ptr @outBuf, i32 0 : ptr<storage, i32>\n"
      "  store %5, %2\n",
      "  %3 = add %0, i32 7 : i32\n")));
  EXPECT_FALSE(Converted(Diamond(
      "  %5 = element_ptr @outBuf, i32 0 : ptr<storage, i32>\n  %2 = load %5 : i32\n",
      "  %3 = add %0, i32 7 : i32\n")));
}

/// `n` headers, each testing %0 against k: arm k stores k and passes k on; the last
/// else passes %0. Merge blocks pass their parameter to the one before.
std::string Chain(int n) {
  std::string text = "global @outBuf : rwbuffer<i32> set(0) binding(0)\n"
                     "func @chain(%0: i32) -> i32 {\n";
  int value = 1;
  // Blocks: header k is ^(2k), its arm ^(2k+1); the last else ^(2n); merge k ^(2n+1+k).
  auto merge = [&](int k) { return "^" + std::to_string(2 * n + 1 + k); };
  for (int k = 0; k < n; ++k) {
    std::string c = "%" + std::to_string(value++);
    std::string p = "%" + std::to_string(value++);
    text += "^" + std::to_string(2 * k) + ":\n  " + c + " = eq %0, i32 " + std::to_string(k) +
            " : bool\n  if " + c + ", ^" + std::to_string(2 * k + 1) + ", ^" +
            std::to_string(2 * k + 2) + ", merge " + merge(k) + "\n";
    text += "^" + std::to_string(2 * k + 1) + ":\n  " + p +
            " = element_ptr @outBuf, i32 0 : ptr<storage, i32>\n  store " + p + ", i32 " +
            std::to_string(k) + "\n  br " + merge(k) + "(i32 " +
            std::to_string(k) + ")\n";
  }
  text += "^" + std::to_string(2 * n) + ":\n  br " + merge(n - 1) + "(%0)\n";
  for (int k = n - 1; k >= 0; --k) {
    std::string p = "%" + std::to_string(value++);
    text += merge(k) + "(" + p + ": i32):\n";
    text += k == 0 ? "  ret " + p + "\n" : "  br " + merge(k - 1) + "(" + p + ")\n";
  }
  return text + "}\n";
}

TEST(ElseChains, LongChainsWithSideEffectsBecomeOneLoop) {
  std::unique_ptr<ir::Module> m = Parse(Chain(10));
  const ir::Function& f = *m->functions.front();
  SelectPlan selects = PlanSelects(f);
  EXPECT_TRUE(selects.arms.empty());
  ChainPlan plan = PlanChains(f, selects);
  ASSERT_EQ(plan.chains.size(), 1u);
  const ChainPlan::Chain& chain = plan.chains[0];
  EXPECT_EQ(chain.headers.size(), 10u);
  EXPECT_EQ(chain.exit, f.blocks.back());  // merge 0, written last
  EXPECT_EQ(plan.dropped.size(), 9u);
  // Ten arms and the last else reach the exit, each with its own value.
  ASSERT_EQ(chain.exits.size(), 11u);
  for (size_t e = 0; e < chain.exits.size(); ++e) {
    ASSERT_EQ(chain.exit_values[e].size(), 1u);
    const ir::Value* v = chain.exit_values[e][0];
    if (chain.exits[e].first == f.blocks[20]) {
      EXPECT_EQ(v, f.params[0]);  // the last else passes the parameter
    } else {
      ASSERT_EQ(v->VKind(), ir::ValueKind::Constant);
    }
  }
}

TEST(ElseChains, ShortChainsStay) {
  std::unique_ptr<ir::Module> m = Parse(Chain(static_cast<int>(kMinChain) - 1));
  const ir::Function& f = *m->functions.front();
  EXPECT_TRUE(PlanChains(f, PlanSelects(f)).chains.empty());
}

}  // namespace
}  // namespace slope::targets::spirv
