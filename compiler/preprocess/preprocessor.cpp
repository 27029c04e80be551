// The preprocessor's driver: the stack of token sources (macro expansions above the
// stack of open files), directive dispatch, #include, #line, #pragma, #error/#warning.
// Conditionals are in pp_conditional.cpp, macros in macro_expander.cpp.

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "compiler/base/ice.h"
#include "compiler/preprocess/preprocessor_impl.h"

namespace slope::preprocess {
namespace detail {

using diag::DiagId;

std::string DescribeToken(const Token& t) {
  switch (t.kind) {
    case TokenKind::EndOfFile: return "the end of the line";
    case TokenKind::Identifier:
    case TokenKind::IntLiteral:
    case TokenKind::FloatLiteral: return "'" + std::string(t.text) + "'";
    case TokenKind::StringLiteral: return "string literal " + std::string(t.text);
    default: return TokenKindSpelling(t.kind);
  }
}

Preprocessor::Preprocessor(source::SourceManager& sources, const PreprocessOptions& options,
                           diag::DiagEngine& diags, PreprocessResult* result)
    : sources_(sources), options_(options), diags_(diags), result_(result) {
  if (result_ != nullptr) result_->language_version = options.language_version;
}

std::vector<Token> Preprocessor::Run(source::FileId main) {
  main_end_.kind = TokenKind::EndOfFile;
  main_end_.loc = {main, static_cast<uint32_t>(sources_.Text(main).size())};
  main_end_.at_line_start = true;
  FileState main_state;
  main_state.file = main;
  main_state.lexer = std::make_unique<Lexer>(sources_, main, diags_);
  files_.push_back(std::move(main_state));
  if (!options_.defines.empty()) {
    // Command-line macros are #defines in a file of their own, read before the main file.
    command_line_file_ = sources_.AddFile("<command line>", CommandLineDefines());
    FileState defines;
    defines.file = command_line_file_;
    defines.lexer = std::make_unique<Lexer>(sources_, command_line_file_, diags_);
    files_.push_back(std::move(defines));
  }
  std::vector<Token> out;
  // At most one token per character (more only from macros and includes): reserving
  // that, up to the limit, costs address space but no memory until tokens are stored,
  // and spares the copies (and the old and new buffers held at once) of growing.
  out.reserve(std::min(sources_.Text(main).size() + 1, kMaxSourceTokens + 1));
  while (true) {
    PpToken t = Next();
    if (t.tok.Is(TokenKind::EndOfFile)) break;
    if (out.size() == kMaxSourceTokens) {
      diags_.Report(DiagId::TooManyTokens, t.tok.Range(), kMaxSourceTokens);
      aborted_ = true;
      break;
    }
    out.push_back(t.tok);
  }
  if (Stopped()) out.clear();
  out.push_back(main_end_);
  return out;
}

PpToken Preprocessor::Next() {
  while (true) {
    PpToken t = RawNext(false);
    if (!t.tok.Is(TokenKind::Identifier) || t.no_expand) return t;
    PpToken builtin;
    if (ExpandBuiltin(t, &builtin)) return builtin;
    Macro* macro = FindMacro(t.tok.text);
    if (macro == nullptr) return t;
    if (macro->disabled) {
      t.no_expand = true;
      return t;
    }
    if (!ExpandMacro(t, *macro)) return t;
  }
}

PpToken Preprocessor::RawNext(bool in_args) {
  PpToken end{main_end_, false, false};
  while (true) {
    if (Stopped()) return end;
    if (!macros_.empty()) {
      MacroContext& top = macros_.back();
      if (top.pos < top.tokens.size()) return top.tokens[top.pos++];
      if (top.barrier) return end;
      PopMacroContext();
      continue;
    }
    if (files_.empty()) return end;
    FileState& f = files_.back();
    Token tok = NextFileToken(f);
    if (tok.Is(TokenKind::EndOfFile)) {
      if (in_args) {
        f.pending = tok;
        return end;
      }
      if (files_.size() == 1) main_end_ = tok;  // the real end, with its line-start flag
      LeaveFile();
      continue;
    }
    if (!in_args && tok.Is(TokenKind::Hash) && tok.at_line_start) {
      HandleDirective(tok);
      continue;
    }
    return PpToken{tok, false, true};
  }
}

Token Preprocessor::NextFileToken(FileState& f) {
  if (f.pending.has_value()) {
    Token tok = *f.pending;
    f.pending.reset();
    return tok;
  }
  return f.lexer->Next();
}

bool Preprocessor::AtLineEnd(FileState& f) {
  if (f.pending.has_value()) {
    return f.pending->at_line_start || f.pending->Is(TokenKind::EndOfFile);
  }
  return f.lexer->AtLineStart();
}

std::vector<Token> Preprocessor::ReadLine(FileState& f) {
  std::vector<Token> line;
  while (!AtLineEnd(f)) line.push_back(NextFileToken(f));
  return line;
}

void Preprocessor::PopMacroContext() {
  if (macros_.back().macro != nullptr) macros_.back().macro->disabled = false;
  macros_.pop_back();
}

void Preprocessor::LeaveFile() {
  size_t depth = files_.size() - 1;
  while (!conditionals_.empty() && conditionals_.back().file_depth == depth) {
    const Conditional& c = conditionals_.back();
    diags_.Report(DiagId::UnterminatedIf, c.range, c.directive);
    conditionals_.pop_back();
  }
  files_.pop_back();
}

void Preprocessor::HandleDirective(const Token& hash) {
  hash_ = hash;
  FileState& f = files_.back();
  if (AtLineEnd(f)) return;  // a lone '#' does nothing
  Token name = NextFileToken(f);
  std::string_view n = name.Is(TokenKind::Identifier) ? name.text : std::string_view();
  if (n == "define") {
    HandleDefine(f, name);
  } else if (n == "undef") {
    HandleUndef(f, name);
  } else if (n == "include") {
    HandleInclude(f, name);
  } else if (n == "if" || n == "ifdef" || n == "ifndef") {
    HandleIf(f, name);
  } else if (n == "elif" || n == "else") {
    HandleElse(f, name);
  } else if (n == "endif") {
    HandleEndif(f, name);
  } else if (n == "line") {
    HandleLine(f, name);
  } else if (n == "pragma") {
    HandlePragma(f, name);
  } else if (n == "error" || n == "warning") {
    HandleMessage(f, name);
  } else if (n == "language") {
    HandleLanguage(f, name);
  } else {
    diags_.Report(DiagId::UnknownDirective, name.Range(), name.text);
    bool quiet = f.lexer->IsQuiet();
    f.lexer->SetQuiet(true);
    ReadLine(f);
    f.lexer->SetQuiet(quiet);
  }
}

void Preprocessor::CheckLineEnd(const std::vector<Token>& line, size_t used, const Token& name) {
  if (line.size() > used) {
    diags_.Report(DiagId::ExtraTokensAfterDirective, line[used].Range(), name.text);
  }
}

void Preprocessor::HandleInclude(FileState& f, const Token& name) {
  Token hash = hash_;
  std::vector<Token> line = ReadLine(f);
  bool expanded = !line.empty() && line[0].Is(TokenKind::Identifier);
  if (expanded) {
    // `#include MACRO`: the line is macro-expanded first.
    std::vector<PpToken> tokens;
    for (const Token& t : line) tokens.push_back(PpToken{t, false, false});
    line.clear();
    for (const PpToken& t : ExpandIsolated(std::move(tokens))) line.push_back(t.tok);
    if (Stopped()) return;
  }
  Token end;
  end.loc = line.empty() ? EndOf(name) : EndOf(line.back());
  const Token& first = line.empty() ? end : line[0];
  std::string path;
  bool angled = false;
  size_t used = 1;
  if (first.Is(TokenKind::StringLiteral) && first.text.size() >= 2 && first.text.back() == '"') {
    path = std::string(first.text.substr(1, first.text.size() - 2));
  } else if (first.Is(TokenKind::Less)) {
    size_t close = 1;
    while (close < line.size() && !line[close].Is(TokenKind::Greater)) ++close;
    if (close == line.size()) {
      diags_.Report(DiagId::ExpectedIncludePath, first.Range(), "'<' without '>'");
      return;
    }
    if (expanded) {
      for (size_t i = 1; i < close; ++i) path += line[i].text;
    } else {
      // The name is the source text between the brackets, spaces included.
      const char* begin = first.text.data() + 1;
      path = std::string(begin, static_cast<size_t>(line[close].text.data() - begin));
    }
    angled = true;
    used = close + 1;
  } else {
    diags_.Report(DiagId::ExpectedIncludePath, first.Range(), DescribeToken(first));
    return;
  }
  CheckLineEnd(line, used, name);

  // Resolution is cached per including file and spelling: a header included many times
  // costs no more file system calls.
  std::string cache_key = std::to_string(f.file) + (angled ? "<" : "\"") + path;
  if (auto hit = resolved_.find(cache_key); hit != resolved_.end()) {
    if (!hit->second.empty()) {
      EnterInclude(hit->second, hash);
    } else {
      diags_.Report(DiagId::IncludeNotFound, first.Range(), path);
    }
    return;
  }
  namespace fs = std::filesystem;
  std::vector<fs::path> candidates;
  if (fs::path(path).is_absolute()) {
    candidates.push_back(path);
  } else {
    if (!angled) candidates.push_back(fs::path(sources_.Path(f.file)).parent_path() / path);
    for (const std::string& dir : options_.include_paths) candidates.push_back(fs::path(dir) / path);
  }
  for (const fs::path& candidate : candidates) {
    std::error_code ec;
    if (fs::is_regular_file(candidate, ec)) {
      std::string found = candidate.lexically_normal().string();
      resolved_[cache_key] = found;
      EnterInclude(found, hash);
      return;
    }
  }
  resolved_[cache_key] = std::string();
  diags_.Report(DiagId::IncludeNotFound, first.Range(), path);
}

void Preprocessor::EnterInclude(const std::string& path, const Token& hash) {
  source::FileId id = 0;
  if (auto by_path = file_cache_.find(path); by_path != file_cache_.end()) {
    id = by_path->second;
  } else {
    // Two spellings of one file share its id (and so its #pragma once).
    std::error_code ec;
    std::string canonical = std::filesystem::weakly_canonical(path, ec).string();
    if (ec) canonical = path;
    if (auto by_canonical = file_cache_.find(canonical); by_canonical != file_cache_.end()) {
      id = by_canonical->second;
    } else {
      id = sources_.LoadFile(path);
      if (id == 0) {
        diags_.Report(DiagId::CannotOpenFile, hash.Range(), path);
        return;
      }
      file_cache_[canonical] = id;
      if (result_ != nullptr) result_->included_files.push_back(path);
    }
    file_cache_[path] = id;
  }
  if (pragma_once_.count(id) != 0) return;
  source::SourceRange at(hash.loc, EndOf(hash));
  if (++files_entered_ > kMaxIncludedFiles) {
    diags_.Report(DiagId::TooManyIncludes, at, kMaxIncludedFiles);
    Abort();
    return;
  }
  if (files_.size() > kMaxIncludeDepth) {
    // Past the limit: name the cycle when there is one (the usual cause), from the
    // newest time this file was entered.
    size_t last = files_.size();
    for (size_t i = files_.size(); i-- > 0;) {
      if (files_[i].file == id) {
        last = i;
        break;
      }
    }
    if (last == files_.size()) {
      diags_.Report(DiagId::IncludeTooDeep, at, kMaxIncludeDepth);
    } else {
      diag::DiagBuilder report = diags_.Report(DiagId::IncludeCycle, at, sources_.Path(id));
      for (size_t i = last + 1; i < files_.size(); ++i) {
        report.Note(DiagId::IncludedFromHere, files_[i].include_loc, sources_.Path(files_[i].file));
      }
    }
    Abort();
    return;
  }
  FileState state;
  state.file = id;
  state.lexer = std::make_unique<Lexer>(sources_, id, diags_);
  state.include_loc = hash.loc;
  files_.push_back(std::move(state));
}

void Preprocessor::HandleLine(FileState& f, const Token& name) {
  std::vector<Token> line = ReadLine(f);
  // The new numbering starts on the line after the directive's last physical line.
  uint32_t next_line = sources_.GetPhysicalLineCol(line.empty() ? name.loc : line.back().loc).line + 1;
  if (!line.empty() && !line[0].Is(TokenKind::IntLiteral)) {
    std::vector<PpToken> tokens;
    for (const Token& t : line) tokens.push_back(PpToken{t, false, false});
    line.clear();
    for (const PpToken& t : ExpandIsolated(std::move(tokens))) line.push_back(t.tok);
    if (Stopped()) return;
  }
  Token end;
  end.loc = EndOf(name);
  const Token& number = line.empty() ? end : line[0];
  bool digits_only = number.text.find_first_not_of("0123456789") == std::string_view::npos;
  if (!number.Is(TokenKind::IntLiteral) || !digits_only || number.int_value == 0 ||
      number.int_value > 2147483647u) {
    diags_.Report(DiagId::InvalidLineDirective, number.Range(), "a line number from 1 to 2147483647",
                  DescribeToken(number));
    return;
  }
  std::string path;
  size_t used = 1;
  if (line.size() > 1) {
    const Token& file = line[1];
    if (!file.Is(TokenKind::StringLiteral) || file.text.size() < 2 || file.text.back() != '"') {
      diags_.Report(DiagId::InvalidLineDirective, file.Range(), "a file name string", DescribeToken(file));
      return;
    }
    path = std::string(file.text.substr(1, file.text.size() - 2));
    used = 2;
  }
  CheckLineEnd(line, used, name);
  sources_.AddLineMarker(f.file, next_line, static_cast<uint32_t>(number.int_value), std::move(path));
}

void Preprocessor::HandlePragma(FileState& f, const Token& name) {
  std::vector<Token> line = ReadLine(f);
  if (!line.empty() && line[0].IsIdent("once")) {
    pragma_once_.insert(f.file);
    CheckLineEnd(line, 1, name);
    return;
  }
  if (!line.empty() && line[0].IsIdent("warning")) {
    HandleWarningPragma(line, name);
    return;
  }
  // `#pragma slope __debug ice`: an internal compiler error on purpose, so that tests
  // can check how the tools and the embedded API report one (as clang's
  // `#pragma clang __debug crash`).
  if (line.size() == 3 && line[0].IsIdent("slope") && line[1].IsIdent("__debug") &&
      line[2].IsIdent("ice")) {
    SLOPE_ICE("raised on request by '#pragma slope __debug ice'");
  }
  source::SourceRange at = line.empty() ? name.Range() : line[0].Range();
  diags_.Report(DiagId::UnknownPragma, at, line.empty() ? std::string_view() : line[0].text);
}

void Preprocessor::HandleLanguage(FileState& f, const Token& name) {
  // `#language slang 2026`: the version is read as raw text ("202a" is no number).
  bool quiet = f.lexer->IsQuiet();
  f.lexer->SetQuiet(true);
  std::vector<Token> line = ReadLine(f);
  f.lexer->SetQuiet(quiet);
  if (line.empty() || !line[0].IsIdent("slang")) {
    diags_.Report(DiagId::LanguageDirectiveSyntax, line.empty() ? name.Range() : line[0].Range(),
                  line.empty() ? std::string("the end of the line") : DescribeToken(line[0]));
    return;
  }
  if (line.size() < 2) {
    diags_.Report(DiagId::LanguageVersionUnknown, line[0].Range(), "nothing");
    return;
  }
  int version = ParseLanguageVersion(line[1].text);
  if (version == 0) {
    diags_.Report(DiagId::LanguageVersionUnknown, line[1].Range(),
                  "'" + std::string(line[1].text) + "'");
    return;
  }
  CheckLineEnd(line, 2, name);
  if (language_seen_ && version != result_version_) {
    diags_.Report(DiagId::LanguageVersionConflict, line[1].Range(), line[1].text)
        .Note(DiagId::PreviousDefinition, language_range_, "#language");
    return;
  }
  if (!language_seen_) language_range_ = line[1].Range();
  language_seen_ = true;
  result_version_ = version;
  if (result_ != nullptr) result_->language_version = version;
}

void Preprocessor::HandleMessage(FileState& f, const Token& name) {
  // The message is the raw text of the line; it is lexed quietly because it need not
  // be made of valid tokens ("#error don't").
  bool quiet = f.lexer->IsQuiet();
  f.lexer->SetQuiet(true);
  std::vector<Token> line = ReadLine(f);
  f.lexer->SetQuiet(quiet);
  // The text between the directive name and the end of its last token, taken from the
  // file by offsets (never by pointer arithmetic across token buffers).
  std::string_view text;
  if (!line.empty()) {
    const Token& last = line.back();
    size_t begin = static_cast<size_t>(name.loc.offset) + name.text.size();
    size_t end = static_cast<size_t>(last.loc.offset) + last.text.size();
    std::string_view file_text = sources_.Text(name.loc.file);
    if (last.loc.file == name.loc.file && begin <= end && end <= file_text.size()) {
      text = file_text.substr(begin, end - begin);
    }
    size_t first = text.find_first_not_of(" \t");
    text = first == std::string_view::npos ? std::string_view() : text.substr(first);
  }
  source::SourceRange at(hash_.loc, EndOf(name));
  diags_.Report(name.text == "error" ? DiagId::ErrorDirective : DiagId::WarningDirective, at, text);
}

namespace {

/// Whether `number` names a Slope warning (a W code).
bool IsSlopeWarning(int64_t number) {
  for (diag::DiagId id : diag::AllDiagIds()) {
    const diag::DiagInfo& info = diag::GetDiagInfo(id);
    if (info.number == number && info.severity == diag::Severity::Warning) return true;
  }
  return false;
}

}  // namespace

/// `#pragma warning(disable : 1127 2006; error : 3102)`, `(once : n)`, `(default : n)`,
/// `(push)`, `(push, n)` and `(pop)`, as HLSL compilers take them: from the pragma to the
/// end of its file. Numbers are Slope's W codes; five-digit numbers (slangc's, as 39001)
/// name diagnostics Slope never reports under them and are accepted with no effect.
void Preprocessor::HandleWarningPragma(const std::vector<Token>& line, const Token& name) {
  size_t at = 1;
  auto found = [&]() -> std::string {
    return at < line.size() ? "'" + std::string(line[at].text) + "'" : "the end of the line";
  };
  auto expect = [&](TokenKind kind, const char* what) {
    if (at < line.size() && line[at].Is(kind)) {
      ++at;
      return true;
    }
    source::SourceRange where = at < line.size() ? line[at].Range() : line.back().Range();
    diags_.Report(DiagId::PragmaWarningSyntax, where, what, found());
    return false;
  };
  if (!expect(TokenKind::LParen, "'('")) return;
  std::vector<diag::WarningPragma> pragmas;
  while (true) {
    if (at >= line.size() || !line[at].Is(TokenKind::Identifier)) {
      expect(TokenKind::Identifier, "disable, default, error, once, push or pop");
      return;
    }
    const Token& word = line[at++];
    diag::WarningPragma p;
    p.at = word.loc;
    if (word.text == "push" || word.text == "pop") {
      p.action = word.text == "push" ? diag::WarningPragma::Action::Push
                                     : diag::WarningPragma::Action::Pop;
      // `push, n` (a warning level) is accepted; Slope has one level.
      if (p.action == diag::WarningPragma::Action::Push && at < line.size() &&
          line[at].Is(TokenKind::Comma)) {
        ++at;
        if (!expect(TokenKind::IntLiteral, "a warning level")) return;
      }
    } else {
      using Action = diag::WarningPragma::Action;
      const std::pair<std::string_view, Action> kActions[] = {{"disable", Action::Disable},
                                                              {"default", Action::Default},
                                                              {"error", Action::Error},
                                                              {"once", Action::Once}};
      auto it = std::find_if(std::begin(kActions), std::end(kActions),
                             [&](const auto& a) { return a.first == word.text; });
      if (it == std::end(kActions)) {
        --at;
        expect(TokenKind::Colon, "disable, default, error, once, push or pop");
        return;
      }
      p.action = it->second;
      if (!expect(TokenKind::Colon, "':'")) return;
      if (at >= line.size() || !line[at].Is(TokenKind::IntLiteral)) {
        expect(TokenKind::IntLiteral, "a warning number");
        return;
      }
      while (at < line.size() && line[at].Is(TokenKind::IntLiteral)) {
        const Token& n = line[at++];
        const auto number = static_cast<int64_t>(n.int_value);
        if (IsSlopeWarning(number)) {
          p.numbers.push_back(static_cast<int>(number));
        } else if (number < 10000 || number > 99999) {
          diags_.Report(DiagId::PragmaWarningUnknownId, n.Range(), n.text);
        }
      }
    }
    pragmas.push_back(std::move(p));
    if (at < line.size() && line[at].Is(TokenKind::Semicolon)) {
      ++at;
      continue;
    }
    if (!expect(TokenKind::RParen, "';' or ')'")) return;
    break;
  }
  CheckLineEnd(line, at, name);
  for (diag::WarningPragma& p : pragmas) {
    int& pushes = warning_pushes_[p.at.file];
    if (p.action == diag::WarningPragma::Action::Push) ++pushes;
    if (p.action == diag::WarningPragma::Action::Pop) {
      if (pushes == 0) {
        diags_.Report(DiagId::PragmaWarningPopWithoutPush, source::SourceRange(p.at));
        continue;
      }
      --pushes;
    }
    diags_.AddWarningPragma(std::move(p));
  }
}

}  // namespace detail

std::vector<Token> Preprocess(source::SourceManager& sources, source::FileId file,
                              const PreprocessOptions& options, diag::DiagEngine& diags,
                              PreprocessResult* result) {
  return detail::Preprocessor(sources, options, diags, result).Run(file);
}

int ParseLanguageVersion(std::string_view name) {
  if (name == "legacy" || name == "default" || name == "2018") return 2018;
  if (name == "2025" || name == "202a") return 2025;
  if (name == "2026" || name == "202b" || name == "latest") return 2026;
  if (name == "202c" || name == "next") return 2027;
  return 0;
}

}  // namespace slope::preprocess
