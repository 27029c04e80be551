#pragma once
// Expressions of C-like languages as text with their precedence, so that an operand is
// parenthesized exactly when the operator binding it needs it. GLSL and C++ share C's
// precedence table for every operator the writers print.

#include <string>
#include <string_view>
#include <vector>

namespace slope::targets::ctext {

/// C's precedence levels, loosest first.
enum class Prec : int {
  Comma,
  Assign,
  Conditional,
  LogicalOr,
  LogicalXor,
  LogicalAnd,
  BitOr,
  BitXor,
  BitAnd,
  Equality,
  Relational,
  Shift,
  Additive,
  Multiplicative,
  Unary,
  Postfix,
  Primary
};

/// An expression's text and the precedence of its outermost operator.
struct Expr {
  std::string text;
  Prec prec = Prec::Primary;
};

/// A name, literal or call: binds tightest.
inline Expr Atom(std::string text) { return {std::move(text), Prec::Primary}; }
/// `e`'s text, parenthesized when its operator binds looser than `min`.
std::string Operand(const Expr& e, Prec min);
/// `a op b` for a left-associative operator of precedence `p`.
Expr Binary(const Expr& a, std::string_view op, const Expr& b, Prec p);
/// A prefix operator: `-a`, `!a`, `~a` (never `- -a`).
Expr Prefix(std::string_view op, const Expr& a);
/// `callee(args...)`; `callee` may be a type (`vec3(...)`, `float[2](...)`).
Expr Call(std::string_view callee, const std::vector<Expr>& args);
/// `a.member`.
Expr Member(const Expr& a, std::string_view member);
/// `a[index]`.
Expr Index(const Expr& a, const Expr& index);
/// `c ? a : b`.
Expr Conditional(const Expr& c, const Expr& a, const Expr& b);

}  // namespace slope::targets::ctext
