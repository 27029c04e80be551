#pragma once
// The control flow reverse mode takes, from any structured function: one `ret`, at the
// end; loops tested at their top, continued by one block that only branches back, and
// left only through their test; selections left only through their merge blocks. See
// compiler/autodiff/README.md ("Early exits").

#include <cstdint>

#include "compiler/ir/ir.h"
#include "compiler/passes/passes.h"

namespace slope::autodiff::reverse {

/// The trip count of the loop `header` heads (a block of `f`) when it can be proved: an
/// integer header parameter entering as a constant, stepped by a positive constant on
/// the back edge, tested `<` or `<=` against a constant by the loop's first block.
bool ProveTripCount(const ir::Function& f, const ir::Block* header, uint32_t* count);

/// A copy of `f` (same name, attributes and body; added to the module's function list).
ir::Function* CloneFunction(ir::Module& module, const ir::Function& f);

/// `f`, or a copy of it (in the module's function list, which the caller removes) in
/// which the calls of differentiable functions outside its loops are replaced by the
/// callees' bodies (callees' calls too, within a size budget), so that reverse mode keeps
/// in one forward sweep what the whole reverse sweep needs. Calls of functions with a
/// custom or substitute derivative, no_diff parameters, [PreferRecompute] or several
/// `ret`s stay calls.
ir::Function* InlineCallees(ir::Module& module, ir::Function* f);

/// `f` itself when its control flow already has the shape reverse mode takes; otherwise
/// a copy of `f` (named as `f`, in the module's function list, which the caller removes
/// once done with it) that computes the same: an early `return` stores the result and
/// sets a flag, `break` and `continue` set a flag of their loop (or switch), each goes
/// on to the end of its innermost construct, and the code after a construct that some
/// path leaves that way runs under an `if` on the flags it may have set. A loop ends
/// when its `break` or a `return` flag is set (do-while and `while (true)` loops get a
/// test at the top); its continue block's code moves to the end of its body, skipped
/// after a `break` or `return`. Loops whose trip count ProveTripCount proves on `f` get
/// that bound as their `max_iters`, since the copy's counters no longer show it.
/// Null after reporting an error (E4530).
ir::Function* NormalizeControlFlow(ir::Module& module, const passes::Options& options,
                                   ir::Function* f);

}  // namespace slope::autodiff::reverse
