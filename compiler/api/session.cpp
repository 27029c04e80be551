// The embedded C++ API (include/slope/slope.hpp) over driver::Compile: a Session turns
// its options into driver::CompileOptions, a Module keeps its source and what checking
// it found, and each Compile is one driver::Compile that keeps diagnostics structured and
// turns an internal error into a result.

#include <cstring>
#include <exception>
#include <fstream>
#include <iterator>
#include <map>
#include <mutex>
#include <sstream>

#include "compiler/base/ice.h"
#include "compiler/diag/diag.h"
#include "compiler/driver/compile.h"
#include "compiler/driver/reflection_json.h"
#include "slope/slope.hpp"

namespace slope {
namespace detail {

struct SessionState {
  SessionOptions options;
};

struct ModuleState {
  std::shared_ptr<const SessionState> session;
  std::string name;
  std::optional<std::string> text;  ///< the module's source; unset when it could not be read
  Status status = Status::Error;
  std::vector<EntryPoint> entry_points;
  std::vector<Diagnostic> diagnostics;
  std::vector<std::string> dependencies;
  std::string internal_error;
  /// The module checked for each target and entry-point list it was compiled for: a
  /// compile runs only the back end after the first.
  mutable std::mutex programs_mutex;
  mutable std::map<std::string, std::shared_ptr<driver::CheckedProgram>> programs;
};

}  // namespace detail

namespace {

constexpr std::pair<Target, std::string_view> kTargetNames[] = {
    {Target::SpirV, "spirv"}, {Target::SpirVAsm, "spirv-asm"}, {Target::Glsl, "glsl"},
    {Target::Cuda, "cuda"},   {Target::Ptx, "ptx"},             {Target::Host, "host"},
    {Target::Object, "object"}, {Target::LlvmIr, "llvm-ir"},
};

driver::Target DriverTarget(Target target) {
  switch (target) {
    case Target::SpirV: return driver::Target::SpirV;
    case Target::SpirVAsm: return driver::Target::SpirVAsm;
    case Target::Glsl: return driver::Target::Glsl;
    case Target::Cuda: return driver::Target::Cuda;
    case Target::Ptx: return driver::Target::Ptx;
    case Target::Host: return driver::Target::Host;
    case Target::Object: return driver::Target::Object;
    case Target::LlvmIr: return driver::Target::LlvmIr;
  }
  return driver::Target::SpirV;
}

Severity ApiSeverity(diag::Severity s) {
  switch (s) {
    case diag::Severity::Error: return Severity::Error;
    case diag::Severity::Warning: return Severity::Warning;
    case diag::Severity::Note: return Severity::Note;
  }
  return Severity::Error;
}

diag::Severity DiagSeverity(Severity s) {
  switch (s) {
    case Severity::Error: return diag::Severity::Error;
    case Severity::Warning: return diag::Severity::Warning;
    case Severity::Note: return diag::Severity::Note;
  }
  return diag::Severity::Error;
}

Diagnostic FromRecord(const diag::Record& r) {
  Diagnostic d{ApiSeverity(r.severity), r.code,    r.file,    r.line,        r.column,
               r.end_line,              r.end_column, r.message, r.source_line, {}};
  for (const diag::Record& note : r.notes) d.notes.push_back(FromRecord(note));
  return d;
}

diag::Record ToRecord(const Diagnostic& d) {
  diag::Record r{DiagSeverity(d.severity), d.code,    d.file,    d.line,        d.column,
                 d.end_line,               d.end_column, d.message, d.source_line, {}};
  for (const Diagnostic& note : d.notes) r.notes.push_back(ToRecord(note));
  return r;
}

/// The driver's options for compiling `module` as `session` says.
driver::CompileOptions BaseOptions(const detail::ModuleState& module) {
  const SessionOptions& s = module.session->options;
  driver::CompileOptions o;
  o.input_path = module.name;
  o.source_text = module.text;
  o.include_paths = s.search_paths;
  for (const Macro& m : s.macros) o.defines.push_back(m.name + "=" + m.value);
  o.language_version = s.language_version;
  o.optimization_level = s.optimization_level;
  o.column_major = s.matrix_layout == MatrixLayout::ColumnMajor;
  o.scalar_layout = s.scalar_layout;
  o.debug_info = s.debug_info;
  o.validate_spirv = s.validate;
  o.all_warnings_are_errors = s.warnings_as_errors;
  o.error_warnings = s.error_warnings;
  o.disabled_warnings = s.disabled_warnings;
  o.error_limit = s.error_limit;
  o.verify_each_pass = s.verify_each_pass;
  for (const RegisterShift& r : s.register_shifts) {
    o.bindings.register_shifts.push_back({r.register_class, r.amount, r.space});
  }
  if (s.globals_binding) {
    o.bindings.globals_binding = s.globals_binding->first;
    o.bindings.globals_set = s.globals_binding->second;
  }
  return o;
}

/// One compile (`run` on options whose diagnostics are structured). An internal error
/// (or any other exception, such as running out of memory) becomes Status::InternalError
/// with its report in `*internal_error`; nothing escapes.
template <typename Run>
Status RunCompile(driver::CompileOptions options, driver::CompileResult* result,
                  std::vector<Diagnostic>* diagnostics, std::string* internal_error, Run run) {
  std::vector<diag::Record> records;
  options.diagnostics = &records;
  Status status = Status::Error;
  try {
    *result = run(options);
    status = result->ok ? Status::Ok : Status::Error;
  } catch (const base::InternalError& error) {
    *internal_error = error.Report();
    status = Status::InternalError;
  } catch (const std::exception& error) {
    *internal_error = std::string("internal compiler error: ") + error.what();
    status = Status::InternalError;
  }
  for (const diag::Record& r : records) diagnostics->push_back(FromRecord(r));
  return status;
}

std::shared_ptr<const detail::ModuleState> Load(std::shared_ptr<const detail::SessionState> session,
                                                std::string name, std::optional<std::string> text) {
  auto state = std::make_shared<detail::ModuleState>();
  state->session = std::move(session);
  state->name = std::move(name);
  state->text = std::move(text);
  driver::CompileOptions options = BaseOptions(*state);
  options.stop_after = driver::StopAfter::Check;
  driver::CompileResult result;
  state->status =
      RunCompile(options, &result, &state->diagnostics, &state->internal_error, driver::Compile);
  for (const driver::EntryPointInfo& e : result.reflection.entry_points) {
    state->entry_points.push_back({e.name, "compute", e.numthreads});
  }
  state->dependencies = std::move(result.files_read);
  return state;
}

}  // namespace

std::string_view TargetName(Target target) {
  for (const auto& [t, name] : kTargetNames) {
    if (t == target) return name;
  }
  return "spirv";
}

std::optional<Target> TargetFromName(std::string_view name) {
  for (const auto& [t, n] : kTargetNames) {
    if (n == name) return t;
  }
  return std::nullopt;
}

std::string Render(const Diagnostic& diagnostic) {
  return diag::RenderRecord(ToRecord(diagnostic));
}

std::string Render(const std::vector<Diagnostic>& diagnostics) {
  std::string out;
  for (const Diagnostic& d : diagnostics) out += Render(d);
  return out;
}

std::vector<uint32_t> Artifact::Words() const {
  std::vector<uint32_t> words(data.size() / sizeof(uint32_t));
  if (!words.empty()) std::memcpy(words.data(), data.data(), words.size() * sizeof(uint32_t));
  return words;
}

Module::Module(std::shared_ptr<const detail::ModuleState> state) : state_(std::move(state)) {}

bool Module::Ok() const { return state_->status == Status::Ok; }
Status Module::GetStatus() const { return state_->status; }
const std::string& Module::Name() const { return state_->name; }
const std::vector<EntryPoint>& Module::EntryPoints() const { return state_->entry_points; }
const std::vector<Diagnostic>& Module::Diagnostics() const { return state_->diagnostics; }
const std::vector<std::string>& Module::Dependencies() const { return state_->dependencies; }
const std::string& Module::InternalError() const { return state_->internal_error; }

Artifact Module::Compile(Target target, const std::vector<std::string>& entries) const {
  Artifact artifact;
  artifact.target = target;
  driver::CompileOptions options = BaseOptions(*state_);
  options.target = DriverTarget(target);
  options.entries = entries;
  driver::CompileResult result;
  // The front end runs once per target and entry-point list; a compile after an
  // internal error checks the module again.
  std::string key(TargetName(target));
  for (const std::string& e : entries) key += "\n" + e;
  auto compile = [&](const driver::CompileOptions& o) {
    std::shared_ptr<driver::CheckedProgram> program;
    {
      std::lock_guard<std::mutex> lock(state_->programs_mutex);
      auto it = state_->programs.find(key);
      if (it != state_->programs.end()) program = it->second;
    }
    if (program == nullptr) {
      program = driver::CheckProgram(o);
      std::lock_guard<std::mutex> lock(state_->programs_mutex);
      program = state_->programs.emplace(key, program).first->second;
    }
    try {
      return driver::CompileChecked(*program, o);
    } catch (...) {
      std::lock_guard<std::mutex> lock(state_->programs_mutex);
      state_->programs.erase(key);
      throw;
    }
  };
  artifact.status =
      RunCompile(options, &result, &artifact.diagnostics, &artifact.internal_error, compile);
  artifact.dependencies = std::move(result.files_read);
  if (artifact.status != Status::Ok) return artifact;
  artifact.reflection = std::move(result.reflection);
  artifact.reflection_json = driver::ReflectionToJson(artifact.reflection);
  if (target == Target::SpirV) {
    artifact.data.assign(reinterpret_cast<const char*>(result.spirv.data()),
                         result.spirv.size() * sizeof(uint32_t));
  } else if (target == Target::Host || target == Target::Object) {
    artifact.data = std::move(result.binary);
  } else {
    artifact.data = std::move(result.text);
    artifact.is_text = true;
  }
  return artifact;
}

Session::Session(SessionOptions options)
    : state_(std::make_shared<detail::SessionState>(detail::SessionState{std::move(options)})) {}

const SessionOptions& Session::Options() const { return state_->options; }

Module Session::LoadModule(const std::string& path) const {
  // The module's own text is read once, here, so every compile of it sees the same
  // source; a file that cannot be read is left to the driver, which reports it.
  std::optional<std::string> text;
  std::ifstream in(path, std::ios::binary);
  if (in) {
    std::ostringstream contents;
    contents << in.rdbuf();
    if (in.good() || in.eof()) text = std::move(contents).str();
  }
  return Module(Load(state_, path, std::move(text)));
}

Module Session::LoadModuleFromSource(const std::string& name, const std::string& text) const {
  return Module(Load(state_, name, text));
}

}  // namespace slope
