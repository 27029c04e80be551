// Lowering of arrays (values of IR array type; indexing through `element_ptr` on the
// array's storage, or on a temporary copy of an array value), initializer lists, and the
// arguments of `out` / `inout` parameters.
//
// `out` and `inout` are copy-in/copy-out: the caller passes a pointer to a temporary that
// holds the argument's value (`inout`) or zero (`out`), and after the call stores the
// temporary back to the argument, which may be a swizzle, a field, an array element or a
// buffer element. The callee uses the pointer as the parameter's storage.

#include "compiler/base/ice.h"
#include "compiler/lower/lowerer.h"

namespace slope::lower {

using ir::Op;
using ir::Value;

bool Lowerer::IsAddressable(const ast::Expr* e) const {
  switch (e->kind) {
    case ast::ExprKind::Name: {
      const ast::Decl* decl = static_cast<const ast::NameExpr*>(e)->decl;
      if (decl == nullptr || decl->kind != ast::DeclKind::Var) return false;
      auto* var = static_cast<const ast::VarDecl*>(decl);
      return locals_.count(var) != 0 || sema::IsGroupShared(var) || sema::IsPrivateGlobal(var);
    }
    case ast::ExprKind::Member: {
      auto* m = static_cast<const ast::MemberExpr*>(e);
      return m->field_index >= 0 && IsAddressable(m->base);
    }
    case ast::ExprKind::Index: {
      auto* ix = static_cast<const ast::IndexExpr*>(e);
      if (ix->base->type->IsBuffer()) return true;
      return (ix->base->type->IsArray() || ix->base->type->IsMatrix()) &&
             IsAddressable(ix->base);
    }
    default:
      return false;
  }
}

Value* Lowerer::LowerArrayIndex(const ast::IndexExpr* e) {
  const ast::Expr* index = e->index;
  while (index->kind == ast::ExprKind::ImplicitCast) {
    index = static_cast<const ast::ImplicitCastExpr*>(index)->operand;
  }
  // A matrix row at a constant index is an `extract` of the matrix's value, which keeps
  // a local matrix promotable to SSA.
  if (e->base->type->Element()->IsBuffer() && index->kind != ast::ExprKind::IntLiteral) {
    if (auto fixed = fixed_choices_.find(e); fixed != fixed_choices_.end()) {
      return b_.Extract(LowerExpr(e->base), fixed->second);
    }
    return LowerBufferChoice(e);
  }
  bool constant_row = e->base->type->IsMatrix() && index->kind == ast::ExprKind::IntLiteral;
  if (IsAddressable(e->base) && !constant_row) return LoadLValue(LowerLValue(e));
  Value* base = LowerExpr(e->base);
  Loc(e->range);
  if (index->kind == ast::ExprKind::IntLiteral) {
    // In range: sema checked constant indices.
    auto lane = static_cast<uint32_t>(static_cast<const ast::IntLiteralExpr*>(index)->value);
    return b_.Extract(base, lane);
  }
  // A value has no storage to point into: index a copy.
  Value* slot = b_.Var(func_, base->GetType());
  b_.Store(slot, base);
  Value* i = LowerExpr(e->index);
  Loc(e->range);
  return b_.Load(b_.IndexPtr(slot, i));
}

Value* Lowerer::LowerBufferChoice(const ast::IndexExpr* e) {
  // `bufs[i]`: a switch on i whose cases each name one global. Once unrolling and
  // folding make i a constant, one case is left and the buffer is that global; an index
  // still chosen at run time is E4500 in legalize-resources.
  Value* array = LowerExpr(e->base);
  Value* i = LowerExpr(e->index);
  Loc(e->range);
  CaseSwitch sw = SwitchOver(i, array->GetType()->Count(), array->GetType()->Element());
  for (uint32_t k = 0; k < sw.cases.size(); ++k) {
    Place(sw.cases[k]);
    b_.Br(sw.merge, {b_.Extract(array, k)});
  }
  Place(sw.merge);
  return sw.merged;
}

namespace {
/// `bufs[i]` with `i` not a literal, on an array of buffers.
bool IsBufferChoice(const ast::Expr* e) {
  if (e->kind != ast::ExprKind::Index) return false;
  auto* ix = static_cast<const ast::IndexExpr*>(e);
  const ast::Expr* index = ix->index;
  while (index->kind == ast::ExprKind::ImplicitCast) {
    index = static_cast<const ast::ImplicitCastExpr*>(index)->operand;
  }
  return ix->base->type->IsArray() && ix->base->type->Element()->IsBuffer() &&
         index->kind != ast::ExprKind::IntLiteral;
}
}  // namespace

const ast::IndexExpr* Lowerer::BufferChoiceIn(const ast::Expr* e) {
  if (e->type == nullptr || e->type->IsBuffer()) return nullptr;
  // The buffer expression `e` reads or writes through, or passes on.
  std::vector<const ast::Expr*> buffers;
  auto element_of = [&](const ast::Expr* x) {
    if (x->kind == ast::ExprKind::Index) {
      auto* ix = static_cast<const ast::IndexExpr*>(x);
      if (ix->base->type->IsBuffer()) buffers.push_back(ix->base);
    }
  };
  switch (e->kind) {
    case ast::ExprKind::Index:
      element_of(e);
      break;
    case ast::ExprKind::Assign:
      element_of(static_cast<const ast::AssignExpr*>(e)->lhs);
      break;
    case ast::ExprKind::Call: {
      auto* call = static_cast<const ast::CallExpr*>(e);
      if (call->receiver != nullptr && call->receiver->type->IsBuffer()) buffers.push_back(call->receiver);
      for (const ast::Expr* arg : call->args) {
        if (arg->type != nullptr && arg->type->IsBuffer()) buffers.push_back(arg);
        element_of(arg);
      }
      break;
    }
    default:
      break;
  }
  for (const ast::Expr* b : buffers) {
    if (IsBufferChoice(b) && fixed_choices_.count(static_cast<const ast::IndexExpr*>(b)) == 0) {
      return static_cast<const ast::IndexExpr*>(b);
    }
  }
  return nullptr;
}

Value* Lowerer::LowerPerBuffer(const ast::Expr* e, const ast::IndexExpr* choice) {
  Value* i = LowerExpr(choice->index);
  Loc(e->range);
  // An index past the end picks the last buffer, as it would any one of them.
  CaseSwitch sw = SwitchOver(i, choice->base->type->Count(), LowerType(e->type));
  for (uint32_t k = 0; k < sw.cases.size(); ++k) {
    Place(sw.cases[k]);
    fixed_choices_[choice] = k;
    Value* v = LowerExpr(e);
    fixed_choices_.erase(choice);
    b_.Br(sw.merge, sw.merged != nullptr ? std::vector<Value*>{v} : std::vector<Value*>{});
  }
  Place(sw.merge);
  return sw.merged;
}

Value* Lowerer::LowerInitList(const ast::InitListExpr* e) {
  const sema::Type* type = Concrete(e->type);
  const ir::Type* t = LowerType(type);
  auto default_of = [&](const sema::Type* element) -> Value* {
    element = Concrete(element);
    return element->IsStruct() ? DefaultValue(element) : Zero(LowerType(element));
  };
  std::vector<Value*> parts;
  if (type->IsArray()) {
    for (uint32_t i = 0; i < type->Count(); ++i) {
      parts.push_back(i < e->elements.size() ? LowerExpr(e->elements[i])
                                             : default_of(type->Element()));
    }
    Loc(e->range);
    return b_.MakeArray(t, parts);
  }
  if (!type->IsStruct()) {
    // `T()` specialized for a scalar, vector or matrix: its zero.
    SLOPE_ASSERT(e->elements.empty());
    return Zero(t);
  }
  const auto& fields = type->Info()->fields;
  for (size_t i = 0; i < fields.size(); ++i) {
    if (types_.FieldIsAbsent(type, i)) {
      // No storage: an element given is still evaluated, for its effects.
      if (i < e->elements.size()) LowerExpr(e->elements[i]);
      continue;
    }
    if (i < e->elements.size()) {
      parts.push_back(LowerExpr(e->elements[i]));
    } else if (fields[i]->init != nullptr) {
      parts.push_back(LowerExpr(fields[i]->init));
    } else {
      // The field's type in this instance (`T vals[N]` of `Accum<float, 4>`).
      parts.push_back(default_of(types_.FieldType(type, i)));
    }
  }
  Loc(e->range);
  return b_.MakeStruct(t, parts);
}

std::vector<Value*> Lowerer::LowerArgs(const ast::CallExpr* call, std::vector<OutArg>* outs) {
  std::vector<Value*> args;
  for (size_t i = 0; i < call->args.size(); ++i) {
    const ast::Expr* a = call->args[i];
    const ast::VarDecl* param =
        call->func != nullptr && i < call->func->params.size() ? call->func->params[i] : nullptr;
    if (param != nullptr && param->type->IsPack()) {
      LowerPackArg(a, &args);
      continue;
    }
    if (param == nullptr || param->direction == ast::ParamDirection::In) {
      args.push_back(LowerExpr(a));
      continue;
    }
    if (i < call->writebacks.size() && call->writebacks[i] != nullptr) {
      // A property or subscript: the getter's value in, the setter's call after.
      const ir::Type* t = LowerType(a->type);
      Value* slot = b_.Var(func_, t);
      b_.Store(slot, param->direction == ast::ParamDirection::InOut ? LowerExpr(a) : Zero(t));
      args.push_back(slot);
      outs->push_back({LValue{}, slot, call->writebacks[i]});
      continue;
    }
    LValue place = LowerLValue(a);
    const ir::Type* t = LowerType(a->type);
    Value* slot = b_.Var(func_, t);
    b_.Store(slot, param->direction == ast::ParamDirection::InOut ? LoadLValue(place) : Zero(t));
    args.push_back(slot);
    outs->push_back({place, slot});
  }
  const sema::Type* err = call->func != nullptr ? call->func->throws_type : nullptr;
  if (err != nullptr && !err->IsError()) {
    // A call that may throw: the callee's hidden flag and error slots (lower_errors.cpp).
    Value* flag = b_.Var(func_, LowerType(types_.Bool()));
    b_.Store(flag, module_->ConstBool(false));
    Value* err_slot = b_.Var(func_, LowerType(Concrete(err)));
    args.push_back(flag);
    args.push_back(err_slot);
    outs->push_back({LValue{}, flag, nullptr, err, err_slot});
  }
  return args;
}

void Lowerer::CopyBack(const std::vector<OutArg>& outs) {
  for (const OutArg& out : outs) {
    if (out.thrown != nullptr) continue;
    if (out.writeback != nullptr) {
      StoreThroughSetter(out.writeback, b_.Load(out.slot));
    } else {
      StoreLValue(out.place, b_.Load(out.slot));
    }
  }
  for (const OutArg& out : outs) {
    if (out.thrown != nullptr) LowerCallError(out);
  }
}

}  // namespace slope::lower
