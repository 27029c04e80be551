#include "compiler/ir/cfg.h"

#include <algorithm>
#include <set>

#include "compiler/base/ice.h"
#include "compiler/base/pointer_hash.h"

namespace slope::ir {

size_t EdgeCount(const Inst& term) {
  switch (term.GetOp()) {
    case Op::Br: return 1;
    case Op::CondBr: return 2;
    case Op::If: return 2;
    case Op::Loop: return 1;
    // The default and every case; the merge block, last, is not an edge.
    case Op::Switch: return term.targets.empty() ? 0 : term.targets.size() - 1;
    case Op::Return: case Op::Unreachable: return 0;
    case Op::Add: case Op::Sub: case Op::Mul: case Op::Div: case Op::Rem: case Op::Neg:
    case Op::BitAnd: case Op::BitOr: case Op::BitXor: case Op::BitNot: case Op::Shl:
    case Op::Shr: case Op::LogicalAnd: case Op::LogicalOr: case Op::LogicalNot: case Op::Eq:
    case Op::Ne: case Op::Lt: case Op::Le: case Op::Gt: case Op::Ge: case Op::Convert:
    case Op::MakeVector: case Op::Splat: case Op::Extract: case Op::ExtractDynamic:
    case Op::Insert: case Op::InsertDynamic: case Op::Shuffle: case Op::Intrinsic:
    case Op::Call: case Op::Var: case Op::Load: case Op::Store: case Op::ElementPtr:
    case Op::MakeStruct: case Op::MakeArray: case Op::MakeMatrix: case Op::MemberPtr:
    case Op::Atomic: case Op::Barrier: case Op::Wave: case Op::Printf: case Op::BufferInfo:
    case Op::PtrOffset: case Op::PtrCast:
    case Op::Texture:
    case Op::SpirvAsm:
    case Op::SpirvAsmValue:
      return 0;
  }
  return 0;
}

bool EdgeTakesArgs(const Inst& term) {
  return term.GetOp() == Op::Br || term.GetOp() == Op::CondBr;
}

std::vector<Block*> Successors(const Block& block) {
  std::vector<Block*> out;
  const Inst* t = block.Terminator();
  if (t == nullptr) return out;
  size_t n = std::min(EdgeCount(*t), t->targets.size());
  for (size_t i = 0; i < n; ++i) out.push_back(t->targets[i]);
  return out;
}

std::vector<Value*> EdgeArgs(const Inst& term, size_t index) {
  if (term.GetOp() == Op::Br) return term.operands;
  if (term.GetOp() != Op::CondBr || term.targets.size() != 2) return {};
  size_t first = term.targets[0]->params.size();
  size_t begin = index == 0 ? 1 : 1 + first;
  size_t end = index == 0 ? 1 + first : term.operands.size();
  begin = std::min(begin, term.operands.size());
  end = std::min(end, term.operands.size());
  return std::vector<Value*>(term.operands.begin() + static_cast<std::ptrdiff_t>(begin),
                             term.operands.begin() + static_cast<std::ptrdiff_t>(end));
}

void SetEdgeArgs(Inst& term, const std::vector<std::vector<Value*>>& args) {
  if (term.GetOp() == Op::Br) {
    SLOPE_ASSERT(args.size() == 1);
    term.operands = args[0];
    return;
  }
  SLOPE_ASSERT(term.GetOp() == Op::CondBr && args.size() == 2);
  std::vector<Value*> ops{term.operands.at(0)};
  ops.insert(ops.end(), args[0].begin(), args[0].end());
  ops.insert(ops.end(), args[1].begin(), args[1].end());
  term.operands = std::move(ops);
}

std::map<const Block*, std::vector<Edge>> Predecessors(const Function& f) {
  std::map<const Block*, std::vector<Edge>> preds;
  for (Block* b : f.blocks) {
    const Inst* t = b->Terminator();
    if (t == nullptr) continue;
    size_t n = std::min(EdgeCount(*t), t->targets.size());
    for (size_t i = 0; i < n; ++i) preds[t->targets[i]].push_back(Edge{b, i});
  }
  return preds;
}

bool IsMergeOrContinueTarget(const Function& f, const Block* b) {
  for (const Block* h : f.blocks) {
    const Inst* t = h->Terminator();
    if (t == nullptr) continue;
    if (t->GetOp() == Op::If && t->targets.size() == 3 && t->targets[2] == b) return true;
    if (t->GetOp() == Op::Switch && !t->targets.empty() && t->targets.back() == b) return true;
    if (t->GetOp() == Op::Loop && t->targets.size() == 3 &&
        (t->targets[1] == b || t->targets[2] == b)) {
      return true;
    }
  }
  return false;
}

DomTree::DomTree(const Function& f) {
  if (f.blocks.empty()) return;
  // The work is done on block numbers in reverse post-order, in vectors; queries look a
  // block's number up once (a lookup per step of the iteration made a function of 16,000
  // switch cases spend seconds here).
  constexpr size_t kNone = ~size_t{0};
  auto for_each_successor = [](const Block* b, auto&& fn) {
    const Inst* t = b->Terminator();
    if (t == nullptr) return;
    size_t n = std::min(EdgeCount(*t), t->targets.size());
    for (size_t i = 0; i < n; ++i) fn(t->targets[i]);
  };
  // Reverse post-order of the reachable blocks (iterative depth-first search; each frame
  // keeps how many of its block's edges it followed).
  std::vector<Block*> post;
  std::unordered_map<const Block*, size_t>& index = index_;  // first seen, then the rpo number
  index.reserve(f.blocks.size());
  index[f.blocks.front()] = 0;
  std::vector<std::pair<Block*, size_t>> stack{{f.blocks.front(), 0}};
  while (!stack.empty()) {
    auto& [block, next] = stack.back();
    const Inst* t = block->Terminator();
    size_t edges = t == nullptr ? 0 : std::min(EdgeCount(*t), t->targets.size());
    if (next < edges) {
      Block* s = t->targets[next++];
      if (index.emplace(s, 0).second) stack.emplace_back(s, 0);
    } else {
      post.push_back(block);
      stack.pop_back();
    }
  }
  rpo_.assign(post.rbegin(), post.rend());
  size_t n = rpo_.size();
  for (size_t i = 0; i < n; ++i) index[rpo_[i]] = i;
  std::vector<std::vector<size_t>> preds(n);
  for (size_t i = 0; i < n; ++i) {
    for_each_successor(rpo_[i], [&](const Block* s) { preds[index.at(s)].push_back(i); });
  }
  // Cooper, Harvey and Kennedy's iterative algorithm.
  std::vector<size_t> idom(n, kNone);
  idom[0] = 0;
  auto intersect = [&](size_t a, size_t b) {
    while (a != b) {
      while (a > b) a = idom[a];
      while (b > a) b = idom[b];
    }
    return a;
  };
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t i = 1; i < n; ++i) {
      size_t new_idom = kNone;
      for (size_t p : preds[i]) {
        if (idom[p] == kNone) continue;
        new_idom = new_idom == kNone ? p : intersect(p, new_idom);
      }
      if (new_idom != kNone && idom[i] != new_idom) {
        idom[i] = new_idom;
        changed = true;
      }
    }
  }
  std::vector<std::vector<size_t>> kids(n);
  for (size_t i = 1; i < n; ++i) kids[idom[i]].push_back(i);  // in reverse post-order
  // Numbers from a walk of the dominator tree: `a` dominates `b` when b's interval lies
  // inside a's, an answer in constant time however deep the tree (a function of many
  // loops in sequence is a chain as long as the function).
  std::vector<std::pair<size_t, size_t>> interval(n);
  size_t counter = 0;
  std::vector<std::pair<size_t, size_t>> walk{{0, 0}};
  interval[0].first = counter++;
  while (!walk.empty()) {
    auto& [block, next] = walk.back();
    if (next < kids[block].size()) {
      size_t kid = kids[block][next++];
      interval[kid].first = counter++;
      walk.emplace_back(kid, 0);
    } else {
      interval[block].second = counter++;
      walk.pop_back();
    }
  }
  // Frontiers: walk up from each predecessor of a join to the join's idom. Joins are
  // taken in reverse post-order, so each frontier list comes out in that order.
  std::vector<std::vector<size_t>> frontier(n);
  std::vector<size_t> added_for(n, kNone);  // the join a block's frontier last took
  for (size_t b = 0; b < n; ++b) {
    if (preds[b].size() < 2) continue;
    for (size_t p : preds[b]) {
      for (size_t runner = p; runner != idom[b]; runner = idom[runner]) {
        if (added_for[runner] != b) {
          added_for[runner] = b;
          frontier[runner].push_back(b);
        }
        if (runner == idom[runner]) break;
      }
    }
  }
  children_.resize(n);
  frontier_.resize(n);
  for (size_t i = 0; i < n; ++i) {
    for (size_t k : kids[i]) children_[i].push_back(rpo_[k]);
    for (size_t k : frontier[i]) frontier_[i].push_back(rpo_[k]);
  }
  idom_ = std::move(idom);
  interval_ = std::move(interval);
}

