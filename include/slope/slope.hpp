#pragma once
// Slope's embedded C++ API: compile shaders inside a host program.
//
//   slope::SessionOptions options;
//   options.search_paths = {"shaders"};
//   slope::Session session(options);
//   slope::Module module = session.LoadModule("shaders/blur.slang");
//   if (!module.Ok()) std::cerr << slope::Render(module.Diagnostics());
//   slope::Artifact spirv = module.Compile(slope::Target::SpirV, {"blur"});
//   if (spirv.Ok()) Upload(spirv.Words(), spirv.reflection);
//
// Everything is a value: Session and Module are cheap handles to immutable state (a
// copy shares it, and it lives as long as any copy does), an Artifact owns its output.
// Nothing is reported on stdout or stderr and nothing ends the process: diagnostics come
// back structured (render them with Render), and a bug of the compiler comes back as an
// Artifact (or Module) whose status is Status::InternalError.
//
// Thread safety: the library holds no process-wide mutable state. Independent Sessions
// may be used concurrently from any threads, and so may one Session and its Modules:
// LoadModule, LoadModuleFromSource and Module::Compile are const and may run on several
// threads at once on the same objects. A Module keeps what checking it for a target
// found, so its later compiles for that target run only the back end; compiles of one
// module for one target and entry-point list take turns (other targets, other modules
// and other sessions run in parallel). An Artifact is a plain value: share one between
// threads as any std:: container.
//
// Each compile runs on a thread of its own with a 512 MiB reserved stack (only touched
// pages are used), so deeply nested sources cannot overflow the caller's stack.

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "compiler/driver/reflection.h"

namespace slope {

/// How serious a diagnostic is, as shown (a warning made an error is an error).
enum class Severity : uint8_t { Error, Warning, Note };

/// One diagnostic: a numbered code, a place and a one-line message, with notes pointing
/// at related places.
struct Diagnostic {
  Severity severity = Severity::Error;
  std::string code;         ///< "E1001", "W3101", "N0001"
  std::string file;         ///< as the source names it (after `#line`); empty if no place
  uint32_t line = 0;        ///< 1-based; 0 when the diagnostic has no place
  uint32_t column = 0;      ///< 1-based
  uint32_t end_line = 0;    ///< where the range ends; 0 when it has no extent
  uint32_t end_column = 0;
  std::string message;      ///< lower case, no final period
  std::string source_line;  ///< the text of `line`, for rendering
  std::vector<Diagnostic> notes;
};

/// Renders diagnostics as `slopec` writes them: "file:line:col: error E1001: message",
/// the source line and a caret line, each note after its diagnostic.
std::string Render(const std::vector<Diagnostic>& diagnostics);
std::string Render(const Diagnostic& diagnostic);

/// What a compile writes.
enum class Target : uint8_t {
  SpirV,     ///< SPIR-V binary (Artifact::Words)
  SpirVAsm,  ///< SPIR-V disassembly text
  Glsl,      ///< GLSL 450 text (one entry point)
  Cuda,      ///< CUDA C++ text
  Ptx,       ///< PTX text (needs the LLVM plugin, libslope_llvm.so)
  Host,      ///< LLVM bitcode the CPU runtime runs (LLVM plugin)
  Object,    ///< an ELF object of host kernels (LLVM plugin)
  LlvmIr,    ///< LLVM IR text of host kernels (LLVM plugin)
};

/// The name `slopec -target` gives `target` ("spirv", "spirv-asm", "glsl", ...).
std::string_view TargetName(Target target);
/// The target `slopec -target` calls `name`; nullopt when none.
std::optional<Target> TargetFromName(std::string_view name);

/// How matrices are laid out in buffers.
enum class MatrixLayout : uint8_t { RowMajor, ColumnMajor };

/// A preprocessor macro defined for every module of a session, as `-D NAME=VALUE`.
struct Macro {
  std::string name;
  std::string value = "1";
};

/// `-fvk-t-shift 10 0`: the bindings of resources declared with `register(tK, space0)`
/// become K + 10 (dxc's and slangc's register shifts).
struct RegisterShift {
  char register_class = 'b';      ///< 'b' (constant buffers), 't', 'u' or 's'
  uint32_t amount = 0;
  std::optional<uint32_t> space;  ///< nullopt: every space
};

/// What every compile of a session uses.
struct SessionOptions {
  std::vector<std::string> search_paths;  ///< for #include and import, as `-I`, in order
  std::vector<Macro> macros;              ///< as `-D`, in order
  /// The Slang language version for files without `#language slang V`, as `-std`:
  /// 2018 (legacy), 2025, 2026 or 2027 (202c).
  int language_version = 2018;
  uint32_t optimization_level = 1;        ///< 0..3, as `-O0`..`-O3`
  MatrixLayout matrix_layout = MatrixLayout::RowMajor;
  bool scalar_layout = false;  ///< buffers by the scalar block layout (else std430)
  bool debug_info = false;     ///< `-g`: SPIR-V debug information
  bool validate = true;        ///< run the SPIR-V validator on each SPIR-V output
  bool warnings_as_errors = false;     ///< every warning is an error
  std::vector<int> error_warnings;     ///< warning numbers made errors (W3102 is 3102)
  std::vector<int> disabled_warnings;  ///< warning numbers never reported
  uint32_t error_limit = 20;           ///< stop after this many errors; 0 = no limit
  /// Verify the IR after every pass, not only after the last (slower; for debugging the
  /// compiler: a pass that breaks the IR is named in the internal error).
  bool verify_each_pass = false;
  /// Added to `register(...)` bindings of their class (not to [[vk::binding]] or to
  /// bindings given automatically), as `-fvk-{b,t,u,s}-shift`.
  std::vector<RegisterShift> register_shifts;
  /// `-fvk-bind-globals N M`: the block of global `uniform` variables at binding N of
  /// set M (else the lowest free binding of set 0).
  std::optional<std::pair<uint32_t, uint32_t>> globals_binding;
};

/// How a load or a compile ended.
enum class Status : uint8_t {
  Ok,             ///< no errors (there may be warnings)
  Error,          ///< the diagnostics hold at least one error
  InternalError,  ///< a bug of the compiler; `internal_error` says where
};

/// One entry point of a module.
struct EntryPoint {
  std::string name;
  std::string stage;  ///< "compute"
  std::array<uint32_t, 3> numthreads{1, 1, 1};
};

/// The output of one compile. A plain value that owns everything in it.
struct Artifact {
  Status status = Status::Error;
  Target target = Target::SpirV;
  /// The output: text for the text targets, bytes for SpirV (the words in host byte
  /// order), Host and Object. Empty unless status is Ok.
  std::string data;
  bool is_text = false;
  /// What the host binds: entry points and resources with their layouts.
  driver::Reflection reflection;
  /// The same as `slopec -reflection-json` writes it.
  std::string reflection_json;
  std::vector<Diagnostic> diagnostics;
  /// Every file read: the module's file, then each file it #includes or imports, once.
  std::vector<std::string> dependencies;
  /// With Status::InternalError: the report ("internal compiler error: ...").
  std::string internal_error;

