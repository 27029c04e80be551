// Typing of calls: functions (with overload resolution; the core library declares the
// intrinsics) and type constructors such as float3(x, y, z).

#include <algorithm>

#include "compiler/sema/checker.h"

namespace slope::sema {

using diag::DiagId;

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

ast::Expr* Checker::CheckGenericConversion(ast::CallExpr* call, const Type* type,
                                           const std::string& shown) {
  // `T(x)` where an interface of T requires `__init(...)`: that initializer of the type
  // T stands for (found once specialized).
  if (type != nullptr && type->Kind() == TypeKind::GenericParam) {
    std::vector<Candidate> inits;
    std::vector<const Type*> work = types_.DirectConformances(type);
    for (size_t i = 0; i < work.size() && i < 256; ++i) {
      const Type* iface = work[i];
      if (!iface->IsInterface()) continue;
      for (ast::FuncDecl* req : iface->Iface()->methods) {
        if (req->func_kind == ast::FuncKind::Init) {
          inits.push_back({req, types_.RequirementSubst(iface, type), iface});
        }
      }
      for (const Type* base : iface->Iface()->bases) work.push_back(base);
    }
    if (!inits.empty()) {
      call->constructed = type;
      ResolveCall(call, inits, shown, {});
      return call;
    }
  }
  if (type != nullptr && type->IsDependent() && call->args.empty()) {
    // `T()`: the default value of the type T stands for (zero, or a struct's defaults).
    auto* init = ctx_.New<ast::InitListExpr>(call->range);
    init->type = type;
    return init;
  }
  // `T(x)`, `T.Value(x)` with an arithmetic interface: a numeric conversion; with ILogical,
  // a conversion from an integer.
  std::string caps = type != nullptr ? types_.CapabilitiesOf(type) : "";
  bool from_int = call->args.size() == 1 && call->args[0]->type->IsScalar() &&
                  (call->args[0]->type->Kind() == TypeKind::Int ||
                   call->args[0]->type->Kind() == TypeKind::UInt);
  bool arithmetic = caps.find('a') != std::string::npos;
  if (type != nullptr && (arithmetic || caps.find('l') != std::string::npos) &&
      call->args.size() == 1 &&
      (call->args[0]->type == type || (arithmetic && call->args[0]->type->IsScalar()) ||
       from_int)) {
    auto* cast = ctx_.New<ast::ImplicitCastExpr>(call->range, call->args[0]);
    cast->type = type;
    return cast;
  }
  diags_.Report(DiagId::InvalidConstructor, call->range, shown,
                "these arguments; a generic type converts one scalar when it conforms to "
                "IArithmetic, or an integer when it conforms to ILogical");
  return call;
}

ast::Expr* Checker::CheckCall(ast::CallExpr* call) {
  uint32_t errors = diags_.ErrorCount();
  ast::Expr* checked = CheckCallArgsAndCallee(call);
  CheckTryCall(call, checked);
  // An initializer-list argument takes its type from the parameter overload resolution
  // chose; one that no parameter typed (a built-in, a constructor) cannot stand alone.
  for (ast::Expr* arg : call->args) {
    if (arg->type != types_.InitList()) continue;
    if (diags_.ErrorCount() == errors) {
      diags_.Report(DiagId::InitListNeedsType, arg->range);
    }
    arg->type = types_.Error();
    checked->type = types_.Error();
  }
  return checked;
}

ast::Expr* Checker::CheckCallArgsAndCallee(ast::CallExpr* call) {
  // The built-in `printf` (unless the program declares its own): its format is a string.
  if (call->callee->kind == ast::ExprKind::Name &&
      static_cast<ast::NameExpr*>(call->callee)->name == "printf" && Lookup("printf") == nullptr) {
    return CheckPrintf(call);
  }
  if (call->callee->kind == ast::ExprKind::Name &&
      static_cast<ast::NameExpr*>(call->callee)->name == "static_assert" &&
      Lookup("static_assert") == nullptr) {
    return CheckStaticAssert(call);
  }
  if (call->callee->kind == ast::ExprKind::Name &&
      static_cast<ast::NameExpr*>(call->callee)->name == "countof" && Lookup("countof") == nullptr) {
    return CheckCountof(call);
  }
  if (call->callee->kind == ast::ExprKind::Name &&
      static_cast<ast::NameExpr*>(call->callee)->name == "getStringHash" &&
      Lookup("getStringHash") == nullptr && call->args.size() == 1 &&
      call->args[0]->kind == ast::ExprKind::StringLiteral) {
    // `getStringHash("text")`: Slang's stable 32-bit hash of the literal's bytes, an int
    // constant (h = c + (h << 6) + (h << 16) - h over the bytes, from 0).
    uint32_t hash = 0;
    for (char c : static_cast<const ast::StringLiteralExpr*>(call->args[0])->value) {
      hash = static_cast<uint32_t>(static_cast<int32_t>(static_cast<signed char>(c))) +
             (hash << 6) + (hash << 16) - hash;
    }
    auto* lit = ctx_.New<ast::IntLiteralExpr>(call->range, hash, false);
    lit->type = types_.Int();
    return lit;
  }
  if (call->callee->kind == ast::ExprKind::Name) {
    // `sizeof(x)` / `alignof(x)` of a value or a type named by one word; the parser
    // makes the question itself for a type it can tell from an expression (`float[4]`).
    const std::string& callee = static_cast<ast::NameExpr*>(call->callee)->name;
    if ((callee == "sizeof" || callee == "alignof") && Lookup(callee) == nullptr) {
      auto form = callee == "sizeof" ? ast::PackExpr::kSizeOf : ast::PackExpr::kAlignOf;
      if (call->args.size() != 1) {
        diags_.Report(DiagId::WrongArgumentCount, call->range, callee, 1, call->args.size());
        call->type = types_.Error();
        return call;
      }
      return CheckSizeOf(ctx_.New<ast::PackExpr>(call->range, form, call->args[0]));
    }
  }
  for (size_t i = 0; i < call->args.size(); ++i) {
    ast::Expr*& arg = call->args[i];
    arg = FunctionAsLambda(call, i, arg);
    if (arg->kind == ast::ExprKind::Lambda) {
      // `apply((x) => x * 2, 3)`: untyped parameters take the types the callee's
      // `IFunc<R, P...>` constraint names.
      auto* lambda = static_cast<ast::LambdaExpr*>(arg);
      bool untyped = false;
      for (const ast::VarDecl* p : lambda->params) untyped = untyped || p->name.empty();
      if (untyped) lambda_param_hint_ = LambdaParamHint(call, i, lambda->params.size());
    }
    if (arg->kind == ast::ExprKind::InitList) {
      // `f({1, 2})`: the list is checked against the parameter's type once overload
      // resolution has chosen it (Coerce).
      arg->type = types_.InitList();
      continue;
    }
    // `f(expand each v)`: a pack of values for a variadic parameter.
    arg = arg->kind == ast::ExprKind::Pack ? CheckPackExpr(static_cast<ast::PackExpr*>(arg), true)
                                           : CheckExpr(arg);
    lambda_param_hint_.clear();
  }
  call->type = types_.Error();
  if (call->callee->kind == ast::ExprKind::Diff) return CheckDiffCall(call);
  for (ast::Expr* arg : call->args) {
    if (arg->type->IsError()) return call;
  }
  if (call->callee->kind == ast::ExprKind::Member) {
    if (ast::Expr* scoped = CheckScopedCall(call, nullptr)) return scoped;
    return CheckMethodCall(call, static_cast<ast::MemberExpr*>(call->callee));
  }
  if (call->callee->kind != ast::ExprKind::Name) return CheckFunctorCall(call);
  auto* name = static_cast<ast::NameExpr*>(call->callee);
  ast::Decl* decl = Lookup(name->name);
  if (ReportAmbiguousLookup(name->name, name->range)) return call;
  // `f(x)` where f is a value (a lambda, a functor, a generic F : IFunc<...>).
  if (decl != nullptr && decl->kind == ast::DeclKind::Var && name->generic_args.empty()) {
    return CheckFunctorCall(call);
  }
  const Type* method_owner = CurrentOwner();
  if (decl == nullptr && method_owner != nullptr && method_owner->IsStruct() &&
      method_owner->Info()->FieldIndex(name->name) >= 0 &&
      !InheritsMethod(method_owner, name->name)) {
    return CheckFunctorCall(call);  // a field (a captured lambda) called inside a method
  }
  if (const Type* owner = CurrentOwner()) {
    bool shadowed = decl != nullptr && decl->kind == ast::DeclKind::Var &&
                    static_cast<ast::VarDecl*>(decl)->role != ast::VarRole::Global;
    if (!shadowed && InheritsMethod(owner, name->name) &&
        (functions_.count(name->name) == 0 || MethodTakes(owner, name->name, call->args.size()))) {
      // A method hides a global function of its name only for calls it can take:
      // `scale(x)` calls the method, `scale(x, k)` the global `scale(float, float)`.
      return CheckImplicitMethodCall(call, name);
    }
  }
  if (ast::Expr* scoped = CheckScopedCall(call, decl)) return scoped;
  if (decl != nullptr && decl->kind == ast::DeclKind::Struct) {
    ast::TypeExpr te;
    te.name = name->name;
    te.range = name->range;
    te.type_args = name->generic_args;
    te.value_args = name->generic_values;
    bool applied = !name->generic_args.empty() || !name->generic_values.empty();
    const Type* type = applied ? ApplyGeneric(&te, decl) : ResolveUserTypeName(&te);
    if (type == nullptr || type->IsError() || !CheckAccess(decl, name->range)) return call;
    name->decl = decl;
    return CheckStructConstructor(call, type);
  }
  if (decl != nullptr && decl->kind == ast::DeclKind::Func) {
    name->decl = decl;
    std::vector<const Type*> explicit_args;
    if (!ResolveExplicitArgs(name->generic_args, &name->generic_values, &explicit_args)) {
      return call;
    }
    std::vector<Candidate> candidates;
    for (ast::FuncDecl* f : OverloadsOf(static_cast<ast::FuncDecl*>(decl))) {
      // A constant's initializer may call a function checked later (`sqrt(2.0)`).
      if (f->result_type == nullptr) CheckFunctionSignature(f);
      candidates.push_back({f, {}});
    }
    if (ResolveCall(call, candidates, name->name, explicit_args) && call->func != nullptr) {
      CheckAccess(call->func, name->range);
      if (call->func->intrinsic_inst >= 0) CheckSyncCall(call);
      if (call->func->intrinsic_inst < 0 && call->func->name.rfind("QuadRead", 0) == 0 &&
          !call->args.empty()) {
        // The core library's quad reads are WaveReadLaneAt: 32- and 64-bit values.
        const Type* t = call->args[0]->type;
        const Type* s = t->IsNumericLike() ? t->ScalarType() : t;
        if (!t->IsDependent() && !t->IsError() &&
            (t->IsMatrix() || (s->Width() != 32 && s->Width() != 64))) {
          diags_.Report(DiagId::SyncOpType, call->args[0]->range, call->func->name, t->Name(),
                        "32- or 64-bit scalars and vectors");
        }
      }
      if (call->func->intrinsic_op >= 0 &&
          (call->func->name == "bit_cast" || call->func->name == "reinterpret")) {
        CheckBitCast(call);
      }
      if (call->func->intrinsic_op >= 0 && call->func->name == "createDynamicObject") {
        CheckDynamicObject(call);
      }
    }
    return call;
  }
  if (decl != nullptr && decl->kind == ast::DeclKind::GenericParam && name->generic_args.empty()) {
    // `T(x)` with T : IFloat (or another arithmetic interface): a numeric conversion.
    ast::TypeExpr te;
    te.name = name->name;
    te.range = name->range;
    return CheckGenericConversion(call, ResolveUserTypeName(&te), name->name);
  }
  if (decl == nullptr && name->name == "This" && this_type_ != nullptr &&
      this_type_->Kind() == TypeKind::GenericParam && name->generic_args.empty()) {
    // `This(x)` in an interface or its extension: the conforming type built from x.
    return CheckGenericConversion(call, this_type_, "This");
  }
  if (decl == nullptr && name->name == "This" && this_type_ != nullptr && this_type_->IsStruct() &&
      name->generic_args.empty()) {
    // `This(x, y)` in a struct or its extension: the struct's constructor.
    return CheckStructConstructor(call, this_type_);
  }
  if (decl == nullptr && (name->name == "vector" || name->name == "matrix")) {
    // `vector<float, 3>(1, 2, 3)`, `matrix<T, 2, 2>(...)`: the constructor of the type named.
    ast::TypeExpr te;
    te.name = name->name;
    te.range = name->range;
    te.type_args = name->generic_args;
    te.value_args = name->generic_values;
    const Type* type = ResolveType(&te);
    if (type->IsError()) return call;
    return CheckConstructor(call, type);
  }
  if (decl == nullptr && name->name == "Tuple" && !name->generic_args.empty()) {
    // `Tuple<int, float>(5, 2.0f)`: the member-wise construction of the tuple struct.
    ast::TypeExpr te;
    te.name = name->name;
    te.range = name->range;
    te.type_args = name->generic_args;
    const Type* type = ResolveType(&te);
    if (type->IsError() || !type->IsStruct()) return call;
    return CheckStructConstructor(call, type);
  }
  if (!name->generic_args.empty()) {
    diags_.Report(DiagId::UnsupportedConstruct, name->range,
                  "explicit generic arguments on '" + name->name + "'", "are");
    return call;
  }
  if (decl != nullptr) {
    diags_.Report(DiagId::NotCallable, name->range, name->name)
        .Note(DiagId::DeclaredHere, decl->name_range, decl->name);
    return call;
  }
  if (const Type* type = LookupBuiltinTypeName(types_, name->name)) {
    if (!type->IsVoid()) return CheckConstructor(call, type);
  }
  if (name->name == "detach") return CheckDetach(call);
  diags_.Report(DiagId::UndeclaredIdentifier, name->range, name->name);
  return call;
}

ast::Expr* Checker::CheckStaticAssert(ast::CallExpr* call) {
  // `static_assert(cond)` / `static_assert(cond, "message")`: checked here, and a `true`
  // that does nothing where it stood.
  auto* done = ctx_.New<ast::BoolLiteralExpr>(call->range, true);
  done->type = types_.Bool();
  if (call->args.empty() || call->args.size() > 2 ||
      (call->args.size() == 2 && call->args[1]->kind != ast::ExprKind::StringLiteral)) {
    diags_.Report(DiagId::StaticAssertArgs, call->range);
    return done;
  }
  call->args[0] = CheckExpr(call->args[0]);
  const ast::Expr* cond = call->args[0];
  if (cond->type->IsError()) return done;
  int64_t value = 0;
  if (!cond->type->IsScalar() || !EvaluateIntConstant(cond, &value)) {
    diags_.Report(DiagId::StaticAssertNotConstant, cond->range);
    return done;
  }
  if (value == 0) {
    std::string message = call->args.size() == 2
                              ? static_cast<const ast::StringLiteralExpr*>(call->args[1])->value
                              : "static assertion failed";
    diags_.Report(DiagId::StaticAssertFailed, call->range, message);
  }
  return done;
}

ast::Expr* Checker::CheckFunctorCall(ast::CallExpr* call) {
  // `f(args)` on a value calls its `operator()`: `f.operator()(args)`.
  ast::Expr* written = call->callee;
  ast::Expr* receiver = CheckExpr(written);
  if (receiver->type->IsError()) return call;
  const Type* type = receiver->type;
  bool callable_kind = type->IsStruct() || type->Kind() == TypeKind::GenericParam;
  if (!callable_kind || FindMethods(type, kCallOperator).empty()) {
    auto* name =
        written->kind == ast::ExprKind::Name ? static_cast<ast::NameExpr*>(written) : nullptr;
    auto report = diags_.Report(DiagId::NotCallableValue, written->range, type->Name());
    if (name != nullptr && name->decl != nullptr) {
      report.Note(DiagId::DeclaredHere, name->decl->name_range, name->decl->name);
    }
    return call;
  }
  auto* member = ctx_.New<ast::MemberExpr>(written->range, receiver, kCallOperator, written->range);
  call->callee = member;
  return CheckMethodCallOn(call, type, receiver, kCallOperator, written->range, {}, nullptr);
}

bool Checker::MethodTakes(const Type* owner, const std::string& name, size_t args) {
  for (const Candidate& c : FindMethods(owner, name)) {
    size_t required = 0;
    for (const ast::VarDecl* p : c.func->params) required += p->init == nullptr ? 1 : 0;
    if (args >= required && args <= c.func->params.size()) return true;
  }
  return false;
}

namespace {
/// Whether generic parameter `t` is constrained to one of the built-in scalar kinds
/// (`__BuiltinFloatingPointType`, `__BuiltinIntegerType`, ...): it is a number.
bool IsBuiltinScalarParam(const Type* t) {
  if (!t->IsGenericParam()) return false;
  std::vector<const InterfaceInfo*> pending;
  for (const Type* c : t->Generic()->constraints) {
    if (c->IsInterface()) pending.push_back(c->Iface());
  }
  while (!pending.empty()) {
    const InterfaceInfo* iface = pending.back();
    pending.pop_back();
    if (iface->name.rfind("__Builtin", 0) == 0) return true;
    for (const Type* base : iface->bases) {
      if (base->IsInterface()) pending.push_back(base->Iface());
    }
  }
  return false;
}
}  // namespace

ast::Expr* Checker::CheckConstructor(ast::CallExpr* call, const Type* type) {
  if (type->IsMatrix()) return CheckMatrixConstructor(call, type);
  call->constructed = type;
  if (call->args.size() == 1 && IsBuiltinScalarParam(call->args[0]->type)) {
    // `float(x)` for `T : __BuiltinFloatingPointType`: a conversion (a splat for a
    // vector) once T is known.
    auto* cast = ctx_.New<ast::ImplicitCastExpr>(call->args[0]->range, call->args[0]);
    cast->type = type;
    call->args[0] = cast;
    call->type = type;
    return call;
  }
  uint32_t total = 0;
  for (ast::Expr*& arg : call->args) {
    // `int(e)`: an enum converts explicitly to its underlying type.
    if (arg->type->IsEnum()) arg = ExplicitConvert(arg, arg->type->Element());
    if (!arg->type->IsNumericLike()) {
      diags_.Report(DiagId::InvalidConstructor, arg->range, type->Name(),
                    "a value of type '" + arg->type->Name() + "'");
      return call;
    }
    total += arg->type->Components();
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

std::vector<const Type*> Checker::LambdaParamHint(ast::CallExpr* call, size_t index, size_t arity) {
  if (call->callee->kind != ast::ExprKind::Name) return {};
  ast::Decl* decl = Lookup(static_cast<ast::NameExpr*>(call->callee)->name);
  if (decl == nullptr || decl->kind != ast::DeclKind::Func) return {};
  // Every overload that could take the call must agree on the types.
  std::vector<const Type*> hint;
  for (ast::FuncDecl* f : OverloadsOf(static_cast<ast::FuncDecl*>(decl))) {
    if (f->params.size() < call->args.size() || index >= f->params.size()) continue;
    const Type* t = f->params[index]->type;
    if (t == nullptr) continue;
    std::vector<const Type*> found;
    std::vector<const Type*> constraints =
        t->IsGenericParam() ? types_.DirectConformances(t) : std::vector<const Type*>{t};
    for (const Type* c : constraints) {
      if (!c->IsInterface()) continue;
      const ast::AggregateDecl* iface = c->Iface()->decl;
      const std::string& name = iface != nullptr ? iface->name : c->Iface()->name;
      if (name.rfind("__IFunc", 0) != 0 && name.rfind("__IMutatingFunc", 0) != 0) continue;
      if (c->Args().size() != arity + 1) continue;
      std::vector<const Type*> params(c->Args().begin() + 1, c->Args().end());
      bool concrete = true;
      for (const Type* p : params) concrete = concrete && !p->IsDependent();
      if (concrete) found = params;
    }
    if (found.empty()) continue;
    if (!hint.empty() && hint != found) return {};
    hint = found;
  }
  return hint;
}

ast::Expr* Checker::FunctionAsLambda(ast::CallExpr* call, size_t index, ast::Expr* arg) {
  if (arg->kind != ast::ExprKind::Name) return arg;
  auto* name = static_cast<ast::NameExpr*>(arg);
  if (!name->generic_args.empty() || !name->generic_values.empty()) return arg;
  ast::Decl* decl = Lookup(name->name);
  if (decl == nullptr || decl->kind != ast::DeclKind::Func) return arg;
  const std::vector<ast::FuncDecl*>& overloads = OverloadsOf(static_cast<ast::FuncDecl*>(decl));
  if (overloads.size() != 1 || !overloads[0]->generic_params.empty()) return arg;
  const ast::FuncDecl* func = overloads[0];
  for (const ast::VarDecl* p : func->params) {
    if (p->direction != ast::ParamDirection::In) return arg;
  }
  if (LambdaParamHint(call, index, func->params.size()).empty()) return arg;
  // Untyped parameters (the parser's form of `(p0) => ...`): they take the types of the
  // callee's IFunc, and the call below converts them to the function's parameters.
  auto* lambda = ctx_.New<ast::LambdaExpr>(name->range);
  std::vector<ast::Expr*> forwarded;
  for (size_t k = 0; k < func->params.size(); ++k) {
    std::string param_name = "p$" + std::to_string(k);
    auto* param = ctx_.New<ast::VarDecl>(ast::VarRole::Param, "", name->range);
    param->type_expr = ctx_.New<ast::TypeExpr>();
    param->type_expr->name = param_name;
    param->type_expr->range = name->range;
    lambda->params.push_back(param);
    forwarded.push_back(ctx_.New<ast::NameExpr>(name->range, param_name));
  }
  auto* callee = ctx_.New<ast::NameExpr>(name->range, name->name);
  auto* body_call = ctx_.New<ast::CallExpr>(name->range, callee, std::move(forwarded));
  lambda->body = ctx_.New<ast::BlockStmt>(name->range);
  lambda->body->stmts.push_back(ctx_.New<ast::ReturnStmt>(name->range, body_call));
  lambda->expression_body = true;
  lambda->height = 2;
  return lambda;
}

}  // namespace slope::sema
