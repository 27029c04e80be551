// Macros: #define / #undef, and expansion with C's rules. A macro is disabled while
// its expansion is being read, and a name met while its macro is disabled is marked
// so it never expands later (no recursion). Arguments are macro-expanded on their own
// before substitution, except next to `#` and `##`. Every token an expansion produces
// counts against kMaxExpansionTokens, so runaway expansion stops with an error.

#include <sstream>
#include <string_view>
#include <unordered_map>

#include "compiler/preprocess/preprocessor_impl.h"

namespace slope::preprocess::detail {

using diag::DiagId;

namespace {

/// True when `b` starts right where `a` ends in the same text (no space between).
bool Adjacent(const Token& a, const Token& b) {
  return a.text.data() + a.text.size() == b.text.data();
}

/// True when tokens i, i+1, i+2 of `line` spell "...".
bool IsEllipsis(const std::vector<Token>& line, size_t i) {
  return i + 2 < line.size() && line[i].Is(TokenKind::Dot) && line[i + 1].Is(TokenKind::Dot) &&
         line[i + 2].Is(TokenKind::Dot) && Adjacent(line[i], line[i + 1]) &&
         Adjacent(line[i + 1], line[i + 2]);
}

bool SameDefinition(const Macro& a, const Macro& b) {
  if (a.function_like != b.function_like || a.variadic != b.variadic || a.params != b.params ||
      a.body.size() != b.body.size()) {
    return false;
  }
  for (size_t i = 0; i < a.body.size(); ++i) {
    const BodyToken& x = a.body[i];
    const BodyToken& y = b.body[i];
    if (x.tok.text != y.tok.text || x.param != y.param || x.stringize != y.stringize ||
        x.paste != y.paste) {
      return false;
    }
  }
  return true;
}

std::string Quote(std::string_view text) {
  std::string s = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') s += '\\';
    s += c;
  }
  return s + "\"";
}

}  // namespace

Macro* Preprocessor::FindMacro(std::string_view name) {
  auto it = macro_table_.find(std::string(name));
  return it == macro_table_.end() ? nullptr : &it->second;
}

std::string Preprocessor::CommandLineDefines() const {
  std::string text;
  for (const std::string& define : options_.defines) {
    size_t eq = define.find('=');
    std::string name = define.substr(0, eq);
    std::string value = eq == std::string::npos ? "1" : define.substr(eq + 1);
    text += "#define " + name + " " + value + "\n";
  }
  return text;
}

