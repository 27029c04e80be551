// Transpose: what each linear instruction of the JVP adds to the adjoints of its
// linear operands, by the Transpose column of ir/insts.def (and of intrinsics.def and
// sync_ops.def for the `intrinsic` and `wave` instructions). See reverser.h.

#include <functional>
#include <string>
#include <vector>

#include "compiler/autodiff/op_rules.h"
#include "compiler/autodiff/reverse/reverser.h"

namespace slope::autodiff::reverse {

void Reverser::Transpose(Inst& inst) {
  b_.SetLoc(inst.loc);
  Op op = inst.GetOp();
  TransposeRule rule = TransposeRuleOf(op);
  switch (rule) {
    case TransposeRule::Call: return TransposeCall(inst);
    case TransposeRule::Store: {
      Value* memory = AdjPtr(inst.operands[0]);
      if (Linear(inst.operands[1])) AddAdj(inst.operands[1], b_.Load(memory));
      b_.Store(memory, Zero(memory->GetType()->Element()));
      return;
    }
    case TransposeRule::Load: return AddToMemory(AdjPtr(inst.operands[0]), Adj(&inst));
    case TransposeRule::Address: return;
    case TransposeRule::None:
    case TransposeRule::Control:
      Error(inst.loc, std::string("'") + ir::GetOpInfo(op).mnemonic + "' in its derivative has no transpose");
      return;
    default: break;
  }
  Value* a = Adj(&inst);
  const ir::Type* t = inst.GetType();
  auto operand = [&](size_t i) { return inst.operands.at(i); };
  switch (rule) {
    case TransposeRule::Sum:
      AddAdj(operand(0), a);
      AddAdj(operand(1), a);
      return;
    case TransposeRule::Difference:
      AddAdj(operand(0), a);
      AddAdj(operand(1), b_.Unary(Op::Neg, a));
      return;
    case TransposeRule::Negate: return AddAdj(operand(0), b_.Unary(Op::Neg, a));
    case TransposeRule::Scale: {
      if (Linear(operand(0)) && Linear(operand(1))) break;
      size_t l = Linear(operand(0)) ? 0 : 1;
      return AddAdj(operand(l), b_.Binary(Op::Mul, a, P(operand(1 - l))));
    }
    case TransposeRule::Divide:
      if (Linear(operand(1))) break;
      return AddAdj(operand(0), b_.Binary(Op::Div, a, P(operand(1))));
    case TransposeRule::Convert:
      if (Diff(operand(0)->GetType()) == nullptr) return;
      return AddAdj(operand(0), b_.Convert(a, operand(0)->GetType()));
    case TransposeRule::LaneSum: return AddAdj(operand(0), LaneSum(a));
    case TransposeRule::Unpack: {
      const ir::Type* ct = operand(0)->GetType();
      if (op == Op::Extract) return AddAdj(operand(0), b_.Emit(Op::Insert, ct, {Zero(ct), a}, inst.imms));
      return AddAdj(operand(0), b_.Emit(Op::InsertDynamic, ct, {Zero(ct), a, P(operand(1))}));
    }
    case TransposeRule::Repack: {
      if (op == Op::Insert) {
        if (Linear(operand(0))) AddAdj(operand(0), b_.Emit(Op::Insert, t, {a, Zero(operand(1)->GetType())}, inst.imms));
        if (Linear(operand(1))) AddAdj(operand(1), b_.Emit(Op::Extract, operand(1)->GetType(), {a}, inst.imms));
        return;
      }
      Value* index = P(operand(2));
      if (Linear(operand(0))) AddAdj(operand(0), b_.Emit(Op::InsertDynamic, t, {a, Zero(t->Element()), index}));
      if (Linear(operand(1))) AddAdj(operand(1), b_.Emit(Op::ExtractDynamic, t->Element(), {a, index}));
      return;
    }
    case TransposeRule::Shuffle: {
      uint32_t n0 = operand(0)->GetType()->Count();
      for (size_t s = 0; s < 2; ++s) {
        if (!Linear(operand(s))) continue;
        const ir::Type* st = operand(s)->GetType();
        Value* acc = Zero(st);
        for (uint32_t k = 0; k < inst.imms.size(); ++k) {
          uint32_t lane = inst.imms[k];
          if ((lane < n0) != (s == 0)) continue;
          uint32_t j = s == 0 ? lane : lane - n0;
          Value* sum = b_.Binary(Op::Add, b_.Extract(acc, j), b_.Extract(a, k));
          acc = b_.Emit(Op::Insert, st, {acc, sum}, {j});
        }
        AddAdj(operand(s), acc);
      }
      return;
    }
    case TransposeRule::Concat: {
      uint32_t offset = 0;
      for (Value* part : inst.operands) {
        uint32_t n = part->GetType()->Count();
        if (!part->GetType()->IsVector()) {
          AddAdj(part, b_.Extract(a, offset));
        } else {
          std::vector<uint32_t> lanes;
          for (uint32_t i = 0; i < n; ++i) lanes.push_back(offset + i);
          AddAdj(part, b_.Shuffle(a, a, lanes));
        }
        offset += part->GetType()->IsVector() ? n : 1;
      }
      return;
    }
    case TransposeRule::Pack:
      for (uint32_t i = 0; i < inst.operands.size(); ++i) AddAdj(operand(i), b_.Extract(a, i));
      return;
    case TransposeRule::Intrinsic: return TransposeIntrinsic(inst, a);
    case TransposeRule::Wave: return TransposeWave(inst, a);
    default: break;
  }
  std::string why = rule == TransposeRule::Scale || rule == TransposeRule::Divide
                        ? " of two values that carry a derivative (not linear in them)"
                        : "";
  Error(inst.loc, std::string("'") + ir::GetOpInfo(op).mnemonic + "'" + why +
                      " in its derivative has no transpose");
}

void Reverser::TransposeIntrinsic(Inst& inst, Value* a) {
  auto which = static_cast<ir::Intrinsic>(inst.imms.at(0));
  Value* x = inst.operands.at(0);
  Value* y = inst.operands.size() > 1 ? inst.operands[1] : nullptr;
  const ir::Type* t = inst.GetType();
  switch (which) {
    case ir::Intrinsic::Dot: {
      if (Linear(x) && Linear(y)) break;
      Value* l = Linear(x) ? x : y;
      Value* other = P(Linear(x) ? y : x);
      return AddAdj(l, b_.Binary(Op::Mul, b_.Splat(a, l->GetType()->Count()), other));
    }
    case ir::Intrinsic::Cross:
      if (Linear(x) && Linear(y)) break;
      if (Linear(x)) AddAdj(x, b_.CallIntrinsic(which, t, {P(y), a}));
      if (Linear(y)) AddAdj(y, b_.CallIntrinsic(which, t, {a, P(x)}));
      return;
    case ir::Intrinsic::Transpose: return AddAdj(x, Transposed(a));
    case ir::Intrinsic::MatMul: {
      if (Linear(x) && Linear(y)) break;
      const ir::Type* xt = x->GetType();
      const ir::Type* yt = y->GetType();
      if (xt->IsMatrix() && yt->IsVector()) {  // M v
        if (Linear(y)) AddAdj(y, MatMul(yt, a, P(x)));
        if (Linear(x)) AddAdj(x, Outer(a, P(y)));
      } else if (xt->IsVector() && yt->IsMatrix()) {  // v M
        if (Linear(x)) AddAdj(x, MatMul(xt, P(y), a));
        if (Linear(y)) AddAdj(y, Outer(P(x), a));
      } else if (xt->IsMatrix() && yt->IsMatrix()) {
        if (Linear(x)) AddAdj(x, MatMul(xt, a, Transposed(P(y))));
        if (Linear(y)) AddAdj(y, MatMul(yt, Transposed(P(x)), a));
      } else {
        // A scalar and a value: the scalar's adjoint is the sum over a * value.
        bool x_scalar = xt->IsScalar();
        Value* s = x_scalar ? x : y;
        Value* v = x_scalar ? y : x;
        if (Linear(v)) AddAdj(v, MatMul(v->GetType(), P(s), a));
        if (Linear(s)) {
          const ir::Type* vt = v->GetType();
          const ir::Type* st = vt->Scalar();
          Value* pv = P(v);
          Value* sum = nullptr;
          if (vt->IsScalar()) sum = b_.Binary(Op::Mul, a, pv);
          if (vt->IsVector()) sum = b_.CallIntrinsic(ir::Intrinsic::Dot, st, {a, pv});
          for (uint32_t r = 0; vt->IsMatrix() && r < vt->Count(); ++r) {
            Value* row = b_.CallIntrinsic(ir::Intrinsic::Dot, st, {b_.Extract(a, r), b_.Extract(pv, r)});
            sum = sum == nullptr ? row : b_.Binary(Op::Add, sum, row);
          }
          AddAdj(s, sum);
        }
      }
      return;
    }
    default: break;
  }
  Error(inst.loc, std::string("the linear use of '") + ir::GetIntrinsicInfo(which).mnemonic +
                      "' in its derivative has no transpose");
}

Inst* Reverser::WaveOp(ir::WaveOp which, const ir::Type* type, std::vector<Value*> operands) {
  return b_.Emit(Op::Wave, type, std::move(operands), {static_cast<uint32_t>(which)});
}

Block* Reverser::EnterLoop(Block* body, Block* merge, Block* cont) {
  Block* head = ctx_.module.AddBlock(bwd_);
  b_.Br(head);
  bwd_->blocks.push_back(head);
  b_.SetInsertBlock(head);
  b_.Loop(body, merge, cont);
  bwd_->blocks.push_back(body);
  b_.SetInsertBlock(body);
  return head;
}

void Reverser::IfThen(Value* cond, const std::function<void()>& then) {
  Block* then_block = ctx_.module.AddBlock(bwd_);
  Block* merge = ctx_.module.AddBlock(bwd_);
  b_.If(cond, then_block, merge, merge);
  bwd_->blocks.push_back(then_block);
  b_.SetInsertBlock(then_block);
  then();
  b_.Br(merge);
  bwd_->blocks.push_back(merge);
  b_.SetInsertBlock(merge);
}

void Reverser::TransposeWave(Inst& inst, Value* a) {
  using W = ir::WaveOp;
  auto which = static_cast<W>(inst.imms.at(0));
  Value* x = inst.operands.at(0);
  const ir::Type* t = a->GetType();
  const ir::Type* u32 = types_.Int(32, false);
  const ir::Type* boolean = types_.Bool();
  switch (ir::GetWaveInfo(which).transpose) {
    case ir::WaveTranspose::Broadcast: return AddAdj(x, WaveOp(W::Sum, t, {a}));
    case ir::WaveTranspose::SuffixSum: {
      // Lane i's x reached the prefix sums of the lanes above it.
      Value* total = WaveOp(W::Sum, t, {a});
      Value* below = WaveOp(W::PrefixSum, t, {a});
      return AddAdj(x, b_.Binary(Op::Sub, b_.Binary(Op::Sub, total, below), a));
    }
    case ir::WaveTranspose::ToFirst: {
      Value* total = WaveOp(W::Sum, t, {a});
      IfThen(WaveOp(W::IsFirstLane, boolean, {}), [&] { AddAdj(x, total); });
      return;
    }
    case ir::WaveTranspose::Scatter: {
      // Lane j's x went to every lane that read lane j. As AccumulateWaveReduced in the
      // core library: each round takes the lowest lane index still unserved, the lanes
      // that read it sum their adjoints and that lane adds the sum; every lane stays in
      // the loop until all are served, so the wave operations see the same lanes.
      Value* lane = P(inst.operands.at(1));
      Inst* done = b_.Var(bwd_, boolean);
      b_.Store(done, ctx_.module.ConstBool(false));
      Block* body = ctx_.module.AddBlock(bwd_);
      Block* cont = ctx_.module.AddBlock(bwd_);
      Block* exit = ctx_.module.AddBlock(bwd_);
      Block* head = EnterLoop(body, exit, cont);
      Value* served = b_.Load(done);
      // A served lane offers 0xFFFFFFFF: lane | (0 - uint(served)).
      Value* all_ones_if_served =
          b_.Binary(Op::Sub, ctx_.module.ConstInt(u32, 0), b_.Convert(served, u32));
      Value* first = WaveOp(W::Min, u32, {b_.Binary(Op::BitOr, lane, all_ones_if_served)});
      Value* mine = b_.Binary(Op::LogicalAnd, b_.Unary(Op::LogicalNot, served),
                              b_.Compare(Op::Eq, lane, first));
      Inst* part = ZeroedVar(t);
      IfThen(mine, [&] { b_.Store(part, a); });
      Value* sum = WaveOp(W::Sum, t, {b_.Load(part)});
      IfThen(b_.Compare(Op::Eq, WaveOp(W::LaneIndex, u32, {}), first), [&] { AddAdj(x, sum); });
      b_.Store(done, b_.Binary(Op::LogicalOr, served, mine));
      b_.CondBr(WaveOp(W::AllTrue, boolean, {b_.Load(done)}), exit, cont);
      bwd_->blocks.push_back(cont);
      b_.SetInsertBlock(cont);
      b_.Br(head);
      bwd_->blocks.push_back(exit);
      b_.SetInsertBlock(exit);
      return;
    }
    case ir::WaveTranspose::None: break;
  }
  Error(inst.loc, std::string("the linear use of wave operation '") +
                      ir::GetWaveInfo(which).mnemonic + "' in its derivative has no transpose");
}

}  // namespace slope::autodiff::reverse
