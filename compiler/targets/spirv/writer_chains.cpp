#include "compiler/targets/spirv/writer_internal.h"

// The Writer's if-converted diamonds (select_arms.h) and else-chain loops (else_chains.h).

namespace slope::targets::spirv {

void Writer::WriteChainBranch(const ir::Block& header, size_t index) {
  const ChainPlan::Chain& chain = chains_.chains[index];
  const ChainIds& ids = chain_ids_[index];
  const ir::Inst* t = header.Terminator();
  if (&header == chain.headers.front()) {
    functions_.Emit(SpvOp::OpBranch, {ids.loop});
    functions_.Emit(SpvOp::OpLabel, {ids.loop});
    if (debug_) debug_->EnterBlock(*header.GetFunction());
    uint32_t merge = ids.dispatch != 0 ? ids.dispatch : labels_.at(chain.exit);
    functions_.Emit(SpvOp::OpLoopMerge, {merge, ids.continue_label, 0});
    functions_.Emit(SpvOp::OpBranch, {ids.first});
    functions_.Emit(SpvOp::OpLabel, {ids.first});
    if (debug_) debug_->EnterBlock(*header.GetFunction());
  }
  // Each arm's construct ends where the next condition is computed; the arm itself
  // breaks out of the loop.
  functions_.Emit(SpvOp::OpSelectionMerge, {labels_.at(t->targets[1]), 0});
  functions_.Emit(SpvOp::OpBranchConditional,
                  {ValueId(t->operands[0]), labels_.at(t->targets[0]), labels_.at(t->targets[1])});
}

void Writer::WriteChainDispatch(size_t index) {
  const ChainPlan::Chain& chain = chains_.chains[index];
  const ChainIds& ids = chain_ids_[index];
  ir::TypeTable& types = module_.Types();
  const ir::Function& f = *chain.exit->GetFunction();
  functions_.Emit(SpvOp::OpLabel, {ids.dispatch});
  if (debug_) debug_->EnterBlock(f);
  // One phi per value: `normal(e)` gives what exit e passes, `foreign(b, j)` what foreign
  // exit b (to target j) passes; OpUndef where an edge carries no such value.
  auto phi = [&](const ir::Type* type, uint32_t id, const auto& normal, const auto& foreign) {
    std::vector<uint32_t> ops{TypeId(type), id};
    for (size_t e = 0; e < chain.exits.size(); ++e) {
      ops.push_back(normal(e));
      ops.push_back(labels_.at(chain.exits[e].first));
    }
    for (const auto& [b, j] : chain.foreign_exits) {
      ops.push_back(foreign(b, j));
      ops.push_back(labels_.at(b));
    }
    functions_.Emit(SpvOp::OpPhi, ops);
  };
  for (size_t i = 0; i < chain.defined.size(); ++i) {
    const ir::Type* type = chain.defined[i]->GetType();
    phi(
        type, ValueId(chain.defined[i]),
        [&](size_t e) {
          const std::vector<const ir::Value*>& values = chain.exit_values[e];
          return i < values.size() ? ValueId(values[i]) : UndefId(type);
        },
        [&](const ir::Block*, size_t) { return UndefId(type); });
  }
  const ir::Type* u32 = types.Int(32, false);
  phi(
      u32, ids.selector, [&](size_t) { return U32Const(0); },
      [&](const ir::Block*, size_t j) { return U32Const(static_cast<uint32_t>(j + 1)); });
  for (size_t j = 0; j < chain.foreign_targets.size(); ++j) {
    const ir::Block* target = chain.foreign_targets[j];
    for (size_t i = 0; i < target->params.size(); ++i) {
      const ir::Type* type = target->params[i]->GetType();
      phi(
          type, ids.target_phis[j][i], [&](size_t) { return UndefId(type); },
          [&](const ir::Block* b, size_t to) {
            return to == j ? ValueId(ir::EdgeArgs(*b->Terminator(), 0).at(i)) : UndefId(type);
          });
    }
  }
  // `if (selector == j + 1) { br target j }`, one selection per target; the last merges
  // at the exit block.
  for (size_t j = 0; j < chain.foreign_targets.size(); ++j) {
    uint32_t is_j = NewId();
    functions_.Emit(SpvOp::OpIEqual, {TypeId(types.Bool()), is_j, ids.selector,
                                      U32Const(static_cast<uint32_t>(j + 1))});
    uint32_t next = j + 1 < chain.foreign_targets.size() ? NewId() : ids.exit;
    functions_.Emit(SpvOp::OpSelectionMerge, {next, 0});
    functions_.Emit(SpvOp::OpBranchConditional, {is_j, ids.target_labels[j], next});
    functions_.Emit(SpvOp::OpLabel, {ids.target_labels[j]});
    if (debug_) debug_->EnterBlock(f);
    functions_.Emit(SpvOp::OpBranch, {labels_.at(chain.foreign_targets[j])});
    if (next != ids.exit) {
      functions_.Emit(SpvOp::OpLabel, {next});
      if (debug_) debug_->EnterBlock(f);
    }
  }
  if (chain.foreign_targets.empty()) functions_.Emit(SpvOp::OpBranch, {ids.exit});
}

uint32_t Writer::UndefId(const ir::Type* t) {
  auto it = undefs_.find(t);
  if (it != undefs_.end()) return it->second;
  uint32_t id = NewId();
  globals_.Emit(SpvOp::OpUndef, {TypeId(t), id});
  undefs_.emplace(t, id);
  return id;
}

void Writer::WriteSelects(const ir::Block& header) {
  const ir::Inst* t = header.Terminator();
  const ir::Block* merge = t->targets[2];
  const auto& [then_end, else_end] = selects_.arms.at(&header);
  uint32_t cond = ValueId(t->operands[0]);
  std::map<uint32_t, uint32_t> splats;  // vector length -> the condition splatted
  for (size_t i = 0; i < merge->params.size(); ++i) {
    const ir::Type* type = merge->params[i]->GetType();
    uint32_t c = cond;
    if (type->IsVector()) {
      // SPIR-V 1.3's OpSelect picks per component: the condition needs as many.
      uint32_t n = type->Count();
      auto it = splats.find(n);
      if (it == splats.end()) {
        ir::TypeTable& types = module_.Types();
        uint32_t id = NewId();
        std::vector<uint32_t> ops{TypeId(types.Vector(types.Bool(), n)), id};
        ops.insert(ops.end(), n, cond);
        functions_.Emit(SpvOp::OpCompositeConstruct, ops);
        it = splats.emplace(n, id).first;
      }
      c = it->second;
    }
    functions_.Emit(SpvOp::OpSelect, {TypeId(type), ValueId(merge->params[i]), c,
                                      ValueId(then_end->Terminator()->operands.at(i)),
                                      ValueId(else_end->Terminator()->operands.at(i))});
  }
}

}  // namespace slope::targets::spirv
