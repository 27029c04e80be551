// Evaluation of `#if` / `#elif` expressions: C's integer constant expressions over
// 64-bit values, by precedence climbing. Division by zero is an error only where the
// operand is evaluated (`0 && 1 / 0` is fine), and nothing here has undefined
// behaviour: signed arithmetic wraps, over-long shifts saturate.

#include <limits>

#include "compiler/preprocess/preprocessor.h"

namespace slope::preprocess {
namespace {

using diag::DiagId;

/// A value of a `#if` expression: 64 bits, read as signed unless `is_unsigned`.
struct Value {
  uint64_t bits = 0;
  bool is_unsigned = false;

  int64_t Signed() const { return static_cast<int64_t>(bits); }
  bool IsTrue() const { return bits != 0; }
  static Value Bool(bool b) { return Value{b ? 1u : 0u, false}; }
};

/// Binding strength of a binary operator, 0 for anything else.
int Precedence(TokenKind kind) {
  switch (kind) {
    case TokenKind::PipePipe: return 1;
    case TokenKind::AmpAmp: return 2;
    case TokenKind::Pipe: return 3;
    case TokenKind::Caret: return 4;
    case TokenKind::Amp: return 5;
    case TokenKind::EqualEqual:
    case TokenKind::BangEqual: return 6;
    case TokenKind::Less:
    case TokenKind::Greater:
    case TokenKind::LessEqual:
    case TokenKind::GreaterEqual: return 7;
    case TokenKind::LessLess:
    case TokenKind::GreaterGreater: return 8;
    case TokenKind::Plus:
    case TokenKind::Minus: return 9;
    case TokenKind::Star:
    case TokenKind::Slash:
    case TokenKind::Percent: return 10;
    default: return 0;
  }
}

/// `value` shifted left (`left`) or right by `count`, with C's result type (the left
/// operand's) and no undefined behaviour for negative or over-long counts.
Value Shift(Value value, int64_t count, bool left) {
  if (count < 0) {
    left = !left;
    count = count == std::numeric_limits<int64_t>::min() ? 64 : -count;
  }
  if (left) {
    value.bits = count >= 64 ? 0 : value.bits << count;
  } else if (value.is_unsigned || value.Signed() >= 0) {
    value.bits = count >= 64 ? 0 : value.bits >> count;
  } else {
    // Arithmetic shift of a negative value, written without relying on `>>` of signed.
    uint64_t inverted = ~value.bits;
    value.bits = ~(count >= 64 ? 0 : inverted >> count);
  }
  return value;
}

class IfEvaluator {
 public:
  IfEvaluator(const std::vector<Token>& tokens, std::string_view directive,
              source::SourceLoc line_end, diag::DiagEngine& diags)
      : tokens_(tokens), directive_(directive), diags_(diags) {
    end_.kind = TokenKind::EndOfFile;
    end_.loc = line_end;
  }

  bool Run(int64_t* value) {
    Value v;
    if (!ParseConditional(true, &v)) return false;
    if (!Cur().Is(TokenKind::EndOfFile)) {
      return Fail(DiagId::IfExpectedToken, Cur(), "an operator or the end of the line");
    }
    *value = v.Signed();
    return true;
  }

 private:
  const Token& Cur() const { return pos_ < tokens_.size() ? tokens_[pos_] : end_; }

  std::string Describe(const Token& t) const {
    switch (t.kind) {
      case TokenKind::EndOfFile: return "the end of the line";
      case TokenKind::Identifier:
      case TokenKind::IntLiteral: return "'" + std::string(t.text) + "'";
      case TokenKind::FloatLiteral: return "floating-point literal '" + std::string(t.text) + "'";
      case TokenKind::StringLiteral: return "string literal " + std::string(t.text);
      default: return TokenKindSpelling(t.kind);
    }
  }

  bool Fail(DiagId id, const Token& at, std::string_view expected = {}) {
    source::SourceRange range = at.Is(TokenKind::EndOfFile) ? source::SourceRange(at.loc) : at.Range();
    if (id == DiagId::IfExpectedToken) {
      diags_.Report(id, range, expected, directive_, Describe(at));
    } else {
      diags_.Report(id, range, directive_, Describe(at));
    }
    return false;
  }

  /// Guards recursion: nesting past kMaxIfExprDepth is an error, not a stack overflow.
  bool Enter(const Token& at) {
    if (++depth_ <= kMaxIfExprDepth) return true;
    diags_.Report(DiagId::IfExprTooDeep, at.Range(), directive_, kMaxIfExprDepth);
    return false;
  }

  bool ParseConditional(bool evaluated, Value* out) {
    if (!Enter(Cur())) return false;
    Value cond;
    if (!ParseBinary(1, evaluated, &cond)) return false;
    if (Cur().Is(TokenKind::Question)) {
      ++pos_;
      Value then_value, else_value;
      if (!ParseConditional(evaluated && cond.IsTrue(), &then_value)) return false;
      if (!Cur().Is(TokenKind::Colon)) return Fail(DiagId::IfExpectedToken, Cur(), "':'");
      ++pos_;
      if (!ParseConditional(evaluated && !cond.IsTrue(), &else_value)) return false;
      *out = cond.IsTrue() ? then_value : else_value;
      out->is_unsigned = then_value.is_unsigned || else_value.is_unsigned;
    } else {
      *out = cond;
    }
    --depth_;
    return true;
  }

