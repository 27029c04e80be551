// Array sizes that generic value arguments give: `struct S<let N : int> { int a[N]; }`
// used as `S<2147483647>`, or `f<0>()` where f declares `int b[N]`. Sema checks generic
// bodies once, in terms of their parameters; the sizes are known only where concrete
// arguments are given. Those uses are recorded while checking and walked at the end,
// through the structs and generic calls they reach, each combination once.

#include <functional>

#include "compiler/sema/checker.h"

namespace slope::sema {

using diag::DiagId;

namespace {
/// The largest array ApplyArrayDims accepts (check_array.cpp): the same limit holds for
/// sizes that come from generic arguments.
constexpr int64_t kMaxArraySize = 1 << 20;
/// How many constants defined through constants GenericIntValue follows.
constexpr int kMaxGenericConstantChain = 256;
/// The most operations a generic value expression may hold, the constants it names
/// written out (`a1 = a0 + a0; a2 = a1 + a1; ...` doubles at each step).
constexpr int64_t kMaxGenericExprSize = 4096;

/// The IntOp of a binary operator, or false.
bool BinaryIntOp(ast::OpKind op, IntOp* out) {
  static constexpr std::pair<ast::OpKind, IntOp> kOps[] = {
      {ast::OpKind::Add, IntOp::Add},
      {ast::OpKind::Sub, IntOp::Sub},
      {ast::OpKind::Mul, IntOp::Mul},
      {ast::OpKind::Div, IntOp::Div},
      {ast::OpKind::Rem, IntOp::Rem},
      {ast::OpKind::BitAnd, IntOp::BitAnd},
      {ast::OpKind::BitOr, IntOp::BitOr},
      {ast::OpKind::BitXor, IntOp::BitXor},
      {ast::OpKind::Shl, IntOp::Shl},
      {ast::OpKind::Shr, IntOp::Shr},
      {ast::OpKind::LogicalAnd, IntOp::LogicalAnd},
      {ast::OpKind::LogicalOr, IntOp::LogicalOr},
      {ast::OpKind::Eq, IntOp::Eq},
      {ast::OpKind::Ne, IntOp::Ne},
      {ast::OpKind::Lt, IntOp::Lt},
      {ast::OpKind::Le, IntOp::Le},
      {ast::OpKind::Gt, IntOp::Gt},
      {ast::OpKind::Ge, IntOp::Ge},
  };
  for (const auto& [from, to] : kOps) {
    if (from == op) {
      *out = to;
      return true;
    }
  }
  return false;
}
}  // namespace

const Type* Checker::StaticConstValue(const ast::CallExpr* call, int depth) {
  // `Stack<N>.kCap` is read through its getter `kCap$get()` (parse/static_consts.cpp):
  // the constant's initializer, with the struct's parameters bound to the arguments.
  const std::string& name = call->func->name;
  const std::string_view suffix = ast::kStaticConstGetterSuffix;
  const Type* owner = call->static_owner;
  // `T.value` in the initializer of a specialization's constant being read: the constant
  // of T's argument.
  if (owner != nullptr && owner->IsDependent() && static_const_subst_ != nullptr) {
    owner = types_.Substitute(owner, *static_const_subst_);
  }
  if (owner == nullptr || !owner->IsStruct() || !call->args.empty() ||
      name.size() <= suffix.size() ||
      name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0 ||
      depth >= kMaxGenericConstantChain) {
    return nullptr;
  }
  std::string constant_name = name.substr(0, name.size() - suffix.size());
  for (const ast::VarDecl* constant : owner->Info()->constants) {
    if (constant->name != constant_name) continue;
    const Type* value = GenericConstValue(constant, depth);
    Subst bindings = types_.StructSubst(owner);
    if (value == nullptr && !owner->IsDependent() && !bindings.empty() &&
        constant->init != nullptr && constant->init->type != nullptr) {
      // `static const int value = T.value + 1;` read as `GetValuePlus1<MyObject2>.value`:
      // the initializer with the parameters bound, so `T.value` is MyObject2's.
      const Subst* outer = static_const_subst_;
      static_const_subst_ = &bindings;
      value = GenericIntValue(constant->init, depth + 1);
      static_const_subst_ = outer;
    }
    return value != nullptr ? types_.Substitute(value, bindings) : nullptr;
  }
  return nullptr;
}

const Type* Checker::GenericConstValue(const ast::VarDecl* var, int depth) {
  if (!var->is_const || var->init == nullptr || var->init->type == nullptr ||
      IsSpecConstantDecl(var) || depth >= kMaxGenericConstantChain) {
    return nullptr;
  }
  // Remembered per constant, so constants named many times are expanded once; null
  // while in progress (a cycle, reported elsewhere, has no value). A failure is not
  // remembered: a constant it names may be checked later. Failures stop at the first
  // operand that fails, so they cost no more than one expansion.
  // Under a specialization's bindings the value is that specialization's: not remembered.
  if (static_const_subst_ != nullptr) return GenericIntValue(var->init, depth + 1);
  auto [it, inserted] = generic_const_values_.emplace(var, nullptr);
  if (!inserted) return it->second;
  const Type* value = GenericIntValue(var->init, depth + 1);
  if (value == nullptr) {
    generic_const_values_.erase(var);
  } else {
    generic_const_values_[var] = value;
  }
  return value;
}

const Type* Checker::GenericIntValue(const ast::Expr* e, int depth) {
  if (e == nullptr || e->type == nullptr) return nullptr;
  const Type* t = e->type;
  if (t->Kind() != TypeKind::Int && t->Kind() != TypeKind::UInt && t != types_.Bool()) {
    return nullptr;
  }
  int64_t value = 0;
  if (EvaluateIntConstant(e, &value)) return types_.IntValue(value);
  auto operand = [&](const ast::Expr* o) { return GenericIntValue(o, depth); };
  auto make = [&](IntOp op, std::vector<const Type*> operands) -> const Type* {
    const Type* made = types_.IntExpr(op, t, operands);
    return made->IntExprSize() <= kMaxGenericExprSize ? made : nullptr;
  };
  switch (e->kind) {
    case ast::ExprKind::Name: {
      const ast::Decl* decl = static_cast<const ast::NameExpr*>(e)->decl;
      if (decl == nullptr) return nullptr;
      if (decl->kind == ast::DeclKind::GenericParam) {
        const Type* param = static_cast<const ast::GenericParamDecl*>(decl)->type;
        return param->IsIntValueLike() ? param : nullptr;
      }
      if (decl->kind != ast::DeclKind::Var) return nullptr;
      // `static const int kCap = N * 2;`: the constant's initializer.
      return GenericConstValue(static_cast<const ast::VarDecl*>(decl), depth);
    }
    case ast::ExprKind::Cast:
    case ast::ExprKind::ImplicitCast: {
      const ast::Expr* inner = e->kind == ast::ExprKind::Cast
                                   ? static_cast<const ast::CastExpr*>(e)->operand
                                   : static_cast<const ast::ImplicitCastExpr*>(e)->operand;
      const Type* v = operand(inner);
      if (v == nullptr) return nullptr;
      return inner->type == t ? v : make(IntOp::Convert, {v});
    }
    case ast::ExprKind::Unary: {
      const auto* u = static_cast<const ast::UnaryExpr*>(e);
      const Type* v = operand(u->operand);
      if (v == nullptr) return nullptr;
      switch (u->op) {
        case ast::OpKind::Plus:
          return v;
        case ast::OpKind::Neg:
          return make(IntOp::Neg, {v});
        case ast::OpKind::BitNot:
          return make(IntOp::BitNot, {v});
        case ast::OpKind::Not:
          return make(IntOp::Not, {v});
        default:
          return nullptr;
      }
    }
    case ast::ExprKind::Binary: {
      const auto* bin = static_cast<const ast::BinaryExpr*>(e);
      IntOp op{};
      if (!BinaryIntOp(bin->op, &op)) return nullptr;
      const Type* a = operand(bin->lhs);
      const Type* b = a != nullptr ? operand(bin->rhs) : nullptr;
      if (b == nullptr) return nullptr;
      // Comparisons keep the operands' type for the arithmetic; their result is bool.
      return make(op, {a, b});
    }
    case ast::ExprKind::Conditional: {
      const auto* c = static_cast<const ast::ConditionalExpr*>(e);
      const Type* cond = operand(c->cond);
      const Type* a = cond != nullptr ? operand(c->then_expr) : nullptr;
      const Type* b = a != nullptr ? operand(c->else_expr) : nullptr;
      if (b == nullptr) return nullptr;
      return make(IntOp::Select, {cond, a, b});
    }
    case ast::ExprKind::Call: {
      const auto* call = static_cast<const ast::CallExpr*>(e);
      if (call->func != nullptr) return StaticConstValue(call, depth);
      // `uint(N)`: a conversion written as a constructor.
      if (call->constructed != t || call->args.size() != 1) return nullptr;
      const Type* v = operand(call->args[0]);
      if (v == nullptr) return nullptr;
      return call->args[0]->type == t ? v : make(IntOp::Convert, {v});
    }
    case ast::ExprKind::Pack: {
      // `a.getCount()` of an array whose size is a generic value expression.
      const auto* query = static_cast<const ast::PackExpr*>(e);
      return query->form == ast::PackExpr::kValueOf ? query->pack : nullptr;
    }
    default:
      return nullptr;
  }
}

void Checker::RecordGenericUse(const Type* type) {
  if (current_function_ == nullptr || type == nullptr || !type->IsDependent()) return;
  GenericUses& uses = generic_uses_[current_function_];
  if (uses.seen.insert(type).second) uses.types.push_back(type);
}

void Checker::RecordGenericCall(ast::FuncDecl* func, const Subst& bindings,
                                source::SourceRange at) {
  if (bindings.empty()) return;
  bool dependent = false;
  for (const auto& [param, arg] : bindings) dependent = dependent || arg->IsDependent();
  if (!dependent) {
    concrete_calls_.push_back({func, bindings, at});
  } else if (current_function_ != nullptr) {
    generic_uses_[current_function_].calls.emplace_back(func, bindings);
  }
}

bool Checker::GenericSizesFit(const Type* pattern, const Subst& subst, const std::string& owner,
                              source::SourceRange at, std::set<const Type*>* structs_seen) {
  // `T[N][M]`: the sizes multiply, as in ApplyArrayDims.
  int64_t total = 1;
  const Type* size = nullptr;  // the last generic size met: a value parameter or an IntExpr
  int64_t size_value = 0;
  const Type* t = pattern;
  for (; t->IsArray(); t = t->Element()) {
    int64_t n = t->Count();
    if (t->LengthParam() != nullptr) {
      const Type* length = types_.Substitute(t->LengthParam(), subst);
      if (length->Kind() != TypeKind::IntValue) return true;  // still generic here
      n = length->Value();
      size = t->LengthParam();
      size_value = n;
    }
    if (size == nullptr) {
      if (n >= 1 && n <= kMaxArraySize) total *= n;  // a fixed size, checked where written
      continue;
    }
    // Both factors are at most kMaxArraySize when multiplied: no overflow.
    if (n < 1 || n > kMaxArraySize || (total *= n) > kMaxArraySize) {
      int64_t shown = n < 1 || n > kMaxArraySize ? n : total;
      if (size->IsGenericParam()) {
        diags_.Report(DiagId::GenericArraySize, at, owner, shown, size->Generic()->name, size_value,
                      kMaxArraySize);
      } else {
        diags_.Report(DiagId::GenericArraySizeExpr, at, owner, shown, size->Name(), size_value,
                      kMaxArraySize);
      }
      return false;
    }
  }
  if (t->IsVector() && t->LengthParam() != nullptr) {
    // `vector<float, N + 1>`: 1 to 4 elements once specialized.
    const Type* length = types_.Substitute(t->LengthParam(), subst);
    if (length->Kind() == TypeKind::IntValue && (length->Value() < 1 || length->Value() > 4)) {
      diags_.Report(DiagId::GenericVectorSize, at, owner, length->Value(), t->LengthParam()->Name(),
                    length->Value());
      return false;
    }
    return true;
  }
  if (!t->IsStruct()) return true;
  const Type* concrete = types_.Substitute(t, subst);
  if (!concrete->IsStruct() || concrete->IsDependent() || !structs_seen->insert(concrete).second) {
    return true;
  }
  Subst inner = types_.StructSubst(concrete);
  for (ast::VarDecl* field : concrete->Info()->fields) {
    if (field->type == nullptr || field->type->IsError()) continue;
    if (!GenericSizesFit(field->type, inner, concrete->Name(), at, structs_seen)) return false;
  }
  return true;
}

void Checker::CheckGenericArraySizes() {
  std::set<const Type*> structs_seen;
  for (const ConcreteType& use : concrete_types_) {
    GenericSizesFit(use.pattern, use.bindings, use.name, use.at, &structs_seen);
  }
  // A generic function's body under concrete arguments, and the generic functions it
  // calls under the arguments composed through it.
  std::set<std::pair<const ast::FuncDecl*, Subst>> done;
  // A chain of calls longer than the number of generic functions with uses repeats one:
  // recursion (E3016), which `f<N + 1>()` in f would otherwise walk without end.
  const size_t max_depth = generic_uses_.size() + 1;
  std::function<bool(const ast::FuncDecl*, const Subst&, source::SourceRange, size_t)> walk =
      [&](const ast::FuncDecl* func, const Subst& bindings, source::SourceRange at, size_t depth) {
        if (depth > max_depth || !done.insert({func, bindings}).second) return true;
        auto it = generic_uses_.find(func);
        if (it == generic_uses_.end()) return true;
        // `g<3>`: the function with its own arguments, as a call would write them.
        std::string shown = func->name;
        std::string args;
        for (size_t i = func->own_generic_begin; i < func->generic_context.size(); ++i) {
          auto arg = bindings.find(func->generic_context[i]);
          if (arg == bindings.end()) continue;
          args += (args.empty() ? "" : ", ") + arg->second->Name();
        }
        if (!args.empty()) shown += "<" + args + ">";
        for (const Type* type : it->second.types) {
          if (!GenericSizesFit(type, bindings, shown, at, &structs_seen)) return false;
        }
        for (const ast::PackExpr* query : it->second.size_queries) {
          if (!SizeOfFits(query, bindings, func->name)) return false;
        }
        for (const auto& [value, written] : it->second.byte_address_values) {
          if (!ByteAddressValueFits(value, written, bindings, shown)) return false;
        }
        for (const auto& [callee, callee_bindings] : it->second.calls) {
          Subst composed;
          for (const auto& [param, arg] : callee_bindings) {
            composed[param] = types_.Substitute(arg, bindings);
          }
          if (!walk(callee, composed, at, depth + 1)) return false;
        }
        return true;
      };
  for (const ConcreteCall& call : concrete_calls_) walk(call.func, call.bindings, call.at, 0);
}

}  // namespace slope::sema
