#pragma once
// Indented source text, line by line, for the writers that print C-like languages
// (GLSL, CUDA C++).

#include <string>
#include <string_view>

namespace slope::targets::ctext {

/// Accumulates lines of source text with the current indentation (two spaces a level).
class TextWriter {
 public:
  explicit TextWriter(int indent = 0) : indent_(indent) {}
  /// One line: the indentation, `text`, a newline.
  void Line(std::string_view text) {
    text_.append(static_cast<size_t>(indent_) * 2, ' ');
    text_.append(text);
    text_.push_back('\n');
  }
  /// `head {` on one line, then one level deeper.
  void Open(std::string_view head) {
    Line(std::string(head) + " {");
    ++indent_;
  }
  /// One level shallower, then `tail` (a closing brace by default).
  void Close(std::string_view tail = "}") {
    --indent_;
    Line(tail);
  }
  /// Text another writer made, as it is (it was made at the indentation it needs).
  void Append(std::string_view text) { text_.append(text); }
  int Indent() const { return indent_; }
  void SetIndent(int indent) { indent_ = indent; }
  const std::string& Text() const { return text_; }
  bool Empty() const { return text_.empty(); }

 private:
  int indent_;
  std::string text_;
};

}  // namespace slope::targets::ctext
