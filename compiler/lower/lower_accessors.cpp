// Lowering of assignments through property and subscript setters and through
// user-defined operators. Reads of properties and subscripts are ordinary method calls
// (sema made them the getters' calls); user operators used in expressions are ordinary
// calls too.

#include "compiler/base/ice.h"
#include "compiler/lower/lowerer.h"

namespace slope::lower {

using ir::Op;
using ir::Value;

std::string OperatorIrName(const std::string& name) {
  static constexpr std::pair<const char*, const char*> kWords[] = {
      {"+", "add"},     {"-", "sub"},      {"*", "mul"},      {"/", "div"},     {"%", "rem"},
      {"&", "and"},     {"|", "or"},       {"^", "xor"},      {"<<", "shl"},    {">>", "shr"},
      {"==", "eq"},     {"!=", "ne"},      {"<", "lt"},       {"<=", "le"},     {">", "gt"},
      {">=", "ge"},     {"!", "not"},      {"~", "bitnot"},   {"+=", "add_assign"},
      {"-=", "sub_assign"}, {"*=", "mul_assign"}, {"/=", "div_assign"}, {"%=", "rem_assign"},
      {"&=", "and_assign"}, {"|=", "or_assign"},  {"^=", "xor_assign"}, {"<<=", "shl_assign"},
      {">>=", "shr_assign"}, {"()", "call"}};
  std::string op = name.substr(std::string("operator").size());
  for (const auto& [spelling, word] : kWords) {
    if (op == spelling) return std::string("operator.") + word;
  }
  return "operator.other";
}

Value* Lowerer::CallOperator(const ast::CallExpr* call, Value* first) {
  std::vector<Value*> args;
  size_t from = 1;
  if (call->receiver != nullptr) {
    from = 0;  // the first operand is the receiver; `args` are the others
    first = ConvertValue(first, LowerType(call->receiver->type));
  } else {
    first = ConvertValue(first, LowerType(call->args[0]->type));
  }
  if (call->receiver != nullptr && call->func->is_mutating) {
    Value* slot = b_.Var(func_, first->GetType());
    b_.Store(slot, first);
    args.push_back(slot);
  } else {
    args.push_back(first);
  }
  for (size_t i = from; i < call->args.size(); ++i) args.push_back(LowerExpr(call->args[i]));
  Loc(call->range);
  return b_.Call(Callee(call), args);
}

Lowerer::SetterObject Lowerer::ObjectOfSetter(const ast::CallExpr* set) {
  // A [mutating] setter updates the object in a copy that is stored back, as for a
  // mutating method call (it may live in a buffer).
  SetterObject object;
  object.mutating = set->receiver != nullptr && set->func->is_mutating;
  if (object.mutating) {
    object.place = LowerLValue(set->receiver);
    object.value = LoadLValue(object.place);
  } else if (set->receiver != nullptr) {
    object.value = LowerExpr(set->receiver);
  }
  return object;
}

void Lowerer::CallSetter(const ast::CallExpr* set, const SetterObject& object,
                         const std::vector<Value*>& index, Value* value,
                         source::SourceRange range) {
  std::vector<Value*> set_args;
  Value* slot = nullptr;
  if (object.mutating) {
    slot = b_.Var(func_, object.value->GetType());
    b_.Store(slot, object.value);
    set_args.push_back(slot);
  } else if (set->receiver != nullptr) {
    set_args.push_back(object.value);
  }
  set_args.insert(set_args.end(), index.begin(), index.end());
  set_args.push_back(value);
  Loc(range);
  b_.Call(Callee(set), set_args);
  if (slot != nullptr) StoreLValue(object.place, b_.Load(slot));
}

void Lowerer::StoreThroughSetter(const ast::CallExpr* set, Value* value) {
  SetterObject object = ObjectOfSetter(set);
  std::vector<Value*> index;
  for (size_t i = 0; i + 1 < set->args.size(); ++i) index.push_back(LowerExpr(set->args[i]));
  CallSetter(set, object, index, value, set->range);
}

Value* Lowerer::LowerUserAssign(const ast::AssignExpr* e) {
  if (e->setter == nullptr) {
    // `a op= b` through `operator op` on storage: read once, combine, store.
    LValue place = LowerLValue(e->lhs);
    Value* old = LoadLValue(place);
    Value* value = CallOperator(e->op_call, old);
    StoreLValue(place, value);
    return e->yields_old ? old : value;
  }
  const auto* get = static_cast<const ast::CallExpr*>(e->lhs);
  const ast::CallExpr* set = e->setter;
  Value* rhs = e->op_call == nullptr ? LowerExpr(e->rhs) : nullptr;
  SetterObject object = ObjectOfSetter(set);
  std::vector<Value*> index;
  for (size_t i = 0; i + 1 < set->args.size(); ++i) index.push_back(LowerExpr(set->args[i]));
  Loc(e->range);
  Value* old = nullptr;
  Value* value = rhs;
  if (e->op != ast::OpKind::Assign) {
    std::vector<Value*> get_args;
    if (get->receiver != nullptr) get_args.push_back(object.value);
    get_args.insert(get_args.end(), index.begin(), index.end());
    old = b_.Call(Callee(get), get_args);
    if (e->op_call != nullptr) {
      value = CallOperator(e->op_call, old);
    } else {
      Value* result = ArithmeticOp(e->op, ConvertValue(old, LowerType(e->op_type)), rhs);
      value = ConvertValue(result, old->GetType());
    }
  }
  CallSetter(set, object, index, value, e->range);
  return e->yields_old ? old : value;
}

}  // namespace slope::lower
