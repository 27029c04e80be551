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
  std::string report;
  if (current_scope != nullptr && !current_scope->Where().empty()) {
    report = current_scope->Where() + ": ";
  }
  report += "internal compiler error: " + message + "\nnote: raised at " + file + ":" +
            std::to_string(line) + "; please report this bug";
  throw InternalError(std::move(report));
}

void ExitWithIce(const InternalError& error) {
  std::fflush(stdout);
  std::fprintf(stderr, "%s\n", error.what());
  std::fflush(stderr);
  std::_Exit(kIceExitCode);
}

}  // namespace slope::base
