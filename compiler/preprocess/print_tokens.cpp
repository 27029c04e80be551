// `slopec -E`: preprocessed tokens back to text. Tokens keep the line they came from
// (a macro's expansion stays on the line of its use); a `#line` marker is printed
// where the file changes or more than a few lines are skipped, as `cpp` does.

#include <algorithm>

#include "compiler/preprocess/preprocessor.h"

namespace slope::preprocess {
namespace {

/// Blank lines printed instead of a marker for a gap of at most this many lines.
constexpr uint32_t kMaxBlankLines = 8;

std::string LineMarker(uint32_t line, const std::string& path) {
  std::string quoted;
  for (char c : path) {
    if (c == '"' || c == '\\') quoted += '\\';
    quoted += c;
  }
  return "#line " + std::to_string(line) + " \"" + quoted + "\"\n";
}

}  // namespace

std::string PrintTokens(const std::vector<Token>& tokens, const source::SourceManager& sources) {
  std::string out;
  const Token* prev = nullptr;
  source::FileId file = 0;
  std::string path;
  uint32_t line = 0;
  for (const Token& tok : tokens) {
    if (tok.Is(TokenKind::EndOfFile)) break;
    source::LineCol lc = sources.GetLineCol(tok.loc);
    const std::string& tok_path = sources.PresumedPath(tok.loc);
    bool new_line = true;
    if (prev == nullptr || tok.loc.file != file || tok_path != path ||
        lc.line > line + kMaxBlankLines || (lc.line < line && tok.at_line_start)) {
      if (prev != nullptr) out += '\n';
      out += LineMarker(lc.line, tok_path);
    } else if (lc.line > line) {
      out.append(lc.line - line, '\n');
    } else {
      new_line = false;
    }
    if (new_line) {
      file = tok.loc.file;
      path = tok_path;
      line = lc.line;
      if (tok.at_line_start) {
        // Keep the indentation of the source line.
        std::string_view text = sources.GetLineText(tok.loc);
        out += text.substr(0, std::min(text.find_first_not_of(" \t"), text.size()));
      }
    } else if (prev->text.data() + prev->text.size() != tok.text.data()) {
      out += ' ';  // tokens that touched in the source still touch
    }
    out += tok.text;
    prev = &tok;
  }
  if (prev != nullptr) out += '\n';
  return out;
}

}  // namespace slope::preprocess
