// mem2reg: promotes `var` slots whose every use is a direct `load` or `store` to SSA
// values. Where different stores reach a join, the join takes a block parameter and
// every edge into it passes the value it carries (pruned SSA: only where the variable
// is live). Loop headers receive the value from the preheader and from the back edge;
// merge blocks from each arm of the selection. An `if` without an else arm enters its
// merge block directly, an edge that cannot carry arguments: a new else block that only
// branches to the merge is inserted on it; likewise for the edges of a `switch` that go
// straight to its merge block (its default or an empty case). A variable that would need
// a parameter on a block entered any other way that cannot carry arguments stays in
// memory. Reading a variable before any store gives the zero of its type. A buffer has
// no zero: a buffer variable that some path reads before any store stays in memory (for
// legalize-resources to report), and unreachable code reads the first value stored.

#include <algorithm>
#include <map>
#include <set>

#include "compiler/base/ice.h"
#include "compiler/base/pointer_hash.h"
#include "compiler/ir/cfg.h"
#include "compiler/ir/type_walk.h"
#include "compiler/passes/passes.h"

namespace slope::passes {
namespace {

using ir::Block;
using ir::Inst;
using ir::Op;
using ir::Value;

class State {
 public:
  State(ir::Module& module, ir::Function& f) : module_(module), f_(f) {}
  bool Run();

 private:
  void FindCandidates();
  /// Places parameters for var `v`; false when some join cannot take one.
  bool Place(size_t v, const ir::DomTree& dom,
             const std::map<const Block*, std::vector<ir::Edge>>& preds);
  /// Fills accesses_: the blocks that load or store each var, in reverse post-order.
  void FindAccesses(const ir::DomTree& dom);
  void SplitIfEdges();
  void Rename();
  void RemoveTrivialParams();
  Value* Materialize(size_t v, Value* current);
  /// The value of the first store into var `v` (what unreachable code reads of a buffer).
  Value* FirstStored(size_t v);