const std::vector<Block*>& DomTree::Children(const Block* b) const {
  auto it = index_.find(b);
  return it == index_.end() ? no_children_ : children_[it->second];
}

bool DomTree::Dominates(const Block* a, const Block* b) const {
  auto ia = index_.find(a);
  auto ib = index_.find(b);
  if (ia == index_.end() || ib == index_.end()) return false;
  const auto& x = interval_[ia->second];
  const auto& y = interval_[ib->second];
  return x.first <= y.first && y.second <= x.second;
}

std::vector<Block*> DomTree::Frontier(const Block* b) const {
  auto it = index_.find(b);
  return it == index_.end() ? std::vector<Block*>{} : frontier_[it->second];
}

void ReplaceUses(Function& f, const base::PointerMap<Value, Value*>& replacements) {
  if (replacements.Empty()) return;
  auto resolve = [&](Value* v) {
    for (size_t steps = 0; steps <= replacements.Size(); ++steps) {
      Value* const* to = replacements.Find(v);
      if (to == nullptr) return v;
      v = *to;
    }
    SLOPE_ICE("cyclic value replacement");
  };
  for (Block* b : f.blocks) {
    for (Inst* inst : b->insts) {
      for (Value*& v : inst->operands) v = resolve(v);
    }
  }
}