void Preprocessor::HandleDefine(FileState& f, const Token& name) {
  std::vector<Token> line = ReadLine(f);
  Token end;
  end.loc = line.empty() ? EndOf(name) : EndOf(line.back());
  if (line.empty() || !line[0].Is(TokenKind::Identifier) || line[0].text == "defined") {
    const Token& found = line.empty() ? end : line[0];
    diags_.Report(DiagId::ExpectedMacroName, found.Range(), "define", DescribeToken(found));
    return;
  }
  Macro macro;
  macro.name = std::string(line[0].text);
  macro.def_range = line[0].Range();
  size_t i = 1;
  // Each parameter's index by name: a search of the list for each body token would be
  // quadratic in a macro of thousands of parameters.
  std::unordered_map<std::string_view, int> param_indices;
  auto param_index = [&](std::string_view name) {
    auto it = param_indices.find(name);
    return it == param_indices.end() ? -1 : it->second;
  };
  auto at = [&](size_t k) -> const Token& { return k < line.size() ? line[k] : end; };
  auto bad_params = [&](const char* expected) {
    diags_.Report(DiagId::MalformedMacroParams, at(i).Range(), expected, macro.name,
                  DescribeToken(at(i)));
  };
  // A '(' right after the name (no space) makes a function-like macro.
  if (i < line.size() && line[i].Is(TokenKind::LParen) && Adjacent(line[0], line[i])) {
    macro.function_like = true;
    ++i;
    if (at(i).Is(TokenKind::RParen)) {
      ++i;
    } else {
      while (true) {
        if (at(i).Is(TokenKind::Identifier) && at(i).text != "__VA_ARGS__") {
          if (param_index(at(i).text) >= 0) return bad_params("a parameter name not used before");
          param_indices.emplace(at(i).text, static_cast<int>(macro.params.size()));
          macro.params.emplace_back(at(i).text);
          ++i;
        } else if (IsEllipsis(line, i)) {
          macro.variadic = true;
          param_indices.emplace("__VA_ARGS__", static_cast<int>(macro.params.size()));
          macro.params.emplace_back("__VA_ARGS__");
          i += 3;
          if (!at(i).Is(TokenKind::RParen)) return bad_params("')' after '...'");
          ++i;
          break;
        } else {
          return bad_params("a parameter name");
        }
        if (at(i).Is(TokenKind::Comma)) {
          ++i;
        } else if (at(i).Is(TokenKind::RParen)) {
          ++i;
          break;
        } else {
          return bad_params("',' or ')'");
        }
      }
    }
  }
  for (; i < line.size(); ++i) {
    BodyToken b;
    b.tok = line[i];
    if (line[i].Is(TokenKind::Hash) && i + 1 < line.size() && line[i + 1].Is(TokenKind::Hash) &&
        Adjacent(line[i], line[i + 1])) {
      b.paste = true;
      b.tok.text = std::string_view(line[i].text.data(), 2);
      ++i;
    } else if (line[i].Is(TokenKind::Hash) && macro.function_like) {
      int param = i + 1 < line.size() && line[i + 1].Is(TokenKind::Identifier)
                      ? param_index(line[i + 1].text)
                      : -1;
      if (param < 0) {
        diags_.Report(DiagId::StringizeNotParam, line[i].Range(), macro.name);
        return;
      }
      b.stringize = true;
      b.param = param;
      b.tok = line[++i];
    } else if (line[i].Is(TokenKind::Identifier)) {
      b.param = param_index(line[i].text);
      if (line[i].text == "__VA_ARGS__" && !macro.variadic) {
        diags_.Report(DiagId::VaArgsOutsideVariadic, line[i].Range());
        return;
      }
    }
    macro.body.push_back(b);
  }
  if (!macro.body.empty() && (macro.body.front().paste || macro.body.back().paste)) {
    const BodyToken& edge = macro.body.front().paste ? macro.body.front() : macro.body.back();
    diags_.Report(DiagId::PasteAtEdge, edge.tok.Range(),
                  macro.body.front().paste ? "start" : "end", macro.name);
    return;
  }
  Macro* old = FindMacro(macro.name);
  if (old != nullptr && !SameDefinition(*old, macro)) {
    diags_.Report(DiagId::MacroRedefined, macro.def_range, macro.name)
        .Note(DiagId::MacroDefinedHere, old->def_range, macro.name);
  }
  if (old == nullptr && macro_table_.size() >= kMaxMacros) {
    diags_.Report(DiagId::TooManyMacros, macro.def_range, kMaxMacros);
    Abort();
    return;
  }
  std::string key = macro.name;
  macro_table_.insert_or_assign(std::move(key), std::move(macro));
}

void Preprocessor::HandleUndef(FileState& f, const Token& name) {
  std::vector<Token> line = ReadLine(f);
  if (line.empty() || !line[0].Is(TokenKind::Identifier)) {
    Token end;
    end.loc = EndOf(name);
    const Token& found = line.empty() ? end : line[0];
    diags_.Report(DiagId::ExpectedMacroName, found.Range(), "undef", DescribeToken(found));
    return;
  }
  macro_table_.erase(std::string(line[0].text));
  CheckLineEnd(line, 1, name);
}

bool Preprocessor::ExpandBuiltin(const PpToken& at, PpToken* out) {
  const Token& t = at.tok;
  if (t.text == "__LINE__") {
    uint32_t line = sources_.GetLineCol(t.loc).line;
    out->tok = MakeToken(TokenKind::IntLiteral, std::to_string(line), t.loc);
    out->tok.int_value = line;
  } else if (t.text == "__FILE__") {
    out->tok = MakeToken(TokenKind::StringLiteral, Quote(sources_.PresumedPath(t.loc)), t.loc);
  } else {
    return false;
  }
  out->tok.at_line_start = t.at_line_start;
  return true;
}

Token Preprocessor::MakeToken(TokenKind kind, std::string_view text, source::SourceLoc loc) {
  Token t;
  t.kind = kind;
  t.loc = loc;
  t.text = sources_.AddScratchText(text);
  return t;
}

bool Preprocessor::Charge(uint64_t count, const Token& at) {
  expansion_used_ += count;
  if (expansion_used_ <= kMaxExpansionTokens) return true;
  if (!aborted_) diags_.Report(DiagId::MacroExpansionLimit, at.Range(), kMaxExpansionTokens);
  Abort();
  return false;
}

