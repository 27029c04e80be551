#include "compiler/ir/builder.h"

#include "compiler/base/ice.h"

namespace slope::ir {

Inst* Builder::Append(Inst* inst) {
  SLOPE_ASSERT(block_ != nullptr);
  SLOPE_ASSERT(block_->Terminator() == nullptr);
  inst->block = block_;
  inst->loc = loc_;
  block_->insts.push_back(inst);
  return inst;
}

Inst* Builder::Emit(Op op, const Type* type, std::vector<Value*> operands,
                    std::vector<uint32_t> imms) {
  Inst* inst = module_.NewInst(op, type);
  inst->operands = std::move(operands);
  inst->imms = std::move(imms);
  return Append(inst);
}

Inst* Builder::Binary(Op op, Value* a, Value* b) { return Emit(op, a->GetType(), {a, b}); }

Inst* Builder::Compare(Op op, Value* a, Value* b) {
  return Emit(op, Types().WithScalar(a->GetType(), Types().Bool()), {a, b});
}

Inst* Builder::Unary(Op op, Value* a) { return Emit(op, a->GetType(), {a}); }

Inst* Builder::Convert(Value* v, const Type* to) { return Emit(Op::Convert, to, {v}); }

Inst* Builder::Splat(Value* scalar, uint32_t count) {
  return Emit(Op::Splat, Types().Vector(scalar->GetType(), count), {scalar});
}

Inst* Builder::Extract(Value* vec, uint32_t index) {
  const Type* t = vec->GetType();
  return Emit(Op::Extract, t->IsStruct() ? t->Members().at(index) : t->Element(), {vec}, {index});
}

Inst* Builder::Shuffle(Value* a, Value* b, std::vector<uint32_t> lanes) {
  const Type* t = Types().Vector(a->GetType()->Scalar(), static_cast<uint32_t>(lanes.size()));
  return Emit(Op::Shuffle, t, {a, b}, std::move(lanes));
}

Inst* Builder::CallIntrinsic(Intrinsic which, const Type* type, std::vector<Value*> args) {
  return Emit(Op::Intrinsic, type, std::move(args), {static_cast<uint32_t>(which)});
}

Inst* Builder::Call(Function* callee, std::vector<Value*> args) {
  Inst* inst = module_.NewInst(Op::Call, callee->ResultType());
  inst->operands = std::move(args);
  inst->callee = callee;
  return Append(inst);
}

Inst* Builder::Var(Function* f, const Type* pointee) {
  Inst* inst = module_.NewInst(Op::Var, Types().Pointer(AddressSpace::Function, pointee));
  Block* entry = f->blocks.front();
  inst->block = entry;
  inst->loc = loc_;
  // Variables come first in the entry block, in creation order. The end of the
  // variables is looked for from both ends at once: a function of 10^5 locals, or of
  // 10^5 instructions after a few of them, finds it in as many steps as the shorter
  // side (the lowering keeps the entry block to its variables and one branch).
  // The end found last time is reused while it still is the end (one builder writing a
  // long function with variables makes them one by one).
  std::vector<Inst*>& insts = entry->insts;
  size_t front = 0;
  size_t back = insts.size();
  if (var_block_ == entry && var_end_ <= insts.size() &&
      (var_end_ == 0 || insts[var_end_ - 1]->GetOp() == Op::Var) &&
      (var_end_ == insts.size() || insts[var_end_]->GetOp() != Op::Var)) {
    front = back = var_end_;
  }
  while (front < back) {
    if (insts[front]->GetOp() != Op::Var) {
      back = front;
      break;
    }
    ++front;
    if (insts[back - 1]->GetOp() == Op::Var) {
      front = back;
      break;
    }
    --back;
  }
  insts.insert(insts.begin() + static_cast<std::ptrdiff_t>(front), inst);
  var_block_ = entry;
  var_end_ = front + 1;
  return inst;
}

Inst* Builder::Load(Value* ptr) { return Emit(Op::Load, ptr->GetType()->Element(), {ptr}); }

Inst* Builder::Store(Value* ptr, Value* value) {
  return Emit(Op::Store, Types().Void(), {ptr, value});
}

Inst* Builder::ElementPtr(Value* buffer, Value* index) {
  const Type* t = Types().Pointer(AddressSpace::StorageBuffer, buffer->GetType()->Element());
  return Emit(Op::ElementPtr, t, {buffer, index});
}

Inst* Builder::MemberPtr(Value* ptr, uint32_t index) {
  const Type* p = ptr->GetType();
  const Type* t = Types().Pointer(p->Space(), p->Element()->Members().at(index));
  return Emit(Op::MemberPtr, t, {ptr}, {index});
}

Inst* Builder::MakeStruct(const Type* type, std::vector<Value*> members) {
  return Emit(Op::MakeStruct, type, std::move(members));
}

Inst* Builder::MakeArray(const Type* type, std::vector<Value*> elements) {
  return Emit(Op::MakeArray, type, std::move(elements));
}

Inst* Builder::IndexPtr(Value* ptr, Value* index) {
  const Type* p = ptr->GetType();
  return Emit(Op::ElementPtr, Types().Pointer(p->Space(), p->Element()->Element()), {ptr, index});
}

Inst* Builder::Br(Block* dest, std::vector<Value*> args) {
  Inst* inst = Emit(Op::Br, Types().Void(), std::move(args));
  inst->targets = {dest};
  return inst;
}

Inst* Builder::CondBr(Value* cond, Block* if_true, Block* if_false) {
  Inst* inst = Emit(Op::CondBr, Types().Void(), {cond});
  inst->targets = {if_true, if_false};
  return inst;
}

Inst* Builder::If(Value* cond, Block* then_block, Block* else_block, Block* merge) {
  Inst* inst = Emit(Op::If, Types().Void(), {cond});
  inst->targets = {then_block, else_block, merge};
  return inst;
}

Inst* Builder::Loop(Block* body, Block* merge, Block* continue_block) {
  Inst* inst = Emit(Op::Loop, Types().Void());
  inst->targets = {body, merge, continue_block};
  return inst;
}

Inst* Builder::Switch(Value* selector, Block* default_block, const std::vector<SwitchCase>& cases,
                      Block* merge) {
  Inst* inst = Emit(Op::Switch, Types().Void(), {selector});
  inst->targets = {default_block};
  for (const SwitchCase& c : cases) {
    inst->operands.push_back(c.value);
    inst->targets.push_back(c.target);
  }
  inst->targets.push_back(merge);
  return inst;
}

Inst* Builder::Return(Value* value) {
  if (value == nullptr) return Emit(Op::Return, Types().Void());
  return Emit(Op::Return, Types().Void(), {value});
}

Inst* Builder::Unreachable() { return Emit(Op::Unreachable, Types().Void()); }

}  // namespace slope::ir
