#include "compiler/preprocess/lexer.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace slope::preprocess {

const char* TokenKindSpelling(TokenKind kind) {
  switch (kind) {
#define TOKEN(name, spelling) \
  case TokenKind::name:       \
    return spelling;
#include "compiler/preprocess/tokens.def"
#undef TOKEN
  }
  return "token";
}

namespace {

bool IsIdentStart(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsIdentChar(char c) { return IsIdentStart(c) || IsDigit(c); }

/// Length of the valid UTF-8 sequence starting at `p`, or 0 when invalid.
size_t Utf8SequenceLength(std::string_view text, size_t p) {
  unsigned char c = static_cast<unsigned char>(text[p]);
  // 0xC0, 0xC1 (overlong) and 0xF5 to 0xFF (beyond U+10FFFF, or the old five- and
  // six-byte forms) begin no sequence.
  size_t len = c >= 0xF0 && c <= 0xF4 ? 4 : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xC2 && c < 0xE0 ? 2 : 0;
  if (len == 0 || p + len > text.size()) return 0;
  for (size_t i = 1; i < len; ++i) {
    if ((static_cast<unsigned char>(text[p + i]) & 0xC0) != 0x80) return 0;
  }
  // Overlong forms, UTF-16 surrogates (U+D800..U+DFFF) and code points above U+10FFFF.
  auto second = static_cast<unsigned char>(text[p + 1]);
  if ((c == 0xE0 && second < 0xA0) || (c == 0xED && second >= 0xA0) ||
      (c == 0xF0 && second < 0x90) || (c == 0xF4 && second >= 0x90)) {
    return 0;
  }
  return len;
}

/// Length of the non-ASCII character at `p` that may be part of an identifier (any
/// valid UTF-8 sequence, as Slang takes them), or 0.
size_t UnicodeIdentCharLength(std::string_view text, size_t p) {
  if (p >= text.size() || static_cast<unsigned char>(text[p]) < 0x80) return 0;
  return Utf8SequenceLength(text, p);
}

}  // namespace

Lexer::Lexer(const source::SourceManager& sources, source::FileId file,
             diag::DiagEngine& diags)
    : file_(file), text_(sources.Text(file)), diags_(diags) {
  // A UTF-8 byte order mark is skipped.
  if (text_.substr(0, 3) == "\xEF\xBB\xBF") pos_ = 3;
}

void Lexer::SkipNonAscii() {
  size_t len = Utf8SequenceLength(text_, pos_);
  if (len == 0) {
    char hex[8];
    std::snprintf(hex, sizeof(hex), "%02X", static_cast<unsigned char>(text_[pos_]));
    // One error for the sequence, at its first byte: the continuation bytes after it
    // belong to it.
    len = 1;
    while (pos_ + len < text_.size() && (static_cast<unsigned char>(text_[pos_ + len]) & 0xC0) == 0x80) {
      ++len;
    }
    Error(diag::DiagId::InvalidUtf8, Range(pos_, pos_ + len), hex);
  }
  pos_ += len;
}

void Lexer::SkipTrivia() {
  while (!AtEnd()) {
    char c = Peek();
    if (c == '\n' || c == '\r') {
      at_line_start_ = true;
      ++pos_;
    } else if (c == ' ' || c == '\t' || c == '\f' || c == '\v') {
      ++pos_;
    } else if (c == '\\' && (Peek(1) == '\n' || Peek(1) == '\r')) {
      // Line continuation: the backslash and the line break vanish.
      pos_ += (Peek(1) == '\r' && Peek(2) == '\n') ? 3 : 2;
    } else if (c == '/' && Peek(1) == '/') {
      while (!AtEnd() && Peek() != '\n' && Peek() != '\r') {
        if (static_cast<unsigned char>(Peek()) >= 0x80) {
          SkipNonAscii();
        } else {
          ++pos_;
        }
      }
    } else if (c == '/' && Peek(1) == '*') {
      size_t start = pos_;
      pos_ += 2;
      bool closed = false;
      while (!AtEnd()) {
        if (Peek() == '*' && Peek(1) == '/') {
          pos_ += 2;
          closed = true;
          break;
        }
        if (Peek() == '\n' || Peek() == '\r') at_line_start_ = true;
        if (static_cast<unsigned char>(Peek()) >= 0x80) {
          SkipNonAscii();
        } else {
          ++pos_;
        }
      }
      if (!closed) Error(diag::DiagId::UnterminatedComment, Range(start, start + 2));
    } else {
      return;
    }
  }
}

bool Lexer::AtLineStart() {
  SkipTrivia();
  return at_line_start_ || AtEnd();
}

Token Lexer::Next() {
  while (true) {
    SkipTrivia();
    Token tok;
    tok.at_line_start = at_line_start_;
    at_line_start_ = false;
    size_t start = pos_;
    tok.loc = Loc(start);
    if (AtEnd()) {
      tok.kind = TokenKind::EndOfFile;
      return tok;
    }
    char c = Peek();
    if (IsIdentStart(c) || UnicodeIdentCharLength(text_, pos_) != 0) {
      // Letters of any script, as Slang takes them: every valid non-ASCII character.
      for (;;) {
        if (IsIdentChar(Peek())) {
          ++pos_;
        } else if (size_t n = UnicodeIdentCharLength(text_, pos_)) {
          pos_ += n;
        } else {
          break;
        }
      }
      tok.kind = TokenKind::Identifier;
    } else if (IsDigit(c) || (c == '.' && IsDigit(Peek(1)))) {
      LexNumber(tok);
    } else if (c == '"') {
      ++pos_;
      bool closed = false;
      while (!AtEnd() && Peek() != '\n' && Peek() != '\r') {
        if (Peek() == '\\' && pos_ + 1 < text_.size()) {
          pos_ += 2;
        } else if (Peek() == '"') {
          ++pos_;
          closed = true;
          break;
        } else if (static_cast<unsigned char>(Peek()) >= 0x80) {
          SkipNonAscii();
        } else {
          ++pos_;
        }
      }
      if (!closed) Error(diag::DiagId::UnterminatedString, Range(start, pos_));
      tok.kind = TokenKind::StringLiteral;
    } else if (static_cast<unsigned char>(c) >= 0x80) {
      // Not valid UTF-8 (a valid character starts an identifier above).
      SkipNonAscii();
      continue;
    } else {
      LexPunctuation(tok);
      if (pos_ == start) {
        std::string shown;
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7F) {
          char hex[8];
          std::snprintf(hex, sizeof(hex), "\\x%02X", static_cast<unsigned char>(c));
          shown = hex;
        } else {
          shown = std::string(1, c);
        }
        Error(diag::DiagId::UnexpectedCharacter, Range(start, start + 1), shown);
        ++pos_;
        continue;
      }
    }
    tok.text = text_.substr(start, pos_ - start);
    TrackAsmBlock(tok);
    return tok;
  }
}

