// The core library's free functions: their signatures are checked when their name is
// first used (a lookup, an overload set, an operator), not all at once. A small shader
// names a handful of the core library's hundreds of functions; checking all of them was
// a fifth of a cold compile. Operators are found by name the same way (CheckUserOperator
// ensures theirs), so they wait too.

#include "compiler/sema/checker.h"

namespace slope::sema {

bool Checker::DeferSignature(const ast::FuncDecl* f) const {
  if (modules_ == nullptr || modules_->deferred_bodies_file == 0 ||
      f->name_range.begin.file != modules_->deferred_bodies_file || decl_ns_.count(f) != 0) {
    return false;
  }
  for (const ast::Attribute& a : f->attributes) {
    if (a.name != "__intrinsic_op") return false;
  }
  return true;
}

void Checker::EnsureSignatures(const std::string& name) {
  if (pending_signatures_.erase(name) == 0) return;
  auto it = functions_.find(name);
  if (it == functions_.end()) return;
  // A copy: checking a signature may look up (and so check) other names.
  std::vector<ast::FuncDecl*> overloads = it->second;
  for (ast::FuncDecl* f : overloads) {
    if (f->result_type == nullptr) CheckFunctionSignature(f);
  }
}

void Checker::EnsureSharedNames() {
  std::vector<std::string> shared;
  for (const std::string& name : pending_signatures_) {
    auto it = functions_.find(name);
    if (it == functions_.end()) continue;
    for (const ast::FuncDecl* f : it->second) {
      if (f->result_type != nullptr || !DeferSignature(f)) {
        shared.push_back(name);
        break;
      }
    }
  }
  for (const std::string& name : shared) EnsureSignatures(name);
}

}  // namespace slope::sema
