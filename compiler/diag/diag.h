#pragma once
// The diagnostics engine: every user-facing error, warning and note goes through here.
// A diagnostic has a numbered code from diagnostics.def, a source range, a message and
// optional notes. Rendering is text (file:line:col: error E1234: message, the source
// line and a caret line) or JSON (one object per line).

#include <cstdint>
#include <iosfwd>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <vector>

#include "compiler/source/source_manager.h"

namespace slope::diag {

enum class Severity : uint8_t { Error, Warning, Note };

/// One entry per line of diagnostics.def.
enum class DiagId : uint16_t {
#define DIAG(name, severity, number, message) name,
#include "compiler/diag/diagnostics.def"
#undef DIAG
};

/// Static facts about a diagnostic kind.
struct DiagInfo {
  const char* name;
  Severity severity;
  int number;
  const char* message;
};

/// The table entry of `id`.
const DiagInfo& GetDiagInfo(DiagId id);
/// Every diagnostic kind, in table order.
const std::vector<DiagId>& AllDiagIds();
/// The printed code: "E1001", "W3101", "N0001".
std::string DiagCode(DiagId id);

/// A diagnostic as reported, resolved against the sources: what a library caller keeps
/// once the compile's SourceManager is gone. RenderRecord writes it as the engine does.
struct Record {
  Severity severity = Severity::Error;  ///< as shown: a warning made an error is an error
  std::string code;                     ///< "E1001", "W3101", "N0001"
  std::string file;                     ///< after `#line`; empty when it has no place
  uint32_t line = 0;                    ///< 1-based, after `#line`; 0 when it has no place
  uint32_t column = 0;                  ///< 1-based
  /// Where the range ends (as JSON diagnostics give it); 0 when it has no end in the file.
  uint32_t end_line = 0;
  uint32_t end_column = 0;
  std::string message;
  std::string source_line;     ///< the text of the line it points at, for the caret
  std::vector<Record> notes;   ///< notes attached to it, in order
};

/// Renders one record as text: "file:line:col: severity CODE: message", the source line
/// and a caret line (when it has a place), then its notes alike.
std::string RenderRecord(const Record& record);

/// Output format of the engine.
enum class Format : uint8_t { Text, Json };

/// Reports a compile gives as notes only when asked for.
enum class Remark : uint8_t {
  /// -report-checkpoint-intermediates: what each backward derivative keeps per thread
  /// for its reverse sweep (autodiff/reverse).
  CheckpointIntermediates,
};

/// Engine settings.
struct Options {
  Format format = Format::Text;
  uint32_t error_limit = 20;  ///< 0 = unlimited
  std::vector<Remark> remarks;  ///< the optional reports asked for
  /// Warning numbers (W3102 is 3102) never reported (-warnings-disable, -Wno-<id>).
  std::vector<int> disabled_warnings;
  /// Warning numbers reported as errors (-warnings-as-errors <id>,...); they keep their
  /// W code, are printed as "error" and count as errors.
  std::vector<int> error_warnings;
  bool all_warnings_are_errors = false;  ///< -warnings-as-errors all
  /// When set, each diagnostic is kept here, resolved to file, line and column, instead
  /// of being written to the engine's stream (the embedded API renders it on request).
  std::vector<Record>* records = nullptr;
};

/// What a `#pragma warning` does from its position to the end of its file.
struct WarningPragma {
  enum class Action : uint8_t { Disable, Default, Error, Once, Push, Pop };
  source::SourceLoc at;
  Action action = Action::Disable;
  std::vector<int> numbers;  ///< W numbers (Disable, Default, Error, Once)
};

/// A fully formed diagnostic, before rendering.
struct Diagnostic {
  DiagId id;
  source::SourceRange range;
  std::string message;
  std::vector<Diagnostic> notes;
};

/// Converts a diagnostic argument to text.
inline std::string ToDiagArg(std::string_view s) { return std::string(s); }
inline std::string ToDiagArg(const std::string& s) { return s; }
inline std::string ToDiagArg(const char* s) { return s; }
template <typename T>
  requires std::is_integral_v<T>
std::string ToDiagArg(T v) {
  return std::to_string(v);
}

/// Replaces each "{}" in `format` with the next argument.
std::string FormatMessage(std::string_view format, const std::vector<std::string>& args);

class DiagEngine;

/// Collects notes for a diagnostic; the diagnostic is emitted when the builder dies.
class DiagBuilder {
 public:
  DiagBuilder(DiagEngine* engine, Diagnostic diag) : engine_(engine), diag_(std::move(diag)) {}
  DiagBuilder(DiagBuilder&& other) noexcept
      : engine_(other.engine_), diag_(std::move(other.diag_)) {
    other.engine_ = nullptr;
  }
  DiagBuilder(const DiagBuilder&) = delete;
  DiagBuilder& operator=(const DiagBuilder&) = delete;
  DiagBuilder& operator=(DiagBuilder&&) = delete;
  ~DiagBuilder();

