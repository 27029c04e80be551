#pragma once
// What every tool's main() does alike: an internal compiler error, which the library
// throws (compiler/base/ice.h), ends the process with its report and status 70; and
// SLOPE_VERIFY_EACH=1 in the environment (the test suite sets it) asks each compile to
// verify the IR after every pass.

#include <cstdlib>

#include "compiler/base/ice.h"

namespace slope::tools {

/// Returns `body(argc, argv)`; an internal compiler error it raises is printed on stderr
/// and exits the process with base::kIceExitCode.
template <typename Body>
int RunToolMain(int argc, char** argv, Body body) {
  try {
    return body(argc, argv);
  } catch (const base::InternalError& error) {
    base::ExitWithIce(error);
  }
}

/// True when SLOPE_VERIFY_EACH is set to anything but "" or "0".
inline bool VerifyEachFromEnvironment() {
  const char* v = std::getenv("SLOPE_VERIFY_EACH");
  return v != nullptr && *v != '\0' && *v != '0';
}

}  // namespace slope::tools
