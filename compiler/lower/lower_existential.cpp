// Lowering of interface-typed values (existentials) to tagged unions.
//
// An existential of interface I is the IR struct `I.existential { tag: u32, T0, T1, ... }`
// with one member per concrete type that some conversion packs into I; the tag is the
// index of the value's type. A requirement call on it calls `I.f.dispatch`, which
// switches on the tag and calls that type's implementation: the witness table of a
// GPU target, where there are no function pointers. The set of types is known only once
// every function is lowered, so the struct's members and the bodies of the pack,
// dispatch and zero functions are written last. When the inliner and the constant
// passes see the tag of a packed value, the dispatch folds to a direct call.

#include "compiler/base/ice.h"
#include "compiler/lower/lowerer.h"

namespace slope::lower {

using ir::Op;
using ir::Value;

Lowerer::Existential& Lowerer::ExistentialOf(const sema::Type* iface) {
  for (auto& e : existentials_) {
    if (e->iface == iface) return *e;
  }
  auto e = std::make_unique<Existential>();
  e->iface = iface;
  e->type = module_->Types().Struct(MangledTypeName(iface) + ".existential", {}, {});
  existentials_.push_back(std::move(e));
  return *existentials_.back();
}

Lowerer::Existential* Lowerer::ExistentialByType(const ir::Type* type) {
  for (auto& e : existentials_) {
    if (e->type == type) return e.get();
  }
  return nullptr;
}

const ir::Type* Lowerer::ExistentialType(const sema::Type* iface) {
  return ExistentialOf(iface).type;
}

Value* Lowerer::Pack(Value* value, const sema::Type* from, const sema::Type* iface) {
  from = Concrete(from);
  iface = Concrete(iface);
  if (from == iface) return value;
  Existential& e = ExistentialOf(iface);
  return b_.Call(e.packs[TagOf(e, from)], {value});
}

size_t Lowerer::TagOf(Existential& e, const sema::Type* from) {
  size_t tag = 0;
  while (tag < e.concrete.size() && e.concrete[tag] != from) ++tag;
  if (tag == e.concrete.size()) {
    e.concrete.push_back(from);
    std::string name = UniqueFunctionName(MangledTypeName(e.iface) + ".pack." + MangledTypeName(from));
    e.packs.push_back(module_->AddFunction(name, e.type));
    e.packs.back()->force_inline = true;
    e.tests.push_back(nullptr);
    e.unpacks.push_back(nullptr);
  }
  return tag;
}

Value* Lowerer::LowerTypeTest(const ast::TypeTestExpr* e) {
  if (e->operand_type != nullptr) {
    const sema::Type* tested = Concrete(e->operand_type);
    const sema::Type* target = Concrete(e->target_type);
    // `T is IFoo` (`where optional T : IFoo`): whether this specialization conforms.
    return module_->ConstBool(target->IsInterface() ? types_.Conforms(tested, target)
                                                    : tested == target);
  }
  Value* value = LowerExpr(e->operand);
  const sema::Type* from = Concrete(e->operand->type);
  const sema::Type* target = Concrete(e->target_type);
  if (!from->IsInterface()) {
    // A value whose type is known here (an interface-typed local or parameter), or
    // `t as IFoo` of a generic parameter's value: an Optional holding t itself.
    bool conformance = target->IsInterface();
    bool same_type = conformance ? types_.Conforms(from, target) : from == target;
    Value* same = module_->ConstBool(same_type);
    if (!e->is_cast) return same;
    Value* held = conformance || from == target ? value : Zero(LowerType(target));
    return b_.MakeStruct(LowerType(e->type), {same, held});
  }
  Existential& ex = ExistentialOf(from);
  size_t tag = TagOf(ex, target);
  std::string stem = MangledTypeName(ex.iface) + "." + MangledTypeName(target);
  if (ex.tests[tag] == nullptr) {
    ex.tests[tag] = module_->AddFunction(UniqueFunctionName(stem + ".is"), module_->Types().Bool());
    ex.tests[tag]->force_inline = true;
  }
  Value* holds = b_.Call(ex.tests[tag], {value});
  if (!e->is_cast) return holds;
  if (ex.unpacks[tag] == nullptr) {
    ex.unpacks[tag] = module_->AddFunction(UniqueFunctionName(stem + ".as"), LowerType(target));
    ex.unpacks[tag]->force_inline = true;
  }
  Value* held = b_.Call(ex.unpacks[tag], {value});
  // Optional<T> is `{ bool hasValue; T value; }` (stdlib/core.slang).
  return b_.MakeStruct(LowerType(e->type), {holds, held});
}

Value* Lowerer::ZeroExistential(const ir::Type* type) {
  Existential* e = ExistentialByType(type);
  SLOPE_ASSERT(e != nullptr);
  if (e->zero == nullptr) {
    e->zero = module_->AddFunction(UniqueFunctionName(MangledTypeName(e->iface) + ".zero"), e->type);
    e->zero->force_inline = true;
  }
  return b_.Call(e->zero, {});
}

ir::Function* Lowerer::Dispatcher(const sema::Type* iface, const ast::FuncDecl* req,
                                  const sema::Type* via, const ast::CallExpr* call) {
  Existential& e = ExistentialOf(iface);
  // A generic requirement has one dispatcher per list of its own generic arguments.
  std::vector<const sema::Type*> own;
  if (call != nullptr) {
    for (const sema::Type* a : call->generic_args) own.push_back(Concrete(a));
  }
  for (const Dispatch& d : e.dispatchers) {
    if (d.req == req && d.via == via && d.own == own) return d.function;
  }
  // The requirement's signature with `This` bound to the interface type itself (sema
  // allows dispatch only when no parameter or result depends on it).
  sema::Subst s = types_.RequirementSubst(via, iface);
  for (size_t i = 0; i < own.size(); ++i) {
    s[req->generic_context[req->own_generic_begin + i]] = own[i];
  }
  std::string name = UniqueFunctionName(MangledTypeName(iface) + "." + req->name + ".dispatch");
  ir::Function* f = module_->AddFunction(name, LowerType(types_.Substitute(req->result_type, s)));
  // A [Differentiable] requirement's dispatch is differentiated like any function: its
  // JVP switches on the same tag and calls the JVP of the witness picked.
  MarkDifferentiable(req, f);
  f->force_inline = true;
  ir::TypeTable& types = module_->Types();
  const ir::Type* self = req->is_mutating ? types.Pointer(ir::AddressSpace::Function, e.type) : e.type;
  f->params.push_back(module_->AddParam(self, nullptr));
  for (const ast::VarDecl* p : req->params) {
    const ir::Type* t = LowerType(types_.Substitute(p->type, s));
    if (p->direction != ast::ParamDirection::In) t = types.Pointer(ir::AddressSpace::Function, t);
    f->params.push_back(module_->AddParam(t, nullptr));
  }
  e.dispatchers.push_back({req, via, f, {}, own});
  return f;
}

bool Lowerer::ExpandDispatchers() {
  bool added = false;
  // Implementations may pack further types or need further dispatchers: index loops.
  for (size_t i = 0; i < existentials_.size(); ++i) {
    for (size_t d = 0; d < existentials_[i]->dispatchers.size(); ++d) {
      Existential& e = *existentials_[i];
      while (e.dispatchers[d].targets.size() < e.concrete.size()) {
        Dispatch& dispatch = e.dispatchers[d];
        const sema::Type* owner = e.concrete[dispatch.targets.size()];
        ir::Function* target =
            WitnessInstance(owner, dispatch.req, dispatch.via, nullptr, &dispatch.own);
        e.dispatchers[d].targets.push_back(target);
        added = true;
      }
    }
  }
  return added;
}

namespace {
/// Starts the body of a bodiless function: its entry block.
ir::Block* StartBody(ir::Module& module, ir::Function* f, ir::Builder& b) {
  ir::Block* entry = module.AddBlock(f);
  f->blocks.push_back(entry);
  b.SetInsertBlock(entry);
  return entry;
}
}  // namespace

void Lowerer::FinishExistentials() {
  ir::TypeTable& types = module_->Types();
  const ir::Type* u32 = types.Int(32, false);
  for (auto& e : existentials_) {
    std::vector<const ir::Type*> members{u32};
    std::vector<std::string> names{"tag"};
    for (size_t k = 0; k < e->concrete.size(); ++k) {
      members.push_back(LowerType(e->concrete[k]));
      names.push_back("v" + std::to_string(k));
    }
    types.DefineStruct(e->type, std::move(members), std::move(names));
  }
  for (auto& e : existentials_) {
    b_.SetLoc({});
    if (e->zero != nullptr) {
      func_ = e->zero;
      StartBody(*module_, e->zero, b_);
      std::vector<Value*> parts{module_->ConstInt(u32, 0)};
      for (size_t m = 1; m < e->type->Members().size(); ++m) parts.push_back(Zero(e->type->Members()[m]));
      b_.Return(b_.MakeStruct(e->type, parts));
    }
    for (size_t k = 0; k < e->packs.size(); ++k) {
      func_ = e->packs[k];
      ir::Param* value = module_->AddParam(LowerType(e->concrete[k]), nullptr);
      func_->params.push_back(value);
      StartBody(*module_, func_, b_);
      std::vector<Value*> parts{module_->ConstInt(u32, static_cast<int64_t>(k))};
      for (size_t m = 0; m < e->concrete.size(); ++m) {
        parts.push_back(m == k ? value : Zero(e->type->Members()[m + 1]));
      }
      b_.Return(b_.MakeStruct(e->type, parts));
    }
    for (size_t k = 0; k < e->concrete.size(); ++k) {
      // `is T`: the tag is T's; `as T`: the member holding a T.
      for (ir::Function* f : {e->tests[k], e->unpacks[k]}) {
        if (f == nullptr) continue;
        func_ = f;
        ir::Param* value = module_->AddParam(e->type, nullptr);
        f->params.push_back(value);
        StartBody(*module_, f, b_);
        if (f == e->tests[k]) {
          b_.Return(b_.Compare(ir::Op::Eq, b_.Extract(value, 0),
                               module_->ConstInt(u32, static_cast<int64_t>(k))));
        } else {
          b_.Return(b_.Extract(value, static_cast<uint32_t>(k + 1)));
        }
      }
    }
    for (const Dispatch& d : e->dispatchers) WriteDispatcher(*e, d);
    WriteStoredConversions(*e);
  }
  func_ = nullptr;
}

void Lowerer::WriteDispatcher(const Existential& e, const Dispatch& d) {
  func_ = d.function;
  ir::Function* f = d.function;
  StartBody(*module_, f, b_);
  const ir::Type* result = f->ResultType();
  if (d.targets.empty()) {  // nothing was ever packed: only a zero value can reach here
    b_.Return(result->IsVoid() ? nullptr : Zero(result));
    return;
  }
  Value* self = f->params[0];
  bool by_pointer = d.req->is_mutating;
  Value* tag = by_pointer ? b_.Load(b_.MemberPtr(self, 0)) : b_.Extract(self, 0);
  // The last type is the default: every tag a packed value can hold has a case. A value
  // read from memory may hold no type (kNoTag): then the default does nothing.
  CaseSwitch sw = SwitchOver(tag, d.targets.size() + (e.dynamic ? 1 : 0), result);
  for (size_t k = 0; k < d.targets.size(); ++k) {
    Place(sw.cases[k]);
    const auto member = static_cast<uint32_t>(k + 1);
    std::vector<Value*> args;
    Value* slot = nullptr;
    if (by_pointer) {
      slot = b_.Var(f, e.type->Members()[member]);
      b_.Store(slot, b_.Load(b_.MemberPtr(self, member)));
      args.push_back(slot);
    } else {
      args.push_back(b_.Extract(self, member));
    }
    for (size_t i = 1; i < f->params.size(); ++i) args.push_back(f->params[i]);
    Value* r = b_.Call(d.targets[k], args);
    if (by_pointer) b_.Store(b_.MemberPtr(self, member), b_.Load(slot));
    b_.Br(sw.merge, sw.merged != nullptr ? std::vector<Value*>{r} : std::vector<Value*>{});
  }
  if (e.dynamic) {
    Place(sw.cases.back());
    b_.Br(sw.merge,
          sw.merged != nullptr ? std::vector<Value*>{Zero(result)} : std::vector<Value*>{});
  }
  Place(sw.merge);
  b_.Return(sw.merged);
}

Lowerer::CaseSwitch Lowerer::SwitchOver(Value* index, size_t count, const ir::Type* result) {
  CaseSwitch sw;
  sw.merge = NewBlock();
  if (!result->IsVoid()) {
    sw.merged = module_->AddParam(result, sw.merge);
    sw.merge->params.push_back(sw.merged);
  }
  for (size_t k = 0; k < count; ++k) sw.cases.push_back(NewBlock());
  if (count == 1) {
    b_.Br(sw.cases[0]);
    return sw;
  }
  std::vector<ir::Builder::SwitchCase> labels;
  for (size_t k = 0; k + 1 < count; ++k) {
    labels.push_back({module_->ConstInt(index->GetType(), static_cast<int64_t>(k)), sw.cases[k]});
  }
  b_.Switch(index, sw.cases.back(), labels, sw.merge);
  return sw;
}

}  // namespace slope::lower