  bool Ok() const { return status == Status::Ok; }
  /// A SpirV artifact's words.
  std::vector<uint32_t> Words() const;
};

namespace detail {
struct SessionState;
struct ModuleState;
}  // namespace detail

/// A module loaded and checked by a Session: its entry points and the diagnostics of
/// checking it. Compile it for as many targets and entry points as needed.
class Module {
 public:
  /// Whether the module loaded without errors; Compile reports the same errors again.
  bool Ok() const;
  Status GetStatus() const;
  /// The path it was loaded from, or the name LoadModuleFromSource gave it.
  const std::string& Name() const;
  /// Entry points: functions marked [shader("compute")] or [numthreads].
  const std::vector<EntryPoint>& EntryPoints() const;
  /// Diagnostics of loading and checking.
  const std::vector<Diagnostic>& Diagnostics() const;
  /// Files read by the load (the module's own, #included and imported ones).
  const std::vector<std::string>& Dependencies() const;
  /// With Status::InternalError: the report.
  const std::string& InternalError() const;

  /// Compiles the module for `target`: the `entries` named (which need only
  /// [numthreads]), or every entry point when empty. The first compile for a target and
  /// entry-point list reads imported and #included files and checks the module for
  /// that target (`__target_switch`); later ones reuse that check and run only the
  /// back end. Load the module again to see edits of the files it reads.
  Artifact Compile(Target target, const std::vector<std::string>& entries = {}) const;

 private:
  friend class Session;
  explicit Module(std::shared_ptr<const detail::ModuleState> state);
  std::shared_ptr<const detail::ModuleState> state_;
};

/// Options shared by the modules it loads. Creating one is cheap (no file is read).
class Session {
 public:
  explicit Session(SessionOptions options = {});

  const SessionOptions& Options() const;

  /// Reads and checks the module at `path`. Errors (a missing file too) are the
  /// module's diagnostics; this never throws for bad input.
  Module LoadModule(const std::string& path) const;
  /// Checks `text` as a module named `name` (used in diagnostics; #include and import
  /// search the directory of `name` first, then the search paths).
  Module LoadModuleFromSource(const std::string& name, const std::string& text) const;

 private:
  std::shared_ptr<const detail::SessionState> state_;
};

}  // namespace slope
