// The forward-mode pass: writes the body of every function lowering made for a
// `fwd_diff(f)` (marked `fwd_diff(@f)`, empty until now), and the JVP of every function
// those reach. A function differentiated that has no body yet gets it first: a
// `bwd_diff(@f)` one from the reverse-mode writer (fwd_diff(bwd_diff(f)): the Hessian
// times a vector). See compiler/autodiff/README.md.

#include <map>
#include <memory>
#include <utility>
#include <vector>

#include "compiler/autodiff/differential.h"
#include "compiler/autodiff/forward/jvp.h"
#include "compiler/autodiff/reverse/reverse.h"
#include "compiler/base/ice.h"
#include "compiler/ir/builder.h"
#include "compiler/autodiff/passes.h"

namespace slope::autodiff {

namespace {

using passes::Options;
using passes::Result;

using autodiff::DifferentialType;
using ir::Function;
using ir::Value;

class State {
 public:
  State(ir::Module& module, const Options& options)
      : module_(module),
        options_(options),
        context_{module, options, [this](Function* f) { return Jvp(f); }} {}

  bool Run() {
    LiftPtrParams(module_);
    std::vector<Function*> pending;
    for (Function* f : module_.functions) {
      if (f->autodiff.fwd_diff_of != nullptr && f->blocks.empty()) pending.push_back(f);
    }
    for (Function* f : pending) FillPairForm(f);
    // Building one JVP may request more; each is built once.
    for (size_t i = 0; i < queue_.size(); ++i) Ensure(queue_[i].second);
    return !pending.empty();
  }

 private:
  /// The split-form JVP of `f`, declared and queued on first request.
  Function* Jvp(Function* f) {
    auto [it, inserted] = jvps_.emplace(f, nullptr);
    if (inserted) {
      it->second = autodiff::forward::DeclareJvp(module_, f);
      queue_.push_back({f, it->second});
      primal_of_[it->second] = f;
    }
    return it->second;
  }

  /// Gives `f` its body when a pass has declared it without one yet: a pair form, a
  /// queued JVP (its function's body first), or a backward derivative (written by the
  /// reverse-mode writer, for fwd_diff(bwd_diff(f))).
  void Ensure(Function* f) {
    if (!f->blocks.empty()) return;
    if (f->autodiff.fwd_diff_of != nullptr) return FillPairForm(f);
    if (f->autodiff.bwd_diff_of != nullptr) return Backward().Write(f);
    auto it = primal_of_.find(f);
    if (it == primal_of_.end()) return;
    Function* primal = it->second;
    Ensure(primal);
    autodiff::forward::BuildJvp(context_, primal, f);
  }

  reverse::BackwardWriter& Backward() {
    if (backward_ == nullptr) {
      backward_ = std::make_unique<reverse::BackwardWriter>(module_, options_,
                                                            [this](Function* f) { Ensure(f); });
    }
    return *backward_;
  }

  void FillPairForm(Function* pair_form);
  void CallSplitForm(Function* pair_form, Function* primal, ir::Builder& b);

  ir::Module& module_;
  const Options& options_;
  autodiff::forward::JvpContext context_;
  std::map<Function*, Function*> jvps_;
  std::map<const Function*, Function*> primal_of_;  ///< JVP -> its function
  std::vector<std::pair<Function*, Function*>> queue_;
  std::unique_ptr<reverse::BackwardWriter> backward_;
};

/// `fwd_diff(f)` in DifferentialPair form: unpacks each pair, calls the split-form JVP
/// (or `f`'s custom derivative, which has this very signature) and packs the results.
void State::FillPairForm(Function* pair_form) {
  if (!pair_form->blocks.empty()) return;
  Function* primal = pair_form->autodiff.fwd_diff_of;
  if (primal->autodiff.fwd_diff_of != nullptr) FillPairForm(primal);
  // fwd_diff of a function with a primal substitute is fwd_diff of the substitute.
  if (primal->autodiff.primal_substitute != nullptr) primal = primal->autodiff.primal_substitute;
  ir::Builder b(module_);
  pair_form->blocks.push_back(module_.AddBlock(pair_form));
  b.SetInsertBlock(pair_form->blocks.front());
  if (primal->autodiff.custom_fwd != nullptr) {
    std::vector<Value*> args(pair_form->params.begin(), pair_form->params.end());
    Value* result = b.Call(primal->autodiff.custom_fwd, std::move(args));
    b.Return(pair_form->ResultType()->IsVoid() ? nullptr : result);
    return;
  }
  CallSplitForm(pair_form, primal, b);
}

void State::CallSplitForm(Function* pair_form, Function* primal, ir::Builder& b) {
  ir::TypeTable& types = module_.Types();
  std::vector<Value*> args;
  std::vector<std::pair<size_t, std::pair<Value*, Value*>>> copy_back;  // param, slots
  for (size_t i = 0; i < primal->params.size(); ++i) {
    Value* param = pair_form->params.at(i);
    const ir::Type* d = DifferentialType(types, primal->params[i]->GetType());
    if (d == nullptr) {
      args.push_back(param);
    } else if (param->GetType() == primal->params[i]->GetType()) {
      // A no_diff parameter: no pair, and a zero tangent.
      args.push_back(param);
      Value* zero = autodiff::ZeroOf(b, *pair_form, d->IsPointer() ? d->Element() : d);
      if (d->IsPointer()) {
        Value* slot = b.Var(pair_form, d->Element());
        b.Store(slot, zero);
        zero = slot;
      }
      args.push_back(zero);
    } else if (d->IsPointer()) {
      Value* pair = b.Load(param);
      Value* p = b.Var(pair_form, primal->params[i]->GetType()->Element());
      Value* t = b.Var(pair_form, d->Element());
      b.Store(p, b.Extract(pair, 0));
      b.Store(t, b.Extract(pair, 1));
      args.insert(args.end(), {p, t});
      copy_back.push_back({i, {p, t}});
    } else {
      args.insert(args.end(), {b.Extract(param, 0), b.Extract(param, 1)});
    }
  }
  const ir::Type* dr = DifferentialType(types, primal->ResultType());
  Value* result_slot = dr != nullptr ? b.Var(pair_form, dr) : nullptr;
  if (result_slot != nullptr) args.push_back(result_slot);
  Value* result = b.Call(Jvp(primal), std::move(args));
  for (auto& [i, slots] : copy_back) {
    Value* param = pair_form->params[i];
    b.Store(param, b.MakeStruct(param->GetType()->Element(), {b.Load(slots.first), b.Load(slots.second)}));
  }
  // A result declared `no_diff` stays unpaired: its tangent is dropped.
  if (result_slot != nullptr && !primal->autodiff.no_diff_result) {
    result = b.MakeStruct(pair_form->ResultType(), {result, b.Load(result_slot)});
  }
  b.Return(pair_form->ResultType()->IsVoid() ? nullptr : result);
}

}  // namespace

Result ForwardDiff(ir::Module& module, const Options& options) {
  Result result;
  result.changed = State(module, options).Run();
  return result;
}

}  // namespace slope::autodiff
