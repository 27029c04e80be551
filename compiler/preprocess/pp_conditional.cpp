// Conditional compilation: #if, #ifdef, #ifndef, #elif, #else, #endif. An inactive
// block is skipped by SkipBlock, which lexes quietly (skipped text need not be valid)
// and only looks at directive names to keep its nesting count.

#include "compiler/preprocess/preprocessor_impl.h"

namespace slope::preprocess::detail {

using diag::DiagId;

namespace {

bool OpensConditional(std::string_view name) {
  return name == "if" || name == "ifdef" || name == "ifndef";
}

/// An IntLiteral 0 or 1 standing for a `defined` test; its text is static.
Token DefinedResult(bool defined, source::SourceLoc loc) {
  Token t;
  t.kind = TokenKind::IntLiteral;
  t.loc = loc;
  t.text = defined ? "1" : "0";
  t.int_value = defined ? 1 : 0;
  return t;
}

}  // namespace

bool Preprocessor::IsDefined(std::string_view name) {
  return name == "__LINE__" || name == "__FILE__" || FindMacro(name) != nullptr;
}

void Preprocessor::HandleIf(FileState& f, const Token& name) {
  std::vector<Token> line = ReadLine(f);
  if (conditionals_.size() >= kMaxIfNesting) {
    diags_.Report(DiagId::IfNestingTooDeep, name.Range(), kMaxIfNesting);
    Abort();
    return;
  }
  bool value = false;
  if (name.text == "if") {
    value = EvaluateCondition(line, name);
  } else if (line.empty() || !line[0].Is(TokenKind::Identifier)) {
    Token end;
    end.loc = EndOf(name);
    const Token& found = line.empty() ? end : line[0];
    diags_.Report(DiagId::ExpectedMacroName, found.Range(), name.text, DescribeToken(found));
  } else {
    value = IsDefined(line[0].text) == (name.text == "ifdef");
    CheckLineEnd(line, 1, name);
  }
  Conditional c;
  c.range = name.Range();
  c.directive = std::string(name.text);
  c.taken = value;
  c.file_depth = files_.size() - 1;
  conditionals_.push_back(std::move(c));
  if (!value) SkipBlock(f);
}

void Preprocessor::HandleElse(FileState& f, const Token& name) {
  std::vector<Token> line = ReadLine(f);
  if (conditionals_.empty() || conditionals_.back().file_depth != files_.size() - 1) {
    diags_.Report(DiagId::DirectiveWithoutIf, name.Range(), name.text);
    return;
  }
  Conditional& c = conditionals_.back();
  if (c.seen_else) {
    diags_.Report(DiagId::ElseAfterElse, name.Range(), name.text)
        .Note(DiagId::ConditionalStartsHere, c.else_range, "else");
  }
  if (name.text == "else") {
    c.seen_else = true;
    c.else_range = name.Range();
    CheckLineEnd(line, 0, name);
  }
  // The branch that was being read is over; every later one is skipped.
  c.taken = true;
  SkipBlock(f);
}

void Preprocessor::HandleEndif(FileState& f, const Token& name) {
  std::vector<Token> line = ReadLine(f);
  if (conditionals_.empty() || conditionals_.back().file_depth != files_.size() - 1) {
    diags_.Report(DiagId::DirectiveWithoutIf, name.Range(), name.text);
    return;
  }
  conditionals_.pop_back();
  CheckLineEnd(line, 0, name);
}

void Preprocessor::SkipBlock(FileState& f) {
  bool was_quiet = f.lexer->IsQuiet();
  f.lexer->SetQuiet(true);
  uint64_t depth = 0;
  while (!Stopped()) {
    Token tok = NextFileToken(f);
    if (tok.Is(TokenKind::EndOfFile)) {
      f.pending = tok;  // RawNext reports the unterminated conditional
      break;
    }
    if (!tok.Is(TokenKind::Hash) || !tok.at_line_start || AtLineEnd(f)) continue;
    Token name = NextFileToken(f);
    if (!name.Is(TokenKind::Identifier)) continue;
    if (OpensConditional(name.text)) {
      ++depth;
      continue;
    }
    if (depth > 0) {
      if (name.text == "endif") --depth;
      continue;
    }
    Conditional& c = conditionals_.back();
    if (name.text == "endif") {
      f.lexer->SetQuiet(was_quiet);
      CheckLineEnd(ReadLine(f), 0, name);
      conditionals_.pop_back();
      return;
    }
    if (name.text != "else" && name.text != "elif") continue;
    if (c.seen_else) {
      diags_.Report(DiagId::ElseAfterElse, name.Range(), name.text)
          .Note(DiagId::ConditionalStartsHere, c.else_range, "else");
      continue;
    }
    if (name.text == "else") {
      c.seen_else = true;
      c.else_range = name.Range();
      if (c.taken) continue;
      f.lexer->SetQuiet(was_quiet);
      CheckLineEnd(ReadLine(f), 0, name);
      c.taken = true;
      return;
    }
    if (c.taken) continue;
    f.lexer->SetQuiet(was_quiet);
    if (EvaluateCondition(ReadLine(f), name)) {
      c.taken = true;
      return;
    }
    f.lexer->SetQuiet(true);
  }
  f.lexer->SetQuiet(was_quiet);
}

std::vector<Token> Preprocessor::ExpandDefinedMacros(const std::vector<Token>& line) {
  // `#define HAS_X defined(X)` then `#if HAS_X`: an object-like macro whose body tests
  // `defined` is replaced by its body first, so the test sees X unexpanded (as GCC and
  // Clang do). Bounded: a macro that names itself stops after kMaxDefinedRounds, or
  // once the line holds kMaxDefinedTokens tokens.
  constexpr int kMaxDefinedRounds = 32;
  constexpr size_t kMaxDefinedTokens = 1 << 16;
  std::vector<Token> out = line;
  for (int round = 0; round < kMaxDefinedRounds; ++round) {
    std::vector<Token> next;
    bool changed = false;
    for (size_t i = 0; i < out.size(); ++i) {
      const Token& t = out[i];
      bool operand = (i >= 1 && out[i - 1].IsIdent("defined")) ||
                     (i >= 2 && out[i - 1].Is(TokenKind::LParen) && out[i - 2].IsIdent("defined"));
      const Macro* m = t.Is(TokenKind::Identifier) && !operand ? FindMacro(t.text) : nullptr;
      bool tests = false;
      if (m != nullptr && !m->function_like) {
        for (const BodyToken& b : m->body) tests = tests || b.tok.IsIdent("defined");
      }
      if (!tests) {
        next.push_back(t);
        continue;
      }
      if (next.size() + m->body.size() > kMaxDefinedTokens) return out;
      for (const BodyToken& b : m->body) next.push_back(b.tok);
      changed = true;
    }
    out = std::move(next);
    if (!changed) break;
  }
  return out;
}

bool Preprocessor::EvaluateCondition(const std::vector<Token>& raw_line, const Token& name) {
  std::vector<Token> line = ExpandDefinedMacros(raw_line);
  // `defined X` and `defined(X)` are replaced before macro expansion, so X is not expanded.
  std::vector<PpToken> tokens;
  Token end;
  end.loc = line.empty() ? EndOf(name) : EndOf(line.back());
  for (size_t i = 0; i < line.size(); ++i) {
    if (!line[i].IsIdent("defined")) {
      tokens.push_back(PpToken{line[i], false, false});
      continue;
    }
    size_t j = i + 1;
    bool paren = j < line.size() && line[j].Is(TokenKind::LParen);
    if (paren) ++j;
    if (j >= line.size() || !line[j].Is(TokenKind::Identifier)) {
      const Token& found = j < line.size() ? line[j] : end;
      diags_.Report(DiagId::IfExpectedToken, found.Range(), "a macro name after 'defined'", name.text,
                    DescribeToken(found));
      return false;
    }
    bool defined = IsDefined(line[j].text);
    ++j;
    if (paren) {
      if (j >= line.size() || !line[j].Is(TokenKind::RParen)) {
        const Token& found = j < line.size() ? line[j] : end;
        diags_.Report(DiagId::IfExpectedToken, found.Range(), "')'", name.text, DescribeToken(found));
        return false;
      }
      ++j;
    }
    tokens.push_back(PpToken{DefinedResult(defined, line[i].loc), false, false});
    i = j - 1;
  }
  std::vector<Token> expanded;
  for (const PpToken& t : ExpandIsolated(std::move(tokens))) expanded.push_back(t.tok);
  if (Stopped()) return false;
  int64_t value = 0;
  if (!EvaluateIfExpression(expanded, name.text, end.loc, diags_, &value)) return false;
  return value != 0;
}

}  // namespace slope::preprocess::detail