  /// Attaches a note pointing at `range`.
  template <typename... Args>
  DiagBuilder& Note(DiagId id, source::SourceRange range, const Args&... args) {
    diag_.notes.push_back(
        Diagnostic{id, range, FormatMessage(GetDiagInfo(id).message, {ToDiagArg(args)...}), {}});
    return *this;
  }
  template <typename... Args>
  DiagBuilder& Note(DiagId id, source::SourceLoc loc, const Args&... args) {
    return Note(id, source::SourceRange(loc), args...);
  }

 private:
  DiagEngine* engine_;
  Diagnostic diag_;
};

/// Renders and counts diagnostics for one compile session.
class DiagEngine {
 public:
  DiagEngine(const source::SourceManager& sources, std::ostream& out, Options options = {});

  /// Starts a diagnostic; it is emitted when the returned builder goes out of scope.
  template <typename... Args>
  DiagBuilder Report(DiagId id, source::SourceRange range, const Args&... args) {
    return DiagBuilder(
        this, Diagnostic{id, range, FormatMessage(GetDiagInfo(id).message, {ToDiagArg(args)...}), {}});
  }
  template <typename... Args>
  DiagBuilder Report(DiagId id, source::SourceLoc loc, const Args&... args) {
    return Report(id, source::SourceRange(loc), args...);
  }

  /// Records a `#pragma warning`: warnings reported later in the file, past `p.at`, are
  /// shown, hidden or made errors as it says. Pragmas of one file come in order.
  void AddWarningPragma(WarningPragma p) { pragmas_[p.at.file].push_back(std::move(p)); }
  /// The `#pragma warning`s recorded for `file`, in order (for module files).
  std::vector<WarningPragma> WarningPragmas(source::FileId file) const {
    auto it = pragmas_.find(file);
    return it == pragmas_.end() ? std::vector<WarningPragma>{} : it->second;
  }

  /// Starts another request on the same sources (a checked module compiled again):
  /// counts, the error limit and the repeated-diagnostic filter start over, and records
  /// go to `records`.
  void Restart(std::vector<Record>* records);

  /// Renders one diagnostic now (used by DiagBuilder).
  void Emit(const Diagnostic& diag);

  uint32_t ErrorCount() const { return error_count_; }
  uint32_t WarningCount() const { return warning_count_; }
  bool HasErrors() const { return error_count_ > 0; }
  /// True once the error limit was hit: stages should stop as soon as they can.
  bool LimitReached() const { return limit_reached_; }

  const source::SourceManager& Sources() const { return sources_; }
  /// Whether the optional report `r` was asked for.
  bool Wants(Remark r) const {
    for (Remark want : options_.remarks) {
      if (want == r) return true;
    }
    return false;
  }

 private:
  Record MakeRecord(const Diagnostic& diag, Severity shown) const;
  void RenderText(const Diagnostic& diag, Severity shown);
  void RenderJson(const Diagnostic& diag, Severity shown);

  /// How the `#pragma warning`s before `at` in its file treat warning `number`: nullopt
  /// when none names it, else Disable, Default, Error or Once.
  std::optional<WarningPragma::Action> PragmaState(source::SourceLoc at, int number) const;

  const source::SourceManager& sources_;
  std::ostream& out_;
  Options options_;
  uint32_t error_count_ = 0;
  uint32_t warning_count_ = 0;
  bool limit_reached_ = false;
  /// The diagnostics rendered so far (id, place, text): one reached twice (code a pass
  /// visits for two callers, such as a function's forward and backward derivatives, or
  /// a conformance checked for two uses) is shown once. A repeated error still counts.
  std::set<std::tuple<DiagId, uint32_t, uint32_t, std::string>> shown_;
  std::map<source::FileId, std::vector<WarningPragma>> pragmas_;
  std::set<int> once_shown_;  ///< warnings a `#pragma warning(once: ...)` has shown
};

}  // namespace slope::diag
