#include "compiler/targets/spirv/select_arms.h"

#include <vector>

#include "compiler/ir/cfg.h"

namespace slope::targets::spirv {
namespace {

using ir::Block;
using ir::Inst;
using ir::Op;

/// True when running `inst` on a path that did not ask for it changes nothing but the
/// value it computes: no memory, no calls, and no integer division (which may trap on a
/// zero divisor where the original program never divided).
bool IsSpeculatable(const Inst& inst) {
  switch (inst.GetOp()) {
    case Op::Add: case Op::Sub: case Op::Mul: case Op::Neg:
    case Op::BitAnd: case Op::BitOr: case Op::BitXor: case Op::BitNot:
    case Op::Shl: case Op::Shr:
    case Op::LogicalAnd: case Op::LogicalOr: case Op::LogicalNot:
    case Op::Eq: case Op::Ne: case Op::Lt: case Op::Le: case Op::Gt: case Op::Ge:
    case Op::Convert: case Op::MakeVector: case Op::Splat: case Op::Extract: case Op::Insert:
    case Op::Shuffle: case Op::MakeMatrix: case Op::MakeStruct: case Op::MakeArray:
    case Op::Intrinsic:
      return true;
    case Op::Div: case Op::Rem:
      return inst.GetType()->Scalar()->IsFloat();
    default:
      return false;
  }
}

/// What writing a block and the converted diamonds after it as one straight line gives.
struct Run {
  bool pure = false;          ///< every instruction speculatable, ending in `br`
  const Block* end = nullptr; ///< the block whose `br` ends the line
  size_t cost = 0;            ///< instructions outside nested converted arms
};

/// The blocks reachable from the entry, each after every block it branches to (but
/// along back edges): arms and merge blocks come before their header.
std::vector<const Block*> PostOrder(const ir::Function& f) {
  std::vector<const Block*> order;
  if (f.blocks.empty()) return order;
  std::unordered_map<const Block*, bool> seen;
  // Each frame: a block and how many of its successors were pushed already.
  std::vector<std::pair<const Block*, size_t>> stack{{f.blocks.front(), 0}};
  seen[f.blocks.front()] = true;
  while (!stack.empty()) {
    auto& [b, next] = stack.back();
    const Inst* t = b->Terminator();
    size_t edges = t != nullptr ? ir::EdgeCount(*t) : 0;
    if (next < edges) {
      const Block* s = t->targets[next++];
      if (!seen[s]) {
        seen[s] = true;
        stack.emplace_back(s, 0);
      }
      continue;
    }
    order.push_back(b);
    stack.pop_back();
  }
  return order;
}

}  // namespace

SelectPlan PlanSelects(const ir::Function& f) {
  SelectPlan plan;
  std::unordered_map<const Block*, size_t> preds;
  std::unordered_map<const Block*, size_t> named;  // as merge or continue block
  for (const Block* b : f.blocks) {
    const Inst* t = b->Terminator();
    if (t == nullptr) continue;
    for (size_t i = 0; i < ir::EdgeCount(*t); ++i) ++preds[t->targets[i]];
    switch (t->GetOp()) {
      case Op::If: ++named[t->targets[2]]; break;
      case Op::Loop: ++named[t->targets[1]]; ++named[t->targets[2]]; break;
      case Op::Switch: ++named[t->targets.back()]; break;
      default: break;
    }
  }
  auto count = [](const std::unordered_map<const Block*, size_t>& m, const Block* b) {
    auto it = m.find(b);
    return it == m.end() ? size_t{0} : it->second;
  };
  std::vector<const Block*> order = PostOrder(f);
  std::unordered_map<const Block*, Run> runs;
  // The line an arm starting at `b` makes, if it may be written unconditionally before `merge`.
  auto arm = [&](const Block* b, const Block* merge) -> const Block* {
    if (b == merge || count(preds, b) != 1 || count(named, b) != 0) return nullptr;
    const Run& run = runs[b];
    if (!run.pure || run.cost > kMaxArmInsts) return nullptr;
    const Inst* end = run.end->Terminator();
    if (end->GetOp() != Op::Br || end->targets[0] != merge) return nullptr;
    return run.end;
  };
  for (const Block* b : order) {
    const Inst* t = b->Terminator();
    if (t == nullptr) continue;
    bool own_pure = true;
    for (size_t i = 0; i + 1 < b->insts.size() && own_pure; ++i) {
      own_pure = IsSpeculatable(*b->insts[i]);
    }
    size_t own_cost = b->insts.size() - 1;
    Run run;
    if (t->GetOp() == Op::Br) {
      run = {own_pure, b, own_cost};
    } else if (t->GetOp() == Op::If) {
      const Block* then_block = t->targets[0];
      const Block* else_block = t->targets[1];
      const Block* merge = t->targets[2];
      bool ok = then_block != else_block && count(preds, merge) == 2 && count(named, merge) == 1;
      for (const ir::Param* p : merge->params) {
        const ir::Type* type = p->GetType();
        ok = ok && (type->IsScalar() || (type->IsVector() && type->Element()->IsScalar()));
      }
      const Block* then_end = ok ? arm(then_block, merge) : nullptr;
      const Block* else_end = ok ? arm(else_block, merge) : nullptr;
      if (then_end != nullptr && else_end != nullptr) {
        plan.arms[b] = {then_end, else_end};
        const Run& rest = runs[merge];
        run = {own_pure && rest.pure, rest.end, own_cost + merge->params.size() + rest.cost};
      }
    }
    runs[b] = run;
  }
  // Owners, headers before the blocks they hold (reverse post-order).
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const Block* b = *it;
    if (!plan.Converted(b)) continue;
    auto own = plan.owner.find(b);
    const Block* holder = own != plan.owner.end() ? own->second : b;
    const Inst* t = b->Terminator();
    for (size_t i = 0; i < 3; ++i) plan.owner[t->targets[i]] = holder;
  }
  return plan;
}

}  // namespace slope::targets::spirv
