// Memory shared between invocations: `groupshared` variables, and the calls of the core
// library's atomic, barrier and wave functions (`[__intrinsic_op("atomic_add")]` ...),
// whose operands have rules overload resolution cannot express: an atomic's destination
// is a scalar in buffer or groupshared memory, and each operation takes only the scalar
// types SPIR-V has it for.

#include <functional>

#include "compiler/ir/ir.h"
#include "compiler/sema/checker.h"

namespace slope::sema {

using diag::DiagId;

bool IsGroupShared(const ast::VarDecl* var) {
  return var->role == ast::VarRole::Global && (var->modifiers & ast::kModGroupShared) != 0;
}

bool IsPrivateGlobal(const ast::VarDecl* var) {
  return var->role == ast::VarRole::Global && var->is_static && !var->is_const &&
         !IsGroupShared(var) && var->type != nullptr && !var->type->IsResource();
}

void Checker::CheckStaticGlobal(ast::VarDecl* var, CheckedModule* out) {
  // A `static` global is a variable of each invocation, in private memory: any value
  // type, initialized when the entry point starts (constant or not).
  const char* why = nullptr;
  if (ContainsResource(var->type)) {
    why = "it holds a resource, and resources are bound, not stored";
  } else if (var->type->IsInterface()) {
    why = "an interface-typed variable takes its concrete type from a local initializer";
  }
  if (why != nullptr) {
    diags_.Report(DiagId::StaticGlobalType, var->type_expr->range, var->name, var->type->Name(), why);
    return;
  }
  if (var->init != nullptr) {
    CheckConstantsUsedBy(var->init);
    var->init = CheckAs(var->init, var->type);
  }
  out->statics.push_back(var);
}

void Checker::CheckGroupSharedPlacement(const ast::VarDecl* var, const char* what) {
  if ((var->modifiers & ast::kModGroupShared) == 0) return;
  diags_.Report(DiagId::GroupSharedPlacement, var->name_range, what);
}

namespace {
/// Why `type` cannot live in workgroup memory, or null when it can.
const char* GroupSharedTypeError(const Type* type, TypeContext& types) {
  if (type->IsVoid()) return "a variable cannot have type 'void'";
  if (type->IsInterface() || type->IsGenericParam()) return "its size is not known";
  if (type->IsArray()) return GroupSharedTypeError(type->Element(), types);
  if (type->IsStruct()) {
    for (size_t i = 0; i < type->Info()->fields.size(); ++i) {
      if (const char* why = GroupSharedTypeError(types.FieldType(type, i), types)) return why;
    }
  }
  return nullptr;
}
}  // namespace

void Checker::CheckGroupShared(ast::VarDecl* var, CheckedModule* out) {
  if (var->init != nullptr) {
    diags_.Report(DiagId::GroupSharedInitializer, var->init->range, var->name);
  }
  if (var->is_const || var->is_uniform) {
    diags_.Report(DiagId::GroupSharedType, var->name_range, var->name, var->type->Name(),
                  "workgroup memory is written by the kernel, so it cannot be 'const' or "
                  "'uniform'");
    return;
  }
  const char* why = ContainsResource(var->type)
                        ? "a resource is a binding, not memory"
                        : GroupSharedTypeError(var->type, types_);
  if (why != nullptr) {
    diags_.Report(DiagId::GroupSharedType, var->name_range, var->name, var->type->Name(), why);
    return;
  }
  out->groupshared.push_back(var);
}

namespace {
/// Whether an atomic may update `e` (checked, assignable): a buffer element, a
/// groupshared variable, a place reached through a device pointer (`*p`, `p->f`,
/// `p[i]`), or an element, member or vector component of one.
bool IsSharedMemory(const ast::Expr* e) {
  while (true) {
    switch (e->kind) {
      case ast::ExprKind::Name: {
        const ast::Decl* decl = static_cast<const ast::NameExpr*>(e)->decl;
        return decl != nullptr && decl->kind == ast::DeclKind::Var &&
               IsGroupShared(static_cast<const ast::VarDecl*>(decl));
      }
      case ast::ExprKind::Index: {
        auto* ix = static_cast<const ast::IndexExpr*>(e);
        if (ix->base->type->IsBuffer()) return true;
        if (ix->base->type->IsTexture()) return false;  // only a whole RWBuffer element
        e = ix->base;
        break;
      }
      case ast::ExprKind::Member: {
        e = static_cast<const ast::MemberExpr*>(e)->base;
        break;
      }
      case ast::ExprKind::Unary:
        return static_cast<const ast::UnaryExpr*>(e)->op == ast::OpKind::Deref;
      default:
        return false;
    }
  }
}

/// "'int', 'uint', 'int64_t' or 'uint64_t'" and friends: the types an operation takes.
bool AtomicTypeOk(const Type* t, ir::AtomicOp op) {
  if (!t->IsScalar()) return false;
  TypeKind k = t->Kind();
  if (k == TypeKind::Int || k == TypeKind::UInt) return t->Width() == 32 || t->Width() == 64;
  return op == ir::AtomicOp::Add && k == TypeKind::Float && t->Width() == 32;
}
}  // namespace

void Checker::CheckSyncCall(ast::CallExpr* call) {
  const ast::FuncDecl* f = call->func;
  auto op = static_cast<ir::Op>(f->intrinsic_inst);
  if (op == ir::Op::Barrier || call->args.empty()) return;
  const Type* t = call->args[0]->type;
  if (t->IsError()) return;
  if (op == ir::Op::Wave) {
    // Subgroup operations on 8- and 16-bit values need a device feature Slope does not
    // ask for; bools are only taken where the declaration says `bool`. In generic code
    // (the core library's quad reads) the caller's argument is checked instead.
    if (t->IsDependent()) return;
    const Type* s = t->IsNumericLike() ? t->ScalarType() : t;
    if (t->IsMatrix() || (s->Kind() != TypeKind::Bool && s->Width() != 32 && s->Width() != 64)) {
      diags_.Report(DiagId::SyncOpType, call->args[0]->range, f->name, t->Name(),
                    "32- or 64-bit scalars and vectors");
    }
    return;
  }
  auto which = static_cast<ir::AtomicOp>(f->intrinsic_op);
  const ast::Expr* dest = call->args[0];
  if (dest->kind == ast::ExprKind::Index &&
      static_cast<const ast::IndexExpr*>(dest)->base->type->IsTypedBuffer()) {
    // `InterlockedAdd(counts[i], 1)`: an element of an RWBuffer of format r32i or r32ui
    // (sema checked it writable), updated in place through a texel pointer.
    if (t != types_.Int() && t != types_.UInt()) {
      diags_.Report(DiagId::SyncOpType, dest->range, f->name, t->Name(),
                    "an element of an 'RWBuffer<int>' or 'RWBuffer<uint>'");
    }
    return;
  }
  if (!IsSharedMemory(call->args[0])) {
    diags_.Report(DiagId::AtomicDestination, call->args[0]->range, f->name,
                  "in buffer or groupshared memory: a RWStructuredBuffer or RWBuffer "
                  "element, a groupshared variable or a place reached through a pointer, or "
                  "a member or element of one");
    return;
  }
  // A generic type is checked once specialized (the check-atomics pass).
  if (!t->IsDependent() && !AtomicTypeOk(t, which)) {
    diags_.Report(DiagId::SyncOpType, call->args[0]->range, f->name, t->Name(),
                  which == ir::AtomicOp::Add
                      ? "'int', 'uint', 'int64_t', 'uint64_t' or 'float'"
                      : "'int', 'uint', 'int64_t' or 'uint64_t'");
  }
}

ast::Expr* Checker::CheckAtomicMethod(ast::CallExpr* call) {
  const std::string& name = call->func->name;
  ast::Expr* receiver = call->receiver;
  const Type* t = types_.FieldType(receiver->type, 0);
  std::vector<ast::Expr*> values;
  for (ast::Expr* arg : call->args) {
    if (arg->type->IsEnum() && arg->type->Name() == "MemoryOrder") {
      int64_t order = -1;
      if (!EvaluateIntConstant(arg, &order) || order != 0) {
        diags_.Report(DiagId::UnsupportedConstruct, arg->range,
                      "memory orders other than 'MemoryOrder.Relaxed' on 'Atomic<T>' methods",
                      "are");
        call->type = types_.Error();
        return call;
      }
      continue;
    }
    values.push_back(arg);
  }
  auto sub = [&](ast::Expr* a, ast::Expr* b) {
    auto* e = ctx_.New<ast::BinaryExpr>(b->range, ast::OpKind::Sub, a, b, b->range);
    e->type = t;
    return e;
  };
  std::function<ast::Expr*(int64_t)> literal = [&](int64_t v) -> ast::Expr* {
    ast::Expr* e = nullptr;
    if (!t->IsDependent() && t->Kind() == TypeKind::Float) {
      e = ctx_.New<ast::FloatLiteralExpr>(call->range, static_cast<double>(v));
    } else {
      e = ctx_.New<ast::IntLiteralExpr>(call->range, static_cast<uint64_t>(v < 0 ? -v : v), false);
    }
    e->type = t->IsDependent() ? types_.Int() : t;
    if (t->IsDependent()) e = Coerce(e, t);
    return v >= 0 ? e : sub(literal(0), e);
  };
  if (name == "sub" || name == "reduceSub") {
    values[0] = sub(literal(0), values[0]);
  } else if (name == "load") {
    values.push_back(literal(0));
  } else if (name == "increment" || name == "reduceInc") {
    values.push_back(literal(1));
  } else if (name == "decrement" || name == "reduceDec") {
    values.push_back(literal(-1));
  }
  auto* dest = ctx_.New<ast::MemberExpr>(receiver->range, receiver, "__value", receiver->range);
  dest->field_index = 0;
  dest->type = t;
  values.insert(values.begin(), dest);
  call->args = std::move(values);
  call->receiver = nullptr;
  CheckSyncCall(call);
  return call;
}

ast::Expr* Checker::CheckAtomicOperator(ast::Expr* target, ast::OpKind op, ast::Expr* value,
                                        source::SourceRange range) {
  const Type* t = target->type;
  if (!IsCoreAtomic(t)) return nullptr;
  const char* method = nullptr;
  switch (op) {
    case ast::OpKind::Add:
      method = "add";
      break;
    case ast::OpKind::Sub:
      method = "sub";
      break;
    case ast::OpKind::BitAnd:
      method = "and";
      break;
    case ast::OpKind::BitOr:
      method = "or";
      break;
    case ast::OpKind::BitXor:
      method = "xor";
      break;
    case ast::OpKind::PreInc:
    case ast::OpKind::PostInc:
      method = "increment";
      break;
    case ast::OpKind::PreDec:
    case ast::OpKind::PostDec:
      method = "decrement";
      break;
    default:
      return nullptr;
  }
  auto* callee = ctx_.New<ast::MemberExpr>(range, target, method, range);
  std::vector<ast::Expr*> args;
  if (value != nullptr) args.push_back(value);
  auto* call = ctx_.New<ast::CallExpr>(range, callee, std::move(args));
  call->type = types_.Error();
  std::vector<ast::Expr*> no_values;
  return CheckMethodCallOn(call, t, target, method, range, {}, &no_values);
}

void Checker::CheckBitCast(const ast::CallExpr* call) {
  const Type* from = call->args[0]->type;
  const Type* to = call->type;
  if (from->IsError() || to->IsError()) return;
  auto report = [&](const char* why) {
    diags_.Report(DiagId::BitCastTypes, call->range, call->func->name, from->Name(), to->Name(),
                  why);
  };
  bool is_reinterpret = call->func->name == "reinterpret";
  if (from == to) return;
  if (from->IsDependent() || to->IsDependent()) {
    // reinterpret<T>(x) in generic code is x itself once T is x's type (a type test
    // `T is float` guards it); other specializations cannot be checked here.
    if (!is_reinterpret) report("a generic type is not supported yet; bit_cast concrete types");
    return;
  }
  auto lanes = [](const Type* t) { return t->Count(); };
  auto shaped = [](const Type* t) {
    return (t->IsScalar() || t->IsVector()) && t->ScalarType()->Kind() != TypeKind::Bool;
  };
  if (from->IsStruct() || from->IsArray() || to->IsStruct() || to->IsArray()) {
    // A struct or array moves word by word: `reinterpret<float4>(s)` packs s's 32-bit
    // fields in order into the lanes, `reinterpret<S>(v)` unpacks them (the rest zero).
    std::function<int64_t(const Type*)> words = [&](const Type* t) -> int64_t {
      if (t->IsArray()) {
        int64_t n = words(t->Element());
        return n < 0 ? -1 : n * t->Count();
      }
      if (t->IsStruct()) {
        int64_t n = 0;
        for (size_t i = 0; i < t->Info()->fields.size() && n >= 0; ++i) {
          int64_t f = words(types_.FieldType(t, i));
          n = f < 0 ? -1 : n + f;
        }
        return n;
      }
      return shaped(t) && t->ScalarType()->Width() == 32 ? static_cast<int64_t>(t->Count()) : -1;
    };
    int64_t from_words = words(from);
    int64_t to_words = words(to);
    if (from_words < 0 || to_words < 0) {
      report(
          "a struct or array moves as 32-bit words: every field must be made of 32-bit "
          "int, uint or float scalars or vectors");
    } else if (is_reinterpret ? to_words < from_words : to_words != from_words) {
      report(("the target must be " +
              std::string(is_reinterpret ? "no smaller than" : "as large as") + " the source (" +
              std::to_string(from_words * 32) + " and " + std::to_string(to_words * 32) + " bits)")
                 .c_str());
    }
    return;
  }
  if (!shaped(from) || !shaped(to)) {
    report("both types must be numeric scalars or vectors");
    return;
  }
  uint32_t from_bits = lanes(from) * from->ScalarType()->Width();
  uint32_t to_bits = lanes(to) * to->ScalarType()->Width();
  if (from_bits != to_bits) {
    report(("the sizes differ (" + std::to_string(from_bits) + " and " +
            std::to_string(to_bits) + " bits)").c_str());
    return;
  }
}

}  // namespace slope::sema