void Lexer::TrackAsmBlock(const Token& tok) {
  if (asm_state_ >= 2) {
    if (tok.kind == TokenKind::LBrace) ++asm_state_;
    if (tok.kind == TokenKind::RBrace && --asm_state_ == 1) asm_state_ = 0;
    return;
  }
  if (asm_state_ == 1 && tok.kind == TokenKind::LBrace) {
    asm_state_ = 3;
    return;
  }
  asm_state_ = tok.kind == TokenKind::Identifier && tok.text == "spirv_asm" ? 1 : 0;
}

void Lexer::LexNumber(Token& tok) {
  size_t start = pos_;
  bool is_float = false;
  int base = 10;
  if (Peek() == '0' && (Peek(1) == 'x' || Peek(1) == 'X')) {
    base = 16;
    pos_ += 2;
    while (std::isxdigit(static_cast<unsigned char>(Peek()))) ++pos_;
    // A hexadecimal float, as C writes it: `0x1.8p1` is 1.5 * 2^1. The binary exponent
    // is required.
    bool point = Peek() == '.';
    if (point) {
      ++pos_;
      while (std::isxdigit(static_cast<unsigned char>(Peek()))) ++pos_;
    }
    if ((Peek() == 'p' || Peek() == 'P') &&
        (IsDigit(Peek(1)) || ((Peek(1) == '+' || Peek(1) == '-') && IsDigit(Peek(2))))) {
      is_float = true;
      pos_ += 2;
      while (IsDigit(Peek())) ++pos_;
    } else if (point) {
      // `0x1.8` without its binary exponent.
      while (IsIdentChar(Peek())) ++pos_;
      tok.kind = TokenKind::IntLiteral;
      tok.text = text_.substr(start, pos_ - start);
      Error(diag::DiagId::InvalidNumericLiteral, Range(start, pos_), tok.text);
      return;
    }
  } else if (Peek() == '0' && (Peek(1) == 'b' || Peek(1) == 'B')) {
    base = 2;
    pos_ += 2;
    while (Peek() == '0' || Peek() == '1') ++pos_;
  } else {
    while (IsDigit(Peek())) ++pos_;
    if (Peek() == '.') {
      is_float = true;
      ++pos_;
      while (IsDigit(Peek())) ++pos_;
    }
    if ((Peek() == 'e' || Peek() == 'E') &&
        (IsDigit(Peek(1)) || ((Peek(1) == '+' || Peek(1) == '-') && IsDigit(Peek(2))))) {
      is_float = true;
      pos_ += 2;
      while (IsDigit(Peek())) ++pos_;
    }
  }
  size_t digits_end = pos_;
  // The suffix runs to the end of the identifier-like tail; unknown suffixes are errors.
  while (IsIdentChar(Peek())) ++pos_;
  std::string_view suffix = text_.substr(digits_end, pos_ - digits_end);
  std::string_view whole = text_.substr(start, pos_ - start);
  tok.text = whole;
  source::SourceRange range = Range(start, pos_);
  std::string lower;
  for (char ch : suffix) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));

  if (is_float || (base == 10 && (lower == "f" || lower == "h"))) {
    tok.kind = TokenKind::FloatLiteral;
    if (lower.empty() || lower == "f") {
      tok.literal_type = LiteralType::Float;
    } else if (lower == "h") {
      tok.literal_type = LiteralType::Half;
    } else if (lower == "l" || lower == "lf") {
      tok.literal_type = LiteralType::Double;
    } else {
      Error(diag::DiagId::InvalidNumericLiteral, range, whole);
      return;
    }
    std::string digits(text_.substr(start, digits_end - start));
    errno = 0;
    double value = std::strtod(digits.c_str(), nullptr);
    bool nonzero_digits = base == 16 ? digits.find_first_of("123456789abcdefABCDEF", 2) <
                                           digits.find_first_of("pP")
                                     : digits.find_first_of("123456789") < digits.find_first_of("eE");
    double max = tok.literal_type == LiteralType::Float ? FLT_MAX
                 : tok.literal_type == LiteralType::Half ? 65504.0 : DBL_MAX;
    double min_sub = tok.literal_type == LiteralType::Float ? FLT_TRUE_MIN
                     : tok.literal_type == LiteralType::Half ? 5.9604644775390625e-8
                                                             : DBL_TRUE_MIN;
    bool too_large = std::isinf(value) || value > max;
    bool too_small = nonzero_digits && (value == 0.0 || value < min_sub / 2);
    if (too_large || too_small) {
      static constexpr const char* kNames[] = {"int", "uint", "int64_t", "uint64_t",
                                               "half", "float", "double"};
      Error(diag::DiagId::FloatLiteralOutOfRange, range, whole,
                    kNames[static_cast<int>(tok.literal_type)]);
    }
    tok.float_value = value;
    return;
  }

  tok.kind = TokenKind::IntLiteral;
  bool is_unsigned = lower.find('u') != std::string::npos;
  size_t l_count = static_cast<size_t>(std::count(lower.begin(), lower.end(), 'l'));
  bool valid_suffix = lower.empty() || lower == "u" || lower == "l" || lower == "ll" ||
                      lower == "ul" || lower == "lu" || lower == "ull" || lower == "llu";
  size_t prefix = base == 10 ? 0 : 2;
  if (!valid_suffix || digits_end == start + prefix) {
    Error(diag::DiagId::InvalidNumericLiteral, range, whole);
    return;
  }
  // Accumulate with overflow detection.
  uint64_t value = 0;
  bool overflow = false;
  for (size_t i = start + prefix; i < digits_end; ++i) {
    char ch = text_[i];
    uint64_t digit = IsDigit(ch) ? static_cast<uint64_t>(ch - '0')
                                 : static_cast<uint64_t>(std::tolower(ch) - 'a' + 10);
    if (value > (UINT64_MAX - digit) / static_cast<uint64_t>(base)) overflow = true;
    value = value * static_cast<uint64_t>(base) + digit;
  }
  tok.int_value = value;
  if (l_count > 0 || overflow) {
    tok.literal_type = is_unsigned || (overflow && base != 10) ? LiteralType::UInt64
                                                                : LiteralType::Int64;
  } else if (is_unsigned) {
    tok.literal_type = value <= 0xFFFFFFFFull ? LiteralType::UInt : LiteralType::UInt64;
  } else if (value <= 0x7FFFFFFFull) {
    tok.literal_type = LiteralType::Int;
  } else if (base != 10 && value <= 0xFFFFFFFFull) {
    tok.literal_type = LiteralType::UInt;  // hex and binary literals may use the sign bit
  } else if (value == 0x80000000ull) {
    tok.literal_type = LiteralType::Int;  // only valid as the operand of unary minus
  } else if (value <= 0x7FFFFFFFFFFFFFFFull) {
    tok.literal_type = LiteralType::Int64;  // too wide for int: Slang makes it an int64_t
  } else if (base != 10) {
    tok.literal_type = LiteralType::UInt64;
  } else {
    overflow = true;
    tok.literal_type = LiteralType::Int64;
  }
  uint64_t limit = tok.literal_type == LiteralType::UInt ? 0xFFFFFFFFull
                   : tok.literal_type == LiteralType::Int64 ? 0x7FFFFFFFFFFFFFFFull
                                                            : UINT64_MAX;
  if (tok.literal_type == LiteralType::Int) limit = 0x80000000ull;
  if (overflow || value > limit) {
    static constexpr const char* kNames[] = {"int", "uint", "int64_t", "uint64_t"};
    Error(diag::DiagId::IntegerLiteralTooLarge, range, whole,
                  kNames[static_cast<int>(tok.literal_type)]);
    tok.int_value = 0;
  }
}

