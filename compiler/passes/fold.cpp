// fold: replaces instructions whose operands are constants by their value, computed
// with the target's semantics: f32 arithmetic in float (IEEE, round to nearest even),
// integers wrapping at their width, shifts and conversions only where SPIR-V defines the
// result. INT_MIN / -1 wraps to INT_MIN (remainder 0). Integer division or remainder by
// zero, shifts by the bit width or more, float-to-int conversions out of range and float
// division by zero are left for the target. Vectors fold lane by lane when every lane is a constant (a constant,
// a `splat` of one or a `make_vector` of them); `extract` also looks through
// `make_vector`, `splat` and `insert`. A folded vector becomes a `splat` or a
// `make_vector` of constants. Branches on constants are left to simplify-cfg.

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

#include "compiler/base/ice.h"
#include "compiler/ir/cfg.h"
#include "compiler/passes/passes.h"

namespace slope::passes {
namespace {

using ir::Block;
using ir::Constant;
using ir::Inst;
using ir::Op;
using ir::Value;

const Constant* AsConstant(const Value* v) {
  return v->VKind() == ir::ValueKind::Constant ? static_cast<const Constant*>(v) : nullptr;
}

const Inst* AsInst(const Value* v, Op op) {
  if (v->VKind() != ir::ValueKind::Inst) return nullptr;
  const auto* inst = static_cast<const Inst*>(v);
  return inst->GetOp() == op ? inst : nullptr;
}

/// The lanes of a scalar or vector value when every one is a constant.
bool ConstantLanes(const Value* v, std::vector<const Constant*>* out) {
  if (const Constant* c = AsConstant(v)) {
    out->push_back(c);
    return true;
  }
  if (const Inst* splat = AsInst(v, Op::Splat)) {
    const Constant* c = AsConstant(splat->operands[0]);
    if (c == nullptr) return false;
    out->insert(out->end(), v->GetType()->Count(), c);
    return true;
  }
  if (const Inst* make = AsInst(v, Op::MakeVector)) {
    for (const Value* part : make->operands) {
      if (!ConstantLanes(part, out)) return false;
    }
    return true;
  }
  return false;
}

/// Lane `lane` of a vector value when it is known without computing anything.
Value* KnownLane(Value* v, uint32_t lane) {
  if (const Inst* make = AsInst(v, Op::MakeStruct)) return make->operands.at(lane);
  if (const Inst* make = AsInst(v, Op::MakeMatrix)) return make->operands.at(lane);
  if (const Inst* splat = AsInst(v, Op::Splat)) return splat->operands[0];
  if (const Inst* make = AsInst(v, Op::MakeVector)) {
    for (Value* part : make->operands) {
      uint32_t n = part->GetType()->Count();
      if (lane < n) return part->GetType()->IsVector() ? KnownLane(part, lane) : part;
      lane -= n;
    }
    return nullptr;
  }
  if (const Inst* insert = AsInst(v, Op::Insert)) {
    return insert->imms[0] == lane ? insert->operands[1] : KnownLane(insert->operands[0], lane);
  }
  return nullptr;
}

class State {
 public:
  State(ir::Module& module, ir::Function& f) : module_(module), f_(f) {}
  bool Run();
  /// One scalar operation on constants (`b` null for unary ones), or null when the
  /// result is left to the target.
  const Constant* FoldScalar(Op op, const ir::Type* result, const Constant* a, const Constant* b);

 private:
  /// The value `inst` computes when it can be known now, else null. New instructions
  /// (a folded vector) go to `before`.
  Value* Fold(Inst* inst, std::vector<Inst*>* before);
  const Constant* FoldFloat(Op op, const ir::Type* result, const Constant* a, const Constant* b);
  const Constant* FoldInt(Op op, const ir::Type* result, const Constant* a, const Constant* b);
  const Constant* FoldBool(Op op, const Constant* a, const Constant* b);
  const Constant* FoldConvert(const ir::Type* to, const Constant* a);
  /// A component-wise intrinsic whose operands' lanes are all constants.
  Value* FoldIntrinsic(Inst* inst, std::vector<Inst*>* before);
  Value* Build(const ir::Type* type, const std::vector<const Constant*>& lanes,
               std::vector<Inst*>* before);
  const Constant* Int(const ir::Type* t, uint64_t v) {
    return AsConstant(module_.ConstInt(t, static_cast<int64_t>(v)));
  }
  const Constant* Bool(bool v) { return AsConstant(module_.ConstBool(v)); }

