// Typing of calls: user functions (with overload resolution), built-in functions and
// type constructors such as float3(x, y, z).

#include <algorithm>

#include "compiler/sema/checker.h"

namespace slope::sema {

using diag::DiagId;

namespace {

struct BuiltinInfo {
  ast::Builtin id;
  std::string_view spelling;
  size_t arity;
};

constexpr BuiltinInfo kBuiltins[] = {
#define SLOPE_BUILTIN(name, spelling, arity) {ast::Builtin::name, spelling, arity},
#include "compiler/ast/builtins.def"
#undef SLOPE_BUILTIN
};

const BuiltinInfo* FindBuiltin(std::string_view name) {
  for (const BuiltinInfo& b : kBuiltins) {
    if (b.spelling == name) return &b;
  }
  return nullptr;
}

}  // namespace

std::string ArgTypeList(const std::vector<ast::Expr*>& args) {
  std::string s;
  for (size_t i = 0; i < args.size(); ++i) {
    if (i != 0) s += ", ";
    s += args[i]->type->Name();
  }
  return s;
}

std::string Signature(const ast::FuncDecl* f) {
  std::string s = (f->result_type != nullptr ? f->result_type->Name() : "?") + " " + f->name + "(";
  for (size_t i = 0; i < f->params.size(); ++i) {
    if (i != 0) s += ", ";
    s += f->params[i]->type != nullptr ? f->params[i]->type->Name() : "?";
  }
  return s + ")";
}

ast::Expr* Checker::CheckCall(ast::CallExpr* call) {
  for (ast::Expr*& arg : call->args) arg = CheckExpr(arg);
  call->type = types_.Error();
  for (ast::Expr* arg : call->args) {
    if (arg->type->IsError()) return call;
  }
  if (call->callee->kind == ast::ExprKind::Member) {
    return CheckMethodCall(call, static_cast<ast::MemberExpr*>(call->callee));
  }
  if (call->callee->kind != ast::ExprKind::Name) {
    diags_.Report(DiagId::UnsupportedConstruct, call->callee->range,
                  "calls of anything but a named function", "are");
    return call;
  }
  auto* name = static_cast<ast::NameExpr*>(call->callee);
  if (!name->generic_args.empty() || !name->generic_values.empty()) {
    diags_.Report(DiagId::UnsupportedConstruct, name->range, "explicit generic arguments", "are");
    return call;
  }
  ast::Decl* decl = Lookup(name->name);
  if (const Type* owner = CurrentStruct()) {
    bool is_method = false;
    for (ast::FuncDecl* m : owner->Info()->methods) is_method = is_method || m->name == name->name;
    bool shadowed = decl != nullptr && decl->kind == ast::DeclKind::Var &&
                    static_cast<ast::VarDecl*>(decl)->role != ast::VarRole::Global;
    if (is_method && !shadowed) return CheckImplicitMethodCall(call, name);
  }
  if (const Type* type = StructTypeOf(decl)) {
    name->decl = decl;
    return CheckStructConstructor(call, type);
  }
  if (decl != nullptr && decl->kind == ast::DeclKind::Func) {
    name->decl = decl;
    return CheckCallOfFunction(call, functions_[name->name], name->name);
  }
  if (decl != nullptr) {
    diags_.Report(DiagId::NotCallable, name->range, name->name)
        .Note(DiagId::DeclaredHere, decl->name_range, decl->name);
    return call;
  }
  if (const Type* type = LookupBuiltinTypeName(types_, name->name)) {
    if (!type->IsVoid()) return CheckConstructor(call, type);
  }
  if (const BuiltinInfo* builtin = FindBuiltin(name->name)) {
    if (call->args.size() != builtin->arity) {
      diags_.Report(DiagId::WrongArgumentCount, call->range, name->name, builtin->arity,
                    call->args.size());
      return call;
    }
    return CheckBuiltinCall(call, builtin->id);
  }
  diags_.Report(DiagId::UndeclaredIdentifier, name->range, name->name);
  return call;
}

ast::Expr* Checker::CheckCallOfFunction(ast::CallExpr* call,
                                        const std::vector<ast::FuncDecl*>& overloads,
                                        const std::string& name) {
  std::vector<ast::FuncDecl*> best;
  int best_cost = kNoConversion;
  for (ast::FuncDecl* f : overloads) {
    if (f->params.size() != call->args.size() || f->result_type == nullptr) continue;
    int cost = 0;
    for (size_t i = 0; i < f->params.size() && cost < kNoConversion; ++i) {
      int c = ConversionCost(call->args[i]->type, f->params[i]->type);
      cost = c >= kNoConversion ? kNoConversion : cost + c;
    }
    if (cost >= kNoConversion) continue;
    if (cost < best_cost) {
      best_cost = cost;
      best.clear();
    }
    if (cost == best_cost) best.push_back(f);
  }
  if (best.empty()) {
    if (overloads.size() == 1) {
      ast::FuncDecl* f = overloads[0];
      if (f->params.size() != call->args.size()) {
        diags_.Report(DiagId::WrongArgumentCount, call->range, f->name, f->params.size(),
                      call->args.size())
            .Note(DiagId::DeclaredHere, f->name_range, f->name);
        return call;
      }
      for (size_t i = 0; i < f->params.size(); ++i) call->args[i] = Coerce(call->args[i], f->params[i]->type);
      return call;
    }
    auto builder = diags_.Report(DiagId::NoMatchingOverload, call->range, name,
                                 ArgTypeList(call->args));
    for (ast::FuncDecl* f : overloads) builder.Note(DiagId::CandidateHere, f->name_range, Signature(f));
    return call;
  }
  if (best.size() > 1) {
    auto builder = diags_.Report(DiagId::AmbiguousCall, call->range, name);
    for (ast::FuncDecl* f : best) builder.Note(DiagId::CandidateHere, f->name_range, Signature(f));
    return call;
  }
  ast::FuncDecl* f = best[0];
  for (size_t i = 0; i < f->params.size(); ++i) call->args[i] = Coerce(call->args[i], f->params[i]->type);
  call->func = f;
  call->type = f->result_type;
  if (current_function_ != nullptr) calls_[current_function_].emplace_back(f, call->range);
  return call;
}

ast::Expr* Checker::CheckConstructor(ast::CallExpr* call, const Type* type) {
  call->constructed = type;
  uint32_t total = 0;
  for (ast::Expr* arg : call->args) {
    if (!arg->type->IsNumericLike()) {
      diags_.Report(DiagId::InvalidConstructor, arg->range, type->Name(),
                    "a value of type '" + arg->type->Name() + "'");
      return call;
    }
    total += arg->type->Count();
  }
  if (call->args.size() == 1) {
    // A conversion (float(i), float3(v)) or a splat (float3(0)).
    ast::Expr* arg = call->args[0];
    if (arg->type->IsScalar() || arg->type->Count() >= type->Count()) {
      call->args[0] = ExplicitConvert(arg, type);
      call->type = type;
      return call;
    }
  }
  if (call->args.empty() || total != type->Count()) {
    diags_.Report(DiagId::InvalidConstructor, call->range, type->Name(),
                  std::to_string(total) + " component(s); it needs " +
                      std::to_string(type->Count()));
    return call;
  }
  for (ast::Expr*& arg : call->args) {
    arg = ExplicitConvert(arg, types_.WithScalar(arg->type, type->ScalarType()));
  }
  call->type = type;
  return call;
}

ast::Expr* Checker::CheckBuiltinCall(ast::CallExpr* call, ast::Builtin builtin) {
  call->builtin = builtin;
  auto* name = static_cast<ast::NameExpr*>(call->callee);
  for (ast::Expr* arg : call->args) {
    if (!arg->type->IsNumericLike()) {
      diags_.Report(DiagId::NoMatchingOverload, call->range, name->name, ArgTypeList(call->args));
      return call;
    }
  }
  // The common type of all arguments decides the overload, as in HLSL.
  const Type* common = call->args[0]->type;
  for (size_t i = 1; i < call->args.size(); ++i) common = CommonType(common, call->args[i]->type);
  bool float_only = builtin != ast::Builtin::Abs && builtin != ast::Builtin::Min &&
                    builtin != ast::Builtin::Max && builtin != ast::Builtin::Clamp &&
                    builtin != ast::Builtin::Dot;
  TypeKind scalar = common->ScalarType()->Kind();
  if (float_only || scalar == TypeKind::Bool) {
    common = types_.WithScalar(common, float_only ? types_.Float() : types_.Int());
  }
  for (ast::Expr*& arg : call->args) arg = Coerce(arg, common);
  switch (builtin) {
    case ast::Builtin::Dot:
    case ast::Builtin::Length:
      call->type = common->ScalarType();
      break;
    default:
      call->type = common;
      break;
  }
  return call;
}

}  // namespace slope::sema
