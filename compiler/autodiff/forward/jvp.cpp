// Transcribes one function into its JVP: the primal instructions are copied block by
// block, and each is followed by the instructions computing its tangent, by the rule
// insts.def gives its kind. Values without a tangent (integers, constants, results of
// non-differentiable calls) are null in the tangent map and read as zero where a tangent
// is required. Local memory is shadowed: each `var` of a differentiable type gets a
// tangent `var` that loads and stores mirror, so the transform works before and after
// mem2reg alike; block parameters get a tangent parameter and branches pass both.

#include "compiler/autodiff/forward/jvp.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "compiler/autodiff/differential.h"
#include "compiler/autodiff/forward/rules.h"
#include "compiler/autodiff/op_rules.h"
#include "compiler/base/ice.h"
#include "compiler/ir/builder.h"
#include "compiler/ir/cfg.h"

namespace slope::autodiff::forward {

namespace {

using ir::Block;
using ir::Function;
using ir::Inst;
using ir::Op;
using ir::Value;

class Transcriber {
 public:
  Transcriber(const JvpContext& context, Function* f, Function* jvp)
      : ctx_(context), types_(context.module.Types()), f_(f), g_(jvp), b_(context.module) {}

  void Run();
  /// The body of the JVP of a function that is not differentiated: the primal call,
  /// and zero for every tangent output.
  void RunZero();

 private:
  const ir::Type* Diff(const ir::Type* t) { return DifferentialType(types_, t); }
  Value* P(Value* v) const;
  Value* T(Value* v) const;
  /// The tangent of `v`, or a zero of `type` when it has none.
  Value* TOrZero(Value* v, const ir::Type* type) {
    Value* t = T(v);
    return t != nullptr ? t : Zero(type);
  }
  Value* Zero(const ir::Type* type);
  void MapParams();
  Inst* Clone(const Inst& inst);
  void Transcribe(Inst& inst);
  // One handler per DiffRule of insts.def; `r` is the primal copy Transcribe made (the
  // Memory, Call and Control handlers copy the instruction themselves).
  void Linear(Inst& inst);
  void ProductRule(Inst& inst);
  void QuotientRule(Inst& inst, Inst* r);
  void RemainderRule(Inst& inst, Inst* r);
  void ConvertRule(Inst& inst);
  void IntrinsicRule(Inst& inst, Inst* r);
  void MemoryRule(Inst& inst);
  void CallRule(Inst& inst);
  void CallCustom(Inst& inst, Function* custom);
  /// Whether some function names `callee` as its custom backward derivative.
  bool IsCustomBackward(const Function* callee) const {
    return std::any_of(ctx_.module.functions.begin(), ctx_.module.functions.end(),
                       [&](const Function* g) { return g->autodiff.custom_bwd == callee; });
  }
  /// Reports a call of `callee` (which has no derivative) when a derivative would flow
  /// through it: a value argument carries one and its result feeds more than `detach`.
  void CheckNoSilentZero(const Inst& inst, const Function* callee);
  /// The values some instruction other than a `detach` call uses.
  void FindDerivativeUses();
  void AtomicRule(Inst& inst);
  void WaveRule(Inst& inst);
  void Terminator(Inst& inst);
  /// The arguments of an edge into `dest`: each primal argument then its tangent.
  std::vector<Value*> EdgeArgs(const std::vector<Value*>& args, const Block* dest);
  /// Zero-initializes the tangent `var`s once the primal `var`s are placed.
  void FlushVarInits();
  void Bind(Inst& inst, Value* tangent) {
    if (tangent != nullptr) tangent_[&inst] = tangent;
  }

