// The C-like text emitter's pieces that every language writer relies on: operands are
// parenthesized exactly when precedence needs it, and names are legal and unique.

#include <gtest/gtest.h>

#include "compiler/targets/ctext/expr.h"
#include "compiler/targets/ctext/names.h"

namespace slope::targets::ctext {
namespace {

TEST(CtextExpr, ParenthesizesOnlyWhereNeeded) {
  Expr a = Atom("a"), b = Atom("b"), c = Atom("c");
  Expr sum = Binary(a, "+", b, Prec::Additive);
  // (a + b) * c needs parentheses; a * b + c does not.
  EXPECT_EQ(Binary(sum, "*", c, Prec::Multiplicative).text, "(a + b) * c");
  EXPECT_EQ(Binary(Binary(a, "*", b, Prec::Multiplicative), "+", c, Prec::Additive).text,
            "a * b + c");
  // Left associativity: a - (b + c) keeps its parentheses, (a + b) - c does not.
  EXPECT_EQ(Binary(a, "-", Binary(b, "+", c, Prec::Additive), Prec::Additive).text, "a - (b + c)");
  EXPECT_EQ(Binary(sum, "-", c, Prec::Additive).text, "a + b - c");
  // Postfix operators bind tighter than anything binary.
  EXPECT_EQ(Member(sum, "x").text, "(a + b).x");
  EXPECT_EQ(Index(Call("f", {a, sum}), b).text, "f(a, a + b)[b]");
  // Never `- -x` (or `--x`, a decrement).
  EXPECT_EQ(Prefix("-", Expr{"-1.5", Prec::Unary}).text, "-(-1.5)");
  EXPECT_EQ(Prefix("!", Binary(a, "<", b, Prec::Relational)).text, "!(a < b)");
  EXPECT_EQ(Conditional(a, b, c).text, "a ? b : c");
}

TEST(CtextNames, LegalAndUnique) {
  NameTable names({"input", "main"}, {"gl_"});
  EXPECT_EQ(names.Make("Foo<int>"), "Foo_int");
  EXPECT_EQ(names.Make("a__b"), "a_b");             // no double underscore
  EXPECT_EQ(names.Make("input"), "v_input");        // reserved word
  EXPECT_EQ(names.Make("gl_thing"), "v_gl_thing");  // reserved prefix
  EXPECT_EQ(names.Make("3d"), "v3d");               // no leading digit
  EXPECT_EQ(names.Make("x"), "x");
  EXPECT_EQ(names.Make("x"), "x_1");  // unique
  EXPECT_EQ(names.Make("x"), "x_2");
  NameTable copy = names;  // a function's table keeps the module's
  EXPECT_EQ(copy.Make("Foo_int"), "Foo_int_1");
  EXPECT_EQ(names.Legal("ns::Type"), "ns_Type");
}

}  // namespace
}  // namespace slope::targets::ctext
