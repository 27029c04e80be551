#include "compiler/targets/spirv/else_chains.h"

#include <algorithm>
#include <unordered_set>

#include "compiler/ir/cfg.h"

namespace slope::targets::spirv {
namespace {

using ir::Block;
using ir::Inst;
using ir::Op;

/// `values` with each parameter of `block` replaced by the matching one of `args`.
std::vector<const ir::Value*> Substitute(std::vector<const ir::Value*> values, const Block* block,
                                         const std::vector<ir::Value*>& args) {
  for (const ir::Value*& v : values) {
    for (size_t i = 0; i < block->params.size(); ++i) {
      if (v == block->params[i]) {
        v = args.at(i);
        break;
      }
    }
  }
  return values;
}

class State {
 public:
  State(const ir::Function& f, const SelectPlan& selects) : f_(f), selects_(selects) {}
  ChainPlan Run();

 private:
  /// The header's `if`, when it is one the writer keeps as a branch.
  const Inst* KeptIf(const Block* b) const;
  /// True when the region entered at `entry` from its header is entered nowhere else
  /// and left only for `merge`, by returning, or by a `br` to a loop's merge or continue
  /// block or a switch's merge whose header is outside it; those `br`s are added to
  /// `chain`'s foreign exits.
  bool RegionLeavesOnlyFor(const Block* entry, const Block* merge, ChainPlan::Chain* chain);
  /// True when a value defined inside the chain (`interior`: its regions, its headers
  /// after the first and its dropped merge blocks) is used outside it, other than the
  /// ones the dispatch block defines: the flat form would leave the use undominated.
  bool LeaksValues(const ChainPlan::Chain& chain,
                   const std::unordered_set<const Block*>& interior) const;
  /// True when `inner`, the merge block of a header whose else block continues the
  /// chain, only branches on to `outer`, the merge block of the header before.
  bool Forwards(const Block* inner, const Block* outer) const;
  /// True when header `h`'s else block continues the chain as its next header.
  bool Links(const Block* h);

