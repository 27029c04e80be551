// The C API (include/slope/slope.h): each handle wraps a value of the C++ API, and each
// function catches whatever could escape, so no exception crosses into C.

#include "slope/slope.h"

#include <algorithm>
#include <cstring>
#include <new>
#include <string>
#include <type_traits>
#include <vector>

#include "slope/slope.hpp"

struct slope_session {
  slope::Session session;
};

struct slope_module {
  slope::Module module;
};

struct slope_artifact {
  slope::Artifact artifact;
};

namespace {

slope_status CStatus(slope::Status status) {
  switch (status) {
    case slope::Status::Ok: return SLOPE_OK;
    case slope::Status::Error: return SLOPE_ERROR;
    case slope::Status::InternalError: return SLOPE_INTERNAL_ERROR;
  }
  return SLOPE_INTERNAL_ERROR;
}

slope_severity CSeverity(slope::Severity severity) {
  switch (severity) {
    case slope::Severity::Error: return SLOPE_SEVERITY_ERROR;
    case slope::Severity::Warning: return SLOPE_SEVERITY_WARNING;
    case slope::Severity::Note: return SLOPE_SEVERITY_NOTE;
  }
  return SLOPE_SEVERITY_ERROR;
}

void Fill(const slope::Diagnostic& d, slope_diagnostic* out) {
  out->severity = CSeverity(d.severity);
  out->code = d.code.c_str();
  out->file = d.file.c_str();
  out->line = d.line;
  out->column = d.column;
  out->message = d.message.c_str();
  out->note_count = d.notes.size();
}

slope_status Diagnostic(const std::vector<slope::Diagnostic>& diags, size_t index,
                        slope_diagnostic* out) {
  if (out == nullptr || index >= diags.size()) return SLOPE_INVALID_ARGUMENT;
  Fill(diags[index], out);
  return SLOPE_OK;
}

slope_status Note(const std::vector<slope::Diagnostic>& diags, size_t index, size_t note,
                  slope_diagnostic* out) {
  if (out == nullptr || index >= diags.size() || note >= diags[index].notes.size()) {
    return SLOPE_INVALID_ARGUMENT;
  }
  Fill(diags[index].notes[note], out);
  return SLOPE_OK;
}

size_t RenderInto(const std::vector<slope::Diagnostic>& diags, char* buffer, size_t size) {
  std::string text;
  try {
    text = slope::Render(diags);
  } catch (...) {
    text.clear();
  }
  if (buffer != nullptr && size > 0) {
    size_t n = std::min(size - 1, text.size());
    std::memcpy(buffer, text.data(), n);
    buffer[n] = '\0';
  }
  return text.size();
}

/// Calls `make` and returns its status, or SLOPE_INTERNAL_ERROR when it throws (out of
/// memory: the C++ API itself returns every other failure).
template <typename Make>
slope_status Guard(Make make) {
  try {
    return make();
  } catch (...) {
    return SLOPE_INTERNAL_ERROR;
  }
}

}  // namespace

