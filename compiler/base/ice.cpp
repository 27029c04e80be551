#include "compiler/base/ice.h"

#include <cstdio>
#include <cstdlib>

namespace slope::base {
namespace {
// Per-thread: each compile session runs on one thread, so this is not shared state.
thread_local IceLocationScope* current_scope = nullptr;
}  // namespace

IceLocationScope::IceLocationScope(std::string where)
    : where_(std::move(where)), outer_(current_scope) {
  current_scope = this;
}

IceLocationScope::~IceLocationScope() { current_scope = outer_; }

void IceLocationScope::Update(std::string where) { where_ = std::move(where); }

const IceLocationScope* IceLocationScope::Current() { return current_scope; }

void ReportIce(const char* file, int line, const std::string& message) {
  std::fflush(stdout);
  if (current_scope != nullptr && !current_scope->Where().empty()) {
    std::fprintf(stderr, "%s: internal compiler error: %s\n", current_scope->Where().c_str(),
                 message.c_str());
  } else {
    std::fprintf(stderr, "internal compiler error: %s\n", message.c_str());
  }
  std::fprintf(stderr, "note: raised at %s:%d; please report this bug\n", file, line);
  std::fflush(stderr);
  std::_Exit(kIceExitCode);
}

}  // namespace slope::base
