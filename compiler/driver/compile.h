#pragma once
// The compile request: one source file in, one target artifact plus reflection out.
// This is the single entry point tools, tests and the runtime use to run the pipeline.

#include <cstdint>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "compiler/driver/reflection.h"
#include "compiler/lower/bindings.h"

namespace slope::diag {
struct Record;
}  // namespace slope::diag

namespace slope::driver {

/// What a compile writes.
enum class Target : uint8_t {
  SpirV,     ///< SPIR-V binary words
  SpirVAsm,  ///< SPIR-V disassembly text
  Glsl,      ///< GLSL 450 compute shader text (one entry point)
  Cuda,      ///< CUDA C++ text: one `extern "C" __global__` kernel per entry point
  Ptx,       ///< PTX text through LLVM's NVPTX backend (the LLVM plugin)
  Host,      ///< LLVM bitcode of host kernels, which the CPU runtime JIT-compiles
  Object,    ///< an ELF object of host kernels (cpu_abi.h's calling convention)
  LlvmIr,    ///< LLVM IR text of host kernels
};

/// Where a compile stops: after writing the target's code, or earlier with what a stage
/// made (the tools' views into the pipeline). The target still chooses the
/// `__target_switch` case and the pass list.
enum class StopAfter : uint8_t {
  Nothing,     ///< run the whole pipeline and write the target's code
  Preprocess,  ///< -E: `text` gets the preprocessed source; nothing is parsed
  Parse,       ///< -parse-only: stop after parsing (benchmarks and syntax checks)
  Ast,         ///< -dump-ast: `text` gets the syntax tree as parsed, before checking
  Check,       ///< -no-codegen: check only; `reflection` lists the entry points
  /// -emit-ir / -dump-ir: `text` gets the Slope IR after lowering (every function), or
  /// with `dump_ir_after` after that pass of the target's list (what entry points reach)
  Ir,
  /// -emit-module: check the module (no entry point needed); `binary` gets its module
  /// file (module_file.h), to be written at CompileOptions::module_path
  Module,
};

/// How diagnostics are written.
enum class DiagFormat : uint8_t { Text, Json };

/// One compilation.
struct CompileOptions {
  std::string input_path;                  ///< path used for reading and in diagnostics
  std::optional<std::string> source_text;  ///< when set, compiled instead of reading the file
  std::vector<std::string> include_paths;  ///< -I: searched for #include after the includer's dir
  std::vector<std::string> defines;        ///< -D: "NAME" (as 1) or "NAME=VALUE", in order
  /// StopAfter::Module: where the module file goes (the paths it keeps are relative to
  /// its directory).
  std::string module_path;
  /// -std: the Slang language version files are read as unless their `#language` line
  /// says otherwise (preprocess::ParseLanguageVersion).
  int language_version = 2018;
  /// -entry (repeatable): the entry points to emit, which need only [numthreads];
  /// empty = every function marked [shader].
  std::vector<std::string> entries;
  std::string stage = "compute";  ///< -stage: the stage of -entry functions without [shader]
  Target target = Target::SpirV;
  StopAfter stop_after = StopAfter::Nothing;
  bool validate_spirv = true;      ///< run the SPIRV-Tools validator on the output
  /// Lay buffers out by the scalar block layout rules instead of std430
  /// (-fvk-use-scalar-layout); the device needs the scalarBlockLayout feature.
  bool scalar_layout = false;
  /// Lay matrices in buffers out column by column (-matrix-layout-column-major) instead of
  /// row by row (-matrix-layout-row-major, the default); `row_major` / `column_major`
  /// fields keep their own.
  bool column_major = false;
  /// -O0 .. -O3: the SPIRV-Tools optimizer's level (0 = none); slangc's default is 1.
  uint32_t optimization_level = 1;
  /// -g: NonSemantic.Shader.DebugInfo.100 (source text, lines, functions, variables).
  bool debug_info = false;
  /// Keep the source names of entry points in OpEntryPoint. When false (slangc's default
  /// without -fvk-use-entrypoint-name), a module holding one entry point names it "main";
  /// one holding several keeps their names, since they must differ.
  bool use_entrypoint_name = true;
  DiagFormat diag_format = DiagFormat::Text;
  bool diag_color = false;
  uint32_t error_limit = 20;       ///< stop after this many errors
  /// Warning numbers (W3102 is 3102) never reported: -warnings-disable, -Wno-<id>.
  std::vector<int> disabled_warnings;
  /// Warning numbers reported as errors: -warnings-as-errors <id>,...
  std::vector<int> error_warnings;
  bool all_warnings_are_errors = false;  ///< -warnings-as-errors all
  /// -report-checkpoint-intermediates: notes saying what each backward derivative keeps
  /// per thread for its reverse sweep, in bytes, per function and source line.
  bool report_checkpoint_intermediates = false;
  std::ostream* diag_out = nullptr;  ///< where diagnostics go; nullptr = std::cerr
  /// When set, diagnostics are appended here, resolved to file, line and column
  /// (compiler/diag/diag.h), and nothing is written to `diag_out`.
  std::vector<diag::Record>* diagnostics = nullptr;
  /// Verify the IR after every pass of the target's list, not only after the last
  /// (about a fifth of the compile time); an invalid IR is an internal error naming the
  /// pass that made it. The tools turn it on when SLOPE_VERIFY_EACH=1, as the tests do.
  bool verify_each_pass = false;
  /// With StopAfter::Ir: print the IR after this pass of the target's pass list (the first
  /// time it runs) instead of right after lowering.
  std::string dump_ir_after;
  /// -fvk-{b,t,u,s}-shift: what `register(...)` bindings become.
  lower::BindingOptions bindings;
  /// -profile sm_XX: the GPU the ptx target writes for.
  std::string gpu_arch = "sm_90";
  /// When set, the compile's state (sources, syntax tree, types) is appended here
  /// instead of being freed: a tool about to exit skips the teardown, which the
  /// operating system does faster (a tenth of a small shader's compile).
  std::vector<std::shared_ptr<void>>* keep_state = nullptr;
};

/// The outcome of one compilation. `ok` is false when any error was reported.
struct CompileResult {
  bool ok = false;
  std::vector<uint32_t> spirv;  ///< Target::SpirV
  std::string text;             ///< Target::SpirVAsm, Glsl, Cuda, Ptx, LlvmIr and Ir
  std::string binary;           ///< Target::Host (bitcode) and Object
  Reflection reflection;
  /// The input file, then each file #included or imported (and what it #includes), once.
  std::vector<std::string> files_read;
  uint32_t error_count = 0;
  uint32_t warning_count = 0;
};

/// Runs the whole pipeline. Never throws for bad input: every problem is a diagnostic
/// written to `options.diag_out` (or kept in `options.diagnostics`). A bug of the
/// compiler throws base::InternalError (compiler/base/ice.h); the tools exit with status
/// 70 on it and the embedded API returns it as an error result. Holds no state between
/// calls: compiles run concurrently on any threads.
CompileResult Compile(const CompileOptions& options);

/// A module checked for one target, stage and set of entry points, to be compiled
/// again and again (the embedded API's Module::Compile): the front end runs once.
struct CheckedProgram;

/// Runs the front end of `options` (its diagnostics are kept with the program).
std::shared_ptr<CheckedProgram> CheckProgram(const CompileOptions& options);

/// The back end of `program` with `options`' back-end settings (optimization, layout,
/// bindings, validation, -dump-ir-after); what the front end reads (the file, its
/// text, -D, -I, the target's `__target_switch` case, -entry, -stage and the
/// diagnostic settings) must be those `program` was checked with. Diagnostics, the
/// front end's first, go to `options.diagnostics`, which must be set. Compiles of one
/// program from several threads run one at a time.
CompileResult CompileChecked(CheckedProgram& program, const CompileOptions& options);

}  // namespace slope::driver
