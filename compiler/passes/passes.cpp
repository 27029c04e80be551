#include "compiler/passes/passes.h"

namespace slope::passes {

const std::vector<PassInfo>& AllPasses() {
  static const std::vector<PassInfo> kPasses = {
#define PASS(function, name, summary) {name, summary, &function},
#include "compiler/passes/passes.def"
#undef PASS
  };
  return kPasses;
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
