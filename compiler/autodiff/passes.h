#pragma once
// The autodiff passes. They live here, not in compiler/passes (which autodiff builds
// on): RegisterPasses adds them to the pass table that slope-opt, slopec and the
// targets' pass lists read.

#include "compiler/ir/ir.h"
#include "compiler/passes/passes.h"

namespace slope::autodiff {

/// `fwd-diff`: writes every `fwd_diff(@f)` function and the JVPs it needs.
passes::Result ForwardDiff(ir::Module& module, const passes::Options& options);
/// `bwd-diff`: writes every `bwd_diff(@f)` function and the backward derivatives of
/// what it calls.
passes::Result BackwardDiff(ir::Module& module, const passes::Options& options);

/// Gives each function with `ptr_params` a copy taking DifferentialPtrPairs instead,
/// which derivatives differentiate (autodiff/ptr_params.cpp); both passes run it first.
void LiftPtrParams(ir::Module& module);

/// Adds `fwd-diff` and `bwd-diff` to the pass table (passes::RegisterPass); later calls
/// do nothing.
void RegisterPasses();

}  // namespace slope::autodiff
