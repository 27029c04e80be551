#pragma once
// The attribute sema puts on the uniform block it makes for global `uniform` variables
// (Checker::DeclareGlobalUniform), so that lowering can bind that block where
// `-fvk-bind-globals` says.

#include <string_view>

namespace slope::sema {

inline constexpr std::string_view kGlobalUniformsAttribute = "slope::global_uniforms";

}  // namespace slope::sema
