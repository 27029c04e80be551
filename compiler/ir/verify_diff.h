#pragma once
// The verifier's rules for derivative functions (verify_diff.cpp): the signatures the
// fwd-diff and bwd-diff passes rely on when they write a body.

#include <string>
#include <vector>

#include "compiler/ir/ir.h"

namespace slope::ir {

/// Appends one message per problem ("in function @f: ..."):
///  - `fwd_diff(@f)` and `bwd_diff(@f)` links form no cycle;
///  - a `fwd_diff(@f)` function without a body has the pair form of @f's signature (of
///    its primal substitute's, when @f has one): one parameter per parameter of @f, each
///    of @f's type or, for a type that carries a derivative, a pair struct {T, dT} (a
///    pointer to one for a pointer to function memory); the result a pair {R, dR}, or R
///    when R carries none. `custom_fwd(@g)` has the same form, and a pair form of a
///    function with one has @g's parameter and result types;
///  - a `bwd_diff(@f)` function without a body returns void and takes, per parameter of
///    @f, its type, a pointer to a pair (`in` and `inout`), or dT (`out`), then dR when R
///    carries one. `custom_bwd(@g)` likewise;
///  - `primal_subst(@g)` has the function's parameter and result types.
/// The links are checked while some derivative is unwritten: later passes may change
/// signatures that no pass reads again.
void VerifyDerivativeForms(const Module& module, std::vector<std::string>* errors);

/// Whether `d` is the type of the derivative of a value of type `t` (which carries one),
/// as autodiff::DifferentialType would make it.
bool IsDifferentialOf(const TypeTable& types, const Type* d, const Type* t);

}  // namespace slope::ir
