#pragma once
// The code-generation targets as peers: each names its IR pass list, its emitter and
// the kind of output it makes. `Compile` looks its target up here and runs what the
// entry says; adding a target is adding an entry.

#include <functional>
#include <string_view>
#include <vector>

#include "compiler/diag/diag.h"
#include "compiler/driver/compile.h"
#include "compiler/ir/ir.h"
#include "compiler/source/source_manager.h"
#include "compiler/targets/layout/layout.h"

namespace slope::driver {

/// What a target's emitter writes into the CompileResult.
enum class OutputKind : uint8_t {
  Words,  ///< `spirv`: a SPIR-V binary
  Text,   ///< `text`: source or assembly text
  Binary, ///< `binary`: bitcode or an object file
};

/// Everything an emitter needs from the compile.
struct EmitRequest {
  ir::Module& module;
  const CompileOptions& options;
  size_t entry_count;  ///< entry points the module has (sema's count)
  targets::BufferLayout layout;
  ir::MatrixLayout matrices;
  const source::SourceManager& sources;
  source::FileId file;
  diag::DiagEngine& diags;
  CompileResult& result;
  /// Frees `module` (when set): a writer calls it once the module is written and no
  /// longer read, so that the validator and optimizer do not hold it as well.
  std::function<void()> release_module = {};
};

/// Called after each pass with its name and the module as the pass left it.
using AfterPass = std::function<void(std::string_view pass, const ir::Module& module)>;

struct TargetInfo {
  Target target;
  std::string_view name;  ///< as `slopec -target` spells it
  OutputKind output;
  /// The names of the passes `run_passes` runs, in order (for -dump-ir-after).
  const std::vector<std::string_view>& (*pass_names)();
  /// Runs the pass list (verifying as targets/spirv/raise.h describes; after every pass
  /// with `verify_each`).
  void (*run_passes)(ir::Module& module, const AfterPass& after_pass, diag::DiagEngine* diags,
                     bool verify_each);
  /// Writes the output; errors go to `request.diags`.
  void (*emit)(EmitRequest& request);
  /// The `__target_switch` case the target takes: Slang's name for the language the
  /// code is written in ("spirv", "glsl", "cuda"; "cpp" for the CPU targets).
  std::string_view switch_case;
  /// When set, buffers are laid out by the scalar rules whatever the flags say (the
  /// target's natural C layout), and the reflection says so.
  bool scalar_layout_only = false;
};

/// The entry of `target`.
const TargetInfo& TargetOf(Target target);

}  // namespace slope::driver