  const ir::Function& f_;
  const SelectPlan& selects_;
  std::unordered_map<const Block*, std::vector<const Block*>> preds_;
  std::unordered_map<const Block*, size_t> named_;
  std::unordered_set<const Block*> continues_;  // loops' continue blocks
  /// Loops' merge and continue blocks and switches' merge blocks, with their headers.
  std::unordered_multimap<const Block*, const Block*> breaks_to_;
  /// How many operands name each value, in the whole function.
  std::unordered_map<const ir::Value*, size_t> use_count_;
  /// The block defining each parameter and instruction.
  std::unordered_map<const ir::Value*, const Block*> def_block_;
  /// The blocks of the regions that RegionLeavesOnlyFor walked for the current chain.
  std::unordered_set<const Block*> regions_;
};

const Inst* State::KeptIf(const Block* b) const {
  const Inst* t = b->Terminator();
  if (t == nullptr || t->GetOp() != Op::If || selects_.Converted(b) || selects_.Absorbed(b)) {
    return nullptr;
  }
  return t;
}

bool State::RegionLeavesOnlyFor(const Block* entry, const Block* merge, ChainPlan::Chain* chain) {
  auto named = named_.find(entry);
  if (entry == merge || preds_[entry].size() != 1 || (named != named_.end() && named->second != 0)) {
    return false;
  }
  std::unordered_set<const Block*> inside{entry};
  std::vector<const Block*> work{entry};
  while (!work.empty()) {
    const Block* b = work.back();
    work.pop_back();
    const Inst* t = b->Terminator();
    if (t == nullptr) return false;
    for (size_t i = 0; i < ir::EdgeCount(*t); ++i) {
      const Block* s = t->targets[i];
      if (s == merge || inside.count(s) != 0) continue;
      // A header dominates its merge and continue blocks, so a construct inside the
      // region has its header in `inside` before its exits are reached.
      auto [first, last] = breaks_to_.equal_range(s);
      bool foreign = first != last && std::none_of(first, last, [&](const auto& named) {
                       return inside.count(named.second) != 0;
                     });
      if (foreign) {
        if (t->GetOp() != Op::Br) return false;
        auto known = std::find(chain->foreign_targets.begin(), chain->foreign_targets.end(), s);
        size_t index = known - chain->foreign_targets.begin();
        if (known == chain->foreign_targets.end()) chain->foreign_targets.push_back(s);
        chain->foreign_exits.emplace_back(b, index);
        continue;
      }
      inside.insert(s);
      work.push_back(s);
    }
  }
  regions_.insert(inside.begin(), inside.end());
  for (const Block* b : inside) {
    if (b == entry) continue;
    for (const Block* p : preds_[b]) {
      if (inside.count(p) == 0) return false;
    }
  }
  return true;
}

bool State::Forwards(const Block* inner, const Block* outer) const {
  const Inst* t = inner->Terminator();
  if (inner->insts.size() != 1 || t == nullptr || t->GetOp() != Op::Br || t->targets[0] != outer) {
    return false;
  }
  auto pred = preds_.find(inner);
  auto named = named_.find(inner);
  return pred != preds_.end() && pred->second.size() <= 2 && named != named_.end() &&
         named->second == 1;
}

bool State::Links(const Block* h) {
  const Inst* t = KeptIf(h);
  if (t == nullptr) return false;
  const Block* next = t->targets[1];
  const Inst* next_if = KeptIf(next);
  // A last `if` without `else` ends the chain one header early: it and its merge block
  // are then the last else region.
  if (next_if == nullptr || next == h || preds_[next].size() != 1 || named_[next] != 0 ||
      next_if->targets[1] == next_if->targets[2]) {
    return false;
  }
  return Forwards(next_if->targets[2], t->targets[2]);
}

bool State::LeaksValues(const ChainPlan::Chain& chain,
                        const std::unordered_set<const Block*>& interior) const {
  std::unordered_set<const ir::Value*> defined(chain.defined.begin(), chain.defined.end());
  for (const Block* b : f_.blocks) {
    if (interior.count(b) != 0) continue;
    for (const Inst* inst : b->insts) {
      for (const ir::Value* v : inst->operands) {
        auto def = def_block_.find(v);
        if (def != def_block_.end() && interior.count(def->second) != 0 && defined.count(v) == 0) {
          return true;
        }
      }
    }
  }
  return false;
}

ChainPlan State::Run() {
  ChainPlan plan;
  bool any_if = false;
  for (const Block* b : f_.blocks) {
    const Inst* t = b->Terminator();
    if (t == nullptr) continue;
    for (size_t i = 0; i < ir::EdgeCount(*t); ++i) preds_[t->targets[i]].push_back(b);
    switch (t->GetOp()) {
      case Op::If: ++named_[t->targets[2]]; any_if = true; break;
      case Op::Loop:
        ++named_[t->targets[1]];
        ++named_[t->targets[2]];
        continues_.insert(t->targets[2]);
        breaks_to_.emplace(t->targets[1], b);
        breaks_to_.emplace(t->targets[2], b);
        break;
      case Op::Switch:
        ++named_[t->targets.back()];
        breaks_to_.emplace(t->targets.back(), b);
        break;
      default: break;
    }
  }
  if (!any_if) return plan;
  for (const Block* b : f_.blocks) {
    for (const ir::Param* p : b->params) def_block_[p] = b;
    for (const Inst* inst : b->insts) {
      def_block_[inst] = b;
      for (const ir::Value* v : inst->operands) ++use_count_[v];
    }
  }
  // Which headers continue a chain from the header before them.
  std::unordered_map<const Block*, const Block*> next;
  std::unordered_set<const Block*> continued;
  for (const Block* b : f_.blocks) {
    if (Links(b)) {
      next[b] = b->Terminator()->targets[1];
      continued.insert(b->Terminator()->targets[1]);
    }
  }
  for (const Block* b : f_.blocks) {
    if (next.count(b) == 0 || continued.count(b) != 0) continue;
    ChainPlan::Chain chain;
    chain.exit = b->Terminator()->targets[2];
    for (const Block* h = b;; h = next.at(h)) {
      chain.headers.push_back(h);
      if (next.count(h) == 0) break;
    }
    // The arms, and the last header's else block, must leave only for their merge. The
    // exit block is entered from the chain alone (the arm before and the merge block
    // after), and the first header is no loop's continue block (which would then hold
    // a loop).
    bool ok = named_[chain.exit] == 1 && preds_[chain.exit].size() <= 2 &&
              continues_.count(b) == 0;
    regions_.clear();
    for (size_t k = 0; ok && k < chain.headers.size(); ++k) {
      const Inst* t = chain.headers[k]->Terminator();
      ok = RegionLeavesOnlyFor(t->targets[0], t->targets[2], &chain);
      if (ok && k + 1 == chain.headers.size()) {
        ok = RegionLeavesOnlyFor(t->targets[1], t->targets[2], &chain);
      }
    }
    if (!ok || chain.headers.size() < kMinChain) continue;
    std::unordered_set<const Block*> merges;
    for (const Block* h : chain.headers) merges.insert(h->Terminator()->targets[2]);
    // A dropped merge block's parameter may be used past the chain where that block
    // dominated the use (the arms before it all left the loop or returned): the
    // dispatch block defines it then. Uses in the dropped blocks' own `br`s are the
    // values passed on, which `passed` follows.
    std::unordered_map<const ir::Value*, size_t> forwarding_uses;
    for (const Block* merge : merges) {
      if (merge == chain.exit) continue;
      for (const ir::Value* v : merge->Terminator()->operands) ++forwarding_uses[v];
    }
    chain.defined.assign(chain.exit->params.begin(), chain.exit->params.end());
    // What the exit block receives, in terms of the current merge block's parameters
    // (or of values that dominate it): the merge blocks between pass values on.
    std::vector<const ir::Value*> passed(chain.exit->params.begin(), chain.exit->params.end());
    const Block* outer = nullptr;
    for (const Block* h : chain.headers) {
      const Block* merge = h->Terminator()->targets[2];
      if (outer != nullptr) {
        passed = Substitute(passed, outer, merge->Terminator()->operands);
        plan.dropped[merge] = chain.exit;
      }
      outer = merge;
      if (merge != chain.exit) {
        for (const ir::Value* param : merge->params) {
          auto uses = use_count_.find(param);
          if (uses == use_count_.end() || uses->second <= forwarding_uses[param]) continue;
          chain.defined.push_back(param);
          passed.push_back(param);
        }
      }
      for (const Block* p : preds_[merge]) {
        if (merges.count(p) != 0) continue;  // a dropped merge block passing values on
        const Inst* t = p->Terminator();
        for (size_t i = 0; i < ir::EdgeCount(*t); ++i) {
          if (t->targets[i] != merge) continue;
          chain.exits.emplace_back(p, i);
          chain.exit_values.push_back(Substitute(passed, merge, ir::EdgeArgs(*t, i)));
        }
      }
    }
    // With foreign exits, the loop's merge is a dispatch block before the exit block:
    // the edges into the exit block itself must be `br`s the writer can send there.
    std::vector<const Block*> into_exit;
    for (const auto& [p, edge] : chain.exits) {
      if (p->Terminator()->targets[edge] == chain.exit) into_exit.push_back(p);
    }
    std::unordered_set<const Block*> interior = regions_;
    interior.insert(chain.headers.begin() + 1, chain.headers.end());
    for (const Block* merge : merges) {
      if (merge != chain.exit) interior.insert(merge);
    }
    if ((chain.Dispatched() &&
         std::any_of(into_exit.begin(), into_exit.end(),
                     [](const Block* p) { return p->Terminator()->GetOp() != Op::Br; })) ||
        LeaksValues(chain, interior)) {
      for (const Block* merge : merges) plan.dropped.erase(merge);
      continue;
    }
    size_t index = plan.chains.size();
    for (const Block* h : chain.headers) plan.header_chain[h] = index;
    if (chain.Dispatched()) {
      for (const auto& [b, target] : chain.foreign_exits) plan.to_dispatch[b] = index;
      for (const Block* p : into_exit) plan.to_dispatch[p] = index;
    }
    plan.exit_chain[chain.exit] = index;
    plan.chains.push_back(std::move(chain));
  }
  return plan;
}

}  // namespace

ChainPlan PlanChains(const ir::Function& f, const SelectPlan& selects) {
  return State(f, selects).Run();
}

}  // namespace slope::targets::spirv