  ir::Module& module_;
  ir::Function& f_;
};

const Constant* State::FoldFloat(Op op, const ir::Type* result, const Constant* a,
                                 const Constant* b) {
  bool single = a->GetType()->Width() == 32;
  double x = a->AsDouble();
  double y = b != nullptr ? b->AsDouble() : 0.0;
  auto make = [&](double v) { return AsConstant(module_.ConstFloat(result, v)); };
  // f32 results are computed in float: the double of a float operand is exact and the
  // float operation rounds once.
  auto arith = [&](auto fn) {
    return single ? make(static_cast<double>(fn(static_cast<float>(x), static_cast<float>(y))))
                  : make(fn(x, y));
  };
  // Only the operations dispatched here by Fold's exhaustive switch reach this point.
  if (op == Op::Add) return arith([](auto p, auto q) { return p + q; });
  if (op == Op::Sub) return arith([](auto p, auto q) { return p - q; });
  if (op == Op::Mul) return arith([](auto p, auto q) { return p * q; });
  if (op == Op::Div || op == Op::Rem) {
    if (y == 0.0 || !std::isfinite(y)) return nullptr;
    if (op == Op::Div) return arith([](auto p, auto q) { return p / q; });
    return arith([](auto p, auto q) { return std::fmod(p, q); });
  }
  if (op == Op::Neg) return make(-x);
  // Ordered comparisons, except `ne`, which is true when either side is NaN.
  if (op == Op::Eq) return Bool(x == y);
  if (op == Op::Ne) return Bool(x != y);
  if (op == Op::Lt) return Bool(x < y);
  if (op == Op::Le) return Bool(x <= y);
  if (op == Op::Gt) return Bool(x > y);
  if (op == Op::Ge) return Bool(x >= y);
  return nullptr;
}

const Constant* State::FoldInt(Op op, const ir::Type* result, const Constant* a,
                               const Constant* b) {
  const ir::Type* t = a->GetType();
  uint32_t w = t->Width();
  bool is_signed = t->IsSigned();
  uint64_t x = a->Bits(), y = b != nullptr ? b->Bits() : 0;
  int64_t sx = a->AsSigned(), sy = b != nullptr ? b->AsSigned() : 0;
  int64_t min = w >= 64 ? INT64_MIN : -(int64_t{1} << (w - 1));
  // INT_MIN / -1 overflows: it folds to the wrapped result (INT_MIN, remainder 0), as the
  // hardware computes it, rather than reaching an optimizer that traps on it.
  bool div_overflow = is_signed && sx == min && sy == -1;
  if (op == Op::Add) return Int(result, x + y);
  if (op == Op::Sub) return Int(result, x - y);
  if (op == Op::Mul) return Int(result, x * y);
  if (op == Op::Div || op == Op::Rem) {
    if (y == 0) return nullptr;
    if (div_overflow) return Int(result, op == Op::Div ? x : 0);
    if (op == Op::Div) return Int(result, is_signed ? static_cast<uint64_t>(sx / sy) : x / y);
    return Int(result, is_signed ? static_cast<uint64_t>(sx % sy) : x % y);
  }
  if (op == Op::Neg) return Int(result, 0 - x);
  if (op == Op::BitAnd) return Int(result, x & y);
  if (op == Op::BitOr) return Int(result, x | y);
  if (op == Op::BitXor) return Int(result, x ^ y);
  if (op == Op::BitNot) return Int(result, ~x);
  if (op == Op::Shl || op == Op::Shr) {
    if (y >= w) return nullptr;  // undefined in SPIR-V
    if (op == Op::Shl) return Int(result, x << y);
    return Int(result, is_signed ? static_cast<uint64_t>(sx >> y) : x >> y);
  }
  if (op == Op::Eq) return Bool(x == y);
  if (op == Op::Ne) return Bool(x != y);
  if (op == Op::Lt) return Bool(is_signed ? sx < sy : x < y);
  if (op == Op::Le) return Bool(is_signed ? sx <= sy : x <= y);
  if (op == Op::Gt) return Bool(is_signed ? sx > sy : x > y);
  if (op == Op::Ge) return Bool(is_signed ? sx >= sy : x >= y);
  return nullptr;
}

const Constant* State::FoldBool(Op op, const Constant* a, const Constant* b) {
  bool x = a->Bits() != 0, y = b != nullptr && b->Bits() != 0;
  if (op == Op::LogicalAnd) return Bool(x && y);
  if (op == Op::LogicalOr) return Bool(x || y);
  if (op == Op::LogicalNot) return Bool(!x);
  if (op == Op::Eq) return Bool(x == y);
  if (op == Op::Ne) return Bool(x != y);
  return nullptr;
}

const Constant* State::FoldConvert(const ir::Type* to, const Constant* a) {
  const ir::Type* from = a->GetType();
  if (to->IsBool()) {
    return Bool(from->IsFloat() ? a->AsDouble() != 0.0 : a->Bits() != 0);
  }
  if (from->IsBool()) {
    return to->IsFloat() ? AsConstant(module_.ConstFloat(to, a->Bits() != 0 ? 1.0 : 0.0))
                         : Int(to, a->Bits());
  }
  if (from->IsInt() && to->IsInt()) return Int(to, static_cast<uint64_t>(a->AsSigned()));
  if (from->IsInt() && to->IsFloat()) {
    // One rounding, straight to the target width.
    double v = 0.0;
    if (to->Width() == 32) {
      v = from->IsSigned() ? static_cast<double>(static_cast<float>(a->AsSigned()))
                           : static_cast<double>(static_cast<float>(a->Bits()));
    } else {
      v = from->IsSigned() ? static_cast<double>(a->AsSigned()) : static_cast<double>(a->Bits());
    }
    return AsConstant(module_.ConstFloat(to, v));
  }
  if (from->IsFloat() && to->IsInt()) {
    double v = std::trunc(a->AsDouble());
    uint32_t w = to->Width();
    if (!std::isfinite(v)) return nullptr;
    double lo = to->IsSigned() ? -std::ldexp(1.0, static_cast<int>(w) - 1) : 0.0;
    double hi = to->IsSigned() ? std::ldexp(1.0, static_cast<int>(w) - 1)
                               : std::ldexp(1.0, static_cast<int>(w));
    if (v < lo || v >= hi) return nullptr;  // undefined in SPIR-V: left alone
    return Int(to, to->IsSigned() ? static_cast<uint64_t>(static_cast<int64_t>(v))
                                  : static_cast<uint64_t>(v));
  }
  // float to float: widening is exact, narrowing rounds once.
  return AsConstant(module_.ConstFloat(to, a->AsDouble()));
}

const Constant* State::FoldScalar(Op op, const ir::Type* result, const Constant* a,
                                  const Constant* b) {
  if (op == Op::Convert) return FoldConvert(result, a);
  const ir::Type* t = a->GetType();
  if (t->IsFloat()) return FoldFloat(op, result, a, b);
  if (t->IsInt()) return FoldInt(op, result, a, b);
  return FoldBool(op, a, b);
}

Value* State::Build(const ir::Type* type, const std::vector<const Constant*>& lanes,
                    std::vector<Inst*>* before) {
  if (!type->IsVector()) return const_cast<Constant*>(lanes.at(0));
  bool same =
      std::all_of(lanes.begin(), lanes.end(), [&](const Constant* c) { return c == lanes[0]; });
  Inst* inst = module_.NewInst(same ? Op::Splat : Op::MakeVector, type);
  if (same) {
    inst->operands = {const_cast<Constant*>(lanes[0])};
  } else {
    for (const Constant* c : lanes) inst->operands.push_back(const_cast<Constant*>(c));
  }
  before->push_back(inst);
  return inst;
}

Value* State::FoldIntrinsic(Inst* inst, std::vector<Inst*>* before) {
  auto which = static_cast<ir::Intrinsic>(inst->imms[0]);
  ir::IntrinsicSig sig = ir::GetIntrinsicInfo(which).sig;
  if (sig == ir::IntrinsicSig::FloatScalar || sig == ir::IntrinsicSig::Refract ||
      sig == ir::IntrinsicSig::Bits || sig == ir::IntrinsicSig::F32ToF16 ||
      sig == ir::IntrinsicSig::F16ToF32 || sig == ir::IntrinsicSig::MatMul ||
      sig == ir::IntrinsicSig::Transpose || sig == ir::IntrinsicSig::Determinant) {
    return nullptr;  // not component-wise
  }
  std::vector<std::vector<const Constant*>> operands(inst->operands.size());
  for (size_t i = 0; i < operands.size(); ++i) {
    if (!ConstantLanes(inst->operands[i], &operands[i])) return nullptr;
  }
  std::vector<const Constant*> out;
  for (size_t lane = 0; lane < operands[0].size(); ++lane) {
    std::vector<const Constant*> args;
    for (const auto& o : operands) args.push_back(o[lane]);
    const Constant* c = FoldIntrinsicLane(module_, which, inst->GetType()->Scalar(), args);
    if (c == nullptr) return nullptr;
    out.push_back(c);
  }
  return Build(inst->GetType(), out, before);
}

Value* State::Fold(Inst* inst, std::vector<Inst*>* before) {
  const ir::Type* type = inst->GetType();
  auto lanewise = [&](size_t arity) -> Value* {
    std::vector<const Constant*> a, b, out;
    if (!ConstantLanes(inst->operands[0], &a)) return nullptr;
    if (arity == 2 && !ConstantLanes(inst->operands[1], &b)) return nullptr;
    for (size_t i = 0; i < a.size(); ++i) {
      const Constant* c =
          FoldScalar(inst->GetOp(), type->Scalar(), a[i], arity == 2 ? b[i] : nullptr);
      if (c == nullptr) return nullptr;
      out.push_back(c);
    }
    return Build(type, out, before);
  };
  switch (inst->GetOp()) {
    case Op::Add: case Op::Sub: case Op::Mul: case Op::Div: case Op::Rem:
    case Op::BitAnd: case Op::BitOr: case Op::BitXor: case Op::Shl: case Op::Shr:
    case Op::LogicalAnd: case Op::LogicalOr:
    case Op::Eq: case Op::Ne: case Op::Lt: case Op::Le: case Op::Gt: case Op::Ge:
      return lanewise(2);
    case Op::Neg: case Op::BitNot: case Op::LogicalNot: case Op::Convert:
      return lanewise(1);
    case Op::Extract:
      return KnownLane(inst->operands[0], inst->imms[0]);
    case Op::ExtractDynamic: {
      const Constant* index = AsConstant(inst->operands[1]);
      if (index == nullptr || index->Bits() >= inst->operands[0]->GetType()->Count())
        return nullptr;
      return KnownLane(inst->operands[0], static_cast<uint32_t>(index->Bits()));
    }
    case Op::Shuffle: {
      std::vector<const Constant*> a, out;
      if (!ConstantLanes(inst->operands[0], &a) || !ConstantLanes(inst->operands[1], &a))
        return nullptr;
      for (uint32_t lane : inst->imms) out.push_back(a.at(lane));
      return Build(type, out, before);
    }
    case Op::Intrinsic:
      return FoldIntrinsic(inst, before);
    case Op::MakeVector: case Op::Splat: case Op::Insert: case Op::InsertDynamic:
    case Op::MakeStruct: case Op::MakeArray: case Op::MakeMatrix: case Op::MemberPtr:
    case Op::Call: case Op::Var: case Op::Load: case Op::Store:
    case Op::ElementPtr: case Op::Br: case Op::CondBr: case Op::If: case Op::Loop: case Op::Switch:
    case Op::Return: case Op::Unreachable:
    case Op::Atomic: case Op::Barrier: case Op::Wave: case Op::Printf: case Op::BufferInfo:
    case Op::PtrOffset: case Op::PtrCast:
    case Op::Texture:
    case Op::SpirvAsm:
    case Op::SpirvAsmValue:
      return nullptr;
  }
  return nullptr;
}

bool State::Run() {
  if (f_.blocks.empty()) return false;
  std::map<const Value*, Value*> replace;
  auto resolve = [&](Value* v) {
    for (auto it = replace.find(v); it != replace.end(); it = replace.find(v)) v = it->second;
    return v;
  };
  // Blocks in dominance order see their operands folded first; the rest in block order.
  ir::DomTree dom(f_);
  std::vector<Block*> order = dom.ReversePostOrder();
  for (Block* b : f_.blocks) {
    if (!dom.IsReachable(b)) order.push_back(b);
  }
  for (Block* b : order) {
    std::vector<Inst*> insts;
    for (Inst* inst : b->insts) {
      for (Value*& v : inst->operands) v = resolve(v);
      std::vector<Inst*> before;
      Value* folded = Fold(inst, &before);
      for (Inst* made : before) {
        made->block = b;
        made->loc = inst->loc;
        insts.push_back(made);
      }
      if (folded != nullptr && folded != inst) {
        replace[inst] = folded;
        continue;
      }
      insts.push_back(inst);
    }
    b->insts = std::move(insts);
  }
  ir::ReplaceUses(f_, replace);
  return !replace.empty();
}

}  // namespace

const ir::Constant* FoldScalarOp(ir::Module& module, ir::Op op, const ir::Type* result,
                                 const ir::Constant* a, const ir::Constant* b) {
  switch (op) {
    case Op::Add: case Op::Sub: case Op::Mul: case Op::Div: case Op::Rem:
    case Op::BitAnd: case Op::BitOr: case Op::BitXor: case Op::Shl: case Op::Shr:
    case Op::LogicalAnd: case Op::LogicalOr:
    case Op::Eq: case Op::Ne: case Op::Lt: case Op::Le: case Op::Gt: case Op::Ge:
      if (b == nullptr) return nullptr;
      break;
    case Op::Neg: case Op::BitNot: case Op::LogicalNot: case Op::Convert:
      break;
    case Op::MakeVector: case Op::Splat: case Op::Extract: case Op::ExtractDynamic:
    case Op::Insert: case Op::InsertDynamic: case Op::Shuffle: case Op::MakeStruct:
    case Op::MakeArray: case Op::MakeMatrix: case Op::Intrinsic: case Op::Call: case Op::Var: case Op::Load: case Op::Store:
    case Op::ElementPtr: case Op::MemberPtr: case Op::Br: case Op::CondBr: case Op::If:
    case Op::Loop: case Op::Switch: case Op::Return: case Op::Unreachable:
    case Op::Atomic: case Op::Barrier: case Op::Wave: case Op::Printf: case Op::BufferInfo:
    case Op::PtrOffset: case Op::PtrCast:
    case Op::Texture:
    case Op::SpirvAsm:
    case Op::SpirvAsmValue:
      return nullptr;
  }
  ir::Function scratch("", module.Types().Void());  // FoldScalar uses no function
  return State(module, scratch).FoldScalar(op, result, a, b);
}

Result FoldConstants(ir::Module& module, const Options& options) {
  return ForEachFunction(module, [&](ir::Function& f) { return State(module, f).Run(); });
}

}  // namespace slope::passes
