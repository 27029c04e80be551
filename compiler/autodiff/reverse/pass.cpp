// The reverse-mode pass: writes the body of every function lowering made for a
// `bwd_diff(f)` (marked `bwd_diff(@f)`, empty until now), and the backward derivatives
// of the differentiable functions those call. See compiler/autodiff/README.md.

#include <algorithm>
#include <cctype>
#include <map>
#include <string>
#include <vector>

#include "compiler/autodiff/differential.h"
#include "compiler/autodiff/reverse/reverse.h"
#include "compiler/autodiff/passes.h"

namespace slope::autodiff {

namespace {

using passes::Options;
using passes::Result;

using ir::Function;

class State {
 public:
  State(ir::Module& module, const Options& options)
      : module_(module), context_{module, options, [this](Function* f) { return BwdOf(f); }} {}

  bool Run() {
    for (Function* f : module_.functions) {
      if (f->bwd_diff_of != nullptr && f->blocks.empty()) {
        queue_.push_back(f);
        forms_.emplace(f->bwd_diff_of, f);
      }
    }
    bool changed = !queue_.empty();
    // Writing one backward derivative may request more; each is written once.
    for (size_t i = 0; i < queue_.size(); ++i) autodiff::reverse::BuildBackward(context_, queue_[i]);
    return changed;
  }

 private:
  /// The backward derivative of callee `f` in bwd_diff form: its custom one, the one
  /// lowering declared for a `bwd_diff(f)`, or a new one (every pointer parameter of a
  /// differentiable type taken as an inout pair); null when `f` has none.
  Function* BwdOf(Function* f) {
    if (f->custom_bwd != nullptr) return f->custom_bwd;
    if (!f->differentiable && f->fwd_diff_of == nullptr) return nullptr;
    auto it = forms_.find(f);
    if (it != forms_.end()) return it->second;
    ir::TypeTable& types = module_.Types();
    Function* g = module_.AddFunction(f->Name() + ".bwd", types.Void());
    for (uint32_t i = 0; i < f->params.size(); ++i) {
      const ir::Type* t = f->params[i]->GetType();
      const ir::Type* d = autodiff::DifferentialType(types, t);
      bool no_diff = std::find(f->no_diff_params.begin(), f->no_diff_params.end(), i) !=
                     f->no_diff_params.end();
      if (d != nullptr && !no_diff) {
        const ir::Type* value = t->IsPointer() ? t->Element() : t;
        t = types.Pointer(ir::AddressSpace::Function, PairType(value));
      }
      g->params.push_back(module_.AddParam(t, nullptr));
    }
    if (const ir::Type* d = autodiff::DifferentialType(types, f->ResultType())) {
      g->params.push_back(module_.AddParam(d, nullptr));
    }
    g->bwd_diff_of = f;
    forms_.emplace(f, g);
    queue_.push_back(g);
    return g;
  }

  /// A struct {p, d} of a value of type `t` and its derivative.
  const ir::Type* PairType(const ir::Type* t) {
    std::string name = "DiffPair." + t->Name();
    for (char& c : name) {
      if (std::isalnum(static_cast<unsigned char>(c)) == 0 && c != '.') c = '_';
    }
    ir::TypeTable& types = module_.Types();
    return types.Struct(name, {t, autodiff::DifferentialType(types, t)}, {"p", "d"});
  }

  ir::Module& module_;
  autodiff::reverse::ReverseContext context_;
  std::map<const Function*, Function*> forms_;
  std::vector<Function*> queue_;
};

}  // namespace

Result BackwardDiff(ir::Module& module, const Options& options) {
  Result result;
  result.changed = State(module, options).Run();
  return result;
}

}  // namespace slope::autodiff
