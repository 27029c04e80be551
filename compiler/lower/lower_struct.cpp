// Lowering of structs: their IR types, default values, constructors and method calls.

#include "compiler/base/ice.h"
#include "compiler/lower/lowerer.h"

namespace slope::lower {

using ir::Op;
using ir::Value;

const ir::Type* Lowerer::LowerStructType(const sema::Type* t) {
  std::vector<const ir::Type*> members;
  std::vector<std::string> names;
  for (const ast::VarDecl* field : t->Info()->fields) {
    members.push_back(LowerType(field->type));
    names.push_back(field->name);
  }
  return module_->Types().Struct(t->Info()->name, std::move(members), std::move(names));
}

std::string Lowerer::FunctionName(const ast::FuncDecl* decl) const {
  if (decl->owner == nullptr) return decl->name;
  return decl->owner->Info()->name + "." + decl->name;
}

Value* Lowerer::DefaultValue(const sema::Type* t) {
  const ir::Type* type = LowerType(t);
  std::vector<Value*> members;
  for (const ast::VarDecl* field : t->Info()->fields) {
    if (field->init != nullptr) {
      members.push_back(LowerExpr(field->init));
    } else if (field->type->IsStruct()) {
      members.push_back(DefaultValue(field->type));
    } else {
      members.push_back(Zero(LowerType(field->type)));
    }
  }
  return b_.MakeStruct(type, members);
}

Value* Lowerer::LowerStructConstructor(const ast::CallExpr* call) {
  std::vector<Value*> args;
  for (const ast::Expr* a : call->args) args.push_back(LowerExpr(a));
  Loc(call->range);
  if (call->func != nullptr) return b_.Call(functions_.at(call->func), args);
  if (args.empty()) return DefaultValue(call->constructed);
  return b_.MakeStruct(LowerType(call->constructed), args);
}

Value* Lowerer::LowerMethodCall(const ast::CallExpr* call) {
  const ast::FuncDecl* method = call->func;
  ir::Function* callee = functions_.at(method);
  if (method->this_param == nullptr) {  // static
    std::vector<Value*> args;
    for (const ast::Expr* a : call->args) args.push_back(LowerExpr(a));
    Loc(call->range);
    return b_.Call(callee, args);
  }
  SLOPE_ASSERT(call->receiver != nullptr);
  if (!method->is_mutating) {
    std::vector<Value*> args{LowerExpr(call->receiver)};
    for (const ast::Expr* a : call->args) args.push_back(LowerExpr(a));
    Loc(call->range);
    return b_.Call(callee, args);
  }
  // Copy in and out, as for an `inout` parameter: the object may live in a buffer.
  LValue receiver = LowerLValue(call->receiver);
  Value* object = LoadLValue(receiver);
  Value* slot = b_.Var(func_, object->GetType());
  b_.Store(slot, object);
  std::vector<Value*> args{slot};
  for (const ast::Expr* a : call->args) args.push_back(LowerExpr(a));
  Loc(call->range);
  Value* result = b_.Call(callee, args);
  StoreLValue(receiver, b_.Load(slot));
  return result;
}

}  // namespace slope::lower
