#pragma once
// The IR verifier: checks types, block structure, dominance and the structured
// control-flow rules. It runs after lowering and after every pass; a failure is a bug
// in Slope (an ICE), never a user error.

#include <string>
#include <vector>

#include "compiler/ir/ir.h"

namespace slope::ir {

/// Returns one message per problem found; empty when the module is well formed.
std::vector<std::string> VerifyModule(const Module& module);

/// Verifies and raises an internal compiler error naming `after` when it fails.
void VerifyOrIce(const Module& module, const std::string& after);

}  // namespace slope::ir
