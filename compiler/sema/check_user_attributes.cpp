// User-defined attributes: a struct marked `[__AttributeUsage(_AttributeTargets.Var)]`
// declares an attribute named as the struct without its `Attribute` suffix, whose
// arguments are the struct's fields in order (`int`, `uint`, `float`, `bool` or
// `string`). The struct is no value type. Each use is checked against the targets the
// struct allows (Function, Param, Struct, Var: variables and fields) and its arguments
// against the fields, then recorded (CheckedModule::user_attributes) for reflection.

#include <string_view>

#include "compiler/sema/checker.h"

namespace slope::sema {

using diag::DiagId;

namespace {

constexpr uint32_t kAttrFunction = 1;
constexpr uint32_t kAttrParam = 2;
constexpr uint32_t kAttrStruct = 4;
constexpr uint32_t kAttrVar = 8;

constexpr std::pair<std::string_view, uint32_t> kTargetNames[] = {
    {"Function", kAttrFunction}, {"Param", kAttrParam}, {"Struct", kAttrStruct}, {"Var", kAttrVar}};

/// The target bits `e` names (`_AttributeTargets.Var`, `A | B`), or 0.
uint32_t TargetBits(const ast::Expr* e) {
  if (e->kind == ast::ExprKind::Binary) {
    auto* b = static_cast<const ast::BinaryExpr*>(e);
    if (b->op != ast::OpKind::BitOr) return 0;
    uint32_t l = TargetBits(b->lhs);
    uint32_t r = TargetBits(b->rhs);
    return l != 0 && r != 0 ? l | r : 0;
  }
  if (e->kind != ast::ExprKind::Member) return 0;
  auto* m = static_cast<const ast::MemberExpr*>(e);
  if (m->base->kind != ast::ExprKind::Name ||
      static_cast<const ast::NameExpr*>(m->base)->name != "_AttributeTargets") {
    return 0;
  }
  for (const auto& [name, bit] : kTargetNames) {
    if (m->member == name) return bit;
  }
  return 0;
}

/// "Var", "Function or Param": the targets in `bits`, for messages.
std::string TargetList(uint32_t bits) {
  std::string out;
  for (const auto& [name, bit] : kTargetNames) {
    if ((bits & bit) == 0) continue;
    if (!out.empty()) out += " or ";
    out += name;
  }
  return out;
}

/// The field type names an attribute may take, by the names a program writes.
std::string FieldKind(const ast::TypeExpr* te) {
  if (te == nullptr || !te->array_dims.empty() || !te->type_args.empty() ||
      !te->value_args.empty() || te->pointer_depth != 0) {
    return "";
  }
  const std::string& n = te->name;
  if (n == "int" || n == "int32_t") return "int";
  if (n == "uint" || n == "uint32_t") return "uint";
  if (n == "float") return "float";
  if (n == "bool") return "bool";
  if (n == "string" || n == "String") return "string";
  return "";
}

/// The target kind a CheckAttributes position stands for (kAttr* bit), or 0.
uint32_t PositionBit(std::string_view position) {
  if (position == "a function" || position == "a method") return kAttrFunction;
  if (position == "a parameter") return kAttrParam;
  if (position == "a struct") return kAttrStruct;
  if (position == "a field" || position == "this declaration") return kAttrVar;
  return 0;
}

}  // namespace

bool Checker::DeclareUserAttribute(ast::Decl* decl) {
  const ast::Attribute* usage = decl->FindAttribute("__AttributeUsage");
  if (usage == nullptr || decl->kind != ast::DeclKind::Struct) return false;
  auto* agg = static_cast<ast::AggregateDecl*>(decl);
  UserAttributeDef def;
  def.decl = agg;
  def.targets = usage->args.size() == 1 ? TargetBits(usage->args[0]) : 0;
  if (def.targets == 0) {
    diags_.Report(DiagId::InvalidAttributeArgs, usage->range, usage->name,
                  "one '_AttributeTargets' value (Function, Param, Struct or Var), or several "
                  "joined by '|'");
  }
  if (!agg->generic_params.empty() || !agg->bases.empty()) {
    diags_.Report(DiagId::UserAttributeStruct, agg->name_range, agg->name,
                  "cannot be generic or inherit");
  }
  for (const ast::Decl* member : agg->members) {
    auto* field =
        member->kind == ast::DeclKind::Var ? static_cast<const ast::VarDecl*>(member) : nullptr;
    if (field == nullptr || field->is_static || field->init != nullptr) {
      diags_.Report(DiagId::UserAttributeStruct, member->name_range, agg->name,
                    "holds its arguments only: fields without initializers");
      continue;
    }
    std::string kind = FieldKind(field->type_expr);
    if (kind.empty()) {
      diags_.Report(DiagId::UserAttributeStruct, field->name_range, agg->name,
                    "has field '" + field->name +
                        "' of a type an attribute argument cannot have (int, uint, float, bool "
                        "or string)");
      continue;
    }
    def.fields.emplace_back(field->name, kind);
  }
  std::string name = agg->name;
  constexpr std::string_view kSuffix = "Attribute";
  if (name.size() > kSuffix.size() && name.ends_with(kSuffix)) {
    name.resize(name.size() - kSuffix.size());
  }
  auto [it, inserted] = user_attributes_.emplace(name, def);
  if (!inserted) {
    diags_.Report(DiagId::Redefinition, agg->name_range, name)
        .Note(DiagId::PreviousDefinition, it->second.decl->name_range, name);
  }
  return true;
}

void Checker::CheckUserAttribute(const ast::Attribute& a, std::string_view position,
                                 const std::string& target) {
  const UserAttributeDef& def = user_attributes_.at(a.name);
  uint32_t bit = PositionBit(position);
  if ((def.targets & bit) == 0) {
    if (def.targets != 0) {
      diags_.Report(DiagId::UserAttributeTarget, a.range, a.name, position, def.decl->name,
                    TargetList(def.targets));
    }
    return;
  }
  if (a.args.size() != def.fields.size()) {
    std::string fields;
    for (const auto& [name, kind] : def.fields) {
      fields += (fields.empty() ? "" : ", ") + kind + " " + name;
    }
    diags_.Report(DiagId::UserAttributeArgCount, a.range, a.name, std::to_string(def.fields.size()),
                  fields, std::to_string(a.args.size()));
    return;
  }
  UserAttributeUse use;
  use.name = a.name;
  use.target = target;
  use.target_kind = bit == kAttrFunction    ? "function"
                    : bit == kAttrParam     ? "param"
                    : bit == kAttrStruct    ? "struct"
                    : position == "a field" ? "field"
                                            : "var";
  bool ok = true;
  for (size_t i = 0; i < a.args.size(); ++i) {
    const auto& [field, kind] = def.fields[i];
    ast::Expr* arg = a.args[i];
    const ast::Expr* value = nullptr;
    // A leading '-' on a number literal.
    bool negative = false;
    const ast::Expr* lit = arg;
    if (lit->kind == ast::ExprKind::Unary &&
        static_cast<const ast::UnaryExpr*>(lit)->op == ast::OpKind::Neg) {
      negative = true;
      lit = static_cast<const ast::UnaryExpr*>(lit)->operand;
    }
    if (kind == "string" && arg->kind == ast::ExprKind::StringLiteral) {
      value = arg;
    } else if (kind == "bool" && arg->kind == ast::ExprKind::BoolLiteral) {
      value = arg;
    } else if (kind == "float" && (lit->kind == ast::ExprKind::FloatLiteral ||
                                   lit->kind == ast::ExprKind::IntLiteral)) {
      double v = lit->kind == ast::ExprKind::FloatLiteral
                     ? static_cast<const ast::FloatLiteralExpr*>(lit)->value
                     : static_cast<double>(static_cast<const ast::IntLiteralExpr*>(lit)->value);
      value = ctx_.New<ast::FloatLiteralExpr>(arg->range, negative ? -v : v);
    } else if ((kind == "int" || kind == "uint") && arg->kind != ast::ExprKind::StringLiteral) {
      // An integer constant expression (`kMax * 2`), folded to its value.
      CheckConstantsUsedBy(arg);
      ast::Expr* checked = CheckExpr(arg);
      int64_t v = 0;
      if (!checked->type->IsError() && checked->type->IsScalar() && !checked->type->IsEnum() &&
          checked->type != types_.Bool() && EvaluateIntConstant(checked, &v) &&
          (kind == "int" ? v >= INT32_MIN && v <= INT32_MAX : v >= 0 && v <= UINT32_MAX)) {
        value = ctx_.New<ast::IntLiteralExpr>(arg->range, static_cast<uint64_t>(v), kind == "uint");
      }
    }
    if (value == nullptr) {
      std::string what = kind == "string"  ? "string literal"
                         : kind == "bool"  ? "bool literal ('true' or 'false')"
                         : kind == "float" ? "number"
                                           : kind + " value";
      diags_.Report(DiagId::UserAttributeArgType, arg->range, std::to_string(i + 1), a.name, what,
                    field);
      ok = false;
      continue;
    }
    use.args.push_back(value);
  }
  if (ok && checked_out_ != nullptr) checked_out_->user_attributes.push_back(std::move(use));
}

}  // namespace slope::sema
