#pragma once
// The IR's text form. Values are numbered per function in order of appearance (%0,
// %1, ...), blocks by their position (^0, ^1, ...); globals and functions by name.

#include <string>

#include "compiler/ir/ir.h"

namespace slope::ir {

/// Prints the whole module.
std::string PrintModule(const Module& module);

}  // namespace slope::ir
