// Implicit conversion rules (HLSL's): scalar kinds convert freely with a cost, scalars
// splat to vectors, vectors truncate with a warning, floats to integers warn.

#include <algorithm>

#include "compiler/sema/checker.h"

namespace slope::sema {

namespace {
/// Orders scalars for the common type of an operation: bool, then integers by width
/// (unsigned above signed of the same width), then floats by width.
int ScalarRank(const Type* t) {
  switch (t->Kind()) {
    case TypeKind::Bool: return 0;
    case TypeKind::Int: return static_cast<int>(t->Width()) * 2;
    case TypeKind::UInt: return static_cast<int>(t->Width()) * 2 + 1;
    case TypeKind::Float: return 1000 + static_cast<int>(t->Width());
    default: return -1;
  }
}

bool IsInteger(TypeKind k) { return k == TypeKind::Int || k == TypeKind::UInt; }

/// Loses range or precision: a float to an integer, or to a narrower type of its family.
bool IsNarrowing(const Type* from, const Type* to) {
  TypeKind f = from->Kind(), t = to->Kind();
  if (f == TypeKind::Float) return t != TypeKind::Float || to->Width() < from->Width();
  return IsInteger(f) && IsInteger(t) && to->Width() < from->Width();
}

/// Steps of doubling from `from`'s width to `to`'s (half to double: 2).
int WidthSteps(const Type* from, const Type* to) {
  int steps = 0;
  for (uint32_t w = from->Width(); w < to->Width(); w *= 2) ++steps;
  return steps;
}

/// Costs, cheapest first: widening within a family (one more per doubling, so the
/// nearest wider type wins: half goes to float before double), a sign change at the
/// same width (it changes values: int to int64_t wins over int to uint), widening with a
/// sign change, integer to float, from and to bool, and narrowing (kNarrowingCost up).
int ScalarCost(const Type* from, const Type* to) {
  if (from == to) return 0;
  TypeKind f = from->Kind(), t = to->Kind();
  if (t == TypeKind::Bool) return 40;
  if (f == TypeKind::Bool) return 30;
  if (IsNarrowing(from, to)) return f == TypeKind::Float && t != TypeKind::Float ? 70 : 60;
  if (t == TypeKind::Float && f != TypeKind::Float) return 20;
  if (f == t) return 9 + WidthSteps(from, to);
  if (from->Width() == to->Width()) return 15;
  return 15 + WidthSteps(from, to);
}

bool IsLossy(const Type* from, const Type* to) {
  bool narrowing = IsNarrowing(from->ScalarType(), to->ScalarType());
  bool truncates = from->Count() > to->Count() && from->IsVector();
  return narrowing || truncates;
}
}  // namespace

namespace {
/// The core library's struct named `name` (`Optional`, `__NoneType`), or null.
const ast::Decl* CoreStruct(const std::map<std::string, ast::Decl*>& core, const char* name) {
  auto found = core.find(name);
  return found != core.end() && found->second->kind == ast::DeclKind::Struct ? found->second : nullptr;
}

bool IsCoreStruct(const std::map<std::string, ast::Decl*>& core, const Type* t, const char* name) {
  const ast::Decl* decl = CoreStruct(core, name);
  return decl != nullptr && t->IsStruct() && !t->IsDependent() && t->Info()->decl == decl;
}

/// Whether `t` is the core library's struct `name` applied to any arguments (generic
/// ones too).
bool IsCoreGeneric(const std::map<std::string, ast::Decl*>& core, const Type* t, const char* name) {
  const ast::Decl* decl = CoreStruct(core, name);
  return decl != nullptr && t->IsStruct() && t->Info()->decl == decl;
}

/// Above every numeric conversion: an overload taking T wins over one taking Optional<T>.
constexpr int kOptionalCost = 200;
/// An initializer list argument initializing a parameter: costlier than numeric
/// conversions, so that `f(float3)` and `f(S)` are told apart by the other arguments.
constexpr int kInitListCost = 50;
/// Each level of struct inheritance between a derived value and the base it converts to.
constexpr int kBaseCost = 10;
}  // namespace

int Checker::ConversionCost(const Type* from, const Type* to) const {
  if (from == to) return 0;
  if (from->IsError() || to->IsError()) return 0;
  if (from->Kind() == TypeKind::InitList) {
    bool aggregate = to->IsStruct() || to->IsArray() || to->IsVector() || to->IsMatrix();
    return aggregate && !to->IsDependent() ? kInitListCost : kNoConversion;
  }
  // `Conditional<T, b>` converts to `Optional<T>` (none when b is false), and a T (or a
  // value converting to T) to `Conditional<T, b>`, as in Slang.
  if (IsCoreGeneric(core_yielding_, from, "Conditional")) {
    bool optional = IsCoreGeneric(core_yielding_, to, "Optional") &&
                    types_.FieldType(to, 1) == types_.FieldType(from, 0);
    return optional ? kOptionalCost : kNoConversion;
  }
  if (IsCoreGeneric(core_yielding_, to, "Conditional")) {
    int cost = ConversionCost(from, types_.FieldType(to, 0));
    return cost >= kNoConversion ? kNoConversion : cost + kOptionalCost;
  }
  // `none` converts to every Optional<T>, and a value to the Optional of its type (or of
  // a type it converts to), as in Slang.
  if (IsCoreGeneric(core_yielding_, to, "Optional")) {
    if (IsCoreStruct(core_yielding_, from, "__NoneType")) return kOptionalCost;
    if (IsCoreGeneric(core_yielding_, from, "Optional")) return kNoConversion;
    int cost = ConversionCost(from, types_.FieldType(to, 1));
    return cost >= kNoConversion ? kNoConversion : cost + kOptionalCost;
  }
  // A derived struct converts to a struct it inherits from: its base part (as Slang passes
  // a derived value where a base is expected). Nearer bases cost less.
  if (from->IsStruct() && to->IsStruct() && from->Info()->has_base) {
    int cost = kBaseCost;
    for (const Type* base = BaseStructOf(from); base != nullptr; base = BaseStructOf(base)) {
      if (base == to) return cost;
      cost += kBaseCost;
    }
    return kNoConversion;
  }
  // A concrete value converts to an interface it conforms to: it is packed into an
  // existential value (lowered to a tagged union). Exact overloads win.
  if (to->IsInterface()) {
    return from->IsInterface() || !types_.Conforms(from, to) ? kNoConversion : kExistentialCost;
  }
  // A plain enum converts implicitly to numbers through its underlying type (as in
  // HLSL); an `enum class` only explicitly. Nothing converts implicitly to an enum.
  if (from->IsEnum()) {
    if (from->Enumeration()->is_class || !to->IsNumericLike()) return kNoConversion;
    int cost = ConversionCost(from->Element(), to);
    return cost >= kNoConversion ? kNoConversion : cost + 1;
  }
  // `nullptr` converts to every pointer type; pointers convert only explicitly.
  if (from->IsPointer() && from->Element()->IsVoid() && to->IsPointer()) return 1;
  if (!from->IsNumericLike() || !to->IsNumericLike()) return kNoConversion;
  int cost = ScalarCost(from->ScalarType(), to->ScalarType());
  // A vector or matrix sized by generic parameters converts only to one of its shape.
  if (!from->IsScalar() && LengthGeneric(from, to)) {
    return SameGenericShape(from, to) ? cost : kNoConversion;
  }
  // A matrix converts to a matrix of its shape; a scalar splats to a matrix.
  if (from->IsMatrix() || to->IsMatrix()) {
    if (from->IsScalar()) return cost + 5;
    bool same_shape = from->IsMatrix() && to->IsMatrix() && from->Rows() == to->Rows() &&
                      from->Cols() == to->Cols();
    return same_shape ? cost : kNoConversion;
  }
  if (from->IsScalar() && to->IsScalar()) return cost;
  if (from->IsScalar() && to->IsVector()) return cost + 5;
  if (from->IsVector() && to->IsVector() && from->Count() == to->Count()) return cost;
  if (from->IsVector() && from->Count() > to->Count()) return cost + 100;
  return kNoConversion;
}

namespace {
/// An integer literal whose value the integer type `to` holds exactly (`uint u =
/// 3000000000;` converts an int64_t literal without loss).
bool LiteralFits(const ast::Expr* expr, const Type* to) {
  // `-3` to int16_t: a negated literal fits a signed type down to its minimum.
  if (expr->kind == ast::ExprKind::Unary && to->IsScalar() && to->Kind() == TypeKind::Int) {
    const auto* neg = static_cast<const ast::UnaryExpr*>(expr);
    if (neg->op != ast::OpKind::Neg || neg->operand->kind != ast::ExprKind::IntLiteral)
      return false;
    uint64_t v = static_cast<const ast::IntLiteralExpr*>(neg->operand)->value;
    return to->Width() >= 64 ? v <= (uint64_t{1} << 63) : v <= (uint64_t{1} << (to->Width() - 1));
  }
  if (expr->kind != ast::ExprKind::IntLiteral || !to->IsScalar()) return false;
  uint64_t v = static_cast<const ast::IntLiteralExpr*>(expr)->value;
  bool is_unsigned = to->Kind() == TypeKind::UInt;
  if (!is_unsigned && to->Kind() != TypeKind::Int) return false;
  int bits = static_cast<int>(to->Width());
  uint64_t max = bits >= 64 ? (is_unsigned ? UINT64_MAX : INT64_MAX)
                            : (is_unsigned ? (1ull << bits) - 1 : (1ull << (bits - 1)) - 1);
  return v <= max;
}
}  // namespace

int Checker::InitListCost(const ast::InitListExpr* list, const Type* to) const {
  int cost = ConversionCost(types_.InitList(), to);
  if (cost >= kNoConversion) return kNoConversion;
  // Each element gives at least one component or field: a list longer than the type
  // cannot initialize it (`f(float2)` does not take `{1, 2, 3}`).
  size_t n = list->elements.size();
  if (to->IsVector() && n > to->Count()) return kNoConversion;
  if (to->IsMatrix() && n > to->Rows() * to->Cols()) return kNoConversion;
  if (to->IsArray() && to->Count() != 0 && n > to->Count()) return kNoConversion;
  // Of `f(float2)` and `f(float3)`, `{x, y}` picks the one it fills without zeros.
  size_t want = to->IsMatrix() ? to->Rows() : to->IsVector() || to->IsArray() ? to->Count() : n;
  return cost + static_cast<int>(want > n ? want - n : 0);
}

ast::Expr* Checker::Coerce(ast::Expr* expr, const Type* to) {
  const Type* from = expr->type;
  if (expr->kind == ast::ExprKind::InitList && from == types_.InitList()) {
    if (to->IsDependent() && !to->IsError()) {
      // A parameter of a generic type the other arguments did not fix: no type to take.
      diags_.Report(diag::DiagId::InitListNeedsType, expr->range);
      expr->type = types_.Error();
      return expr;
    }
    return CheckInitList(static_cast<ast::InitListExpr*>(expr), to);
  }
  if (from == to || from->IsError() || to->IsError()) return expr;
  if (ConversionCost(from, to) == kNoConversion) {
    if (from->IsVoid()) {
      diags_.Report(diag::DiagId::VoidValue, expr->range);
    } else {
      diags_.Report(diag::DiagId::CannotConvert, expr->range, from->Name(), to->Name());
    }
    auto* bad = ctx_.New<ast::ImplicitCastExpr>(expr->range, expr);
    bad->type = types_.Error();
    return bad;
  }
  if (to->IsInterface()) CheckExistentialPayload(expr, to);
  if (expr->kind == ast::ExprKind::IntLiteral &&
      static_cast<ast::IntLiteralExpr*>(expr)->is_nullptr) {
    expr->type = to;  // `nullptr` takes the pointer type it converts to
    return expr;
  }
  if (IsCoreGeneric(core_yielding_, from, "Conditional")) return ConditionalGet(expr);
  if (IsCoreGeneric(core_yielding_, to, "Conditional")) {
    // Conditional<T, b>{value}: lowering drops the value when b is false.
    auto* list = ctx_.New<ast::InitListExpr>(expr->range);
    list->elements.push_back(Coerce(expr, types_.FieldType(to, 0)));
    list->type = to;
    return list;
  }
  if (IsCoreGeneric(core_yielding_, to, "Optional")) {
    // Optional<T>{true, value} or, for `none`, Optional<T>{false} (the value zeroed).
    bool none = IsCoreStruct(core_yielding_, from, "__NoneType");
    auto* flag = ctx_.New<ast::BoolLiteralExpr>(expr->range, !none);
    flag->type = types_.Bool();
    auto* list = ctx_.New<ast::InitListExpr>(expr->range);
    list->elements.push_back(flag);
    if (!none) list->elements.push_back(Coerce(expr, types_.FieldType(to, 1)));
    list->type = to;
    return list;
  }
  if (from->IsStruct() && to->IsStruct() && from->Info()->has_base) {
    return Coerce(BasePart(expr), to);  // a derived value's base part
  }
  if (from->IsVector() && to->IsVector() && from->Count() > to->Count()) {
    // As in Slang, a vector never drops components implicitly.
    static constexpr const char* kLanes = "xyzw";
    diags_.Report(diag::DiagId::VectorTruncation, expr->range, from->Name(), to->Name())
        .Note(diag::DiagId::SwizzleSuggestion, expr->range,
              "." + std::string(kLanes, to->Count()), std::to_string(to->Count()));
    auto* bad = ctx_.New<ast::ImplicitCastExpr>(expr->range, expr);
    bad->type = types_.Error();
    return bad;
  }
  if (IsLossy(from, to) && !LiteralFits(expr, to)) {
    diags_.Report(diag::DiagId::ImplicitTruncation, expr->range, from->Name(), to->Name());
  }
  auto* cast = ctx_.New<ast::ImplicitCastExpr>(expr->range, expr);
  cast->type = to;
  return cast;
}

ast::Expr* Checker::ExplicitConvert(ast::Expr* expr, const Type* to) {
  const Type* from = expr->type;
  if (from == to || from->IsError() || to->IsError()) return expr;
  // Casts between an enum and a number go through the enum's underlying type.
  bool via_enum = (from->IsEnum() && to->IsNumericLike() &&
                   ConversionCost(from->Element(), to) != kNoConversion) ||
                  (to->IsEnum() && from->IsScalar() &&
                   ConversionCost(from, to->Element()) != kNoConversion);
  if (!via_enum && ConversionCost(from, to) == kNoConversion) {
    diags_.Report(diag::DiagId::CannotConvert, expr->range, from->Name(), to->Name());
    auto* bad = ctx_.New<ast::ImplicitCastExpr>(expr->range, expr);
    bad->type = types_.Error();
    return bad;
  }
  auto* cast = ctx_.New<ast::ImplicitCastExpr>(expr->range, expr);
  cast->type = to;
  return cast;
}

ast::Expr* Checker::CoerceToBool(ast::Expr* expr) {
  if (expr->type->IsVector() || expr->type->IsMatrix()) {
    diags_.Report(diag::DiagId::CannotConvert, expr->range, expr->type->Name(), "bool");
    return expr;
  }
  return Coerce(expr, types_.Bool());
}

bool Checker::LengthGeneric(const Type* a, const Type* b) {
  if (!a->IsNumericLike() || !b->IsNumericLike()) return false;
  if (a->ScalarType()->IsDependent() || b->ScalarType()->IsDependent()) return false;
  return a->IsDependent() || b->IsDependent();
}

bool Checker::SameGenericShape(const Type* a, const Type* b) {
  if (a->Kind() != b->Kind()) return false;
  if (a->IsMatrix()) return a->RowsParam() == b->RowsParam() && a->ColsParam() == b->ColsParam();
  return a->IsVector() && a->LengthParam() == b->LengthParam();
}

const Type* Checker::CommonType(const Type* a, const Type* b) {
  if (a->IsError() || b->IsError()) return types_.Error();
  // Two values of one `enum class` compare as that enum; a plain enum meets anything as
  // its underlying type.
  if (a == b && a->IsEnum() && a->Enumeration()->is_class) return a;
  if (a->IsEnum() && !a->Enumeration()->is_class) a = a->Element();
  if (b->IsEnum() && !b->Enumeration()->is_class) b = b->Element();
  if (!a->IsNumericLike() || !b->IsNumericLike()) return nullptr;
  const Type* sa = a->ScalarType();
  const Type* sb = b->ScalarType();
  const Type* scalar = ScalarRank(sa) >= ScalarRank(sb) ? sa : sb;
  if (LengthGeneric(a, b)) {
    // `vector<float, N>` (`matrix<float, R, C>`) meets a scalar or a value of the same
    // generic shape.
    const Type* shape = a->IsDependent() ? a : b;
    const Type* other = shape == a ? b : a;
    if (!other->IsScalar() && !SameGenericShape(shape, other)) return nullptr;
    return types_.WithScalar(shape, scalar);
  }
  if (a->IsMatrix() || b->IsMatrix()) {
    // A matrix meets a scalar or a matrix of its shape; vectors do not mix with matrices.
    const Type* shape = a->IsMatrix() ? a : b;
    const Type* other = a->IsMatrix() ? b : a;
    if (!other->IsScalar() &&
        !(other->IsMatrix() && other->Rows() == shape->Rows() && other->Cols() == shape->Cols())) {
      return nullptr;
    }
    return types_.Matrix(scalar, shape->Rows(), shape->Cols());
  }
  uint32_t count = 1;
  if (a->IsVector() && b->IsVector()) {
    count = std::min(a->Count(), b->Count());
  } else if (a->IsVector()) {
    count = a->Count();
  } else if (b->IsVector()) {
    count = b->Count();
  }
  return types_.Vector(scalar, count);
}

ast::Expr* Checker::ConditionalGet(ast::Expr* expr) {
  // `c.get()`: the Optional<T> of the Conditional's value.
  auto* callee = ctx_.New<ast::NameExpr>(expr->range, "get");
  auto* call = ctx_.New<ast::CallExpr>(expr->range, callee, std::vector<ast::Expr*>{});
  call->type = types_.Error();
  if (!ResolveCall(call, FindMethods(expr->type, "get"), "get", {})) return call;
  call->receiver = expr;
  return call;
}

}  // namespace slope::sema