  bool ParseBinary(int min_precedence, bool evaluated, Value* out) {
    Value lhs;
    if (!ParseUnary(evaluated, &lhs)) return false;
    while (true) {
      const Token& op = Cur();
      int precedence = Precedence(op.kind);
      if (precedence == 0 || precedence < min_precedence) break;
      ++pos_;
      bool rhs_evaluated = evaluated;
      if (op.Is(TokenKind::AmpAmp)) rhs_evaluated = evaluated && lhs.IsTrue();
      if (op.Is(TokenKind::PipePipe)) rhs_evaluated = evaluated && !lhs.IsTrue();
      Value rhs;
      if (!ParseBinary(precedence + 1, rhs_evaluated, &rhs)) return false;
      if (!Apply(op, lhs, rhs, rhs_evaluated, &lhs)) return false;
    }
    *out = lhs;
    return true;
  }

  bool Apply(const Token& op, Value lhs, Value rhs, bool evaluated, Value* out) {
    bool is_unsigned = lhs.is_unsigned || rhs.is_unsigned;
    auto less = [&](Value a, Value b) {
      return is_unsigned ? a.bits < b.bits : a.Signed() < b.Signed();
    };
    Value result{0, is_unsigned};
    switch (op.kind) {
      case TokenKind::PipePipe: result = Value::Bool(lhs.IsTrue() || rhs.IsTrue()); break;
      case TokenKind::AmpAmp: result = Value::Bool(lhs.IsTrue() && rhs.IsTrue()); break;
      case TokenKind::Pipe: result.bits = lhs.bits | rhs.bits; break;
      case TokenKind::Caret: result.bits = lhs.bits ^ rhs.bits; break;
      case TokenKind::Amp: result.bits = lhs.bits & rhs.bits; break;
      case TokenKind::EqualEqual: result = Value::Bool(lhs.bits == rhs.bits); break;
      case TokenKind::BangEqual: result = Value::Bool(lhs.bits != rhs.bits); break;
      case TokenKind::Less: result = Value::Bool(less(lhs, rhs)); break;
      case TokenKind::Greater: result = Value::Bool(less(rhs, lhs)); break;
      case TokenKind::LessEqual: result = Value::Bool(!less(rhs, lhs)); break;
      case TokenKind::GreaterEqual: result = Value::Bool(!less(lhs, rhs)); break;
      case TokenKind::LessLess:
      case TokenKind::GreaterGreater: {
        int64_t count = rhs.is_unsigned && rhs.bits > 64 ? 64 : rhs.Signed();
        result = Shift(lhs, count, op.Is(TokenKind::LessLess));
        break;
      }
      case TokenKind::Plus: result.bits = lhs.bits + rhs.bits; break;
      case TokenKind::Minus: result.bits = lhs.bits - rhs.bits; break;
      case TokenKind::Star: result.bits = lhs.bits * rhs.bits; break;
      case TokenKind::Slash:
      case TokenKind::Percent: {
        bool divide = op.Is(TokenKind::Slash);
        if (rhs.bits == 0) {
          if (evaluated) {
            diags_.Report(DiagId::IfDivisionByZero, op.Range(), directive_);
            return false;
          }
          result.bits = 0;
        } else if (is_unsigned) {
          result.bits = divide ? lhs.bits / rhs.bits : lhs.bits % rhs.bits;
        } else if (lhs.Signed() == std::numeric_limits<int64_t>::min() && rhs.Signed() == -1) {
          result.bits = divide ? lhs.bits : 0;  // wraps instead of trapping
        } else {
          int64_t q = divide ? lhs.Signed() / rhs.Signed() : lhs.Signed() % rhs.Signed();
          result.bits = static_cast<uint64_t>(q);
        }
        break;
      }
      default: return Fail(DiagId::IfExpectedToken, op, "an operator");
    }
    *out = result;
    return true;
  }

  bool ParseUnary(bool evaluated, Value* out) {
    const Token& tok = Cur();
    switch (tok.kind) {
      case TokenKind::Plus:
      case TokenKind::Minus:
      case TokenKind::Tilde:
      case TokenKind::Bang: {
        if (!Enter(tok)) return false;
        ++pos_;
        Value operand;
        if (!ParseUnary(evaluated, &operand)) return false;
        --depth_;
        *out = operand;
        if (tok.Is(TokenKind::Minus)) out->bits = 0 - operand.bits;
        if (tok.Is(TokenKind::Tilde)) out->bits = ~operand.bits;
        if (tok.Is(TokenKind::Bang)) *out = Value::Bool(!operand.IsTrue());
        return true;
      }
      case TokenKind::LParen: {
        ++pos_;
        if (!ParseConditional(evaluated, out)) return false;
        if (!Cur().Is(TokenKind::RParen)) return Fail(DiagId::IfExpectedToken, Cur(), "')'");
        ++pos_;
        return true;
      }
      case TokenKind::IntLiteral: {
        ++pos_;
        bool is_unsigned = tok.literal_type == LiteralType::UInt ||
                           tok.literal_type == LiteralType::UInt64 ||
                           tok.int_value > static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
        *out = Value{tok.int_value, is_unsigned};
        return true;
      }
      case TokenKind::Identifier:
        // Names that are not macros count as 0, as in C; `true` is 1 as in C++.
        ++pos_;
        *out = Value::Bool(tok.text == "true");
        return true;
      default: return Fail(DiagId::IfExpectedValue, tok);
    }
  }

  const std::vector<Token>& tokens_;
  std::string_view directive_;
  diag::DiagEngine& diags_;
  Token end_;
  size_t pos_ = 0;
  uint32_t depth_ = 0;
};

}  // namespace

bool EvaluateIfExpression(const std::vector<Token>& tokens, std::string_view directive,
                          source::SourceLoc line_end, diag::DiagEngine& diags, int64_t* value) {
  return IfEvaluator(tokens, directive, line_end, diags).Run(value);
}

}  // namespace slope::preprocess
