#pragma once
// Appends instructions to a block. Result types are computed from the operands where the
// instruction kind determines them; the verifier re-checks every rule.

#include <vector>

#include "compiler/ir/ir.h"

namespace slope::ir {

class Builder {
 public:
  explicit Builder(Module& module) : module_(module) {}

  Module& GetModule() { return module_; }
  TypeTable& Types() { return module_.Types(); }

  void SetInsertBlock(Block* block) { block_ = block; }
  Block* GetInsertBlock() const { return block_; }
  /// True when the insertion block already ended with a terminator.
  bool IsTerminated() const { return block_ == nullptr || block_->Terminator() != nullptr; }
  void SetLoc(source::SourceLoc loc) { loc_ = loc; }

  /// Appends a generic instruction.
  Inst* Emit(Op op, const Type* type, std::vector<Value*> operands = {},
             std::vector<uint32_t> imms = {});

  Inst* Binary(Op op, Value* a, Value* b);  ///< arithmetic and bit operations
  Inst* Compare(Op op, Value* a, Value* b); ///< bool-valued result of a's shape
  Inst* Unary(Op op, Value* a);
  Inst* Convert(Value* v, const Type* to);
  Inst* Splat(Value* scalar, uint32_t count);
  Inst* Extract(Value* vec, uint32_t index);
  Inst* Shuffle(Value* a, Value* b, std::vector<uint32_t> lanes);
  Inst* CallIntrinsic(Intrinsic which, const Type* type, std::vector<Value*> args);
  Inst* Call(Function* callee, std::vector<Value*> args);
  /// A function-local variable, placed at the start of the entry block.
  Inst* Var(Function* f, const Type* pointee);
  Inst* Load(Value* ptr);
  Inst* Store(Value* ptr, Value* value);
  /// A pointer to element `index` of a buffer: a global, or a buffer value that
  /// legalize-resources traces back to one before SPIR-V is written.
  Inst* ElementPtr(Value* buffer, Value* index);
  /// A pointer to member `index` of the struct `ptr` points at.
  Inst* MemberPtr(Value* ptr, uint32_t index);
  /// A struct value from one value per member.
  Inst* MakeStruct(const Type* type, std::vector<Value*> members);
  /// An array value from one value per element.
  Inst* MakeArray(const Type* type, std::vector<Value*> elements);
  /// A pointer to element `index` of the array `ptr` points at, in the same space.
  Inst* IndexPtr(Value* ptr, Value* index);

  Inst* Br(Block* dest, std::vector<Value*> args = {});
  Inst* CondBr(Value* cond, Block* if_true, Block* if_false);
  Inst* If(Value* cond, Block* then_block, Block* else_block, Block* merge);
  Inst* Loop(Block* body, Block* merge, Block* continue_block);
  /// One case of a `switch`: a constant of the selector's type and where it goes.
  struct SwitchCase {
    Value* value;
    Block* target;
  };
  Inst* Switch(Value* selector, Block* default_block, const std::vector<SwitchCase>& cases,
               Block* merge);
  Inst* Return(Value* value = nullptr);
  Inst* Unreachable();

 private:
  Inst* Append(Inst* inst);

  Module& module_;
  Block* block_ = nullptr;
  source::SourceLoc loc_;
  /// Where the last Var ended the variables of an entry block (checked before reuse).
  const Block* var_block_ = nullptr;
  size_t var_end_ = 0;
};

}  // namespace slope::ir
