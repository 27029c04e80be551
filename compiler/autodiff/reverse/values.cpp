#include "compiler/autodiff/reverse/values.h"

#include "compiler/ir/type_walk.h"

namespace slope::autodiff::reverse {

bool IsIdentity(const ir::Function* f) {
  if (!f->autodiff.zero_derivative || f->params.size() != 1 || f->blocks.size() != 1) return false;
  const ir::Block* b = f->blocks.front();
  return b->insts.size() == 1 && b->insts[0]->GetOp() == ir::Op::Return &&
         b->insts[0]->operands.size() == 1 && b->insts[0]->operands[0] == f->params[0];
}

bool PureOp(ir::Op op) {
  const ir::OpInfo& info = ir::GetOpInfo(op);
  return !info.is_terminator && !info.has_side_effects && !info.reads_memory && op != ir::Op::Var &&
         op != ir::Op::Call;
}

uint64_t StoredBytes(const ir::Type* root) {
  return ir::FoldType<uint64_t>(root, [](const ir::Type* t, const auto& recurse) -> uint64_t {
    if (t->IsBool()) return 4;
    if (t->IsDevicePointer()) return 8;
    if (t->IsInt() || t->IsFloat()) return t->Width() / 8;
    if (t->IsVector() || t->IsMatrix() || t->IsArray()) return t->Count() * recurse(t->Element());
    uint64_t sum = 0;
    if (t->IsStruct()) {
      for (const ir::Type* m : t->Members()) sum += recurse(m);
    }
    return sum;
  });
}

bool IsFunctionPointer(const ir::Type* t) {
  return t->IsPointer() && t->Space() == ir::AddressSpace::Function;
}

const ir::Value* PointerRoot(const ir::Value* ptr) {
  while (ptr->VKind() == ir::ValueKind::Inst) {
    const auto* inst = static_cast<const ir::Inst*>(ptr);
    if (inst->GetOp() != ir::Op::ElementPtr && inst->GetOp() != ir::Op::MemberPtr) break;
    ptr = inst->operands.at(0);
  }
  return ptr;
}

}  // namespace slope::autodiff::reverse
