// slopec: the Slope command-line compiler, spelled as slangc is:
//   slopec FILE -entry NAME -stage compute -target spirv|spirv-asm|glsl|cuda|... -o OUT
// options.cpp reads the flags, jobs.cpp decides which compiles write which files; this
// file runs them and writes the outputs only when every compile succeeded.

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>

#include "compiler/driver/compile.h"
#include "compiler/driver/reflection_json.h"
#include "compiler/targets/cuda/prelude.h"
#include "tools/common/tool_main.h"
#include "tools/slopec/jobs.h"
#include "tools/slopec/options.h"

#ifndef SLOPE_VERSION
#define SLOPE_VERSION "unknown"
#endif

namespace {

namespace driver = slope::driver;
using slope::tools::slopec::CommandLine;
using slope::tools::slopec::Job;

int Fail(const std::string& message) {
  std::fprintf(stderr, "slopec: error: %s\n", message.c_str());
  return 1;
}

/// Writes `path` ("-": standard output), creating its folder when missing (a template
/// `-o out/{entry}.{ext}` names a folder the build may not have made).
bool WriteFile(const std::string& path, const void* data, size_t size) {
  if (path == "-") return std::fwrite(data, 1, size, stdout) == size;
  std::filesystem::path parent = std::filesystem::path(path).parent_path();
  std::error_code ignored;
  if (!parent.empty()) std::filesystem::create_directories(parent, ignored);
  std::ofstream out(path, std::ios::binary);
  out.write(static_cast<const char*>(data), static_cast<std::streamsize>(size));
  return static_cast<bool>(out);
}

driver::Target TargetKind(const std::string& target) {
  static const std::pair<const char*, driver::Target> kKinds[] = {
      {"spirv", driver::Target::SpirV}, {"spirv-asm", driver::Target::SpirVAsm},
      {"glsl", driver::Target::Glsl},   {"cuda", driver::Target::Cuda},
      {"ptx", driver::Target::Ptx},     {"host", driver::Target::Host},
      {"object", driver::Target::Object}, {"llvm-ir", driver::Target::LlvmIr}};
  for (const auto& [name, kind] : kKinds) {
    if (target == name) return kind;
  }
  return driver::Target::SpirV;
}

/// The options every compile of this command line shares.
/// The compiles' state, kept to the end of the process and never freed: the process
/// exits right after, and its memory goes faster with it than one allocation at a time.
/// Reachable from here, so leak checkers do not report it.
std::vector<std::shared_ptr<void>>* KeptState() {
  static auto* kept = new std::vector<std::shared_ptr<void>>;
  return kept;
}

driver::CompileOptions BaseOptions(const CommandLine& cl) {
  driver::CompileOptions o;
  o.keep_state = KeptState();
  o.input_path = cl.inputs[0];
  o.include_paths = cl.include_paths;
  o.defines = cl.defines;
  o.language_version = cl.language_version;
  o.stage = cl.stage;
  o.validate_spirv = !cl.skip_validation;
  o.scalar_layout = cl.scalar_layout;
  o.column_major = cl.column_major;
  o.optimization_level = cl.opt_level;
  o.debug_info = cl.debug_info;
  o.use_entrypoint_name = cl.use_entrypoint_name;
  o.diag_format = cl.json_diagnostics ? driver::DiagFormat::Json : driver::DiagFormat::Text;
  o.error_limit = cl.error_limit;
  o.disabled_warnings = cl.disabled_warnings;
  o.error_warnings = cl.error_warnings;
  o.all_warnings_are_errors = cl.all_warnings_are_errors;
  o.report_checkpoint_intermediates = cl.report_checkpoints;
  o.dump_ir_after = cl.dump_ir_after;
  for (const CommandLine::RegisterShift& s : cl.register_shifts) {
    o.bindings.register_shifts.push_back({s.register_class, s.amount, s.space});
  }
  o.bindings.globals_binding = cl.globals_binding;
  o.bindings.globals_set = cl.globals_set;
  if (!cl.gpu_arch.empty()) o.gpu_arch = cl.gpu_arch;
  o.verify_each_pass = slope::tools::VerifyEachFromEnvironment();
  return o;
}

/// A finished compile and the file its artifact goes to.
struct Output {
  std::string path;
  driver::Target kind;
  driver::StopAfter stop = driver::StopAfter::Nothing;
  driver::CompileResult result;