  ir::Module& module_;
  ir::Function& f_;
  std::vector<Inst*> vars_;  ///< promoted, in entry-block order
  base::PointerMap<Value, size_t> var_index_;
  /// A block's loads and stores of one var: whether it stores, and whether it loads
  /// before its first store (the var is live into the block).
  struct Access {
    const Block* block;
    bool stored = false;
    bool upward_load = false;
  };
  std::vector<std::vector<Access>> accesses_;
  /// Blocks that take a parameter for each var (filled by Place).
  std::map<const Block*, std::vector<size_t>> placed_;
  /// The parameters added, per block, with the var each one carries.
  std::map<const Block*, std::vector<std::pair<size_t, ir::Param*>>> params_;
  base::PointerMap<Value, Value*> replace_;
  base::PointerSet<Inst> remove_;
  std::vector<Value*> zero_;  ///< per var, made when first needed
};

/// Whether a value of type `t` has a zero: numbers, and structs and arrays of them.
bool HasZero(const ir::Type* root) {
  return ir::FoldType<bool>(root, [](const ir::Type* t, const auto& recurse) {
    if (t->IsScalar() || t->IsVector() || t->IsMatrix()) return true;
    if (t->IsDevicePointer()) return true;  // null
    if (t->IsArray()) return recurse(t->Element());
    if (!t->IsStruct()) return false;
    return std::all_of(t->Members().begin(), t->Members().end(), recurse);
  });
}

/// Resources (buffers, textures, samplers), and values with a zero. Structs and arrays
/// are promoted as whole values (loads and stores of the whole variable only).
bool IsPromotableType(const ir::Type* t) { return t->IsResource() || HasZero(t); }

void State::FindCandidates() {
  std::vector<Inst*> candidates;
  for (Inst* inst : f_.blocks.front()->insts) {
    if (inst->GetOp() == Op::Var && IsPromotableType(inst->GetType()->Element())) {
      candidates.push_back(inst);
    }
  }
  size_t operands = 0;
  for (const Block* b : f_.blocks) {
    for (const Inst* inst : b->insts) operands += inst->operands.size();
  }
  base::PointerSet<Value> escaped(operands);
  for (const Block* b : f_.blocks) {
    for (const Inst* inst : b->insts) {
      for (size_t i = 0; i < inst->operands.size(); ++i) {
        bool direct = i == 0 && (inst->GetOp() == Op::Load || inst->GetOp() == Op::Store);
        if (!direct) escaped.Insert(inst->operands[i]);
      }
    }
  }
  for (Inst* var : candidates) {
    if (escaped.Contains(var)) continue;
    var_index_[var] = vars_.size();
    vars_.push_back(var);
  }
}

bool State::Place(size_t v, const ir::DomTree& dom,
                  const std::map<const Block*, std::vector<ir::Edge>>& preds) {
  const Inst* var = vars_[v];
  const bool resource = var->GetType()->Element()->IsResource();
  std::set<const Block*> defs, live_in;
  for (const Access& a : accesses_[v]) {
    if (a.stored) defs.insert(a.block);
  }
  // The pruned frontier below is a subset of the unpruned one: where that is empty (a
  // var stored and read in straight-line code, however long), no block takes a
  // parameter and the liveness walk, as long as the code between the stores and the
  // loads, is not needed. Resources need it to know whether the entry block reads them.
  if (!resource) {
    std::vector<const Block*> def_work(defs.begin(), defs.end());
    std::set<const Block*> frontier;
    while (!def_work.empty()) {
      const Block* b = def_work.back();
      def_work.pop_back();
      for (Block* y : dom.Frontier(b)) {
        if (frontier.insert(y).second && defs.count(y) == 0) def_work.push_back(y);
      }
    }
    if (frontier.empty()) return true;
  }
  std::vector<const Block*> work;
  for (const Access& a : accesses_[v]) {
    if (a.upward_load && live_in.insert(a.block).second) work.push_back(a.block);
  }
  // Live-in: upward-exposed loads, propagated backwards through blocks without stores.
  while (!work.empty()) {
    const Block* b = work.back();
    work.pop_back();
    auto it = preds.find(b);
    if (it == preds.end()) continue;
    for (const ir::Edge& e : it->second) {
      if (!dom.IsReachable(e.from) || defs.count(e.from) != 0) continue;
      if (live_in.insert(e.from).second) work.push_back(e.from);
    }
  }
  if (resource && (defs.empty() || live_in.count(f_.blocks.front()) != 0)) {
    return false;
  }
  // Iterated dominance frontier of the stores, pruned to where the var is live.
  std::vector<const Block*> def_work(defs.begin(), defs.end());
  std::set<const Block*> has_param;
  while (!def_work.empty()) {
    const Block* b = def_work.back();
    def_work.pop_back();
    for (Block* y : dom.Frontier(b)) {
      if (live_in.count(y) == 0 || !has_param.insert(y).second) continue;
      if (defs.count(y) == 0) def_work.push_back(y);
    }
  }
  // Every edge into a block with a parameter must be able to pass the value.
  for (const Block* y : has_param) {
    for (const ir::Edge& e : preds.at(y)) {
      const Inst* t = e.from->Terminator();
      bool ok = (t->GetOp() == Op::Br) ||
                (t->GetOp() == Op::CondBr && t->targets[0] != t->targets[1]) ||
                (t->GetOp() == Op::If && e.index == 1 && t->targets[2] == y) ||
                (t->GetOp() == Op::Switch && t->targets.back() == y);
      if (!ok) return false;
    }
  }
  for (const Block* b : has_param) placed_[b].push_back(v);
  return true;
}

void State::FindAccesses(const ir::DomTree& dom) {
  // One walk for every var: a function of many vars and blocks takes time linear in
  // its instructions, not their product.
  accesses_.assign(vars_.size(), {});
  for (Block* b : dom.ReversePostOrder()) {
    for (const Inst* inst : b->insts) {
      if (inst->operands.empty()) continue;
      if (inst->GetOp() != Op::Store && inst->GetOp() != Op::Load) continue;
      const size_t* index = var_index_.Find(inst->operands[0]);
      if (index == nullptr) continue;
      std::vector<Access>& list = accesses_[*index];
      if (list.empty() || list.back().block != b) list.push_back({b});
      Access& a = list.back();
      if (inst->GetOp() == Op::Store) a.stored = true;
      if (inst->GetOp() == Op::Load && !a.stored) a.upward_load = true;
    }
  }
}

void State::SplitIfEdges() {
  std::vector<Block*> blocks = f_.blocks;
  for (Block* header : blocks) {
    Inst* t = header->Terminator();
    if (t->GetOp() != Op::If && t->GetOp() != Op::Switch) continue;
    Block* merge = t->targets.back();
    size_t edges = ir::EdgeCount(*t);
    bool direct = false;
    for (size_t i = 0; i < edges; ++i) direct = direct || t->targets[i] == merge;
    if (!direct || placed_.count(merge) == 0) continue;
    // A block that only passes the values on: `if` and `switch` edges take no
    // arguments. Every edge of the header that went straight to the merge enters it.
    Block* else_block = module_.AddBlock(&f_);
    Inst* br = module_.NewInst(Op::Br, module_.Types().Void());
    br->targets = {merge};
    br->block = else_block;
    br->loc = t->loc;
    else_block->insts.push_back(br);
    for (size_t i = 0; i < edges; ++i) {
      if (t->targets[i] == merge) t->targets[i] = else_block;
    }
    auto header_at = std::find(f_.blocks.begin(), f_.blocks.end(), header);
    auto merge_at = std::find(f_.blocks.begin(), f_.blocks.end(), merge);
    f_.blocks.insert(merge_at > header_at ? merge_at : header_at + 1, else_block);
  }
}

Value* State::FirstStored(size_t v) {
  for (const Block* b : f_.blocks) {
    for (const Inst* inst : b->insts) {
      if (inst->GetOp() == Op::Store && inst->operands[0] == vars_[v]) return inst->operands[1];
    }
  }
  SLOPE_ICE("mem2reg: a buffer variable read on no reachable path has no store");
}

Value* State::Materialize(size_t v, Value* current) {
  if (current != nullptr) return current;
  if (vars_[v]->GetType()->Element()->IsResource()) return FirstStored(v);
  if (zero_[v] == nullptr) zero_[v] = ir::ZeroValue(module_, f_, vars_[v]->GetType()->Element());
  return zero_[v];
}

void State::Rename() {
  ir::DomTree dom(f_);
  // The arguments each branch passed before new parameters were added.
  std::map<const Inst*, std::vector<std::vector<Value*>>> old_args;
  for (Block* b : f_.blocks) {
    Inst* t = b->Terminator();
    if (!ir::EdgeTakesArgs(*t)) continue;
    for (size_t i = 0; i < ir::EdgeCount(*t); ++i) old_args[t].push_back(ir::EdgeArgs(*t, i));
  }
  for (Block* b : f_.blocks) {
    auto it = placed_.find(b);
    if (it == placed_.end()) continue;
    for (size_t v : it->second) {
      ir::Param* p = module_.AddParam(vars_[v]->GetType()->Element(), b);
      b->params.push_back(p);
      params_[b].push_back({v, p});
    }
  }
  // Each var's current value (nullptr stands for "never stored": zero) while the
  // dominator tree is walked; a block's changes are undone when its subtree is done,
  // so the walk takes time linear in the blocks plus the loads and stores, however
  // many vars the function has.
  std::vector<Value*> cur(vars_.size(), nullptr);
  std::vector<std::pair<size_t, Value*>> undo;
  auto set = [&](size_t v, Value* value) {
    undo.emplace_back(v, cur[v]);
    cur[v] = value;
  };
  auto undo_to = [&](size_t mark) {
    for (; undo.size() > mark; undo.pop_back()) cur[undo.back().first] = undo.back().second;
  };
  auto process = [&](Block* b) {
    for (auto& [v, p] : params_[b]) set(v, p);
    std::vector<Inst*> insts = b->insts;  // ZeroValue may insert into the entry block
    for (Inst* inst : insts) {
      if (inst->IsTerminator()) break;
      if (inst->operands.empty()) continue;
      const size_t* found = var_index_.Find(inst->operands[0]);
      if (found == nullptr) continue;
      size_t var = *found;
      if (inst->GetOp() == Op::Load) {
        replace_[inst] = Materialize(var, cur[var]);
      } else {
        set(var, inst->operands[1]);
      }
      remove_.Insert(inst);
    }
    Inst* t = b->Terminator();
    if (ir::EdgeTakesArgs(*t)) {
      std::vector<std::vector<Value*>> args = old_args.at(t);
      bool grew = false;
      for (size_t i = 0; i < args.size(); ++i) {
        for (auto& [v, p] : params_[t->targets[i]]) {
          args[i].push_back(Materialize(v, cur[v]));
          grew = true;
        }
      }
      if (grew) ir::SetEdgeArgs(*t, args);
    }
  };
  struct Frame {
    Block* block;
    size_t mark;  ///< undo entries before the block's own
    size_t next = 0;
  };
  std::vector<Frame> walk;
  walk.push_back({f_.blocks.front(), 0});
  process(f_.blocks.front());
  while (!walk.empty()) {
    Block* block = walk.back().block;
    const std::vector<Block*>& kids = dom.Children(block);
    if (walk.back().next < kids.size()) {
      Block* kid = kids[walk.back().next++];
      walk.push_back({kid, undo.size()});
      process(kid);
    } else {
      undo_to(walk.back().mark);
      walk.pop_back();
    }
  }
  // Unreachable blocks read zeros: nothing they compute is ever used.
  for (Block* b : f_.blocks) {
    if (dom.IsReachable(b)) continue;
    process(b);
    undo_to(0);
  }
}

void State::RemoveTrivialParams() {
  ir::DomTree dom(f_);
  auto resolve = [&](Value* v) {
    for (Value* const* to = replace_.Find(v); to != nullptr; to = replace_.Find(v)) v = *to;
    return v;
  };
  for (bool changed = true; changed;) {
    changed = false;
    std::map<const Block*, std::vector<ir::Edge>> preds = ir::Predecessors(f_);
    for (Block* b : f_.blocks) {
      auto& added = params_[b];
      for (size_t k = 0; k < added.size(); ++k) {
        ir::Param* p = added[k].second;
        size_t index = std::find(b->params.begin(), b->params.end(), p) - b->params.begin();
        Value* same = nullptr;
        bool trivial = true;
        for (const ir::Edge& e : preds[b]) {
          if (!dom.IsReachable(e.from)) continue;
          Value* arg = resolve(ir::EdgeArgs(*e.from->Terminator(), e.index).at(index));
          if (arg == p || arg == same) continue;
          if (same != nullptr) trivial = false;
          same = arg;
        }
        if (!trivial || same == nullptr) continue;
        // Drop the parameter and the matching argument of every edge into the block.
        std::map<Inst*, std::vector<std::vector<Value*>>> args;
        for (const ir::Edge& e : preds[b]) {
          Inst* t = e.from->Terminator();
          if (args.count(t) != 0) continue;
          for (size_t i = 0; i < ir::EdgeCount(*t); ++i) args[t].push_back(ir::EdgeArgs(*t, i));
        }
        for (const ir::Edge& e : preds[b]) {
          auto& list = args[e.from->Terminator()][e.index];
          list.erase(list.begin() + static_cast<std::ptrdiff_t>(index));
        }
        b->params.erase(b->params.begin() + static_cast<std::ptrdiff_t>(index));
        for (auto& [t, lists] : args) ir::SetEdgeArgs(*t, lists);
        replace_[p] = same;
        added.erase(added.begin() + static_cast<std::ptrdiff_t>(k));
        --k;
        changed = true;
      }
    }
  }
}

bool State::Run() {
  if (f_.blocks.empty()) return false;
  FindCandidates();
  if (vars_.empty()) return false;
  zero_.assign(vars_.size(), nullptr);
  {
    ir::DomTree dom(f_);
    std::map<const Block*, std::vector<ir::Edge>> preds = ir::Predecessors(f_);
    std::vector<Inst*> kept;
    std::vector<size_t> kept_index;
    FindAccesses(dom);
    // Place adds to placed_ only when it succeeds.
    for (size_t v = 0; v < vars_.size(); ++v) {
      if (Place(v, dom, preds)) kept.push_back(vars_[v]);
    }
    // Renumber the kept vars (placements refer to indices into vars_).
    std::map<size_t, size_t> renumber;
    for (size_t v = 0, k = 0; v < vars_.size(); ++v) {
      if (k < kept.size() && kept[k] == vars_[v]) renumber[v] = k++;
    }
    for (auto& [b, list] : placed_) {
      for (size_t& v : list) v = renumber.at(v);
    }
    vars_ = kept;
    var_index_.Clear();
    for (size_t v = 0; v < vars_.size(); ++v) var_index_[vars_[v]] = v;
    zero_.assign(vars_.size(), nullptr);
  }
  if (vars_.empty()) return false;
  SplitIfEdges();
  Rename();
  for (Inst* var : vars_) remove_.Insert(var);
  RemoveTrivialParams();
  for (Block* b : f_.blocks) {
    std::erase_if(b->insts, [&](const Inst* inst) { return remove_.Contains(inst); });
  }
  ir::ReplaceUses(f_, replace_);
  return true;
}

}  // namespace

bool PromoteLocals(ir::Module& module, ir::Function& f) { return State(module, f).Run(); }

Result Mem2Reg(ir::Module& module, const Options& options) {
  return ForEachFunction(module, [&](ir::Function& f) { return PromoteLocals(module, f); });
}

}  // namespace slope::passes
