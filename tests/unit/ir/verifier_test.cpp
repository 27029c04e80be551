#include <gtest/gtest.h>

#include "compiler/ir/builder.h"
#include "compiler/ir/printer.h"
#include "compiler/ir/verifier.h"

namespace slope::ir {
namespace {

bool HasError(const Module& m, const std::string& needle) {
  for (const std::string& e : VerifyModule(m)) {
    if (e.find(needle) != std::string::npos) return true;
  }
  return false;
}

class VerifierTest : public ::testing::Test {
 protected:
  Module m_;
  Builder b_{m_};
  const Type* f32_ = m_.Types().Float(32);
  const Type* i32_ = m_.Types().Int(32, true);
};

TEST_F(VerifierTest, IfEdgeIntoBlockWithParametersIsReported) {
  Function* f = m_.AddFunction("f", f32_);
  Param* x = m_.AddParam(f32_, nullptr);
  f->params.push_back(x);
  Block* entry = m_.AddBlock(f);
  Block* then_block = m_.AddBlock(f);
  Block* merge = m_.AddBlock(f);
  f->blocks = {entry, then_block, merge};
  Param* merged = m_.AddParam(f32_, merge);
  merge->params.push_back(merged);
  b_.SetInsertBlock(entry);
  Value* c = b_.Compare(Op::Gt, x, m_.ConstFloat(f32_, 0.0));
  b_.If(c, then_block, merge, merge);
  b_.SetInsertBlock(then_block);
  Value* twice = b_.Binary(Op::Add, x, x);
  b_.Br(merge, {twice});
  b_.SetInsertBlock(merge);
  b_.Return(merged);
  // The else edge passes no argument to a block that takes one: an error.
  EXPECT_TRUE(HasError(m_, "if targets take no parameters") || !VerifyModule(m_).empty());
}

TEST_F(VerifierTest, StraightLineCodePassesAndPrints) {
  Function* f = m_.AddFunction("g", f32_);
  Param* x = m_.AddParam(f32_, nullptr);
  f->params.push_back(x);
  Block* entry = m_.AddBlock(f);
  f->blocks = {entry};
  b_.SetInsertBlock(entry);
  Value* slot = b_.Var(f, f32_);
  b_.Store(slot, x);
  Value* y = b_.Binary(Op::Mul, b_.Load(slot), m_.ConstFloat(f32_, 2.5));
  b_.Return(y);
  EXPECT_TRUE(VerifyModule(m_).empty());
  std::string text = PrintModule(m_);
  EXPECT_NE(text.find("func @g(%0: f32) -> f32 {"), std::string::npos) << text;
  EXPECT_NE(text.find("mul %2, f32 2.5 : f32"), std::string::npos) << text;
}

TEST_F(VerifierTest, TypeMismatchIsReported) {
  Function* f = m_.AddFunction("h", i32_);
  Block* entry = m_.AddBlock(f);
  f->blocks = {entry};
  b_.SetInsertBlock(entry);
  Inst* bad = b_.Emit(Op::Add, i32_, {m_.ConstInt(i32_, 1), m_.ConstFloat(f32_, 1.0)});
  b_.Return(bad);
  EXPECT_TRUE(HasError(m_, "operands must match a numeric result type"));
}

TEST_F(VerifierTest, MissingTerminatorIsReported) {
  Function* f = m_.AddFunction("k", m_.Types().Void());
  Block* entry = m_.AddBlock(f);
  f->blocks = {entry};
  b_.SetInsertBlock(entry);
  b_.Binary(Op::Add, m_.ConstInt(i32_, 1), m_.ConstInt(i32_, 2));
  EXPECT_TRUE(HasError(m_, "does not end with a terminator"));
}

TEST_F(VerifierTest, UseNotDominatedByDefinitionIsReported) {
  Function* f = m_.AddFunction("d", i32_);
  Param* p = m_.AddParam(m_.Types().Bool(), nullptr);
  f->params.push_back(p);
  Block* entry = m_.AddBlock(f);
  Block* a = m_.AddBlock(f);
  Block* b = m_.AddBlock(f);
  Block* merge = m_.AddBlock(f);
  f->blocks = {entry, a, b, merge};
  b_.SetInsertBlock(entry);
  b_.If(p, a, b, merge);
  b_.SetInsertBlock(a);
  Value* only_in_a = b_.Binary(Op::Add, m_.ConstInt(i32_, 1), m_.ConstInt(i32_, 2));
  b_.Br(merge);
  b_.SetInsertBlock(b);
  b_.Br(merge);
  b_.SetInsertBlock(merge);
  b_.Return(only_in_a);
  EXPECT_TRUE(HasError(m_, "does not dominate"));
}

TEST_F(VerifierTest, BranchArgumentsMustMatchBlockParameters) {
  Function* f = m_.AddFunction("p", i32_);
  Block* entry = m_.AddBlock(f);
  Block* next = m_.AddBlock(f);
  f->blocks = {entry, next};
  Param* q = m_.AddParam(i32_, next);
  next->params.push_back(q);
  b_.SetInsertBlock(entry);
  b_.Br(next, {});
  b_.SetInsertBlock(next);
  b_.Return(q);
  EXPECT_TRUE(HasError(m_, "br argument count"));
}

TEST_F(VerifierTest, StoreIntoReadOnlyBufferIsReported) {
  Global* g = m_.AddGlobal(m_.Types().Buffer(f32_, false), "input");
  Function* f = m_.AddFunction("s", m_.Types().Void());
  Block* entry = m_.AddBlock(f);
  f->blocks = {entry};
  b_.SetInsertBlock(entry);
  Value* ptr = b_.ElementPtr(g, m_.ConstInt(i32_, 0));
  b_.Store(ptr, m_.ConstFloat(f32_, 1.0));
  b_.Return();
  EXPECT_TRUE(HasError(m_, "store into a read-only buffer"));
}

TEST_F(VerifierTest, CondBrArgumentsMustMatchEachTarget) {
  Function* f = m_.AddFunction("c", i32_);
  Param* x = m_.AddParam(i32_, nullptr);
  f->params.push_back(x);
  Block* entry = m_.AddBlock(f);
  Block* yes = m_.AddBlock(f);
  Block* no = m_.AddBlock(f);
  f->blocks = {entry, yes, no};
  Param* got = m_.AddParam(i32_, no);
  no->params.push_back(got);
  b_.SetInsertBlock(entry);
  Inst* br = b_.CondBr(b_.Compare(Op::Gt, x, m_.ConstInt(i32_, 0)), yes, no);
  b_.SetInsertBlock(yes);
  b_.Return(x);
  b_.SetInsertBlock(no);
  b_.Return(got);
  // The false edge passes nothing to a block that takes one value.
  EXPECT_TRUE(HasError(m_, "cond_br argument count differs from the targets' parameters"));
  br->operands.push_back(m_.ConstFloat(f32_, 1.0));
  EXPECT_TRUE(HasError(m_, "cond_br argument type"));
  br->operands.back() = x;
  EXPECT_TRUE(VerifyModule(m_).empty());
  // Both edges into one block with parameters would make one OpPhi entry ambiguous.
  br->targets[0] = no;
  br->operands.push_back(x);
  EXPECT_TRUE(HasError(m_, "cond_br cannot pass arguments to the same block twice"));
}

TEST_F(VerifierTest, NothingBranchesToTheEntryBlock) {
  Function* f = m_.AddFunction("e", m_.Types().Void());
  Block* entry = m_.AddBlock(f);
  Block* next = m_.AddBlock(f);
  f->blocks = {entry, next};
  b_.SetInsertBlock(entry);
  b_.Br(next);
  b_.SetInsertBlock(next);
  b_.Br(entry);
  EXPECT_TRUE(HasError(m_, "no branch may target the entry block"));
}

TEST_F(VerifierTest, TypesAreInterned) {
  EXPECT_EQ(m_.Types().Vector(f32_, 3), m_.Types().Vector(m_.Types().Float(32), 3));
  EXPECT_NE(m_.Types().Vector(f32_, 3), m_.Types().Vector(f32_, 4));
  EXPECT_EQ(m_.ConstInt(i32_, 7), m_.ConstInt(i32_, 7));
  EXPECT_EQ(m_.Types().Vector(f32_, 1), f32_);
}

TEST_F(VerifierTest, TwoConstructsCannotShareAMergeBlock) {
  // Two selections, one nested in the other's then arm, both merging at `merge`.
  Function* f = m_.AddFunction("s", m_.Types().Void());
  Param* p = m_.AddParam(m_.Types().Bool(), nullptr);
  f->params.push_back(p);
  Block* entry = m_.AddBlock(f);
  Block* a = m_.AddBlock(f);
  Block* inner = m_.AddBlock(f);
  Block* merge = m_.AddBlock(f);
  f->blocks = {entry, a, inner, merge};
  b_.SetInsertBlock(entry);
  b_.If(p, a, merge, merge);
  b_.SetInsertBlock(a);
  b_.If(p, inner, merge, merge);
  b_.SetInsertBlock(inner);
  b_.Br(merge);
  b_.SetInsertBlock(merge);
  b_.Return();
  EXPECT_TRUE(HasError(m_, "already the merge block of another construct"));
}

TEST_F(VerifierTest, HeaderMustDominateItsMergeBlock) {
  // `late` names `early` (which runs before it) as its merge block.
  Function* f = m_.AddFunction("h", m_.Types().Void());
  Param* p = m_.AddParam(m_.Types().Bool(), nullptr);
  f->params.push_back(p);
  Block* entry = m_.AddBlock(f);
  Block* early = m_.AddBlock(f);
  Block* late = m_.AddBlock(f);
  Block* t = m_.AddBlock(f);
  Block* end = m_.AddBlock(f);
  f->blocks = {entry, early, late, t, end};
  b_.SetInsertBlock(entry);
  b_.Br(early);
  b_.SetInsertBlock(early);
  b_.Br(late);
  b_.SetInsertBlock(late);
  b_.If(p, t, end, early);
  b_.SetInsertBlock(t);
  b_.Br(end);
  b_.SetInsertBlock(end);
  b_.Return();
  EXPECT_TRUE(HasError(m_, "the header does not dominate its merge block"));
}

TEST_F(VerifierTest, BackEdgesGoToLoopHeaders) {
  // A cycle without a `loop`: `body` branches back to `head`, which dominates it.
  Function* f = m_.AddFunction("c", m_.Types().Void());
  Block* entry = m_.AddBlock(f);
  Block* head = m_.AddBlock(f);
  Block* body = m_.AddBlock(f);
  f->blocks = {entry, head, body};
  b_.SetInsertBlock(entry);
  b_.Br(head);
  b_.SetInsertBlock(head);
  b_.Br(body);
  b_.SetInsertBlock(body);
  b_.Br(head);
  EXPECT_TRUE(HasError(m_, "a back edge must go to a loop header"));
}

}  // namespace
}  // namespace slope::ir
