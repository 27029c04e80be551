// Generic value expressions: `N * 2`, `kCap + 1` (a constant defined from N), `M > 4 ? M
// : 4` written where a generic value is expected (array sizes, `vector<T, N + 1>`,
// `Stack<N + 1>`). Sema keeps them as IntExpr types over the value parameters; once the
// parameters are known (Substitute), they compute to IntValues, so `float[N * 2]` with
// N = 3 is `float[6]`.

#include <algorithm>
#include <iterator>

#include "compiler/base/ice.h"
#include "compiler/sema/int_arith.h"
#include "compiler/sema/types.h"

namespace slope::sema {

namespace {
bool IsUnary(IntOp op) { return op == IntOp::Neg || op == IntOp::BitNot || op == IntOp::Not; }

/// How each IntOp is written, in the enumeration's order (Convert is written as a call).
constexpr const char* kSpellings[] = {
    "+",  "-",  "*", "/",  "%", "&",  "|", "^", "<<", ">>", "&&", "||",
    "==", "!=", "<", "<=", ">", ">=", "-", "~", "!",  "",   "?"};
static_assert(std::size(kSpellings) == static_cast<size_t>(IntOp::Select) + 1);
const char* Spelling(IntOp op) { return kSpellings[static_cast<size_t>(op)]; }

/// `op` applied to `v` (already values of their types), as `type` computes it; false
/// when it has no value.
bool Compute(IntOp op, const Type* type, const std::vector<int64_t>& v, int64_t* out) {
  const bool is_bool = type->Kind() == TypeKind::Bool;
  const int64_t width = is_bool ? 1 : type->Width();
  const bool is_signed = type->Kind() == TypeKind::Int;
  const bool unsigned64 = type->Kind() == TypeKind::UInt && width == 64;
  int64_t r = 0;
  switch (op) {
    case IntOp::Add:
      r = WrapAdd(v[0], v[1]);
      break;
    case IntOp::Sub:
      r = WrapAdd(v[0], WrapNeg(v[1]));
      break;
    case IntOp::Mul:
      r = WrapMul(v[0], v[1]);
      break;
    case IntOp::Div:
    case IntOp::Rem:
      if (!DivideInts(op == IntOp::Rem, v[0], v[1], unsigned64, &r)) return false;
      break;
    case IntOp::BitAnd:
      r = v[0] & v[1];
      break;
    case IntOp::BitOr:
      r = v[0] | v[1];
      break;
    case IntOp::BitXor:
      r = v[0] ^ v[1];
      break;
    case IntOp::Shl:
    case IntOp::Shr:
      if (v[1] < 0 || v[1] >= width) return false;
      r = op == IntOp::Shl ? static_cast<int64_t>(static_cast<uint64_t>(v[0]) << v[1])
                           : v[0] >> v[1];
      break;
    case IntOp::LogicalAnd:
      r = v[0] != 0 && v[1] != 0;
      break;
    case IntOp::LogicalOr:
      r = v[0] != 0 || v[1] != 0;
      break;
    // Comparisons compute a bool from operands of one type, which the result does not
    // show: they compare as signed values (generic value parameters are `int` or `uint`,
    // whose 32-bit values both fit).
    case IntOp::Eq:
      r = v[0] == v[1];
      break;
    case IntOp::Ne:
      r = v[0] != v[1];
      break;
    case IntOp::Lt:
      r = v[0] < v[1];
      break;
    case IntOp::Le:
      r = v[0] <= v[1];
      break;
    case IntOp::Gt:
      r = v[0] > v[1];
      break;
    case IntOp::Ge:
      r = v[0] >= v[1];
      break;
    case IntOp::Neg:
      r = WrapNeg(v[0]);
      break;
    case IntOp::BitNot:
      r = ~v[0];
      break;
    case IntOp::Not:
      r = v[0] == 0;
      break;
    case IntOp::Select:
      r = v[0] != 0 ? v[1] : v[2];
      break;
    case IntOp::Convert:
      r = v[0];
      break;
  }
  *out = is_bool ? static_cast<int64_t>(r != 0) : WrapToWidth(r, width, is_signed);
  return true;
}
}  // namespace

std::string IntExprName(const Type* t) {
  auto operand = [](const Type* o) {
    // Operands that are expressions themselves are parenthesized, except conversions.
    bool wrap = o->Kind() == TypeKind::IntExpr && o->IntOperator() != IntOp::Convert &&
                !IsUnary(o->IntOperator());
    return wrap ? "(" + o->Name() + ")" : o->Name();
  };
  const std::vector<const Type*>& args = t->Args();
  IntOp op = t->IntOperator();
  if (op == IntOp::Convert) return t->Element()->Name() + "(" + args[0]->Name() + ")";
  if (IsUnary(op)) return Spelling(op) + operand(args[0]);
  if (op == IntOp::Select) {
    return operand(args[0]) + " ? " + operand(args[1]) + " : " + operand(args[2]);
  }
  return operand(args[0]) + " " + Spelling(op) + " " + operand(args[1]);
}

const Type* TypeContext::IntExpr(IntOp op, const Type* type,
                                 const std::vector<const Type*>& operands) {
  SLOPE_ASSERT(type->Kind() == TypeKind::Int || type->Kind() == TypeKind::UInt ||
               type->Kind() == TypeKind::Bool);
  std::vector<int64_t> values;
  for (const Type* o : operands) {
    if (o->Kind() != TypeKind::IntValue) break;
    values.push_back(o->Value());
  }
  if (values.size() == operands.size()) {
    int64_t result = 0;
    return IntValue(Compute(op, type, values, &result) ? result : 0);
  }
  // `c ? a : b` with a known condition is the branch it picks.
  if (op == IntOp::Select && operands[0]->Kind() == TypeKind::IntValue) {
    return operands[0]->Value() != 0 ? operands[1] : operands[2];
  }
  auto key = std::make_tuple(op, type, operands);
  auto it = int_exprs_.find(key);
  if (it != int_exprs_.end()) return it->second.get();
  auto* t = new Type(TypeKind::IntExpr, type, static_cast<uint32_t>(op), false);
  t->args_ = operands;
  t->dependent_ = true;
  // Capped far above any limit a user of IntExprSize sets, so it cannot overflow.
  t->value_ = 1;
  for (const Type* o : operands)
    t->value_ = std::min<int64_t>(t->value_ + o->IntExprSize(), 1 << 30);
  const Type* result = t;
  int_exprs_.emplace(key, std::unique_ptr<Type>(t));
  return result;
}

bool TypeContext::UnifyIntExpr(const Type* pattern, const Type* t,
                               const std::vector<const Type*>& params, Subst* bindings) {
  const std::vector<const Type*>& ops = pattern->Args();
  IntOp op = pattern->IntOperator();
  if (t->Kind() == TypeKind::IntExpr && t->IntOperator() == op &&
      t->Element() == pattern->Element()) {
    // The same expression over other values: `Stack<M + 1>` against `Stack<N + 1>`.
    Subst tried = *bindings;
    bool same = true;
    for (size_t i = 0; same && i < ops.size(); ++i)
      same = Unify(ops[i], t->Args()[i], params, &tried);
    if (same) {
      *bindings = std::move(tried);
      return true;
    }
  }
  if (t->Kind() == TypeKind::IntValue &&
      (op == IntOp::Add || op == IntOp::Sub || op == IntOp::Mul)) {
    // `float a[M + 1]` against `float[4]`: M is 3 (one unknown operand, the other known).
    const Type* known = Substitute(ops[1], *bindings);
    const Type* unknown = ops[0];
    bool known_right = known->Kind() == TypeKind::IntValue;
    if (!known_right) {
      known = Substitute(ops[0], *bindings);
      unknown = ops[1];
    }
    if (known->Kind() == TypeKind::IntValue) {
      int64_t k = known->Value(), v = t->Value(), solved = 0;
      bool ok = true;
      if (op == IntOp::Add) {
        solved = WrapAdd(v, WrapNeg(k));
      } else if (op == IntOp::Sub) {
        solved = known_right ? WrapAdd(v, k) : WrapAdd(k, WrapNeg(v));
      } else {
        ok = k != 0 && v % k == 0;
        if (ok) solved = v / k;
      }
      // The value found must give `t` back (no wrap-around solutions).
      if (ok) {
        Subst tried = *bindings;
        if (Unify(unknown, IntValue(solved), params, &tried) && Substitute(pattern, tried) == t) {
          *bindings = std::move(tried);
          return true;
        }
      }
    }
  }
  // Otherwise only the parameters bound already can decide it.
  return Substitute(pattern, *bindings) == t;
}

}  // namespace slope::sema
