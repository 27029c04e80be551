#include "compiler/targets/spirv/block_merge.h"

#include <memory>
#include <unordered_set>
#include <vector>

#include "compiler/ir/cfg.h"

namespace slope::targets::spirv {

using ir::Op;

MergePlan PlanMerges(const ir::Function& f, const SelectPlan& selects, const ChainPlan& chains) {
  // Edge predecessors (one entry per edge) and the blocks structured headers name as
  // their merge or continue block.
  std::unordered_map<const ir::Block*, size_t> preds;
  std::unordered_map<const ir::Block*, const ir::Block*> only_pred;
  std::unordered_map<const ir::Block*, size_t> named;
  for (const ir::Block* b : f.blocks) {
    const ir::Inst* t = b->Terminator();
    if (t == nullptr) continue;
    for (size_t e = 0; e < ir::EdgeCount(*t); ++e) {
      ++preds[t->targets[e]];
      only_pred[t->targets[e]] = b;
    }
    switch (t->GetOp()) {
      case Op::If:
        ++named[t->targets[2]];
        break;
      case Op::Loop:
        ++named[t->targets[1]], ++named[t->targets[2]];
        break;
      case Op::Switch:
        ++named[t->targets.back()];
        break;
      default:
        break;
    }
  }
  std::unordered_set<const ir::Block*> foreign;
  for (const ChainPlan::Chain& chain : chains.chains) {
    foreign.insert(chain.foreign_targets.begin(), chain.foreign_targets.end());
    foreign.insert(chain.exit);
  }
  auto names = [&](const ir::Block* b) {
    auto it = named.find(b);
    return it == named.end() ? size_t{0} : it->second;
  };
  // Blocks the else-chain loops write in their own way.
  auto in_chain = [&](const ir::Block* b) {
    return chains.header_chain.count(b) != 0 || chains.exit_chain.count(b) != 0 ||
           chains.dropped.count(b) != 0 || chains.to_dispatch.count(b) != 0 ||
           foreign.count(b) != 0;
  };
  auto special = [&](const ir::Block* b) {
    return selects.Converted(b) || selects.Absorbed(b) || in_chain(b);
  };
  // `b` is entered by one edge, from `from`, and is named by `headers` headers.
  auto single_entry = [&](const ir::Block* b, const ir::Block* from, size_t headers) {
    auto it = preds.find(b);
    return it != preds.end() && it->second == 1 && only_pred.at(b) == from && b->params.empty() &&
           names(b) == headers && !special(b) && b != f.blocks.front();
  };
  MergePlan plan;
  std::vector<const ir::Block*> loops;
  for (const ir::Block* h : f.blocks) {
    const ir::Inst* t = h->Terminator();
    if (t == nullptr || t->GetOp() != Op::Loop || special(h)) continue;
    loops.push_back(h);
    const ir::Block* body = t->targets[0];
    const ir::Inst* bt = body->Terminator();
    if (body == h || bt == nullptr || !single_entry(body, h, 0)) continue;
    // A loop test: one side leaves the loop.
    bool test = bt->GetOp() == Op::CondBr &&
                (bt->targets[0] == t->targets[1] || bt->targets[1] == t->targets[1]);
    if (bt->GetOp() != Op::Br && !test) continue;
    plan.header_body[h] = body;
    plan.owner[body] = h;
  }
  // The block whose label holds `b` once written.
  auto holder = [&](const ir::Block* b) {
    auto s = selects.owner.find(b);
    if (s != selects.owner.end()) b = s->second;
    auto m = plan.owner.find(b);
    return m != plan.owner.end() ? m->second : b;
  };
  // True when `s`, inside loop `h`, is inside no construct nested in the loop: none of
  // the structured headers between `h` and `s` on the dominator tree has a merge block
  // that dominates `s`. A continue target nested in a selection would be invalid.
  std::unique_ptr<ir::DomTree> dom;
  auto at_loop_level = [&](const ir::Block* s, const ir::Block* h) {
    if (dom == nullptr) dom = std::make_unique<ir::DomTree>(f);
    if (!dom->IsReachable(s) || !dom->Dominates(h, s)) return false;
    for (const ir::Block* x = s; x != h; x = dom->Idom(x)) {
      if (x != s && in_chain(x)) return false;
      const ir::Inst* xt = x->Terminator();
      if (x == s || selects.Converted(x) || xt == nullptr) continue;
      const ir::Block* merge = nullptr;
      if (xt->GetOp() == Op::If) merge = xt->targets[2];
      if (xt->GetOp() == Op::Loop) merge = xt->targets[1];
      if (xt->GetOp() == Op::Switch) merge = xt->targets.back();
      if (merge != nullptr && !dom->Dominates(merge, s)) return false;
    }
    return true;
  };
  std::unordered_set<const ir::Block*> continue_targets;
  for (const ir::Block* h : loops) continue_targets.insert(holder(h->Terminator()->targets[2]));
  for (const ir::Block* h : loops) {
    const ir::Block* c = h->Terminator()->targets[2];
    const ir::Inst* ct = c->Terminator();
    auto pred = only_pred.find(c);
    if (c == h || ct == nullptr || ct->GetOp() != Op::Br || pred == only_pred.end()) continue;
    const ir::Block* p = pred->second;
    const ir::Inst* pt = p->Terminator();
    if (!single_entry(c, p, 1) || pt->GetOp() != Op::Br || plan.Absorbed(p) ||
        plan.header_body.count(p) != 0 || chains.to_dispatch.count(p) != 0) {
      continue;
    }
    const ir::Block* s = holder(p);
    const ir::Inst* st = s->Terminator();
    // The holder may be an if-converted header (its arms and merge are written inside it).
    if (s == h || selects.Absorbed(s) || in_chain(s) || names(s) != 0 ||
        continue_targets.count(s) != 0 || plan.header_body.count(s) != 0 || st == nullptr ||
        st->GetOp() == Op::Loop || !at_loop_level(s, h)) {
      continue;
    }
    plan.continue_after[p] = c;
    plan.owner[c] = s;
    continue_targets.insert(s);
  }
  return plan;
}

}  // namespace slope::targets::spirv
