// Matrices: `floatRxC` and `matrix<T, R, C>` types (R rows of C columns; m[i] is row i,
// a C-vector), their constructors, row indexing and `_m01` / `_12` element access.
// Component-wise operators and conversions go through the numeric rules of
// conversions.cpp; mul, transpose and determinant are core library intrinsics.

#include <algorithm>

#include "compiler/sema/checker.h"

namespace slope::sema {

using diag::DiagId;

const Type* Checker::ResolveMatrixType(ast::TypeExpr* te) {
  const Type* element = ResolveType(te->type_args[0]);
  if (element->IsError()) return element;
  // R and C are literals, constants or expressions (value arguments) or value parameters
  // (which parse as types); in a mix (`matrix<float, N, N + 1>`) their places in the
  // source give the order.
  std::vector<const Type*> sizes;
  if (te->type_args.size() + te->value_args.size() == 3) {
    std::vector<std::pair<uint32_t, const Type*>> placed;
    for (size_t i = 1; i < te->type_args.size(); ++i) {
      const Type* t = ResolveType(te->type_args[i]);
      bool value_param = t->IsGenericParam() && t->Generic()->value_type != nullptr;
      placed.emplace_back(te->type_args[i]->range.begin.offset,
                          t->IsError() || value_param ? t : nullptr);
    }
    for (ast::Expr* e : te->value_args) {
      placed.emplace_back(e->range.begin.offset, GenericValueArg(e));
    }
    std::stable_sort(placed.begin(), placed.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    for (const auto& [at, size] : placed) sizes.push_back(size);
  } else {
    sizes = {nullptr, nullptr};
  }
  for (const Type* s : sizes) {
    if (s != nullptr && s->IsError()) return s;
  }
  bool element_ok = element->IsScalar() ||
                    (element->IsGenericParam() && element->Generic()->value_type == nullptr);
  bool sizes_ok = true;
  for (const Type* s : sizes) {
    sizes_ok = sizes_ok && s != nullptr &&
               (s->Kind() != TypeKind::IntValue || (s->Value() >= 1 && s->Value() <= 4));
  }
  if (!element_ok || !sizes_ok) {
    diags_.Report(DiagId::InvalidAttributeArgs, te->range, "matrix",
                  "a scalar type and row and column counts from 2 to 4");
    return types_.Error();
  }
  bool known = sizes[0]->Kind() == TypeKind::IntValue && sizes[1]->Kind() == TypeKind::IntValue;
  if (known && (sizes[0]->Value() < 2 || sizes[1]->Value() < 2)) {
    diags_.Report(DiagId::InvalidMatrixShape, te->range,
                  "matrix<" + element->Name() + ", " + sizes[0]->Name() + ", " +
                      sizes[1]->Name() + ">");
    return types_.Error();
  }
  if (known && element->IsScalar()) {
    return types_.Matrix(element, static_cast<uint32_t>(sizes[0]->Value()),
                         static_cast<uint32_t>(sizes[1]->Value()));
  }
  return types_.DependentMatrix(element, sizes[0], sizes[1]);
}

ast::Expr* Checker::CheckMatrixConstructor(ast::CallExpr* call, const Type* type) {
  call->constructed = type;
  if (call->args.size() == 1 && type->IsDependent() && call->args[0]->type == type->Element()) {
    // `matrix<T, N, N>(t)` with t a T: a splat once T, N are known.
    auto* cast = ctx_.New<ast::ImplicitCastExpr>(call->args[0]->range, call->args[0]);
    cast->type = type;
    call->args[0] = cast;
    call->type = type;
    return call;
  }
  if (call->args.size() == 1 &&
      (call->args[0]->type->IsScalar() || call->args[0]->type->IsMatrix())) {
    // A splat (float3x3(0)) or a conversion between element types (float2x2(int2x2)).
    ast::Expr* arg = call->args[0];
    // A smaller matrix from a larger one takes its upper-left block, as in HLSL
    // (float3x3(m4x4)); a larger one cannot be made from a smaller.
    if (arg->type->IsMatrix() &&
        (arg->type->Rows() < type->Rows() || arg->type->Cols() < type->Cols())) {
      diags_.Report(DiagId::InvalidConstructor, arg->range, type->Name(),
                    "a smaller matrix ('" + arg->type->Name() + "')");
      return call;
    }
    if (arg->type->IsMatrix() &&
        (arg->type->Rows() != type->Rows() || arg->type->Cols() != type->Cols())) {
      auto* block = ctx_.New<ast::ImplicitCastExpr>(arg->range, arg);
      block->type = type;
      call->args[0] = block;
      call->type = type;
      return call;
    }
    call->args[0] = ExplicitConvert(arg, type);
    call->type = type;
    return call;
  }
  // Otherwise the components of every argument in order fill the rows: R * C scalars, R
  // row vectors, or any mix (a vector may span two rows).
  uint32_t total = 0;
  for (ast::Expr*& arg : call->args) {
    if (!arg->type->IsNumericLike()) {
      diags_.Report(DiagId::InvalidConstructor, arg->range, type->Name(),
                    "a value of type '" + arg->type->Name() + "'");
      return call;
    }
    total += arg->type->Components();
  }
  if (call->args.empty() || total != type->Components()) {
    diags_.Report(DiagId::InvalidConstructor, call->range, type->Name(),
                  std::to_string(total) + " component(s); it needs " +
                      std::to_string(type->Components()));
    return call;
  }
  for (ast::Expr*& arg : call->args) {
    arg = ExplicitConvert(arg, types_.WithScalar(arg->type, type->ScalarType()));
  }
  call->type = type;
  return call;
}

ast::Expr* Checker::CheckMatrixElements(ast::MemberExpr* expr) {
  // `_m01` (zero-based) or `_12` (one-based) names row 0 column 1; several in a row
  // (`_m00_m11`) make a vector. Each lane is kept as row * 4 + column.
  const Type* base = expr->base->type;
  const std::string& name = expr->member;
  expr->swizzle.clear();
  bool ok = !name.empty();
  size_t i = 0;
  while (ok && i < name.size()) {
    bool zero_based = name.compare(i, 2, "_m") == 0;
    size_t digits = i + (zero_based ? 2 : 1);
    if (name[i] != '_' || digits + 2 > name.size()) {
      ok = false;
      break;
    }
    int row = name[digits] - (zero_based ? '0' : '1');
    int col = name[digits + 1] - (zero_based ? '0' : '1');
    ok = row >= 0 && col >= 0 && static_cast<uint32_t>(row) < base->Rows() &&
         static_cast<uint32_t>(col) < base->Cols();
    expr->swizzle.push_back(static_cast<uint32_t>(row * 4 + col));
    i = digits + 2;
  }
  if (!ok || expr->swizzle.size() > 4) {
    diags_.Report(DiagId::InvalidSwizzle, expr->member_range, expr->member, base->Name());
    expr->type = types_.Error();
    return expr;
  }
  expr->type = types_.Vector(base->ScalarType(), static_cast<uint32_t>(expr->swizzle.size()));
  return expr;
}

ast::Expr* Checker::CheckMatrixIndex(ast::IndexExpr* expr) {
  const Type* base = expr->base->type;
  expr->type = types_.RowOf(base);
  int64_t index = 0;
  if (!expr->index->type->IsError() && !base->IsDependent() &&
      EvaluateIntConstant(expr->index, &index) &&
      (index < 0 || index >= static_cast<int64_t>(base->Rows()))) {
    diags_.Report(DiagId::MatrixIndexOutOfRange, expr->index->range, index, base->Rows());
  }
  return expr;
}

}  // namespace slope::sema
