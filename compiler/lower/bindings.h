#pragma once
// How `register(xN, spaceM)` becomes a Vulkan binding: set M, binding N, plus the shift
// `-fvk-x-shift` gives the register class (as dxc and slangc do).

#include <cstdint>
#include <optional>
#include <vector>

namespace slope::lower {

/// `-fvk-b-shift 10 0`: bindings of `register(bK, space0)` become K + 10. A shift
/// applies to explicit `register` bindings only; the resources bound automatically and
/// those with [[vk::binding]] keep theirs.
struct RegisterShift {
  char register_class = 'b';  ///< 'b' (constant buffers), 't', 'u' or 's'
  uint32_t amount = 0;
  std::optional<uint32_t> space;  ///< nullopt: every space (`all`)
};

struct BindingOptions {
  std::vector<RegisterShift> register_shifts;  ///< later ones add to earlier ones
  /// `-fvk-bind-globals N M`: the block of global `uniform` variables at binding N of
  /// set M (else the lowest free binding of set 0, as any resource without one).
  std::optional<uint32_t> globals_binding;
  uint32_t globals_set = 0;
};

}  // namespace slope::lower
