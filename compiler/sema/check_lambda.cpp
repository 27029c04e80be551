// Lambdas and functional values: `(int x) => x * k`, `(int2 s) => { ...; return ...; }`,
// `f(x)` on a value whose type declares `operator()`, and the core library's
// `IFunc<R, P...>`.
//
// A lambda becomes a struct synthesized where it is written (named `__lambda_LINE_COL`):
// each local or parameter of an enclosing function that its body names (and `this`, or a
// field of the enclosing method's object named alone) becomes a field,
// captured by value when the lambda is evaluated and immutable inside it (as in Slang);
// the body becomes the struct's `operator()`, whose return type is that of its first
// `return` (void without one). The struct conforms to `IFunc<R, P...>` (and to
// `IMutatingFunc<R, P...>`, which its non-mutating call satisfies), so generic
// functions over `F : IFunc<R, P...>` take it and are specialized for it like for any
// struct. The lambda expression itself is replaced by the member-wise construction of
// the struct from the captured values; lowering sees an ordinary struct and method.
//
// The core library has no variadic generics: `IFunc` (and `IMutatingFunc`) with 1 + N
// type arguments names the interface `__IFuncN` (`__IMutatingFuncN`), N = 0..6.

#include <string>

#include "compiler/sema/checker.h"

namespace slope::sema {

using diag::DiagId;

namespace {
constexpr const char* kClosureParam = "$closure";
}  // namespace

bool Checker::MapFuncInterface(ast::TypeExpr* te) {
  if (te->name != "IFunc" && te->name != "IMutatingFunc") return true;
  if (te->type_args.empty() || Lookup(te->name) != nullptr) return true;
  size_t arity = te->type_args.size() - 1;
  if (arity > kMaxFuncArity) {
    diags_.Report(DiagId::UnsupportedConstruct, te->range,
                  "'" + te->name + "' with more than " + std::to_string(kMaxFuncArity) +
                      " parameter types",
                  "is");
    return false;
  }
  te->name = "__" + te->name + std::to_string(arity);
  return true;
}

ast::Expr* Checker::CaptureName(ast::NameExpr* expr, ast::Decl* decl) {
  if (lambdas_.empty()) return nullptr;
  LambdaScope& lambda = lambdas_.back();
  bool global = decl != nullptr && scopes_.front().count(expr->name) != 0 &&
                scopes_.front().at(expr->name) == decl;
  // The method the outermost lambda is written in (its fields are captured by name).
  const ast::FuncDecl* method = lambdas_.front().enclosing;
  const Type* outer = method->owner;
  if ((decl == nullptr || global) && method->this_param != nullptr &&
      outer != nullptr && outer->IsStruct() && outer->Info()->FieldIndex(expr->name) >= 0) {
    // A field of the enclosing method's object, named alone: its value is captured.
    decl = outer->Info()->fields[static_cast<size_t>(outer->Info()->FieldIndex(expr->name))];
    return CaptureVariable(expr, static_cast<ast::VarDecl*>(decl));
  }
  if (decl == nullptr || decl->kind != ast::DeclKind::Var) return nullptr;
  // Found in the lambda's own scopes (its parameters and locals), or further out?
  size_t found = scopes_.size();
  for (size_t i = scopes_.size(); i-- > 0;) {
    if (scopes_[i].count(expr->name) != 0) {
      found = i;
      break;
    }
  }
  if (found >= lambda.scope_base) return nullptr;
  auto* var = static_cast<ast::VarDecl*>(decl);
  if (var->role != ast::VarRole::Local && var->role != ast::VarRole::Param) return nullptr;
  return CaptureVariable(expr, var);
}

ast::Expr* Checker::CaptureVariable(ast::NameExpr* expr, ast::VarDecl* var) {
  LambdaScope& lambda = lambdas_.back();
  if (var->type != nullptr && ContainsResource(var->type)) {
    diags_.Report(DiagId::LambdaCaptureResource, expr->range, var->name, var->type->Name())
        .Note(DiagId::DeclaredHere, var->name_range, var->name);
    expr->type = types_.Error();
    return expr;
  }
  if (IsDifferentiableFunction(lambda.method) && var->type != nullptr &&
      IsDifferentiableType(var->type)) {
    // A capture is a field of a struct that carries no derivative: its gradient would
    // be lost, so differentiable code passes such values as parameters instead.
    diags_.Report(DiagId::UnsupportedConstruct, expr->range,
                  "captures of differentiable values ('" + var->name + "' of type '" +
                      var->type->Name() + "') in lambdas inside differentiable functions",
                  "are");
    expr->type = types_.Error();
    return expr;
  }
  bool known = false;
  for (const ast::VarDecl* v : lambda.captured) known = known || v == var;
  if (!known) {
    auto* field = ctx_.New<ast::VarDecl>(ast::VarRole::Field, var->name, var->name_range);
    field->type = var->type != nullptr ? var->type : types_.Error();
    lambda.type->Info()->fields.push_back(field);
    lambda.captured.push_back(var);
  }
  auto* self = ctx_.New<ast::NameExpr>(expr->range, kClosureParam);
  auto* member = ctx_.New<ast::MemberExpr>(expr->range, self, var->name, expr->range);
  ast::Expr* checked = CheckExpr(member);
  capture_refs_[checked] = var;
  return checked;
}

bool Checker::ReportCaptureAssign(const ast::Expr* expr) {
  const ast::Expr* e = expr;
  while (true) {
    auto it = capture_refs_.find(e);
    if (it != capture_refs_.end()) {
      diags_.Report(DiagId::LambdaCaptureAssign, expr->range, it->second->name)
          .Note(DiagId::DeclaredHere, it->second->name_range, it->second->name);
      return true;
    }
    if (e->kind == ast::ExprKind::Member) {
      e = static_cast<const ast::MemberExpr*>(e)->base;
    } else if (e->kind == ast::ExprKind::Index) {
      e = static_cast<const ast::IndexExpr*>(e)->base;
    } else {
      return false;
    }
  }
}

ast::Expr* Checker::CheckLambda(ast::LambdaExpr* lambda) {
  lambda->type = types_.Error();
  ast::FuncDecl* enclosing = current_function_;
  const char* unsupported = nullptr;
  if (enclosing == nullptr) {
    unsupported = "lambda expressions outside function bodies";
  } else if (!enclosing->generic_context.empty()) {
    // The struct would depend on the function's generic parameters.
    unsupported = "lambda expressions inside generic functions";
  } else if (lambda->params.size() > kMaxFuncArity) {
    unsupported = "lambdas with more than 6 parameters";
  }
  if (unsupported != nullptr) {
    diags_.Report(DiagId::UnsupportedConstruct, lambda->range, unsupported, "are");
    return lambda;
  }
  source::LineCol at = diags_.Sources().GetLineCol(lambda->range.begin);
  std::string name = "__lambda_" + std::to_string(at.line) + "_" + std::to_string(at.column);
  if (++lambda_names_[name] > 1) name += "_" + std::to_string(lambda_names_[name]);

  auto* decl = ctx_.New<ast::AggregateDecl>(ast::DeclKind::Struct, name, lambda->range);
  auto* method = ctx_.New<ast::FuncDecl>(kCallOperator, lambda->arrow);
  method->params = lambda->params;
  method->body = lambda->body;
  method->parent = decl;
  decl->members.push_back(method);
  auto owned = std::make_unique<StructInfo>();
  owned->decl = decl;
  owned->name = name;
  owned->methods.push_back(method);
  owned->checked = true;
  const Type* type = types_.Struct(std::move(owned));
  contexts_[decl].this_type = type;
  contexts_[method];
  struct_types_[decl] = type;

  // The signature: typed parameters; the result type comes from the first `return`.
  bool signature_ok = true;
  std::vector<const Type*> hint = std::move(lambda_param_hint_);
  lambda_param_hint_.clear();
  for (size_t i = 0; i < method->params.size(); ++i) {
    ast::VarDecl* param = method->params[i];
    if (param->name.empty()) {
      // `(x) => ...`: the parser read the name as a type. Its type is the one the
      // callee's `IFunc<R, P...>` gives, else it cannot be known.
      param->name = param->type_expr->name;
      param->name_range = param->type_expr->range;
      if (i >= hint.size()) {
        diags_.Report(DiagId::UnsupportedConstruct, param->type_expr->range,
                      "lambda parameters without a type ('" + param->name +
                          "') except in an argument for a parameter 'F : IFunc<R, P...>'",
                      "are");
        param->type = types_.Error();
        signature_ok = false;
        continue;
      }
      param->type = hint[i];
      continue;
    }
    param->type = ResolveType(param->type_expr);
    if (param->type->IsVoid() || param->type->IsInterface()) {
      if (param->type->IsVoid()) {
        diags_.Report(DiagId::VoidValue, param->type_expr->range);
      } else {
        diags_.Report(DiagId::UnsupportedConstruct, param->type_expr->range,
                      "lambda parameters of interface type", "are");
      }
      param->type = types_.Error();
    }
    signature_ok = signature_ok && !param->type->IsError();
  }
  // In differentiable code the lambda is differentiated through its `operator()`, with
  // respect to its parameters (captures of differentiable values are refused below).
  if (IsDifferentiableFunction(enclosing)) {
    method->attributes.push_back({"Differentiable", {}, lambda->range});
  }
  method->owner = type;
  method->result_type = nullptr;
  // The lambda's own object has a name no source can write, so that `this` inside the
  // lambda is the enclosing method's object, captured like any variable.
  method->this_param = ctx_.New<ast::VarDecl>(ast::VarRole::Param, kClosureParam, lambda->arrow);
  method->this_param->type = type;
  method->this_param->is_let = true;

  // The body, checked as the method's; names of the enclosing function are captured.
  int saved_loop_depth = loop_depth_;
  std::vector<SwitchScope> saved_switches = std::move(switches_);
  std::map<const ast::VarDecl*, bool> saved_out = std::move(out_written_);
  loop_depth_ = 0;
  switches_.clear();
  lambdas_.push_back({scopes_.size(), type, method, enclosing, {}});
  CheckFunctionBody(method);
  std::vector<ast::VarDecl*> captured = std::move(lambdas_.back().captured);
  lambdas_.pop_back();
  current_function_ = enclosing;
  loop_depth_ = saved_loop_depth;
  switches_ = std::move(saved_switches);
  out_written_ = std::move(saved_out);
  if (method->result_type == nullptr) method->result_type = types_.Void();
  if (checked_out_ != nullptr) checked_out_->functions.push_back(method);

  // IFunc<R, P...> and IMutatingFunc<R, P...>: what generic code asks of a callable.
  // A void lambda is called directly only: generic arguments of type void (IFunc<void,
  // ...>) are not supported.
  if (signature_ok && !method->result_type->IsError() && !method->result_type->IsVoid()) {
    std::vector<const Type*> args{method->result_type};
    for (const ast::VarDecl* p : method->params) args.push_back(p->type);
    for (const char* family : {"__IFunc", "__IMutatingFunc"}) {
      ast::Decl* iface = Lookup(family + std::to_string(method->params.size()));
      auto it = iface != nullptr ? interfaces_.find(iface) : interfaces_.end();
      if (it == interfaces_.end()) continue;
      type->Info()->bases.push_back(types_.InterfaceOf(it->second, args));
    }
  }

  // The value: the struct built from the captured variables, as they are here.
  auto* callee = ctx_.New<ast::NameExpr>(lambda->range, name);
  auto* call = ctx_.New<ast::CallExpr>(lambda->range, callee, std::vector<ast::Expr*>{});
  for (const ast::VarDecl* var : captured) {
    ast::Expr* value = CheckExpr(ctx_.New<ast::NameExpr>(lambda->range, var->name));
    if (value->type->IsError()) return lambda;
    call->args.push_back(value);
  }
  return CheckStructConstructor(call, type);
}

}  // namespace slope::sema
