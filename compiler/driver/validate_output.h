#pragma once
// Validation of the compiler's own SPIR-V output. A failure is reported as diagnostic
// E0005 (it means a bug in Slope, but the caller still gets a diagnostic, not a crash).

#include <cstdint>
#include <vector>

#include "compiler/diag/diag.h"

namespace slope::driver {

/// Validates `words` (with the scalar block layout rules when `scalar_layout`); reports
/// E0005 to `diags` and returns false when invalid.
bool ValidateOutput(const std::vector<uint32_t>& words, diag::DiagEngine& diags,
                    bool scalar_layout = false);

}  // namespace slope::driver
