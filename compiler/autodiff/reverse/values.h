#pragma once
// Questions reverse mode asks about IR values and types: which calls are identities,
// which instructions are pure, how many bytes a kept value takes, where a pointer points.

#include <cstdint>

#include "compiler/ir/ir.h"

namespace slope::autodiff::reverse {

/// `detach`'s identity: a function that returns its only parameter.
bool IsIdentity(const ir::Function* f);

/// An instruction that neither reads nor writes memory nor branches.
bool PureOp(ir::Op op);

/// The bytes a value of `t` takes in function memory (no padding).
uint64_t StoredBytes(const ir::Type* root);

/// A pointer into function memory (a `var` or a place inside one).
bool IsFunctionPointer(const ir::Type* t);

/// What `ptr` points into: the global or the `var` below its element and member steps.
const ir::Value* PointerRoot(const ir::Value* ptr);

}  // namespace slope::autodiff::reverse
