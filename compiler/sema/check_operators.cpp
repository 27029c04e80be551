// User-defined operators: `Foo operator+(Foo a, Foo b)` as global functions and as
// static or instance members of structs. A built-in operator applies to built-in types
// only; when an operand is of a struct, enum or generic type, the user operators that
// fit take part in overload resolution (ResolveCall) before the built-in ones.

#include <algorithm>

#include "compiler/sema/checker.h"

namespace slope::sema {

using diag::DiagId;

namespace {

bool IsUserTyped(const Type* t) { return t->IsStruct() || t->IsEnum() || t->IsDependent(); }

/// Which operand counts the operator spelled `op` ("+", "==", "+=") takes: bit 0 one
/// operand, bit 1 two; 0 when it cannot be overloaded.
int OperandCounts(const std::string& op) {
  static constexpr const char* kBinary[] = {
      "*",  "/",  "%",  "&",  "|",  "^",  "<<", ">>", "==",  "!=",  "<", "<=",
      ">",  ">=", "+=", "-=", "*=", "/=", "%=", "&=", "|=",  "^=",  "<<=", ">>="};
  if (op == "+" || op == "-") return 3;
  if (op == "!" || op == "~") return 1;
  for (const char* b : kBinary) {
    if (op == b) return 2;
  }
  return 0;
}

/// Whether `cand` accepts `args` (generic arguments inferred, constraints met, every
/// argument convertible); reports nothing.
bool Fits(Checker& c, const Checker::Candidate& cand, const std::vector<ast::Expr*>& args) {
  const ast::FuncDecl* f = cand.func;
  if (f->params.size() != args.size() || f->result_type == nullptr) return false;
  std::vector<const Type*> own(f->generic_context.begin() + static_cast<long>(f->own_generic_begin),
                               f->generic_context.end());
  Subst bindings = cand.context;
  for (size_t i = 0; i < args.size(); ++i) {
    if (f->params[i]->type == nullptr) return false;
    const Type* pattern = c.Types().Substitute(f->params[i]->type, bindings);
    if (!pattern->IsDependent()) continue;
    Subst inferred;
    if (c.Types().Unify(pattern, args[i]->type, own, &inferred)) {
      for (auto& [p, t] : inferred) bindings[p] = t;
    }
  }
  for (const Type* p : own) {
    if (bindings.count(p) == 0) return false;
  }
  if (!c.CheckConstraints(own, bindings, f->name, args[0]->range, false)) return false;
  for (size_t i = 0; i < args.size(); ++i) {
    const Type* pt = c.Types().Substitute(f->params[i]->type, bindings);
    if (c.ConversionCost(args[i]->type, pt) >= kNoConversion) return false;
  }
  return true;
}

}  // namespace

void Checker::CheckOperatorDecls(const std::vector<ast::Decl*>& decls) {
  auto check = [&](ast::FuncDecl* f) {
    std::string op = f->name.substr(std::string("operator").size());
    int counts = OperandCounts(op);
    if (counts == 0) {
      diags_.Report(DiagId::OperatorNotOverloadable, f->name_range, f->name);
      return;
    }
    bool instance = f->this_param != nullptr;
    size_t operands = f->params.size() + (instance ? 1 : 0);
    if (operands < 1 || operands > 2 || (counts & (1 << (operands - 1))) == 0) {
      diags_.Report(DiagId::OperatorArity, f->name_range, f->name, f->params.size());
      return;
    }
    if (instance) return;  // `this` is of the struct's type
    bool user = false;
    for (const ast::VarDecl* p : f->params) {
      if (p->type == nullptr || p->type->IsError()) return;
      user = user || IsUserTyped(p->type);
    }
    if (!user) diags_.Report(DiagId::OperatorNeedsUserType, f->name_range, f->name);
  };
  for (ast::Decl* decl : decls) {
    if (decl->kind != ast::DeclKind::Func) continue;
    auto* f = static_cast<ast::FuncDecl*>(decl);
    if (f->func_kind == ast::FuncKind::Operator) check(f);
  }
  for (const Type* type : struct_list_) {
    for (ast::FuncDecl* f : type->Info()->methods) {
      if (f->func_kind == ast::FuncKind::Operator) check(f);
    }
  }
  for (const ExtensionInfo* ext : extension_list_) {
    for (ast::FuncDecl* f : ext->methods) {
      if (f->func_kind == ast::FuncKind::Operator) check(f);
    }
  }
}

const Checker::NamespaceInfo* Checker::TypeNamespace(const Type* t) const {
  const ast::Decl* decl = nullptr;
  if (t->IsStruct()) {
    decl = t->Info()->decl;
  } else if (t->IsEnum()) {
    for (const auto& [d, type] : enum_types_) {
      if (type == t) decl = d;
    }
  }
  auto it = decl != nullptr ? decl_ns_.find(decl) : decl_ns_.end();
  return it != decl_ns_.end() ? it->second : nullptr;
}

ast::Expr* Checker::CheckUserOperator(const std::string& name,
                                      const std::vector<ast::Expr*>& args,
                                      source::SourceRange range, source::SourceRange op_range,
                                      bool report) {
  bool user = false;
  bool has_struct = false;
  for (const ast::Expr* a : args) {
    user = user || IsUserTyped(a->type);
    has_struct = has_struct || a->type->IsStruct();
  }
  if (!user) return nullptr;
  // Global operators, static member operators of the operands' types (each with the type
  // it was found in), and instance member operators of the first operand's type.
  std::vector<Candidate> free;
  std::vector<const Type*> owners;
  std::vector<Candidate> instance;
  EnsureSignatures(name);
  auto global = functions_.find(name);
  if (global != functions_.end()) {
    for (ast::FuncDecl* f : global->second) {
      free.push_back({f, {}});
      owners.push_back(nullptr);
    }
  }
  // Operators declared in namespaces: the one being checked and its parents, those
  // `using` makes visible, and the namespace of each operand's type (as C++ finds them).
  std::vector<const NamespaceInfo*> spaces;
  for (const NamespaceInfo* ns = current_ns_; ns != nullptr; ns = ns->parent) {
    spaces.push_back(ns);
    spaces.insert(spaces.end(), ns->used.begin(), ns->used.end());
  }
  spaces.insert(spaces.end(), global_used_.begin(), global_used_.end());
  for (const ast::Expr* a : args) {
    if (const NamespaceInfo* ns = TypeNamespace(a->type)) spaces.push_back(ns);
  }
  for (size_t i = 0; i < spaces.size(); ++i) {
    if (std::find(spaces.begin(), spaces.begin() + static_cast<long>(i), spaces[i]) !=
        spaces.begin() + static_cast<long>(i)) {
      continue;
    }
    auto found = spaces[i]->functions.find(name);
    if (found == spaces[i]->functions.end()) continue;
    for (ast::FuncDecl* f : found->second) {
      free.push_back({f, {}});
      owners.push_back(nullptr);
    }
  }
  std::vector<const Type*> seen;
  for (size_t i = 0; i < args.size(); ++i) {
    const Type* t = args[i]->type;
    if (!IsUserTyped(t) || std::find(seen.begin(), seen.end(), t) != seen.end()) continue;
    seen.push_back(t);
    for (Candidate& c : FindMethods(t, name)) {
      if (c.func->this_param == nullptr) {
        free.push_back(c);
        owners.push_back(t);
      } else if (i == 0) {
        instance.push_back(c);
      }
    }
  }
  std::vector<ast::Expr*> rest(args.begin() + 1, args.end());
  bool free_fits = false;
  for (const Candidate& c : free) free_fits = free_fits || Fits(*this, c, args);
  bool instance_fits = false;
  for (const Candidate& c : instance) instance_fits = instance_fits || Fits(*this, c, rest);
  if (!free_fits && !instance_fits) {
    // Without a struct operand the built-in operator may still apply; with one, the user
    // operators are all there is (none at all: the built-in path reports).
    if (!report || !has_struct || (free.empty() && instance.empty())) return nullptr;
  }
  auto* callee = ctx_.New<ast::NameExpr>(op_range, name);
  auto* call = ctx_.New<ast::CallExpr>(range, callee, args);
  call->type = types_.Error();
  if (free_fits || (!instance_fits && !free.empty())) {
    if (!ResolveCall(call, free, name, {})) return call;
    for (size_t i = 0; i < free.size(); ++i) {
      if (free[i].func == call->func && owners[i] != nullptr) call->static_owner = owners[i];
    }
    CheckAccess(call->func, op_range);
    return call;
  }
  // `a.operator+(b)`: the first operand is the receiver.
  call->args = rest;
  if (!ResolveCall(call, instance, args[0]->type->Name() + "." + name, {})) return call;
  CheckAccess(call->func, op_range);
  if (call->func->is_mutating && !IsAssignableQuietly(args[0])) {
    diags_.Report(DiagId::MutatingCallOnValue, range, args[0]->type->Name() + "." + name,
                  "this expression")
        .Note(DiagId::DeclaredHere, call->func->name_range, name);
    call->type = types_.Error();
    return call;
  }
  call->receiver = args[0];
  return call;
}

ast::Expr* Checker::CheckUserCompoundAssign(ast::AssignExpr* expr) {
  const Type* lhs = expr->lhs->type;
  const Type* rhs = expr->rhs->type;
  if (!IsUserTyped(lhs) && !IsUserTyped(rhs)) return nullptr;
  std::string op = std::string("operator") + ast::OpSpelling(expr->op);
  // `operator+=` when one is declared; it updates its first operand itself.
  if (ast::Expr* call = CheckUserOperator(op + "=", {expr->lhs, expr->rhs}, expr->range,
                                          expr->range, false)) {
    return call;
  }
  bool report = lhs->IsStruct() || rhs->IsStruct();
  ast::Expr* combined =
      CheckUserOperator(op, {expr->lhs, expr->rhs}, expr->range, expr->range, report);
  if (combined == nullptr) return nullptr;
  expr->type = lhs;
  if (combined->type->IsError() || !CheckAssignable(expr->lhs)) return expr;
  NoteWritten(expr->lhs);
  if (combined->type != lhs) {
    diags_.Report(DiagId::OperatorResultMismatch, expr->range, op, combined->type->Name(),
                  lhs->Name());
    return expr;
  }
  expr->op_call = static_cast<ast::CallExpr*>(combined);
  return expr;
}

bool Checker::CheckCompoundStep(ast::AssignExpr* expr, ast::Expr* current) {
  const Type* value = current->type;
  const Type* rhs = expr->rhs->type;
  std::string op = std::string("operator") + ast::OpSpelling(expr->op);
  if (IsUserTyped(value) || IsUserTyped(rhs)) {
    bool report = value->IsStruct() || rhs->IsStruct();
    if (ast::Expr* combined =
            CheckUserOperator(op, {current, expr->rhs}, expr->range, expr->range, report)) {
      if (combined->type->IsError()) return false;
      if (combined->type != value) {
        diags_.Report(DiagId::OperatorResultMismatch, expr->range, op, combined->type->Name(),
                      value->Name());
        return false;
      }
      expr->op_call = static_cast<ast::CallExpr*>(combined);
      return true;
    }
  }
  bool ok = false;
  const Type* op_type = ArithmeticResult(expr->op, value, rhs, &ok);
  if (!ok) {
    diags_.Report(DiagId::NoMatchingOperator, expr->range,
                  std::string(ast::OpSpelling(expr->op)) + "=", value->Name(), rhs->Name());
    return false;
  }
  if (op_type != value && op_type->Count() == value->Count() &&
      ConversionCost(op_type, value) >= kNarrowingCost) {
    diags_.Report(DiagId::ImplicitTruncation, expr->range, op_type->Name(), value->Name());
  }
  if (op_type->Count() != value->Count()) op_type = types_.WithScalar(value, op_type->ScalarType());
  expr->op_type = op_type;
  expr->rhs = Coerce(expr->rhs, op_type);
  return true;
}

}  // namespace slope::sema
