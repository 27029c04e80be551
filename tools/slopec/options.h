#pragma once
// slopec's command line, spelled as slangc spells it: one dash (`-entry main`), values
// after a space or `=` (`-target=spirv`), `-Dname=value` / `-Ipath` joined, `-O2`, `-g`,
// `-W<id>` / `-Wno-<id>`, plus glslc's `-MD -MF FILE`. Double-dash spellings
// (`--entry`) are accepted too. ParseCommandLine only reads and checks the flags; the
// outputs they ask for are planned by PlanJobs (jobs.h) and written by main.cpp.

#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

namespace slope::tools::slopec {

/// A flag value together with its place on the command line: slangc ties each `-o`
/// to the `-target` or `-entry` to its left.
struct Positioned {
  std::string value;
  size_t position = 0;  ///< index of the flag in argv
};

/// What the command line asks for.
struct CommandLine {
  bool help = false;     ///< -h, -help, --help
  bool version = false;  ///< -v, -version, --version

  std::vector<std::string> inputs;
  std::vector<Positioned> targets;  ///< canonical target names (spirv, spirv-asm, ...)
  std::vector<Positioned> entries;
  std::vector<Positioned> outputs;  ///< -o
  std::string stage = "compute";
  std::string gpu_arch;             ///< -profile sm_NN (CUDA/PTX); empty = the default
  bool wants_old_spirv = false;     ///< a profile or capability below SPIR-V 1.3
  std::string old_spirv_flag;       ///< the flag that asked for it, for the error
  bool wants_old_glsl = false;      ///< a glsl_NNN profile below 450
  std::string old_glsl_flag;

  // Code generation.
  uint32_t opt_level = 1;
  bool debug_info = false;
  bool column_major = false;
  bool scalar_layout = false;
  bool use_entrypoint_name = false;
  bool skip_validation = false;
  /// -fvk-{b,t,u,s}-shift N SPACE: added to the bindings of `register(xK, spaceM)`.
  struct RegisterShift {
    char register_class = 'b';
    uint32_t amount = 0;
    std::optional<uint32_t> space;  ///< nullopt: `all`
  };
  std::vector<RegisterShift> register_shifts;
  std::optional<uint32_t> globals_binding;  ///< -fvk-bind-globals N M
  uint32_t globals_set = 0;

  // What to produce instead of target code.
  bool no_codegen = false;
  bool parse_only = false;
  bool dump_ast = false;
  bool dump_ir = false;
  bool emit_ir = false;
  bool emit_module = false;  ///< -emit-module
  bool preprocess_only = false;
  std::string dump_ir_after;

  // Preprocessor.
  std::vector<std::string> include_paths;
  std::vector<std::string> defines;
  int language_version = 2018;      ///< -std (preprocess::ParseLanguageVersion)

  // Side outputs.
  std::string reflection_json;
  std::string depfile;             ///< -depfile FILE or -MF FILE
  bool depfile_next_to_output = false;  ///< -MD without -MF: the output's path + ".d"
  std::string depfile_target;      ///< -MT: the rule's target instead of the outputs
  std::string cuda_prelude;        ///< -emit-cuda-prelude FILE
  std::string module_name;

  // Diagnostics.
  bool json_diagnostics = false;
  uint32_t error_limit = 20;
  bool report_checkpoints = false;
  std::vector<int> disabled_warnings;
  std::vector<int> error_warnings;
  bool all_warnings_are_errors = false;
};

/// Parses argv[1..]. On a mistake returns false with `*error` set to the message to
/// print after "slopec: error: ".
bool ParseCommandLine(const std::vector<std::string>& args, CommandLine* out, std::string* error);

/// Writes `-h`'s text: the usage line and the flags, grouped as slangc groups them.
void PrintHelp(std::FILE* out);

/// The canonical name of a target spelling (`spirv-assembly` -> `spirv-asm`, `cpu` ->
/// `host`), or "" when Slope does not write it.
std::string CanonicalTarget(const std::string& name);

/// The file extension slangc associates with a target (`spv`, `spv-asm`, `cu`, ...).
std::string TargetExtension(const std::string& target);

/// The target a path's extension names (`.spv` -> spirv), or "" when none.
std::string TargetOfPath(const std::string& path);

/// The Levenshtein distance of two strings.
size_t EditDistance(const std::string& a, const std::string& b);

/// "; did you mean 'X'?" for the nearest of `candidates` to `word`, or "" when none is
/// close.
std::string Suggest(const std::string& word, const std::vector<std::string>& candidates);

}  // namespace slope::tools::slopec
