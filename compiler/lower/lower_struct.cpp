// Lowering of structs: their IR types, default values, constructors and method calls.

#include "compiler/base/ice.h"
#include "compiler/lower/lowerer.h"

namespace slope::lower {

using ir::Op;
using ir::Value;

std::string Lowerer::StructIrName(const sema::Type* t) {
  std::string name = t->Info()->name;
  // A struct in a namespace ("geo::Ray") is "geo.Ray" in the IR.
  for (size_t at = name.find("::"); at != std::string::npos; at = name.find("::", at)) {
    name.replace(at, 2, ".");
  }
  for (const sema::Type* a : t->Args()) name += "." + MangledTypeName(a);
  return name;
}

const ir::Type* Lowerer::LowerStructType(const sema::Type* t) {
  std::string name = StructIrName(t);
  // A field may point at the struct (`Node* next`): the pointer's pointee is the struct
  // declared without members, defined below (LowerType).
  structs_in_progress_.insert(t);
  std::vector<const ir::Type*> members;
  std::vector<std::string> names;
  std::vector<ir::MatrixLayout> layouts;
  bool any_layout = false;
  for (size_t i = 0; i < t->Info()->fields.size(); ++i) {
    if (types_.FieldIsAbsent(t, i)) continue;  // `Conditional<T, false>`: no storage
    members.push_back(LowerType(types_.FieldType(t, i)));
    const ast::VarDecl* field = t->Info()->fields[i];
    names.push_back(field->name);
    // `row_major` / `column_major` on a matrix field (sema warned about other fields).
    const ir::Type* inner = members.back();
    while (inner->IsArray()) inner = inner->Element();
    ir::MatrixLayout layout = ir::MatrixLayout::Default;
    if (inner->IsMatrix() && (field->modifiers & ast::kModRowMajor) != 0) {
      layout = ir::MatrixLayout::RowMajor;
    } else if (inner->IsMatrix() && (field->modifiers & ast::kModColumnMajor) != 0) {
      layout = ir::MatrixLayout::ColumnMajor;
    }
    any_layout = any_layout || layout != ir::MatrixLayout::Default;
    layouts.push_back(layout);
  }
  structs_in_progress_.erase(t);
  const ir::Type* made = module_->Types().FindStruct(name);
  if (made != nullptr && made->Members().empty() && !members.empty()) {
    module_->Types().DefineStruct(made, std::move(members), std::move(names));
  } else {
    made = module_->Types().Struct(name, std::move(members), std::move(names));
  }
  if (any_layout) module_->Types().SetMemberMatrixLayouts(made, std::move(layouts));
  if (t->Info()->decl != nullptr) {
    module_->Types().SetStructLoc(made, t->Info()->decl->name_range.begin);
  }
  // A Differential other than the members' own (sema chose it): the forward-mode pass
  // needs its layout.
  const std::vector<int>& fields_map = t->Info()->derivative_members;
  if (fields_map.empty()) return made;
  // The struct's own `Differential` (a generic struct's is written over its parameters),
  // else the one the generic extension that makes it differentiable declares (tuples).
  const sema::Type* differential = nullptr;
  for (const ast::Decl* m : t->Info()->type_members) {
    if (m->name == "Differential" && differential == nullptr) {
      differential = types_.Substitute(types_.AliasTypes().at(m), types_.StructSubst(t));
    }
  }
  if (differential == nullptr) differential = types_.ExtensionDifferential(t);
  if (differential == nullptr || differential == t) return made;  // the IR's default
  // Per IR member: fields without storage have no member on either side.
  std::vector<int> map;
  for (size_t i = 0; i < fields_map.size(); ++i) {
    if (types_.FieldIsAbsent(t, i)) continue;
    int to = fields_map[i];
    map.push_back(to < 0 || !differential->IsStruct() ? to : MemberIndex(differential, to));
  }
  module_->Types().SetDifferential(made, {LowerType(differential), map});
  return made;
}

int Lowerer::MemberIndex(const sema::Type* t, size_t field) {
  if (types_.FieldIsAbsent(t, field)) return -1;
  int member = 0;
  for (size_t i = 0; i < field; ++i) member += types_.FieldIsAbsent(t, i) ? 0 : 1;
  return member;
}

size_t Lowerer::FieldOfMember(const sema::Type* t, size_t member) {
  for (size_t i = 0; i < t->Info()->fields.size(); ++i) {
    if (types_.FieldIsAbsent(t, i)) continue;
    if (member-- == 0) return i;
  }
  SLOPE_ICE("no field holds this IR member");
}

LValue Lowerer::AbsentFieldPlace(const sema::Type* field_type) {
  return LValue{b_.Var(func_, LowerType(field_type)), {}, nullptr};
}

std::string Lowerer::FunctionName(const ast::FuncDecl* decl) const {
  // `operator()` is a plain method (sema/check_lambda.cpp); its IR name is `operator.call`.
  std::string name = decl->func_kind == ast::FuncKind::Operator || decl->name == "operator()"
                         ? OperatorIrName(decl->name)
                         : decl->name;
  if (decl->parent == nullptr) return name;
  if (decl->parent->kind == ast::DeclKind::Extension) {
    std::string target = decl->parent->target != nullptr ? decl->parent->target->name : "";
    if (target.empty()) target = "extension";
    return target + "." + name;
  }
  return decl->parent->name + "." + name;
}

bool Lowerer::HasFieldInitializers(const sema::Type* t) {
  auto found = has_field_inits_.find(t);
  if (found != has_field_inits_.end()) return found->second;
  bool any = false;
  for (size_t i = 0; i < t->Info()->fields.size() && !any; ++i) {
    const sema::Type* field_type = Concrete(types_.FieldType(t, i));
    any = t->Info()->fields[i]->init != nullptr ||
          (field_type->IsStruct() && HasFieldInitializers(field_type));
  }
  has_field_inits_.emplace(t, any);
  return any;
}

Value* Lowerer::DefaultValue(const sema::Type* t) {
  t = Concrete(t);
  const ir::Type* type = LowerType(t);
  // Without a field initializer anywhere inside, the default is the zero value, made
  // once per distinct member type (linear in a generic struct nested in itself).
  if (!HasFieldInitializers(t)) return Zero(type);
  std::vector<Value*> members;
  // Field defaults are written in terms of the struct's generic parameters.
  sema::Subst saved = subst_;
  subst_ = types_.StructSubst(t);
  for (size_t i = 0; i < t->Info()->fields.size(); ++i) {
    const ast::VarDecl* field = t->Info()->fields[i];
    const sema::Type* field_type = types_.FieldType(t, i);
    if (types_.FieldIsAbsent(t, i)) {
      if (field->init != nullptr) LowerExpr(field->init);  // for its effects
      continue;
    }
    if (field->init != nullptr) {
      members.push_back(LowerExpr(field->init));
    } else if (field_type->IsStruct()) {
      members.push_back(DefaultValue(field_type));
    } else {
      members.push_back(Zero(LowerType(field_type)));
    }
  }
  subst_ = std::move(saved);
  return b_.MakeStruct(type, members);
}

Value* Lowerer::DefaultOf(const sema::Type* t) {
  t = Concrete(t);
  if (IsCoreAtomic(t)) return DefaultOf(t->Args()[0]);
  if (t->IsStruct()) return DefaultValue(t);
  if (t->IsArray() && t->Count() > 0) {
    // One element's default, repeated (its field initializers run once).
    Value* element = DefaultOf(t->Element());
    return b_.MakeArray(LowerType(t), std::vector<Value*>(t->Count(), element));
  }
  return Zero(LowerType(t));
}

Value* Lowerer::LowerStructConstructor(const ast::CallExpr* call) {
  std::vector<OutArg> outs;
  std::vector<Value*> args = LowerArgs(call, &outs);
  Loc(call->range);
  if (call->func != nullptr) {
    Value* result = b_.Call(Callee(call), args);
    CopyBack(outs);
    return result;
  }
  const sema::Type* t = Concrete(call->constructed);
  if (args.empty()) return DefaultValue(t);
  // Member-wise: one argument per field, those of fields without storage dropped.
  std::vector<Value*> members;
  for (size_t i = 0; i < args.size(); ++i) {
    if (!t->IsStruct() || i >= t->Info()->fields.size() || !types_.FieldIsAbsent(t, i)) {
      members.push_back(args[i]);
    }
  }
  return b_.MakeStruct(LowerType(t), members);
}

Value* Lowerer::LowerMethodCall(const ast::CallExpr* call) {
  const ast::FuncDecl* method = call->func;
  ir::Function* callee = Callee(call);
  std::vector<OutArg> outs;
  if (method->this_param == nullptr) {  // static
    std::vector<Value*> args = LowerArgs(call, &outs);
    Loc(call->range);
    Value* result = b_.Call(callee, args);
    CopyBack(outs);
    return result;
  }
  SLOPE_ASSERT(call->receiver != nullptr);
  // A requirement's witness decides: a non-mutating method may satisfy a `[mutating]`
  // requirement (a lambda passed as an IMutatingFunc) and then takes the object itself.
  // Its declaration says which before its body (and its parameters) is lowered.
  bool by_pointer = method->is_mutating;
  auto witness = instance_decls_.find(callee);
  if (!callee->params.empty()) {
    by_pointer = callee->params[0]->GetType()->IsPointer();
  } else if (witness != instance_decls_.end() && witness->second->this_param != nullptr) {
    by_pointer = witness->second->is_mutating;
  }
  if (!by_pointer) {
    std::vector<Value*> args{LowerExpr(call->receiver)};
    for (Value* a : LowerArgs(call, &outs)) args.push_back(a);
    Loc(call->range);
    Value* result = b_.Call(callee, args);
    CopyBack(outs);
    return result;
  }
  // Copy in and out, as for an `inout` parameter: the object may live in a buffer.
  LValue receiver = LowerLValue(call->receiver);
  Value* object = LoadLValue(receiver);
  Value* slot = b_.Var(func_, object->GetType());
  b_.Store(slot, object);
  std::vector<Value*> args{slot};
  for (Value* a : LowerArgs(call, &outs)) args.push_back(a);
  Loc(call->range);
  Value* result = b_.Call(callee, args);
  StoreLValue(receiver, b_.Load(slot));
  CopyBack(outs);
  return result;
}

}  // namespace slope::lower
