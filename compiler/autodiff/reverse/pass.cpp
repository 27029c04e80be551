// The reverse-mode pass: writes the body of every function lowering made for a
// `bwd_diff(f)` (marked `bwd_diff(@f)`, empty until now), and the backward derivatives
// of the differentiable functions those call, through one BackwardWriter (which the
// forward-mode pass also uses, for `fwd_diff(bwd_diff(f))`). See
// compiler/autodiff/README.md.

#include <algorithm>
#include <cctype>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "compiler/autodiff/differential.h"
#include "compiler/autodiff/reverse/reverse.h"
#include "compiler/autodiff/passes.h"

namespace slope::autodiff {

using passes::Options;
using passes::Result;

using ir::Function;

namespace reverse {

BackwardWriter::BackwardWriter(ir::Module& module, const Options& options,
                               std::function<void(Function*)> ensure_body)
    : module_(module),
      context_{module, options, [this](Function* f) { return BwdOf(f); }, std::move(ensure_body)} {
  // Forms written before (by another writer) are reused as they are.
  for (Function* f : module_.functions) {
    if (f->autodiff.bwd_diff_of != nullptr) forms_.emplace(f->autodiff.bwd_diff_of, f);
  }
}

void BackwardWriter::Write(Function* bwd) {
  if (!bwd->blocks.empty()) return;
  forms_.emplace(bwd->autodiff.bwd_diff_of, bwd);
  if (std::find(queue_.begin(), queue_.end(), bwd) == queue_.end()) queue_.push_back(bwd);
  Drain();
}

bool BackwardWriter::WriteAll() {
  std::vector<Function*> pending;
  for (Function* f : module_.functions) {
    if (f->autodiff.bwd_diff_of != nullptr && f->blocks.empty()) pending.push_back(f);
  }
  for (Function* f : pending) Write(f);
  return !pending.empty();
}

void BackwardWriter::Drain() {
  // Writing one backward derivative may request more; each is written once.
  while (written_ < queue_.size()) {
    Function* next = queue_[written_++];
    if (next->blocks.empty()) BuildBackward(context_, next);
  }
}

Function* BackwardWriter::BwdOf(Function* f) {
  if (f->autodiff.custom_bwd != nullptr) return f->autodiff.custom_bwd;
  // A custom forward derivative alone is transposed (reverse.cpp).
  if (!f->autodiff.differentiable && f->autodiff.fwd_diff_of == nullptr &&
      f->autodiff.custom_fwd == nullptr) {
    return nullptr;
  }
  auto it = forms_.find(f);
  if (it != forms_.end()) {
    if (it->second->blocks.empty() &&
        std::find(queue_.begin(), queue_.end(), it->second) == queue_.end()) {
      queue_.push_back(it->second);
    }
    return it->second;
  }
  ir::TypeTable& types = module_.Types();
  Function* g = module_.AddFunction(f->Name() + ".bwd", types.Void());
  for (uint32_t i = 0; i < f->params.size(); ++i) {
    const ir::Type* t = f->params[i]->GetType();
    const ir::Type* d = autodiff::DifferentialType(types, t);
    bool no_diff = std::find(f->autodiff.no_diff_params.begin(), f->autodiff.no_diff_params.end(),
                             i) != f->autodiff.no_diff_params.end();
    if (d != nullptr && !no_diff) {
      const ir::Type* value = t->IsPointer() ? t->Element() : t;
      t = types.Pointer(ir::AddressSpace::Function, PairType(value));
    }
    g->params.push_back(module_.AddParam(t, nullptr));
  }
  if (const ir::Type* d = autodiff::DifferentialType(types, f->ResultType())) {
    g->params.push_back(module_.AddParam(d, nullptr));
  }
  g->autodiff.bwd_diff_of = f;
  forms_.emplace(f, g);
  queue_.push_back(g);
  return g;
}

const ir::Type* BackwardWriter::PairType(const ir::Type* t) {
  std::string name = "DiffPair." + t->Name();
  for (char& c : name) {
    if (std::isalnum(static_cast<unsigned char>(c)) == 0 && c != '.') c = '_';
  }
  ir::TypeTable& types = module_.Types();
  return types.Struct(name, {t, autodiff::DifferentialType(types, t)}, {"p", "d"});
}

}  // namespace reverse

Result BackwardDiff(ir::Module& module, const Options& options) {
  Result result;
  LiftPtrParams(module);
  result.changed = reverse::BackwardWriter(module, options).WriteAll();
  return result;
}

}  // namespace slope::autodiff