bool Preprocessor::NextIsLParen() {
  while (!Stopped()) {
    if (!macros_.empty()) {
      MacroContext& top = macros_.back();
      if (top.pos < top.tokens.size()) return top.tokens[top.pos].tok.Is(TokenKind::LParen);
      if (top.barrier) return false;
      PopMacroContext();
      continue;
    }
    if (files_.empty()) return false;
    FileState& f = files_.back();
    if (!f.pending.has_value()) f.pending = f.lexer->Next();
    return f.pending->Is(TokenKind::LParen);
  }
  return false;
}

bool Preprocessor::ExpandMacro(PpToken& name, Macro& macro) {
  std::vector<std::vector<PpToken>> args;
  if (macro.function_like) {
    if (!NextIsLParen()) return false;
    RawNext(true);  // the '('
    if (!CollectArgs(name, macro, &args)) return true;
  }
  std::vector<PpToken> replacement = Substitute(name, macro, args);
  if (Stopped()) return true;
  MacroContext context;
  context.tokens = std::move(replacement);
  context.macro = &macro;
  macro.disabled = true;
  macros_.push_back(std::move(context));
  return true;
}

bool Preprocessor::CollectArgs(const PpToken& name, const Macro& macro,
                               std::vector<std::vector<PpToken>>* args) {
  args->emplace_back();
  uint64_t depth = 0;
  while (true) {
    PpToken t = RawNext(true);
    if (Stopped()) return false;
    if (t.tok.Is(TokenKind::EndOfFile)) {
      diags_.Report(DiagId::UnterminatedMacroArgs, name.tok.Range(), macro.name)
          .Note(DiagId::MacroDefinedHere, macro.def_range, macro.name);
      return false;
    }
    if (t.from_file && t.tok.Is(TokenKind::Hash) && t.tok.at_line_start) {
      files_.back().pending = t.tok;  // the directive still runs afterwards
      diags_.Report(DiagId::DirectiveInMacroArgs, t.tok.Range(), macro.name)
          .Note(DiagId::MacroDefinedHere, macro.def_range, macro.name);
      return false;
    }
    if (t.tok.Is(TokenKind::LParen)) {
      // Parentheses nested past the argument limit are stopped here, where the
      // arguments are read, not after each level has copied the rest of them.
      if (++depth >= kMaxMacroArgNesting) {
        if (!aborted_) diags_.Report(DiagId::MacroNestingTooDeep, t.tok.Range(), kMaxMacroArgNesting);
        Abort();
        return false;
      }
    } else if (t.tok.Is(TokenKind::RParen)) {
      if (depth == 0) break;
      --depth;
    } else if (t.tok.Is(TokenKind::Comma) && depth == 0 &&
               !(macro.variadic && args->size() == macro.params.size())) {
      args->emplace_back();
      continue;
    }
    args->back().push_back(t);
  }
  size_t expected = macro.params.size();
  size_t given = args->size();
  if (expected == 0 && given == 1 && args->front().empty()) {
    args->clear();  // f() passes no argument to a macro without parameters
  } else if (macro.variadic && given + 1 == expected) {
    args->emplace_back();  // an omitted variadic part is empty
  }
  if (args->size() == expected) return true;
  std::string wanted = std::to_string(macro.variadic ? expected - 1 : expected);
  if (macro.variadic) wanted = "at least " + wanted;
  diags_.Report(DiagId::MacroArgCount, name.tok.Range(), macro.name, wanted, given)
      .Note(DiagId::MacroDefinedHere, macro.def_range, macro.name);
  return false;
}

std::vector<PpToken> Preprocessor::ExpandIsolated(std::vector<PpToken> tokens) {
  if (arg_depth_ >= kMaxMacroArgNesting) {
    source::SourceRange at = tokens.empty() ? source::SourceRange(main_end_.loc) : tokens[0].tok.Range();
    if (!aborted_) diags_.Report(DiagId::MacroNestingTooDeep, at, kMaxMacroArgNesting);
    Abort();
    return tokens;
  }
  ++arg_depth_;
  MacroContext barrier;
  barrier.tokens = std::move(tokens);
  barrier.barrier = true;
  macros_.push_back(std::move(barrier));
  size_t barrier_index = macros_.size() - 1;
  std::vector<PpToken> out;
  while (true) {
    PpToken t = Next();
    if (t.tok.Is(TokenKind::EndOfFile)) break;
    out.push_back(t);
  }
  while (macros_.size() > barrier_index) PopMacroContext();
  --arg_depth_;
  return out;
}