extern "C" {

void slope_session_options_init(slope_session_options* options) {
  if (options == nullptr) return;
  *options = slope_session_options{};
  options->optimization_level = 1;
}

slope_status slope_session_create(const slope_session_options* options, slope_session** out) {
  if (out == nullptr) return SLOPE_INVALID_ARGUMENT;
  *out = nullptr;
  return Guard([&] {
    slope::SessionOptions o;
    if (options != nullptr) {
      if ((options->search_path_count > 0 && options->search_paths == nullptr) ||
          (options->macro_count > 0 && options->macros == nullptr)) {
        return SLOPE_INVALID_ARGUMENT;
      }
      for (size_t i = 0; i < options->search_path_count; ++i) {
        o.search_paths.emplace_back(options->search_paths[i]);
      }
      for (size_t i = 0; i < options->macro_count; ++i) {
        std::string m = options->macros[i];
        size_t eq = m.find('=');
        o.macros.push_back(eq == std::string::npos ? slope::Macro{m, "1"}
                                                   : slope::Macro{m.substr(0, eq), m.substr(eq + 1)});
      }
      o.optimization_level = options->optimization_level;
      o.matrix_layout = options->column_major != 0 ? slope::MatrixLayout::ColumnMajor
                                                    : slope::MatrixLayout::RowMajor;
      o.warnings_as_errors = options->warnings_as_errors != 0;
      o.verify_each_pass = options->verify_each_pass != 0;
    }
    *out = new slope_session{slope::Session(std::move(o))};
    return SLOPE_OK;
  });
}

void slope_session_destroy(slope_session* session) { delete session; }

slope_status slope_module_load(const slope_session* session, const char* path, slope_module** out) {
  if (out == nullptr) return SLOPE_INVALID_ARGUMENT;
  *out = nullptr;
  if (session == nullptr || path == nullptr) return SLOPE_INVALID_ARGUMENT;
  return Guard([&] {
    *out = new slope_module{session->session.LoadModule(path)};
    return CStatus((*out)->module.GetStatus());
  });
}

slope_status slope_module_load_source(const slope_session* session, const char* name,
                                      const char* text, slope_module** out) {
  if (out == nullptr) return SLOPE_INVALID_ARGUMENT;
  *out = nullptr;
  if (session == nullptr || name == nullptr || text == nullptr) return SLOPE_INVALID_ARGUMENT;
  return Guard([&] {
    *out = new slope_module{session->session.LoadModuleFromSource(name, text)};
    return CStatus((*out)->module.GetStatus());
  });
}

void slope_module_destroy(slope_module* module) { delete module; }

size_t slope_module_entry_point_count(const slope_module* module) {
  return module == nullptr ? 0 : module->module.EntryPoints().size();
}

const char* slope_module_entry_point(const slope_module* module, size_t index,
                                     uint32_t numthreads[3]) {
  if (module == nullptr || index >= module->module.EntryPoints().size()) return nullptr;
  const slope::EntryPoint& e = module->module.EntryPoints()[index];
  if (numthreads != nullptr) std::copy(e.numthreads.begin(), e.numthreads.end(), numthreads);
  return e.name.c_str();
}

size_t slope_module_diagnostic_count(const slope_module* module) {
  return module == nullptr ? 0 : module->module.Diagnostics().size();
}

slope_status slope_module_diagnostic(const slope_module* module, size_t index, slope_diagnostic* out) {
  if (module == nullptr) return SLOPE_INVALID_ARGUMENT;
  return Diagnostic(module->module.Diagnostics(), index, out);
}

slope_status slope_module_diagnostic_note(const slope_module* module, size_t index, size_t note,
                                          slope_diagnostic* out) {
  if (module == nullptr) return SLOPE_INVALID_ARGUMENT;
  return Note(module->module.Diagnostics(), index, note, out);
}

const char* slope_module_internal_error(const slope_module* module) {
  return module == nullptr ? "" : module->module.InternalError().c_str();
}

slope_status slope_compile(const slope_module* module, slope_target target,
                           const char* const* entries, size_t entry_count, slope_artifact** out) {
  if (out == nullptr) return SLOPE_INVALID_ARGUMENT;
  *out = nullptr;
  // A C caller may pass any int: read it as its bits, since an enum value outside the
  // enumerators is not a value C++ may load.
  std::underlying_type_t<slope_target> raw = 0;
  std::memcpy(&raw, &target, sizeof raw);
  if (module == nullptr || (entry_count > 0 && entries == nullptr) ||
      raw < SLOPE_TARGET_SPIRV || raw > SLOPE_TARGET_LLVM_IR) {
    return SLOPE_INVALID_ARGUMENT;
  }
  return Guard([&] {
    std::vector<std::string> names(entries, entries + entry_count);
    *out = new slope_artifact{module->module.Compile(static_cast<slope::Target>(target), names)};
    return CStatus((*out)->artifact.status);
  });
}

void slope_artifact_destroy(slope_artifact* artifact) { delete artifact; }

slope_status slope_artifact_status(const slope_artifact* artifact) {
  return artifact == nullptr ? SLOPE_INVALID_ARGUMENT : CStatus(artifact->artifact.status);
}

const void* slope_artifact_data(const slope_artifact* artifact) {
  return artifact == nullptr ? nullptr : artifact->artifact.data.data();
}

size_t slope_artifact_size(const slope_artifact* artifact) {
  return artifact == nullptr ? 0 : artifact->artifact.data.size();
}

const char* slope_artifact_reflection_json(const slope_artifact* artifact) {
  return artifact == nullptr ? "" : artifact->artifact.reflection_json.c_str();
}

size_t slope_artifact_diagnostic_count(const slope_artifact* artifact) {
  return artifact == nullptr ? 0 : artifact->artifact.diagnostics.size();
}

slope_status slope_artifact_diagnostic(const slope_artifact* artifact, size_t index,
                                       slope_diagnostic* out) {
  if (artifact == nullptr) return SLOPE_INVALID_ARGUMENT;
  return Diagnostic(artifact->artifact.diagnostics, index, out);
}

slope_status slope_artifact_diagnostic_note(const slope_artifact* artifact, size_t index,
                                            size_t note, slope_diagnostic* out) {
  if (artifact == nullptr) return SLOPE_INVALID_ARGUMENT;
  return Note(artifact->artifact.diagnostics, index, note, out);
}

size_t slope_artifact_dependency_count(const slope_artifact* artifact) {
  return artifact == nullptr ? 0 : artifact->artifact.dependencies.size();
}

const char* slope_artifact_dependency(const slope_artifact* artifact, size_t index) {
  if (artifact == nullptr || index >= artifact->artifact.dependencies.size()) return nullptr;
  return artifact->artifact.dependencies[index].c_str();
}

const char* slope_artifact_internal_error(const slope_artifact* artifact) {
  return artifact == nullptr ? "" : artifact->artifact.internal_error.c_str();
}

size_t slope_artifact_render_diagnostics(const slope_artifact* artifact, char* buffer, size_t size) {
  static const std::vector<slope::Diagnostic> kNone;
  return RenderInto(artifact == nullptr ? kNone : artifact->artifact.diagnostics, buffer, size);
}

size_t slope_module_render_diagnostics(const slope_module* module, char* buffer, size_t size) {
  static const std::vector<slope::Diagnostic> kNone;
  return RenderInto(module == nullptr ? kNone : module->module.Diagnostics(), buffer, size);
}

}  // extern "C"
