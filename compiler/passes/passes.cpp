#include "compiler/passes/passes.h"

#include <algorithm>

#include "compiler/ir/type_walk.h"

namespace slope::passes {

bool TouchesResources(const ir::Function& f) {
  if (ContainsResource(f.ResultType())) return true;
  for (const ir::Param* p : f.params) {
    if (ContainsResource(p->GetType())) return true;
  }
  return false;
}

namespace {

std::vector<PassInfo>& PassTable() {
  static std::vector<PassInfo> passes = {
#define PASS(function, name, summary) {name, summary, &function},
#include "compiler/passes/passes.def"
#undef PASS
  };
  return passes;
}

}  // namespace

const std::vector<PassInfo>& AllPasses() { return PassTable(); }

void RegisterPass(const PassInfo& pass) {
  if (FindPass(pass.name) == nullptr) PassTable().push_back(pass);
}

const PassInfo* FindPass(std::string_view name) {
  for (const PassInfo& p : AllPasses()) {
    if (name == p.name) return &p;
  }
  return nullptr;
}

std::string PassNames() {
  std::string out;
  for (const PassInfo& p : AllPasses()) {
    if (!out.empty()) out += ", ";
    out += p.name;
  }
  return out;
}

}  // namespace slope::passes
