#include "compiler/targets/ctext/expr.h"

namespace slope::targets::ctext {

std::string Operand(const Expr& e, Prec min) {
  if (static_cast<int>(e.prec) >= static_cast<int>(min)) return e.text;
  return "(" + e.text + ")";
}

Expr Binary(const Expr& a, std::string_view op, const Expr& b, Prec p) {
  // Left-associative: the right operand must bind strictly tighter.
  Prec right = static_cast<Prec>(static_cast<int>(p) + 1);
  return {Operand(a, p) + " " + std::string(op) + " " + Operand(b, right), p};
}

Expr Prefix(std::string_view op, const Expr& a) {
  std::string operand = Operand(a, Prec::Unary);
  // `- -x` and `--x` read as a decrement: keep the operand apart.
  if (!operand.empty() && !op.empty() &&
      (operand[0] == op.back() || operand[0] == '-' || operand[0] == '+')) {
    operand = "(" + operand + ")";
  }
  return {std::string(op) + operand, Prec::Unary};
}

Expr Call(std::string_view callee, const std::vector<Expr>& args) {
  std::string text(callee);
  text += '(';
  for (size_t i = 0; i < args.size(); ++i) {
    if (i != 0) text += ", ";
    text += Operand(args[i], Prec::Assign);
  }
  text += ')';
  return {text, Prec::Primary};
}

Expr Member(const Expr& a, std::string_view member) {
  return {Operand(a, Prec::Postfix) + "." + std::string(member), Prec::Postfix};
}

Expr Index(const Expr& a, const Expr& index) {
  return {Operand(a, Prec::Postfix) + "[" + index.text + "]", Prec::Postfix};
}

Expr Conditional(const Expr& c, const Expr& a, const Expr& b) {
  return {Operand(c, Prec::LogicalOr) + " ? " + Operand(a, Prec::Assign) + " : " +
              Operand(b, Prec::Conditional),
          Prec::Conditional};
}

}  // namespace slope::targets::ctext
