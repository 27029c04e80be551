// Bit fields (`struct Packed { uint a : 4; uint b : 12; int c : 16; }`), as HLSL 2021
// and Slang pack them: consecutive bit fields of one integer type share a hidden field
// of that type, from its lowest bit up; one that does not fit in what is left, or of
// another type, starts a new hidden field. Each bit field becomes a property whose
// getter shifts and masks (sign-extending a signed one) and whose setter writes its
// bits alone, so reads, writes, compound assignments, `out` arguments and buffer
// elements all go through the property machinery.

#include <algorithm>
#include <string>

#include "compiler/parse/parser_impl.h"

namespace slope::parse {

namespace {

/// The bits of the built-in integer type `t` names, with its signedness; 0 for any other.
uint32_t IntegerBits(const ast::TypeExpr& t, bool* is_signed) {
  if (!t.array_dims.empty() || t.pointer_depth != 0 || !t.type_args.empty()) return 0;
  struct Kind {
    const char* name;
    uint32_t bits;
    bool is_signed;
  };
  static constexpr Kind kKinds[] = {
      {"int", 32, true},       {"uint", 32, false},    {"dword", 32, false},
      {"int8_t", 8, true},     {"uint8_t", 8, false},  {"int16_t", 16, true},
      {"uint16_t", 16, false}, {"int32_t", 32, true},  {"uint32_t", 32, false},
      {"int64_t", 64, true},   {"uint64_t", 64, false}};
  for (const Kind& k : kKinds) {
    if (t.name == k.name) {
      *is_signed = k.is_signed;
      return k.bits;
    }
  }
  return 0;
}

}  // namespace

void Parser::DesugarBitFields(ast::AggregateDecl* decl) {
  bool any = false;
  for (const ast::Decl* m : decl->members) {
    any = any ||
          (m->kind == ast::DeclKind::Var && static_cast<const ast::VarDecl*>(m)->bit_width >= 0);
  }
  if (!any) return;
  std::vector<ast::Decl*> members;
  std::string backing;
  const ast::TypeExpr* backing_type = nullptr;
  uint32_t used = 0;
  uint32_t capacity = 0;
  int count = 0;
  for (ast::Decl* m : decl->members) {
    auto* f = m->kind == ast::DeclKind::Var ? static_cast<ast::VarDecl*>(m) : nullptr;
    if (f == nullptr || f->bit_width < 0) {
      members.push_back(m);
      backing.clear();
      continue;
    }
    bool is_signed = false;
    uint32_t bits_of_type = f->type_expr != nullptr ? IntegerBits(*f->type_expr, &is_signed) : 0;
    auto width = static_cast<uint32_t>(f->bit_width);
    std::string problem;
    if (decl->kind != ast::DeclKind::Struct) {
      problem = "must be a field of a struct";
    } else if (bits_of_type == 0) {
      problem = "must have a built-in integer type (int, uint, int16_t, uint64_t, ...)";
    } else if (width == 0) {
      problem = "must be at least one bit wide";
    } else if (width > bits_of_type) {
      problem = "is " + std::to_string(width) + " bits wide, more than its type '" +
                f->type_expr->name + "' holds (" + std::to_string(bits_of_type) + ")";
    } else if (f->is_static || f->is_const || f->init != nullptr) {
      problem = "cannot be 'static' or 'const' or have an initializer";
    }
    if (!problem.empty()) {
      diags_.Report(diag::DiagId::BitFieldInvalid, f->semantic_range, f->name, problem);
      continue;
    }
    if (backing.empty() || backing_type->name != f->type_expr->name || used + width > capacity) {
      backing = "$bits" + std::to_string(count++);
      auto* hidden = ctx_.New<ast::VarDecl>(ast::VarRole::Field, backing, f->name_range);
      hidden->type_expr = f->type_expr;
      members.push_back(hidden);
      backing_type = f->type_expr;
      used = 0;
      capacity = bits_of_type;
    }
    members.push_back(BitFieldProperty(f, backing, used, width, is_signed));
    used += width;
  }
  decl->members = std::move(members);
  decl->has_bit_fields = decl->kind == ast::DeclKind::Struct;
}

ast::PropertyDecl* Parser::BitFieldProperty(ast::VarDecl* field, const std::string& backing,
                                            uint32_t offset, uint32_t bits, bool is_signed) {
  source::SourceRange r = field->name_range;
  // The arithmetic is done in 32 bits (64 for 64-bit fields), unsigned but for the
  // sign extension of a signed field.
  uint32_t wide = field->type_expr->name.find("64") != std::string::npos ? 64 : 32;
  uint64_t all = wide == 64 ? ~uint64_t{0} : 0xFFFFFFFFull;
  uint64_t mask = bits == 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
  auto lit = [&](uint64_t v) {
    auto* e = ctx_.New<ast::IntLiteralExpr>(r, v, true);
    e->width = wide;
    return e;
  };
  auto type_named = [&](const char* name32, const char* name64) {
    auto* t = ctx_.New<ast::TypeExpr>();
    t->name = wide == 64 ? name64 : name32;
    t->range = r;
    return t;
  };
  auto as = [&](ast::TypeExpr* t, ast::Expr* e) { return ctx_.New<ast::CastExpr>(r, t, e); };
  auto bin = [&](ast::OpKind op, ast::Expr* a, ast::Expr* b) {
    return ctx_.New<ast::BinaryExpr>(r, op, a, b, r);
  };
  auto hidden = [&]() { return ctx_.New<ast::NameExpr>(r, backing); };

  ast::Expr* value = nullptr;
  if (is_signed) {
    // To the top, then arithmetically back down: the sign bit spreads.
    value = bin(ast::OpKind::Shr,
                bin(ast::OpKind::Shl, as(type_named("int", "int64_t"), hidden()),
                    lit(wide - offset - bits)),
                lit(wide - bits));
  } else {
    value = bin(ast::OpKind::BitAnd,
                bin(ast::OpKind::Shr, as(type_named("uint", "uint64_t"), hidden()), lit(offset)),
                lit(mask));
  }
  auto* get = ctx_.New<ast::FuncDecl>("get", r);
  get->func_kind = ast::FuncKind::Getter;
  get->body = ctx_.New<ast::BlockStmt>(r);
  get->body->stmts.push_back(ctx_.New<ast::ReturnStmt>(r, as(field->type_expr, value)));

  // hidden = (hidden & ~(mask << offset)) | ((newValue & mask) << offset)
  ast::Expr* kept = bin(ast::OpKind::BitAnd, as(type_named("uint", "uint64_t"), hidden()),
                        lit(~(mask << offset) & all));
  ast::Expr* placed = bin(
      ast::OpKind::Shl,
      bin(ast::OpKind::BitAnd,
          as(type_named("uint", "uint64_t"), ctx_.New<ast::NameExpr>(r, "newValue")), lit(mask)),
      lit(offset));
  auto* store =
      ctx_.New<ast::AssignExpr>(r, ast::OpKind::Assign, hidden(),
                                as(field->type_expr, bin(ast::OpKind::BitOr, kept, placed)));
  auto* set = ctx_.New<ast::FuncDecl>("set", r);
  set->func_kind = ast::FuncKind::Setter;
  set->body = ctx_.New<ast::BlockStmt>(r);
  set->body->stmts.push_back(ctx_.New<ast::ExprStmt>(r, store));

  auto* prop = ctx_.New<ast::PropertyDecl>(field->name, field->name_range);
  prop->type = field->type_expr;
  prop->attributes = field->attributes;
  prop->modifiers = field->modifiers;
  prop->accessors = {get, set};
  return prop;
}

}  // namespace slope::parse