std::vector<PpToken> Preprocessor::Substitute(const PpToken& name, const Macro& macro,
                                              const std::vector<std::vector<PpToken>>& args) {
  source::SourceLoc loc = name.tok.loc;
  std::vector<std::optional<std::vector<PpToken>>> expanded(args.size());
  std::vector<PpToken> out;
  // True while the operands of the current '##' chain so far were all empty.
  bool chain_empty = false;
  const std::vector<BodyToken>& body = macro.body;
  for (size_t i = 0; i < body.size(); ++i) {
    const BodyToken& b = body[i];
    if (b.paste) continue;
    bool after_paste = i > 0 && body[i - 1].paste;
    bool before_paste = i + 1 < body.size() && body[i + 1].paste;
    std::vector<PpToken> own;  // a body token or a stringized argument
    const std::vector<PpToken>* operand = &own;
    if (b.stringize) {
      own.push_back(PpToken{Stringize(args[b.param], loc), false, false});
    } else if (b.param >= 0 && (after_paste || before_paste)) {
      operand = &args[b.param];
    } else if (b.param >= 0) {
      if (!expanded[b.param].has_value()) expanded[b.param] = ExpandIsolated(args[b.param]);
      if (Stopped()) return out;
      operand = &*expanded[b.param];
    } else {
      PpToken t{b.tok, false, false};
      t.tok.loc = loc;
      own.push_back(t);
    }
    if (!Charge(operand->size(), name.tok)) return out;
    bool gnu_comma = after_paste && macro.variadic && b.param + 1 == static_cast<int>(macro.params.size()) &&
                     i >= 2 && body[i - 2].tok.Is(TokenKind::Comma);
    size_t first = 0;
    if (gnu_comma) {
      // GNU's ", ## __VA_ARGS__": the comma goes when the variadic part is empty.
      if (operand->empty() && !out.empty()) out.pop_back();
    } else if (after_paste && !chain_empty && !operand->empty() && !out.empty()) {
      Token pasted;
      if (Paste(out.back().tok, (*operand)[0].tok, loc, &pasted)) {
        out.back() = PpToken{pasted, false, false};
        first = 1;
      }
    }
    out.insert(out.end(), operand->begin() + static_cast<std::ptrdiff_t>(first), operand->end());
    chain_empty = after_paste ? chain_empty && operand->empty() : operand->empty();
  }
  for (PpToken& t : out) t.tok.at_line_start = false;
  if (!out.empty()) out.front().tok.at_line_start = name.tok.at_line_start;
  return out;
}

Token Preprocessor::Stringize(const std::vector<PpToken>& arg, source::SourceLoc loc) {
  std::string text;
  for (size_t k = 0; k < arg.size(); ++k) {
    const Token& t = arg[k].tok;
    if (k > 0 && !Adjacent(arg[k - 1].tok, t)) text += ' ';
    text += t.text;
  }
  Token result = MakeToken(TokenKind::StringLiteral, Quote(text), loc);
  Charge(result.text.size() / 16, result);
  return result;
}

bool Preprocessor::Paste(const Token& lhs, const Token& rhs, source::SourceLoc loc, Token* out) {
  std::string text = std::string(lhs.text) + std::string(rhs.text);
  // Lex the joined text on its own: it must be exactly one token, without errors.
  source::SourceManager scratch;
  source::FileId id = scratch.AddFile("<paste>", text);
  std::ostringstream sink;
  diag::DiagEngine quiet(scratch, sink);
  Lexer lexer(scratch, id, quiet);
  Token t = lexer.Next();
  bool single = !t.Is(TokenKind::EndOfFile) && t.text.size() == text.size() &&
                lexer.Next().Is(TokenKind::EndOfFile) && quiet.ErrorCount() == 0;
  if (!single) {
    diags_.Report(DiagId::InvalidPaste, source::SourceRange(loc), lhs.text, rhs.text);
    return false;
  }
  *out = t;
  out->text = sources_.AddScratchText(text);
  out->loc = loc;
  out->at_line_start = false;
  return Charge(text.size() / 16, *out);
}

}  // namespace slope::preprocess::detail
