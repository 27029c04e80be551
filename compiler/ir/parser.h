#pragma once
// Reads the IR's text form (what printer.h writes) back into a Module. Malformed text is
// reported through the diagnostics engine with its line and column (codes E4001 and
// up); the parsed module is then run through the verifier, and a module that does not
// verify is reported too. `PrintModule(*ParseModule(PrintModule(m)))` equals
// `PrintModule(m)` for every well-formed module.
//
// Beyond what the printer writes, hand-written IR may use `//` line comments, any
// numbering of values and blocks, and names made of letters, digits, `_` and `.`
// (`%sum`, `^loop`); the printer renumbers them.

#include <memory>

#include "compiler/diag/diag.h"
#include "compiler/ir/ir.h"

namespace slope::ir {

/// Parses the IR text of `file` (a file of `diags.Sources()`). Returns null after
/// reporting at least one error when the text is malformed or does not verify.
std::unique_ptr<Module> ParseModule(source::FileId file, diag::DiagEngine& diags);

}  // namespace slope::ir
