#include "compiler/diag/diag.h"

#include <algorithm>
#include <cstdio>
#include <ostream>

#include <nlohmann/json.hpp>

namespace slope::diag {
namespace {

constexpr DiagInfo kDiagTable[] = {
#define DIAG(name, severity, number, message) {#name, Severity::severity, number, message},
#include "compiler/diag/diagnostics.def"
#undef DIAG
};

const char* SeverityName(Severity s) {
  switch (s) {
    case Severity::Error: return "error";
    case Severity::Warning: return "warning";
    case Severity::Note: return "note";
  }
  return "error";
}

}  // namespace

const DiagInfo& GetDiagInfo(DiagId id) { return kDiagTable[static_cast<size_t>(id)]; }

const std::vector<DiagId>& AllDiagIds() {
  static const std::vector<DiagId> ids = [] {
    std::vector<DiagId> v;
    for (size_t i = 0; i < std::size(kDiagTable); ++i) v.push_back(static_cast<DiagId>(i));
    return v;
  }();
  return ids;
}

std::string DiagCode(DiagId id) {
  const DiagInfo& info = GetDiagInfo(id);
  char letter = info.severity == Severity::Error ? 'E' : info.severity == Severity::Warning ? 'W' : 'N';
  char buf[16];
  std::snprintf(buf, sizeof(buf), "%c%04d", letter, info.number);
  return buf;
}

std::string FormatMessage(std::string_view format, const std::vector<std::string>& args) {
  std::string out;
  size_t next = 0;
  for (size_t i = 0; i < format.size(); ++i) {
    if (format[i] == '{' && i + 1 < format.size() && format[i + 1] == '}') {
      out += next < args.size() ? args[next] : std::string("?");
      ++next;
      ++i;
    } else {
      out += format[i];
    }
  }
  return out;
}

DiagBuilder::~DiagBuilder() {
  if (engine_ != nullptr) engine_->Emit(diag_);
}

DiagEngine::DiagEngine(const source::SourceManager& sources, std::ostream& out, Options options)
    : sources_(sources), out_(out), options_(options) {}

std::optional<WarningPragma::Action> DiagEngine::PragmaState(source::SourceLoc at,
                                                             int number) const {
  if (!at.IsValid()) return std::nullopt;
  auto it = pragmas_.find(at.file);
  if (it == pragmas_.end()) return std::nullopt;
  // The state of each number, with `push` saving the whole state and `pop` restoring it.
  using State = std::optional<WarningPragma::Action>;
  State state;
  std::vector<State> saved;
  for (const WarningPragma& p : it->second) {
    if (p.at.offset > at.offset) break;
    switch (p.action) {
      case WarningPragma::Action::Push:
        saved.push_back(state);
        break;
      case WarningPragma::Action::Pop:
        if (!saved.empty()) {
          state = saved.back();
          saved.pop_back();
        }
        break;
      default:
        if (std::find(p.numbers.begin(), p.numbers.end(), number) != p.numbers.end()) {
          state = p.action == WarningPragma::Action::Default ? State() : State(p.action);
        }
        break;
    }
  }
  return state;
}

void DiagEngine::Restart(std::vector<Record>* records) {
  options_.records = records;
  error_count_ = 0;
  warning_count_ = 0;
  limit_reached_ = false;
  shown_.clear();
  once_shown_.clear();
}

void DiagEngine::Emit(const Diagnostic& diag) {
  if (limit_reached_) return;
  Severity severity = GetDiagInfo(diag.id).severity;
  if (severity == Severity::Warning) {
    const int number = GetDiagInfo(diag.id).number;
    auto listed = [&](const std::vector<int>& numbers) {
      return std::find(numbers.begin(), numbers.end(), number) != numbers.end();
    };
    // A `#pragma warning` in the source overrides the command line from its line on.
    std::optional<WarningPragma::Action> pragma = PragmaState(diag.range.begin, number);
    using Action = WarningPragma::Action;
    if (pragma == Action::Disable) return;
    if (pragma == Action::Once && !once_shown_.insert(number).second) return;
    if (!pragma.has_value() && listed(options_.disabled_warnings)) return;
    if (pragma == Action::Error || (!pragma.has_value() && (options_.all_warnings_are_errors ||
                                                            listed(options_.error_warnings)))) {
      severity = Severity::Error;
    }
  }
  bool repeated = false;
  if (diag.range.begin.IsValid()) {
    repeated = !shown_.insert({diag.id, static_cast<uint32_t>(diag.range.begin.file),
                               diag.range.begin.offset, diag.message})
                    .second;
  }
  if (severity == Severity::Error) {
    // Counted even when not shown again: a stage that reported an error must see it.
    ++error_count_;
  } else if (severity == Severity::Warning && !repeated) {
    ++warning_count_;
  }
  if (repeated) return;
  if (options_.records != nullptr) {
    options_.records->push_back(MakeRecord(diag, severity));
  } else if (options_.format == Format::Json) {
    RenderJson(diag, severity);
  } else {
    RenderText(diag, severity);
    for (const Diagnostic& note : diag.notes) RenderText(note, GetDiagInfo(note.id).severity);
  }
  if (severity == Severity::Error && options_.error_limit != 0 &&
      error_count_ >= options_.error_limit && diag.id != DiagId::TooManyErrors) {
    Diagnostic stop{DiagId::TooManyErrors, {}, FormatMessage(GetDiagInfo(DiagId::TooManyErrors).message,
                                                             {std::to_string(error_count_)}), {}};
    Emit(stop);
    limit_reached_ = true;
  }
  out_.flush();
}

Record DiagEngine::MakeRecord(const Diagnostic& diag, Severity shown) const {
  Record r;
  r.severity = shown;
  r.code = DiagCode(diag.id);
  r.message = diag.message;
  source::SourceLoc loc = diag.range.begin;
  if (loc.IsValid()) {
    source::LineCol lc = sources_.GetLineCol(loc);
    r.file = sources_.PresumedPath(loc);
    r.line = lc.line;
    r.column = lc.column;
    r.source_line = std::string(sources_.GetLineText(loc));
    // The caret's '~' run covers the range up to the end of the line it starts on.
    if (diag.range.end.IsValid() && diag.range.end.file == loc.file &&
        diag.range.end.offset > loc.offset) {
      source::LineCol e = sources_.GetLineCol(diag.range.end);
      r.end_line = e.line;
      r.end_column = e.line == lc.line ? lc.column + (diag.range.end.offset - loc.offset)
                                       : e.column;
    }
  }
  for (const Diagnostic& note : diag.notes) {
    r.notes.push_back(MakeRecord(note, GetDiagInfo(note.id).severity));
  }
  return r;
}

namespace {
/// Source lines longer than this are shown in part.
constexpr size_t kMaxShownLine = 240;

void RenderOne(const Record& r, std::string* out) {
  if (r.line != 0) *out += r.file + ":" + std::to_string(r.line) + ":" + std::to_string(r.column) + ": ";
  *out += std::string(SeverityName(r.severity)) + ' ' + r.code + ": " + r.message + '\n';
  if (r.line == 0) return;
  // The source line, then a caret under the start and '~' under the rest of the range
  // (clipped to the line). Tabs are copied so the caret lines up. A line longer than
  // kMaxShownLine is shown as the part around the caret, "..." marking what is left out
  // (a generated line can be megabytes long).
  std::string_view line = r.source_line;
  uint32_t column = r.column;
  uint32_t end_col = column + 1;
  if (r.end_line >= r.line && r.end_line != 0) {
    uint32_t line_end_col = static_cast<uint32_t>(line.size()) + 1;
    end_col = r.end_line == r.line ? std::min(r.end_column, line_end_col) : line_end_col;
  }
  std::string_view before, after;
  if (line.size() > kMaxShownLine) {
    const size_t at = std::min<size_t>(column - 1, line.size());
    const size_t begin = at > kMaxShownLine / 2 ? at - kMaxShownLine / 2 : 0;
    const size_t end = std::min(line.size(), begin + kMaxShownLine);
    if (begin > 0) before = "...";
    if (end < line.size()) after = "...";
    line = line.substr(begin, end - begin);
    column = static_cast<uint32_t>(column - begin + before.size());
    end_col =
        static_cast<uint32_t>(std::min<size_t>(end_col - begin, line.size() + 1) + before.size());
  }
  *out += before;
  *out += line;
  *out += after;
  *out += '\n';
  std::string marker(before.size(), ' ');
  for (uint32_t i = 0; i + 1 + before.size() < column && i < line.size(); ++i) {
    marker += line[i] == '\t' ? '\t' : ' ';
  }
  marker += '^';
  for (uint32_t c = column + 1; c < end_col; ++c) marker += '~';
  *out += marker + '\n';
}
}  // namespace

std::string RenderRecord(const Record& record) {
  std::string out;
  RenderOne(record, &out);
  for (const Record& note : record.notes) out += RenderRecord(note);
  return out;
}

void DiagEngine::RenderText(const Diagnostic& diag, Severity shown) {
  Record r = MakeRecord(diag, shown);
  r.notes.clear();  // Emit renders the notes after the diagnostic
  out_ << RenderRecord(r);
}

namespace {
nlohmann::json DiagToJson(const source::SourceManager& sources, const Diagnostic& diag,
                          Severity shown) {
  nlohmann::json j;
  j["severity"] = SeverityName(shown);
  j["code"] = DiagCode(diag.id);
  j["message"] = diag.message;
  if (diag.range.begin.IsValid()) {
    source::LineCol b = sources.GetLineCol(diag.range.begin);
    j["file"] = sources.PresumedPath(diag.range.begin);
    j["line"] = b.line;
    j["column"] = b.column;
    if (diag.range.end.IsValid()) {
      source::LineCol e = sources.GetLineCol(diag.range.end);
      j["end_line"] = e.line;
      j["end_column"] = e.column;
    }
  }
  return j;
}
}  // namespace

void DiagEngine::RenderJson(const Diagnostic& diag, Severity shown) {
  nlohmann::json j = DiagToJson(sources_, diag, shown);
  nlohmann::json notes = nlohmann::json::array();
  for (const Diagnostic& note : diag.notes) {
    notes.push_back(DiagToJson(sources_, note, GetDiagInfo(note.id).severity));
  }
  j["notes"] = notes;
  // Invalid UTF-8 from the source (an include path, a macro name) must not throw.
  out_ << j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
}

}  // namespace slope::diag