void Lexer::LexPunctuation(Token& tok) {
  // Dispatch on the first character, then take the longest spelling that matches
  // ("<<=" before "<<" before "<").
  char c = Peek();
  char n1 = Peek(1);
  char n2 = Peek(2);
  auto take = [&](TokenKind kind, size_t length) {
    tok.kind = kind;
    pos_ += length;
  };
  // X, X= forms.
  auto with_equal = [&](TokenKind plain, TokenKind equal) {
    n1 == '=' ? take(equal, 2) : take(plain, 1);
  };
  switch (c) {
    case '(': return take(TokenKind::LParen, 1);
    case ')': return take(TokenKind::RParen, 1);
    case '[': return take(TokenKind::LBracket, 1);
    case ']': return take(TokenKind::RBracket, 1);
    case '{': return take(TokenKind::LBrace, 1);
    case '}': return take(TokenKind::RBrace, 1);
    case ';': return take(TokenKind::Semicolon, 1);
    case ',': return take(TokenKind::Comma, 1);
    case '.': return take(TokenKind::Dot, 1);
    case '?': return take(TokenKind::Question, 1);
    case '#': return take(TokenKind::Hash, 1);
    case '$':
      // Anti-quotes of Slang values and types exist only inside `spirv_asm` blocks.
      if (asm_state_ >= 2) take(TokenKind::Dollar, 1);
      return;
    case '~': return take(TokenKind::Tilde, 1);
    case ':': return n1 == ':' ? take(TokenKind::ColonColon, 2) : take(TokenKind::Colon, 1);
    case '+':
      if (n1 == '+') return take(TokenKind::PlusPlus, 2);
      return with_equal(TokenKind::Plus, TokenKind::PlusEqual);
    case '-':
      if (n1 == '-') return take(TokenKind::MinusMinus, 2);
      if (n1 == '>') return take(TokenKind::Arrow, 2);
      return with_equal(TokenKind::Minus, TokenKind::MinusEqual);
    case '*': return with_equal(TokenKind::Star, TokenKind::StarEqual);
    case '/': return with_equal(TokenKind::Slash, TokenKind::SlashEqual);
    case '%': return with_equal(TokenKind::Percent, TokenKind::PercentEqual);
    case '^': return with_equal(TokenKind::Caret, TokenKind::CaretEqual);
    case '!': return with_equal(TokenKind::Bang, TokenKind::BangEqual);
    case '=': return with_equal(TokenKind::Equal, TokenKind::EqualEqual);
    case '&':
      if (n1 == '&') return take(TokenKind::AmpAmp, 2);
      return with_equal(TokenKind::Amp, TokenKind::AmpEqual);
    case '|':
      if (n1 == '|') return take(TokenKind::PipePipe, 2);
      return with_equal(TokenKind::Pipe, TokenKind::PipeEqual);
    case '<':
      if (n1 == '<') return n2 == '=' ? take(TokenKind::LessLessEqual, 3) : take(TokenKind::LessLess, 2);
      return with_equal(TokenKind::Less, TokenKind::LessEqual);
    case '>':
      if (n1 == '>') {
        return n2 == '=' ? take(TokenKind::GreaterGreaterEqual, 3) : take(TokenKind::GreaterGreater, 2);
      }
      return with_equal(TokenKind::Greater, TokenKind::GreaterEqual);
    default:
      return;  // not punctuation: the caller reports the character
  }
}

std::vector<Token> Lex(const source::SourceManager& sources, source::FileId file,
                       diag::DiagEngine& diags) {
  Lexer lexer(sources, file, diags);
  std::vector<Token> tokens;
  do {
    tokens.push_back(lexer.Next());
  } while (!tokens.back().Is(TokenKind::EndOfFile));
  return tokens;
}

}  // namespace slope::preprocess
