// The passes on hand-built IR, the pass table, and determinism of the whole pipeline.

#include <gtest/gtest.h>

#include "compiler/driver/compile.h"
#include "compiler/ir/builder.h"
#include "compiler/ir/printer.h"
#include "compiler/ir/verifier.h"
#include "compiler/autodiff/passes.h"
#include "compiler/passes/passes.h"
#include "compiler/targets/spirv/raise.h"

namespace slope::passes {
namespace {

using ir::Block;
using ir::Op;
using ir::Value;

class PassesTest : public ::testing::Test {
 protected:
  /// f(c, a) { x = a; if (c) x = x * 2; else x = -x; return x + 1; } with x a var.
  ir::Function* BuildSelect() {
    ir::Function* f = m_.AddFunction("select", f32_);
    ir::Param* c = m_.AddParam(m_.Types().Bool(), nullptr);
    ir::Param* a = m_.AddParam(f32_, nullptr);
    f->params = {c, a};
    Block* entry = m_.AddBlock(f);
    Block* then_block = m_.AddBlock(f);
    Block* else_block = m_.AddBlock(f);
    Block* merge = m_.AddBlock(f);
    f->blocks = {entry, then_block, else_block, merge};
    b_.SetInsertBlock(entry);
    Value* x = b_.Var(f, f32_);
    b_.Store(x, a);
    b_.If(c, then_block, else_block, merge);
    b_.SetInsertBlock(then_block);
    b_.Store(x, b_.Binary(Op::Mul, b_.Load(x), m_.ConstFloat(f32_, 2.0)));
    b_.Br(merge);
    b_.SetInsertBlock(else_block);
    b_.Store(x, b_.Unary(Op::Neg, b_.Load(x)));
    b_.Br(merge);
    b_.SetInsertBlock(merge);
    b_.Return(b_.Binary(Op::Add, b_.Load(x), m_.ConstFloat(f32_, 1.0)));
    return f;
  }

  ir::Module m_;
  ir::Builder b_{m_};
  const ir::Type* f32_ = m_.Types().Float(32);
};

TEST_F(PassesTest, Mem2RegGivesTheMergeBlockAParameter) {
  ir::Function* f = BuildSelect();
  ASSERT_TRUE(ir::VerifyModule(m_).empty());
  EXPECT_TRUE(Mem2Reg(m_, Options{}).changed);
  EXPECT_TRUE(ir::VerifyModule(m_).empty()) << ir::PrintModule(m_);
  for (const Block* b : f->blocks) {
    for (const ir::Inst* inst : b->insts) {
      EXPECT_NE(inst->GetOp(), Op::Var);
      EXPECT_NE(inst->GetOp(), Op::Load);
      EXPECT_NE(inst->GetOp(), Op::Store);
    }
  }
  ASSERT_EQ(f->blocks[3]->params.size(), 1u);
  EXPECT_EQ(f->blocks[1]->Terminator()->operands.size(), 1u);
  EXPECT_EQ(f->blocks[2]->Terminator()->operands.size(), 1u);
  // Nothing left to promote: a second run changes nothing.
  EXPECT_FALSE(Mem2Reg(m_, Options{}).changed);
}

TEST_F(PassesTest, TheSpirvListLeavesNoMemoryAndReachesAFixedPoint) {
  BuildSelect();
  targets::spirv::Raise(m_);
  std::string once = ir::PrintModule(m_);
  EXPECT_EQ(once.find("var"), std::string::npos) << once;
  for (const PassInfo& pass : AllPasses()) {
    EXPECT_FALSE(pass.run(m_, Options{}).changed) << pass.name << " changed:\n" << once;
  }
  EXPECT_EQ(ir::PrintModule(m_), once);
}

TEST_F(PassesTest, CollectGarbageFreesWhatPassesRemovedAndKeepsTheRest) {
  ir::Function* f = BuildSelect();
  // 3000 instructions nothing uses, and a function no longer in the module's list.
  Block* entry = f->blocks[0];
  ir::Inst* branch = entry->Terminator();
  entry->insts.pop_back();
  b_.SetInsertBlock(entry);
  Value* a = f->params[1];
  for (int i = 0; i < 3000; ++i) a = b_.Binary(Op::Add, a, m_.ConstFloat(f32_, 1.0));
  entry->insts.push_back(branch);
  ir::Function* gone = BuildSelect();
  std::erase(m_.functions, gone);
  ASSERT_TRUE(ir::VerifyModule(m_).empty()) << ir::PrintModule(m_);
  size_t before = m_.DebugValueCount();
  EXPECT_TRUE(EliminateDeadCode(m_, Options{}).changed);
  std::string text_after_dce = ir::PrintModule(m_);
  m_.CollectGarbage();
  EXPECT_LT(m_.DebugValueCount() + 3000, before);
  EXPECT_TRUE(gone->blocks.empty());
  EXPECT_EQ(gone->params.size(), 2u);
  EXPECT_EQ(ir::PrintModule(m_), text_after_dce);
  EXPECT_TRUE(ir::VerifyModule(m_).empty());
  // Little garbage: nothing to do.
  size_t kept = m_.DebugValueCount();
  m_.CollectGarbage();
  EXPECT_EQ(m_.DebugValueCount(), kept);
}

TEST(PassTableTest, EveryPassIsFoundByName) {
  autodiff::RegisterPasses();
  EXPECT_EQ(AllPasses().size(), 16u);
  for (const PassInfo& pass : AllPasses()) EXPECT_EQ(FindPass(pass.name), &pass);
  EXPECT_EQ(FindPass("no-such-pass"), nullptr);
  for (std::string_view name : targets::spirv::RaisePassNames()) {
    EXPECT_NE(FindPass(name), nullptr) << name;
  }
}

TEST(PipelineDeterminismTest, CompilingTwiceGivesIdenticalOutput) {
  const char* source = R"(
RWStructuredBuffer<int> result;
int f(int n) {
    int total = 0;
    for (int i = 0; i < n; i++) {
        if (i % 3 == 0) continue;
        total += i > 5 && n > 2 ? 2 : 1;
        if (total > 40) break;
    }
    int k = 0;
    do { k += 2; } while (k < n);
    return total + k;
}
[shader("compute")] [numthreads(4, 1, 1)]
void main(uint3 tid : SV_DispatchThreadID) { result[tid.x] = f(int(tid.x)); }
)";
  std::vector<std::string> outputs;
  for (driver::StopAfter stop : {driver::StopAfter::Nothing, driver::StopAfter::Nothing,
                                 driver::StopAfter::Ir, driver::StopAfter::Ir}) {
    driver::CompileOptions options;
    options.input_path = "determinism.slang";
    options.source_text = source;
    options.stop_after = stop;
    options.dump_ir_after = stop == driver::StopAfter::Ir ? "dce" : "";
    driver::CompileResult result = driver::Compile(options);
    ASSERT_TRUE(result.ok);
    outputs.push_back(stop == driver::StopAfter::Ir
                          ? result.text
                          : std::string(reinterpret_cast<const char*>(result.spirv.data()),
                                        result.spirv.size() * 4));
  }
  EXPECT_FALSE(outputs[0].empty());
  EXPECT_EQ(outputs[0], outputs[1]);
  EXPECT_NE(outputs[2].find("cond_br"), std::string::npos) << outputs[2];
  EXPECT_EQ(outputs[2], outputs[3]);
}

}  // namespace
}  // namespace slope::passes