  /// Whether the compile writes a file: a check or a parse writes nothing.
  bool Writes() const {
    return stop != driver::StopAfter::Check && stop != driver::StopAfter::Parse;
  }
};

bool WriteArtifact(const Output& out) {
  const driver::CompileResult& r = out.result;
  if (!out.Writes()) return true;
  if (out.stop == driver::StopAfter::Module) {
    return WriteFile(out.path, r.binary.data(), r.binary.size());
  }
  if (out.stop != driver::StopAfter::Nothing)
    return WriteFile(out.path, r.text.data(), r.text.size());
  switch (out.kind) {
    case driver::Target::SpirV:
      return WriteFile(out.path, r.spirv.data(), r.spirv.size() * sizeof(uint32_t));
    case driver::Target::Host:
    case driver::Target::Object:
      return WriteFile(out.path, r.binary.data(), r.binary.size());
    default:
      return WriteFile(out.path, r.text.data(), r.text.size());
  }
}

/// A path in a Makefile rule: spaces and '#' escaped, '$' doubled.
std::string MakeEscape(const std::string& path) {
  std::string out;
  for (char c : path) {
    if (c == ' ' || c == '#') out += '\\';
    if (c == '$') out += '$';
    out += c;
  }
  return out;
}

/// -depfile / -MD -MF: "outputs: every file read".
bool WriteDepfile(const CommandLine& cl, const std::vector<Output>& outputs, std::string* error) {
  std::vector<std::string> targets;
  if (!cl.depfile_target.empty()) {
    targets.push_back(cl.depfile_target);
  } else {
    for (const Output& o : outputs) {
      if (o.path != "-" && o.Writes()) {
        targets.push_back(o.path);
      }
    }
    if (!cl.reflection_json.empty() && cl.reflection_json != "-") targets.push_back(cl.reflection_json);
  }
  std::string path = cl.depfile;
  if (path.empty()) {
    if (targets.empty()) {
      *error = "-MD needs an -o file (or -MF) to name the depfile after";
      return false;
    }
    path = targets[0] + ".d";
  }
  if (targets.empty()) {
    *error = "the depfile needs a target: give -o a file (or -MT)";
    return false;
  }
  std::string text;
  for (const std::string& t : targets) text += (text.empty() ? "" : " ") + MakeEscape(t);
  text += ":";
  std::set<std::string> seen;
  for (const Output& o : outputs) {
    for (const std::string& file : o.result.files_read) {
      if (seen.insert(file).second) text += " \\\n  " + MakeEscape(file);
    }
  }
  text += "\n";
  if (!WriteFile(path, text.data(), text.size())) {
    *error = "cannot write '" + path + "'";
    return false;
  }
  return true;
}

/// Runs one compile. The first compile of the command line reports its diagnostics as
/// they come; later ones compile the same source again and would repeat its warnings,
/// so theirs are shown only when that compile fails.
driver::CompileResult RunCompile(driver::CompileOptions options, bool first) {
  if (first) return driver::Compile(options);
  std::ostringstream diagnostics;
  options.diag_out = &diagnostics;
  driver::CompileResult result = driver::Compile(options);
  if (!result.ok) std::cerr << diagnostics.str();
  return result;
}

int Run(const CommandLine& cl) {
  if (cl.inputs.size() > 1) {
    return Fail("slopec compiles one file at a time; got '" + cl.inputs[0] + "' and '" +
                cl.inputs[1] + "'");
  }
  driver::CompileOptions base = BaseOptions(cl);
  // As with slangc, `-o NAME.slang-module` without -target asks for a module file.
  const bool emit_module =
      cl.emit_module || (cl.targets.empty() && cl.outputs.size() == 1 &&
                         std::filesystem::path(cl.outputs[0].value).extension() == ".slang-module");
  bool codegen = !(cl.preprocess_only || cl.parse_only || cl.dump_ast || cl.no_codegen ||
                   cl.dump_ir || cl.emit_ir || emit_module || !cl.dump_ir_after.empty());
  std::vector<Output> outputs;
  std::string error;

  if (!codegen) {
    // One text output (or none): the preprocessed source, a dump, or a check.
    if (cl.outputs.size() > 1) return Fail("several -o paths, but there is one output");
    if (!cl.reflection_json.empty()) {
      return Fail("-reflection-json needs code generation; drop -no-codegen, -E, -parse-only, "
                  "-dump-ast, -dump-ir, -emit-ir and -emit-module");
    }
    driver::StopAfter stop = emit_module          ? driver::StopAfter::Module
                             : cl.preprocess_only ? driver::StopAfter::Preprocess
                             : cl.parse_only    ? driver::StopAfter::Parse
                             : cl.dump_ast      ? driver::StopAfter::Ast
                             : cl.no_codegen    ? driver::StopAfter::Check
                                                : driver::StopAfter::Ir;
    driver::CompileOptions options = base;
    // The first -target picks the `__target_switch` case and the pass list.
    if (!cl.targets.empty()) options.target = TargetKind(cl.targets[0].value);
    options.stop_after = stop;
    for (const auto& e : cl.entries) options.entries.push_back(e.value);
    std::string path = cl.outputs.empty() ? "-" : cl.outputs[0].value;
    if (emit_module) {
      if (cl.outputs.empty() && !cl.inputs.empty()) {
        path = std::filesystem::path(cl.inputs[0]).replace_extension(".slang-module").string();
      }
      if (path == "-") return Fail("-emit-module writes a file; name it with -o");
      options.module_path = path;
    }
    outputs.push_back({path, options.target, stop, RunCompile(options, true)});
  } else {
    std::vector<Job> jobs;
    if (!slope::tools::slopec::PlanJobs(cl, &jobs, &error)) return Fail(error);
    for (const Job& job : jobs) {
      if (cl.wants_old_spirv && (job.target == "spirv" || job.target == "spirv-asm")) {
        return Fail("Slope writes SPIR-V 1.3 (Vulkan 1.1); " + cl.old_spirv_flag +
                    " asks for an older version, which it cannot write");
      }
      if (cl.wants_old_glsl && job.target == "glsl") {
        return Fail("Slope writes GLSL 450; " + cl.old_glsl_flag +
                    " asks for an older version, which it cannot write");
      }
    }
    bool first = true;
    for (const Job& job : jobs) {
      driver::CompileOptions options = base;
      options.target = TargetKind(job.target);
      options.entries = job.entries;
      if (!job.per_entry) {
        driver::CompileResult result = RunCompile(options, first);
        first = false;
        if (!result.ok) return 1;
        outputs.push_back(
            {job.output, options.target, driver::StopAfter::Nothing, std::move(result)});
        continue;
      }
      // A template naming {entry} without -entry: the module's entry points, found by
      // lowering it (which targets of one entry point, as glsl, could not do with all).
      driver::CompileOptions find = options;
      find.stop_after = driver::StopAfter::Ir;
      driver::CompileResult found = RunCompile(find, first);
      first = false;
      if (!found.ok) return 1;
      if (found.reflection.entry_points.empty()) {
        RunCompile(options, true);  // reports that the module has no entry point
        return 1;
      }
      for (const auto& entry : found.reflection.entry_points) {
        options.entries = {entry.name};
        std::string path = slope::tools::slopec::ExpandTemplate(job.output, job.target, entry.name);
        driver::CompileResult one = RunCompile(options, false);
        if (!one.ok) return 1;
        outputs.push_back({path, options.target, driver::StopAfter::Nothing, std::move(one)});
      }
    }
    std::set<std::string> paths;
    for (const Output& o : outputs) {
      if (o.path != "-" && !paths.insert(o.path).second) {
        return Fail("two outputs would both be written to '" + o.path + "'");
      }
    }
  }
  // Nothing is written unless every compile succeeded.
  for (const Output& o : outputs) {
    if (!o.result.ok) return 1;
  }
  for (const Output& o : outputs) {
    if (!WriteArtifact(o)) return Fail("cannot write '" + o.path + "'");
  }
  if (!cl.reflection_json.empty()) {
    std::string text = driver::ReflectionToJson(outputs[0].result.reflection);
    if (!WriteFile(cl.reflection_json, text.data(), text.size())) {
      return Fail("cannot write '" + cl.reflection_json + "'");
    }
  }
  if (!cl.depfile.empty() || cl.depfile_next_to_output) {
    if (!WriteDepfile(cl, outputs, &error)) return Fail(error);
  }
  return 0;
}

int SlopecMain(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  CommandLine cl;
  std::string error;
  if (!slope::tools::slopec::ParseCommandLine(args, &cl, &error)) return Fail(error);
  if (cl.help) {
    slope::tools::slopec::PrintHelp(stdout);
    return 0;
  }
  if (cl.version) {
    std::printf("slopec version %s\n", SLOPE_VERSION);
    return 0;
  }
  if (!cl.cuda_prelude.empty()) {
    std::string_view text = slope::targets::cuda::PreludeText();
    if (!WriteFile(cl.cuda_prelude, text.data(), text.size())) {
      return Fail("cannot write '" + cl.cuda_prelude + "'");
    }
    if (cl.inputs.empty()) return 0;
  }
  if (cl.inputs.empty()) return Fail("no input file (slopec -h shows the usage)");
  return Run(cl);
}

}  // namespace

int main(int argc, char** argv) { return slope::tools::RunToolMain(argc, argv, SlopecMain); }