void ReplaceUses(Function& f, const std::map<const Value*, Value*>& replacements) {
  if (replacements.empty()) return;
  // Every operand is looked up: a flat table, not the map's tree walk.
  base::PointerMap<Value, Value*> table(replacements.size());
  for (const auto& [from, to] : replacements) table.Emplace(from, to);
  ReplaceUses(f, table);
}

Value* ZeroValue(Module& module, Function& f, const Type* type) {
  if (type->IsStruct() || type->IsArray() || type->IsMatrix()) {
    // A make_struct / make_array / make_matrix of zeros, placed after the entry block's
    // vars.
    Inst* make = module.NewInst(type->IsStruct()  ? Op::MakeStruct
                                : type->IsArray() ? Op::MakeArray
                                                  : Op::MakeMatrix,
                                type);
    if (type->IsStruct()) {
      for (const Type* m : type->Members()) make->operands.push_back(ZeroValue(module, f, m));
    } else {
      make->operands.assign(type->Count(), ZeroValue(module, f, type->Element()));
    }
    Block* entry = f.blocks.front();
    size_t pos = 0;
    while (pos < entry->insts.size() && entry->insts[pos]->GetOp() == Op::Var) ++pos;
    // After the zeros of its members.
    for (size_t i = pos; i < entry->insts.size(); ++i) {
      if (std::find(make->operands.begin(), make->operands.end(), entry->insts[i]) !=
          make->operands.end()) {
        pos = i + 1;
      }
    }
    make->block = entry;
    entry->insts.insert(entry->insts.begin() + static_cast<std::ptrdiff_t>(pos), make);
    return make;
  }
  if (type->IsDevicePointer()) {
    // The null pointer: a ptr_cast of a 64-bit zero, after the entry block's vars.
    Inst* null = module.NewInst(Op::PtrCast, type);
    null->operands.push_back(module.ConstInt(module.Types().Int(64, false), 0));
    Block* entry = f.blocks.front();
    size_t pos = 0;
    while (pos < entry->insts.size() && entry->insts[pos]->GetOp() == Op::Var) ++pos;
    null->block = entry;
    entry->insts.insert(entry->insts.begin() + static_cast<std::ptrdiff_t>(pos), null);
    return null;
  }
  const Type* s = type->Scalar();
  SLOPE_ASSERT(s->IsScalar());
  Value* zero = s->IsBool()    ? module.ConstBool(false)
                : s->IsFloat() ? module.ConstFloat(s, 0.0)
                               : module.ConstInt(s, 0);
  if (!type->IsVector()) return zero;
  Block* entry = f.blocks.front();
  size_t pos = 0;
  while (pos < entry->insts.size() && entry->insts[pos]->GetOp() == Op::Var) ++pos;
  // Reuse a zero splat already opening the entry block.
  for (size_t i = pos; i < entry->insts.size() && entry->insts[i]->GetOp() == Op::Splat; ++i) {
    Inst* existing = entry->insts[i];
    if (existing->GetType() == type && existing->operands.at(0) == zero) return existing;
  }
  Inst* splat = module.NewInst(Op::Splat, type);
  splat->operands = {zero};
  splat->block = entry;
  entry->insts.insert(entry->insts.begin() + static_cast<std::ptrdiff_t>(pos), splat);
  return splat;
}

}  // namespace slope::ir
