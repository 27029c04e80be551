#pragma once
// The code-generation flags slopec and slope-run share, spelled as slangc spells them:
// buffer layout, matrix layout and optimization level; one declaration for both tools so
// that they accept and describe them alike.

#include <CLI/CLI.hpp>

#include <cstdint>
#include <string>

#include "compiler/driver/compile.h"

namespace slope::tools {

struct CodegenFlags {
  bool scalar_layout = false;
  bool row_major = false;
  bool column_major = false;
  uint32_t opt_level = 1;  // slangc's default

  /// Declares the flags on `app`; parsing fills this object.
  void AddTo(CLI::App& app) {
    app.add_flag("--fvk-use-scalar-layout,--force-glsl-scalar-layout", scalar_layout,
                 "lay buffers out by the scalar block layout rules instead of std430");
    app.add_flag("--matrix-layout-row-major", row_major,
                 "lay matrices in buffers out row by row (the default)");
    app.add_flag("--matrix-layout-column-major", column_major,
                 "lay matrices in buffers out column by column")
        ->excludes(app.get_option("--matrix-layout-row-major"));
    static const char* const kWhat[] = {"no SPIR-V optimization",
                                        "light SPIR-V optimization (the default)",
                                        "full SPIR-V optimization, without inlining",
                                        "-O2 run twice, then code sinking"};
    for (uint32_t level = 0; level <= 3; ++level) {
      app.add_flag_callback("--O" + std::to_string(level), [this, level] { opt_level = level; },
                            kWhat[level]);
    }
  }

  /// Sets the matching fields of `options`.
  void ApplyTo(driver::CompileOptions& options) const {
    options.scalar_layout = scalar_layout;
    options.column_major = column_major;
    options.optimization_level = opt_level;
  }
};

}  // namespace slope::tools
