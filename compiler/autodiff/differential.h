#pragma once
// Differential types on the IR: which IR types carry a derivative and of what type.
// Shared by forward mode (forward/) and, later, reverse mode.

#include <string>

#include "compiler/ir/builder.h"
#include "compiler/ir/ir.h"

namespace slope::autodiff {

/// The type of a derivative of a value of type `t`, or null when `t` carries none.
///  - float scalars and vectors: themselves;
///  - arrays: arrays of the element's differential;
///  - pointers to function memory: pointers to the pointee's differential (a tangent
///    `var` shadows each primal one); pointers into buffers carry none;
///  - structs: the struct itself when every member is its own differential (so
///    `DifferentialPair<float>` is its own differential, as in the language), else the
///    struct `S.Differential` of the differentials of the members that have one;
///  - integers, booleans, buffers and void: none.
const ir::Type* DifferentialType(ir::TypeTable& types, const ir::Type* t);

/// For struct `t` with a differential: the index of member `index`'s derivative in
/// DifferentialType(t), or -1 when that member carries none.
int DifferentialMember(ir::TypeTable& types, const ir::Type* t, uint32_t index);

/// The zero of `type` (a differential type), built at `b`'s position in `f` (scalar and
/// vector zeros are shared, at the start of `f`).
ir::Value* ZeroOf(ir::Builder& b, ir::Function& f, const ir::Type* type);

/// How diagnostics name `f`: its name, or for a derivative a pass writes, the
/// operators that denote it (`fwd_diff(bwd_diff(f))`).
std::string SourceName(const ir::Function& f);

/// A copy of `inst` appended to `into`: its op, type, immediates, callee and location,
/// without operands (the caller maps them once every value has its copy).
inline ir::Inst* AppendInstCopy(ir::Module& module, const ir::Inst& inst, ir::Block* into) {
  ir::Inst* copy = module.NewInst(inst.GetOp(), inst.GetType());
  copy->imms = inst.imms;
  copy->callee = inst.callee;
  copy->loc = inst.loc;
  copy->block = into;
  into->insts.push_back(copy);
  return copy;
}

}  // namespace slope::autodiff