  const JvpContext& ctx_;
  ir::TypeTable& types_;
  Function* f_;
  Function* g_;
  ir::Builder b_;
  std::map<const Value*, Value*> primal_;
  std::map<const Value*, Value*> tangent_;
  /// Whether `load` (of f_) is used only through `no_diff`, computed at the first ask.
  bool OnlyDetached(const Inst* load);
  std::set<const Value*> detached_;      ///< values passed to `no_diff`
  std::set<const Value*> used_plainly_;  ///< values used otherwise
  bool uses_known_ = false;
  std::map<const Block*, Block*> blocks_;
  Value* result_tangent_ = nullptr;  ///< where the result's tangent is stored
  std::set<const Value*> used_attached_;  ///< see FindDerivativeUses
  std::vector<Inst*> var_inits_;     ///< tangent `var`s still to be zeroed
};

Value* Transcriber::P(Value* v) const {
  if (v->VKind() == ir::ValueKind::Constant || v->VKind() == ir::ValueKind::Global) return v;
  auto it = primal_.find(v);
  if (it == primal_.end()) SLOPE_ICE("forward mode: value used before its definition");
  return it->second;
}

Value* Transcriber::T(Value* v) const {
  auto it = tangent_.find(v);
  return it == tangent_.end() ? nullptr : it->second;
}

Value* Transcriber::Zero(const ir::Type* type) { return ZeroOf(b_, *g_, type); }

void Transcriber::MapParams() {
  size_t k = 0;
  for (uint32_t i = 0; i < f_->params.size(); ++i) {
    const ir::Param* p = f_->params[i];
    primal_[p] = g_->params.at(k++);
    if (Diff(p->GetType()) == nullptr) continue;
    // A no_diff parameter keeps its tangent slot, which the body never reads.
    bool no_diff = std::find(f_->autodiff.no_diff_params.begin(), f_->autodiff.no_diff_params.end(),
                             i) != f_->autodiff.no_diff_params.end();
    if (!no_diff) tangent_[p] = g_->params.at(k);
    ++k;
  }
  if (Diff(f_->ResultType()) != nullptr) result_tangent_ = g_->params.at(k++);
  SLOPE_ASSERT(k == g_->params.size());
}

void Transcriber::FindDerivativeUses() {
  // A value is attached when a derivative computed from it can reach an effect: it is
  // an operand of an instruction with an effect (no result, a store, a call, a
  // terminator), of an attached instruction, or an edge argument of an attached block
  // parameter; `zero_derivative` calls (detach) cut the chain. A worklist carries each
  // newly attached value to what it uses, so a long body costs one visit per use (loops
  // pass values back through block parameters).
  std::map<const Value*, std::vector<const Value*>> incoming;  // block parameter -> arguments
  std::vector<const Value*> work;
  auto attach = [&](const Value* v) {
    if (used_attached_.insert(v).second) work.push_back(v);
  };
  auto cut = [](const Inst* inst) {
    return inst->GetOp() == Op::Call && inst->callee->autodiff.zero_derivative;
  };
  for (const Block* b : f_->blocks) {
    for (const Inst* inst : b->insts) {
      if (cut(inst)) continue;
      for (size_t i = 0; i < ir::EdgeCount(*inst); ++i) {
        const auto& args = ir::EdgeArgs(*inst, i);
        const Block* dest = inst->targets.at(i);
        for (size_t k = 0; k < args.size() && k < dest->params.size(); ++k) {
          incoming[dest->params[k]].push_back(args[k]);
        }
      }
    }
  }
  for (const Block* b : f_->blocks) {
    for (const Inst* inst : b->insts) {
      if (cut(inst)) continue;
      Op op = inst->GetOp();
      bool effect =
          inst->GetType()->IsVoid() || op == Op::Store || op == Op::Call || inst->IsTerminator();
      if (effect) {
        for (const Value* v : inst->operands) attach(v);
      }
    }
  }
  while (!work.empty()) {
    const Value* v = work.back();
    work.pop_back();
    if (v->VKind() == ir::ValueKind::Inst) {
      const auto* inst = static_cast<const Inst*>(v);
      if (!cut(inst)) {
        for (const Value* operand : inst->operands) attach(operand);
      }
    } else if (v->VKind() == ir::ValueKind::Param) {
      auto it = incoming.find(v);
      if (it == incoming.end()) continue;
      for (const Value* arg : it->second) attach(arg);
    }
  }
}

void Transcriber::CheckNoSilentZero(const Inst& inst, const Function* callee) {
  if (callee->autodiff.zero_derivative || Diff(inst.GetType()) == nullptr ||
      used_attached_.count(&inst) == 0) {
    return;
  }
  for (Value* v : inst.operands) {
    if (v->GetType()->IsPointer() || T(v) == nullptr) continue;
    if (ctx_.options.diags != nullptr) {
      ctx_.options.diags->Report(diag::DiagId::CallWithoutDerivative, inst.loc, SourceName(*f_),
                                 SourceName(*callee), SourceName(*callee));
    } else {
      SLOPE_ICE("forward mode: the derivative of '" + SourceName(*f_) + "' calls '" +
                callee->Name() +
                "', which has no derivative, with an argument that carries one");
    }
    return;
  }
}

void Transcriber::Run() {
  MapParams();
  FindDerivativeUses();
  for (const Block* b : f_->blocks) {
    Block* nb = ctx_.module.AddBlock(g_);
    g_->blocks.push_back(nb);
    blocks_[b] = nb;
    for (const ir::Param* p : b->params) {
      primal_[p] = ctx_.module.AddParam(p->GetType(), nb);
      nb->params.push_back(static_cast<ir::Param*>(primal_[p]));
      if (const ir::Type* d = Diff(p->GetType())) {
        tangent_[p] = ctx_.module.AddParam(d, nb);
        nb->params.push_back(static_cast<ir::Param*>(tangent_[p]));
      }
    }
  }
  for (const Block* b : f_->blocks) {
    b_.SetInsertBlock(blocks_.at(b));
    for (Inst* inst : b->insts) {
      if (b == f_->blocks.front() && inst->GetOp() != Op::Var) FlushVarInits();
      b_.SetLoc(inst->loc);
      Transcribe(*inst);
    }
  }
}

void Transcriber::RunZero() {
  Block* entry = ctx_.module.AddBlock(g_);
  g_->blocks.push_back(entry);
  b_.SetInsertBlock(entry);
  std::vector<Value*> args;
  size_t k = 0;
  for (const ir::Param* p : f_->params) {
    args.push_back(g_->params.at(k++));
    const ir::Type* d = Diff(p->GetType());
    if (d == nullptr) continue;
    Value* tangent = g_->params.at(k++);
    if (d->IsPointer()) b_.Store(tangent, Zero(d->Element()));
  }
  Inst* result = b_.Call(f_, std::move(args));
  if (k < g_->params.size()) b_.Store(g_->params.at(k), Zero(Diff(f_->ResultType())));
  b_.Return(f_->ResultType()->IsVoid() ? nullptr : result);
}

void Transcriber::FlushVarInits() {
  for (Inst* var : var_inits_) b_.Store(var, Zero(var->GetType()->Element()));
  var_inits_.clear();
}

Inst* Transcriber::Clone(const Inst& inst) {
  std::vector<Value*> operands;
  for (Value* v : inst.operands) operands.push_back(P(v));
  Inst* r = b_.Emit(inst.GetOp(), inst.GetType(), std::move(operands), inst.imms);
  r->callee = inst.callee;
  for (const Block* t : inst.targets) r->targets.push_back(blocks_.at(t));
  if (!inst.GetType()->IsVoid()) primal_[&inst] = r;
  return r;
}

void Transcriber::Transcribe(Inst& inst) {
  switch (DiffRuleOf(inst.GetOp())) {
    case DiffRule::Linear: Clone(inst); return Linear(inst);
    case DiffRule::Product: Clone(inst); return ProductRule(inst);
    case DiffRule::Quotient: return QuotientRule(inst, Clone(inst));
    case DiffRule::Remainder: return RemainderRule(inst, Clone(inst));
    case DiffRule::Intrinsic: return IntrinsicRule(inst, Clone(inst));
    case DiffRule::Zero: Clone(inst); return;
    case DiffRule::Convert: Clone(inst); return ConvertRule(inst);
    case DiffRule::Memory: return MemoryRule(inst);
    case DiffRule::Call: return CallRule(inst);
    case DiffRule::Control: return Terminator(inst);
    case DiffRule::Atomic: Clone(inst); return AtomicRule(inst);
    case DiffRule::Wave: Clone(inst); return WaveRule(inst);
  }
}

void Transcriber::AtomicRule(Inst& inst) {
  // Memory other invocations update concurrently has no tangent to follow: a float
  // atomic in differentiated code needs a custom derivative (integers carry none).
  // Inline SPIR-V is opaque: its float result has no derivative either.
  if (Diff(inst.GetType()) == nullptr) return;
  bool inline_asm = inst.GetOp() == Op::SpirvAsm || inst.GetOp() == Op::SpirvAsmValue;
  passes::ReportError(
      ctx_.options, diag::DiagId::NoForwardDerivative, inst.loc, SourceName(*f_),
      std::string(inline_asm ? "this spirv_asm block of type '" : "this atomic operation on '") +
          inst.GetType()->Name() + "'");
}

void Transcriber::WaveRule(Inst& inst) {
  const ir::WaveInfo& info = ir::GetWaveInfo(static_cast<ir::WaveOp>(inst.imms.at(0)));
  const ir::Type* dt = Diff(inst.GetType());
  if (dt == nullptr || inst.operands.empty() || T(inst.operands[0]) == nullptr) return;
  switch (info.diff) {
    case ir::WaveDiff::Zero: return;
    case ir::WaveDiff::Linear: {
      // Sums and lane reads are linear: the same operation on the tangents, over the
      // same active invocations.
      std::vector<Value*> operands{T(inst.operands[0])};
      for (size_t i = 1; i < inst.operands.size(); ++i) operands.push_back(P(inst.operands[i]));
      return Bind(inst, b_.Emit(Op::Wave, dt, std::move(operands), inst.imms));
    }
    case ir::WaveDiff::None:
      passes::ReportError(ctx_.options, diag::DiagId::NoForwardDerivative, inst.loc,
                          SourceName(*f_),
                          std::string("wave operation '") + info.mnemonic + "' on '" +
                              inst.GetType()->Name() + "'");
      return;
  }
}

void Transcriber::Linear(Inst& inst) {
  const ir::Type* dt = Diff(inst.GetType());
  bool any = false;
  for (Value* v : inst.operands) any = any || T(v) != nullptr;
  if (dt == nullptr || !any) return;
  std::vector<uint32_t> imms = inst.imms;
  std::vector<Value*> operands;
  const ir::Type* base = inst.operands.empty() ? nullptr : inst.operands[0]->GetType();
  bool struct_member = (inst.GetOp() == Op::Extract || inst.GetOp() == Op::Insert) && base->IsStruct();
  if (struct_member) {
    int j = DifferentialMember(types_, base, inst.imms.at(0));
    if (j < 0) {
      // A member without a derivative: an extract has none, an insert leaves the
      // struct's tangent as it was.
      if (inst.GetOp() == Op::Insert) Bind(inst, T(inst.operands[0]));
      return;
    }
    imms = {static_cast<uint32_t>(j)};
  }
  if (inst.GetOp() == Op::MakeStruct && dt != inst.GetType()) {
    // Each member's tangent goes where the differential keeps it; members of the
    // differential no member feeds stay zero.
    operands.assign(dt->Members().size(), nullptr);
    for (size_t i = 0; i < inst.operands.size(); ++i) {
      int j = DifferentialMember(types_, inst.GetType(), static_cast<uint32_t>(i));
      if (j >= 0) operands[static_cast<size_t>(j)] = TOrZero(inst.operands[i], dt->Members()[j]);
    }
    for (size_t j = 0; j < operands.size(); ++j) {
      if (operands[j] == nullptr) operands[j] = Zero(dt->Members()[j]);
    }
    return Bind(inst, b_.Emit(inst.GetOp(), dt, std::move(operands), std::move(imms)));
  }
  for (Value* v : inst.operands) {
    const ir::Type* dv = Diff(v->GetType());
    operands.push_back(dv != nullptr ? TOrZero(v, dv) : P(v));
  }
  Bind(inst, b_.Emit(inst.GetOp(), dt, std::move(operands), std::move(imms)));
}

void Transcriber::ProductRule(Inst& inst) {
  Value* a = inst.operands[0];
  Value* c = inst.operands[1];
  Value* sum = nullptr;
  if (T(a) != nullptr) sum = b_.Binary(Op::Mul, T(a), P(c));
  if (T(c) != nullptr) {
    Value* term = b_.Binary(Op::Mul, P(a), T(c));
    sum = sum == nullptr ? term : b_.Binary(Op::Add, sum, term);
  }
  Bind(inst, sum);
}

void Transcriber::QuotientRule(Inst& inst, Inst* r) {
  // d(a/b) = (da - (a/b) db) / b
  Value* a = inst.operands[0];
  Value* c = inst.operands[1];
  if (T(a) == nullptr && T(c) == nullptr) return;
  Value* numerator = TOrZero(a, inst.GetType());
  if (T(c) != nullptr) numerator = b_.Binary(Op::Sub, numerator, b_.Binary(Op::Mul, r, T(c)));
  Bind(inst, b_.Binary(Op::Div, numerator, P(c)));
}

void Transcriber::RemainderRule(Inst& inst, Inst* r) {
  // fmod(a, b) = a - trunc(a/b) b, and trunc(a/b) = (a - fmod(a, b)) / b.
  Value* a = inst.operands[0];
  Value* c = inst.operands[1];
  if (T(a) == nullptr && T(c) == nullptr) return;
  Value* tangent = TOrZero(a, inst.GetType());
  if (T(c) != nullptr) {
    Value* quotient = b_.Binary(Op::Div, b_.Binary(Op::Sub, P(a), r), P(c));
    tangent = b_.Binary(Op::Sub, tangent, b_.Binary(Op::Mul, quotient, T(c)));
  }
  Bind(inst, tangent);
}

void Transcriber::ConvertRule(Inst& inst) {
  Value* from = inst.operands[0];
  if (T(from) == nullptr || Diff(inst.GetType()) == nullptr) return;
  Bind(inst, b_.Convert(T(from), inst.GetType()));
}

void Transcriber::IntrinsicRule(Inst& inst, Inst* r) {
  std::vector<Value*> args, tangents;
  bool any = false;
  for (Value* v : inst.operands) {
    args.push_back(P(v));
    tangents.push_back(T(v));
    any = any || T(v) != nullptr;
  }
  auto which = static_cast<ir::Intrinsic>(inst.imms.at(0));
  if (any && !IsDifferentiable(which)) {
    // The bits of a value that carries a derivative: `detach` it first.
    passes::ReportError(ctx_.options, diag::DiagId::NoForwardDerivative, inst.loc,
                        SourceName(*f_),
                        std::string("'") + ir::GetIntrinsicInfo(which).mnemonic +
                            "' of a value that carries a derivative");
    return;
  }
  if (any && Diff(inst.GetType()) != nullptr) Bind(inst, IntrinsicTangent(b_, *r, args, tangents));
}

bool Transcriber::OnlyDetached(const Inst* load) {
  if (!uses_known_) {
    uses_known_ = true;
    for (const Block* block : f_->blocks) {
      for (const Inst* inst : block->insts) {
        bool detach = inst->GetOp() == Op::Call && inst->callee != nullptr &&
                      inst->callee->autodiff.zero_derivative && inst->operands.size() == 1;
        for (const Value* v : inst->operands) (detach ? detached_ : used_plainly_).insert(v);
      }
    }
  }
  return detached_.count(load) != 0 && used_plainly_.count(load) == 0;
}

void Transcriber::MemoryRule(Inst& inst) {
  Op op = inst.GetOp();
  if (op == Op::Var) {
    Inst* var = b_.Var(g_, inst.GetType()->Element());
    var->loc = inst.loc;
    primal_[&inst] = var;
    if (const ir::Type* d = Diff(inst.GetType()->Element())) {
      Inst* shadow = b_.Var(g_, d);
      tangent_[&inst] = shadow;
      var_inits_.push_back(shadow);
    }
    return;
  }
  Clone(inst);
  Value* ptr = inst.operands[0];
  if (op == Op::Load) {
    if (T(ptr) != nullptr) return Bind(inst, b_.Load(T(ptr)));
    bool global = ptr->GetType()->IsPointer() &&
                  ptr->GetType()->Space() != ir::AddressSpace::Function;
    if (global && Diff(inst.GetType()) != nullptr && ctx_.options.diags != nullptr &&
        !OnlyDetached(&inst)) {
      ctx_.options.diags->Report(diag::DiagId::GlobalLoadInDerivative, inst.loc, SourceName(*f_));
    }
  } else if (op == Op::Store) {
    if (T(ptr) != nullptr) b_.Store(T(ptr), TOrZero(inst.operands[1], T(ptr)->GetType()->Element()));
  } else if (op == Op::ElementPtr) {
    if (T(ptr) != nullptr) Bind(inst, b_.IndexPtr(T(ptr), P(inst.operands[1])));
  } else if (op == Op::MemberPtr) {
    int j = DifferentialMember(types_, ptr->GetType()->Element(), inst.imms.at(0));
    if (T(ptr) != nullptr && j >= 0) Bind(inst, b_.MemberPtr(T(ptr), static_cast<uint32_t>(j)));
  } else {
    SLOPE_ICE(std::string("forward mode: '") + ir::GetOpInfo(op).mnemonic + "' is not a memory access");
  }
}

void Transcriber::CallRule(Inst& inst) {
  // Differentiated code calls the primal substitute instead (value and derivative).
  Function* callee = inst.callee->autodiff.primal_substitute != nullptr
                         ? inst.callee->autodiff.primal_substitute
                         : inst.callee;
  if (!callee->autodiff.ptr_params.empty()) {
    // A location whose derivative's location is unknown (LiftPtrParams passed the pairs
    // it could trace to the copy of the callee): an error unless no derivative flows
    // from the call (`no_diff f(p)`).
    if (!inst.GetType()->IsVoid() && used_attached_.count(&inst) == 0) {
      Clone(inst);
      return;
    }
    const ir::Type* t = inst.operands.at(callee->autodiff.ptr_params.front().first)->GetType();
    passes::ReportError(ctx_.options, diag::DiagId::DiffPtrUnknownDerivative, inst.loc,
                        SourceName(*f_), t->IsStruct() ? t->StructName() : t->Name(),
                        SourceName(*callee));
    Clone(inst);
    return;
  }
  if (callee->autodiff.custom_fwd != nullptr && !ctx_.for_reverse)
    return CallCustom(inst, callee->autodiff.custom_fwd);
  bool custom = callee->autodiff.custom_fwd != nullptr || callee->autodiff.custom_bwd != nullptr;
  if (ctx_.for_reverse && callee->autodiff.bwd_diff_of != nullptr) {
    // Its transpose would be the backward derivative of a backward derivative.
    passes::ReportError(ctx_.options, diag::DiagId::NoBackwardDerivative, inst.loc, SourceName(*f_),
                        "this call of " + SourceName(*callee) +
                            " would need reverse mode applied twice, which is not supported yet");
    Clone(inst);
    return;
  }
  Function* jvp = callee->autodiff.differentiable || callee->autodiff.fwd_diff_of != nullptr ||
                          callee->autodiff.bwd_diff_of != nullptr || (ctx_.for_reverse && custom)
                      ? ctx_.jvp_of(callee)
                      : nullptr;
  if (jvp == nullptr && f_->autodiff.bwd_diff_of != nullptr && IsCustomBackward(callee)) {
    // A backward derivative differentiated in forward mode (fwd_diff(bwd_diff(f)))
    // calls a custom backward derivative: its derivative must be written too.
    passes::ReportError(ctx_.options, diag::DiagId::NoForwardDerivative, inst.loc,
                        SourceName(*f_),
                        "the custom backward derivative '" + callee->Name() +
                            "' (not [Differentiable])");
    Clone(inst);
    return;
  }
  if (jvp == nullptr) {
    // No derivative flows through the call; what it writes through pointers has none.
    CheckNoSilentZero(inst, callee);
    Clone(inst);
    for (Value* v : inst.operands) {
      if (T(v) != nullptr && v->GetType()->IsPointer()) b_.Store(T(v), Zero(T(v)->GetType()->Element()));
    }
    return;
  }
  std::vector<Value*> args;
  for (Value* v : inst.operands) {
    args.push_back(P(v));
    const ir::Type* d = Diff(v->GetType());
    if (d == nullptr) continue;
    if (d->IsPointer() && T(v) == nullptr) {
      Inst* scratch = b_.Var(g_, d->Element());
      b_.Store(scratch, Zero(d->Element()));
      args.push_back(scratch);
    } else {
      args.push_back(TOrZero(v, d));
    }
  }
  const ir::Type* dr = Diff(callee->ResultType());
  Inst* result_slot = dr != nullptr ? b_.Var(g_, dr) : nullptr;
  if (result_slot != nullptr) args.push_back(result_slot);
  Inst* call = b_.Call(jvp, std::move(args));
  if (!inst.GetType()->IsVoid()) primal_[&inst] = call;
  if (result_slot != nullptr) Bind(inst, b_.Load(result_slot));
}

void Transcriber::CallCustom(Inst& inst, Function* custom) {
  // The custom derivative takes and returns DifferentialPairs: {primal, tangent}.
  std::vector<Value*> args;
  std::vector<std::pair<Value*, Inst*>> copy_back;  // pointer argument, its pair slot
  for (size_t i = 0; i < inst.operands.size(); ++i) {
    Value* v = inst.operands[i];
    const ir::Type* d = Diff(v->GetType());
    const ir::Type* param = custom->params.at(i)->GetType();
    if (d == nullptr || param == v->GetType()) {  // no derivative, or a no_diff parameter
      args.push_back(P(v));
    } else if (d->IsPointer()) {
      const ir::Type* pair = param->Element();
      Inst* slot = b_.Var(g_, pair);
      Value* tangent = T(v) != nullptr ? b_.Load(T(v)) : Zero(d->Element());
      b_.Store(slot, b_.MakeStruct(pair, {b_.Load(P(v)), tangent}));
      args.push_back(slot);
      copy_back.push_back({v, slot});
    } else {
      args.push_back(b_.MakeStruct(param, {P(v), TOrZero(v, d)}));
    }
  }
  Inst* call = b_.Call(custom, std::move(args));
  for (auto& [v, slot] : copy_back) {
    Value* pair = b_.Load(slot);
    b_.Store(P(v), b_.Extract(pair, 0));
    if (T(v) != nullptr) b_.Store(T(v), b_.Extract(pair, 1));
  }
  if (inst.GetType()->IsVoid()) return;
  if (Diff(inst.GetType()) == nullptr) {
    primal_[&inst] = call;
    return;
  }
  primal_[&inst] = b_.Extract(call, 0);
  Bind(inst, b_.Extract(call, 1));
}

std::vector<Value*> Transcriber::EdgeArgs(const std::vector<Value*>& args, const Block* dest) {
  std::vector<Value*> out;
  for (size_t i = 0; i < args.size(); ++i) {
    out.push_back(P(args[i]));
    if (const ir::Type* d = Diff(dest->params.at(i)->GetType())) out.push_back(TOrZero(args[i], d));
  }
  return out;
}

void Transcriber::Terminator(Inst& inst) {
  Op op = inst.GetOp();
  if (op == Op::Return && result_tangent_ != nullptr) {
    b_.Store(result_tangent_, TOrZero(inst.operands.at(0), result_tangent_->GetType()->Element()));
  }
  if (op != Op::Br && op != Op::CondBr) {
    Clone(inst);
    return;
  }
  std::vector<std::vector<Value*>> edges;
  for (size_t i = 0; i < ir::EdgeCount(inst); ++i) {
    edges.push_back(EdgeArgs(ir::EdgeArgs(inst, i), inst.targets[i]));
  }
  Inst* r = op == Op::Br ? b_.Br(blocks_.at(inst.targets[0]))
                         : b_.CondBr(P(inst.operands[0]), blocks_.at(inst.targets[0]),
                                     blocks_.at(inst.targets[1]));
  ir::SetEdgeArgs(*r, edges);
}

}  // namespace

ir::Function* DeclareJvp(ir::Module& module, const ir::Function* f) {
  ir::Function* g = module.AddFunction(f->Name() + ".jvp", f->ResultType());
  // A JVP is differentiable where its function is: fwd_diff(fwd_diff(f)) differentiates it.
  // So are the derivatives the passes write (fwd_diff(bwd_diff(f))).
  g->autodiff.differentiable = f->autodiff.differentiable || f->autodiff.fwd_diff_of != nullptr ||
                               f->autodiff.bwd_diff_of != nullptr;
  ir::TypeTable& types = module.Types();
  for (uint32_t i = 0; i < f->params.size(); ++i) {
    const ir::Param* p = f->params[i];
    // A no_diff parameter stays one in the JVP, its tangent slot too (higher order).
    bool no_diff = std::find(f->autodiff.no_diff_params.begin(), f->autodiff.no_diff_params.end(),
                             i) != f->autodiff.no_diff_params.end();
    if (no_diff) g->autodiff.no_diff_params.push_back(static_cast<uint32_t>(g->params.size()));
    g->params.push_back(module.AddParam(p->GetType(), nullptr));
    if (const ir::Type* d = DifferentialType(types, p->GetType())) {
      if (no_diff) g->autodiff.no_diff_params.push_back(static_cast<uint32_t>(g->params.size()));
      g->params.push_back(module.AddParam(d, nullptr));
    }
  }
  if (const ir::Type* d = DifferentialType(types, f->ResultType())) {
    g->params.push_back(module.AddParam(types.Pointer(ir::AddressSpace::Function, d), nullptr));
  }
  return g;
}

void BuildJvp(const JvpContext& context, ir::Function* f, ir::Function* jvp) {
  Transcriber t(context, f, jvp);
  if (f->autodiff.differentiable || f->autodiff.fwd_diff_of != nullptr ||
      f->autodiff.bwd_diff_of != nullptr) {
    t.Run();
  } else {
    t.RunZero();
  }
}

}  // namespace slope::autodiff::forward
