#pragma once
// Recursive questions about IR types, answered once per distinct type.
//
// Types are shared: a struct can hold several members of one type, and a generic
// struct nested in itself N deep has 2^N leaves but only N distinct types. A plain
// recursion over members visits every leaf; `FoldType` visits every distinct type once.

#include <functional>
#include <unordered_map>

#include "compiler/ir/ir.h"

namespace slope::ir {

/// `step(t, recurse)` for `root`, where `step` asks about a member or element `m` with
/// `recurse(m)`; each distinct type's answer is computed once per call of FoldType.
template <typename R, typename Step>
R FoldType(const Type* root, Step&& step) {
  std::unordered_map<const Type*, R> known;
  std::function<R(const Type*)> recurse = [&](const Type* t) -> R {
    auto it = known.find(t);
    if (it != known.end()) return it->second;
    R answer = step(t, recurse);
    known.emplace(t, answer);
    return answer;
  };
  return recurse(root);
}

/// True for a buffer, texture or sampler, and for a struct, array or (function-memory)
/// pointer that holds one, transitively; a device pointer is an address and holds none.
inline bool ContainsResource(const Type* root) {
  return FoldType<bool>(root, [](const Type* type, const auto& recurse) {
    if (type->IsResource()) return true;
    if (type->IsDevicePointer()) return false;
    if (type->IsPointer() || type->IsArray()) return recurse(type->Element());
    if (!type->IsStruct()) return false;
    for (const Type* m : type->Members()) {
      if (recurse(m)) return true;
    }
    return false;
  });
}

}  // namespace slope::ir
