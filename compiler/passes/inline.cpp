// inline: replaces calls of small functions (and of every `forceinline` function) by a
// copy of the callee's body.
//
// The block holding the call is split after it: the instructions that followed move to
// a continuation block, which takes the call's result as a parameter. The callee's
// blocks are copied in between, its parameters replaced by the arguments, its `var`s
// moved to the caller's entry block, and each `ret` becomes a branch to the
// continuation passing the returned value.
//
// A `ret` must leave the copied body the structured way. A callee whose one `ret` lies
// outside every construct branches to the continuation directly. Otherwise the body is
// wrapped in a loop that runs once, with the continuation as its merge block, so each
// `ret` is a `break` out of it; a `ret` nested in one of the callee's own loops would
// be a break out of two loops at once, so such callees are not inlined. Calls in a loop
// header are left alone (the header must stay the block the back edge enters).
//
// Functions are visited callees first, so a callee is inlined with its own calls
// already inlined; recursive calls are never inlined.
//
// `inline-resources` runs the same machinery on a different set of calls: every call of
// a function that takes or returns a resource (a buffer, a struct holding one, a pointer
// to either), whatever its size, since SPIR-V cannot pass resources to functions. A
// call in a loop header is first moved to a new block at the start of the loop body.
// Such a call that cannot be inlined (recursion, a `ret` inside the callee's own loop)
// is a diagnostic. It also inlines `forceinline` functions where the inline pass would.
// Afterwards those functions, which nothing calls any more, are removed.
//
// `inline-call-chains` keeps the call graph shallow where it is very deep: the SPIR-V
// validator walks, from each function, every function it reaches (its check for
// recursion), which is quadratic in the length of a chain of calls (f0 calls f1 calls
// f2 ...): 10^4 functions took over 5 s. When the sum over functions of the longest
// chain of calls below each passes `Options::call_chain_budget`, every function called
// from exactly one place is inlined there, which adds no code. It runs callers first:
// a function's body is copied into its caller with its own calls still in it, and
// those copied calls are inlined in turn, so each body is copied once and a chain
// collapses in time linear in its length. The inlined functions are then removed.

#include <algorithm>
#include <functional>
#include <map>
#include <set>

#include "compiler/base/ice.h"
#include "compiler/ir/cfg.h"
#include "compiler/passes/passes.h"

namespace slope::passes {
namespace {

using ir::Block;
using ir::Function;
using ir::Inst;
using ir::Op;
using ir::Value;

size_t InstCount(const Function& f) {
  size_t n = 0;
  for (const Block* b : f.blocks) n += b->insts.size();
  return n;
}

/// How a callee's `ret`s can leave a copy of its body, if at all.
enum class ReturnShape { Direct, Wrapped, NotInlinable };

ReturnShape ShapeOfReturns(const Function& f) {
  ir::DomTree dom(f);
  // The constructs: each reachable header with its merge block; a block lies in one
  // when the header dominates it and the merge does not.
  std::vector<std::pair<const Block*, const Inst*>> headers;
  for (const Block* b : dom.ReversePostOrder()) {
    Op op = b->Terminator()->GetOp();
    if (op == Op::If || op == Op::Loop || op == Op::Switch) {
      headers.push_back({b, b->Terminator()});
    }
  }
  auto merge_of = [](const Inst* t) {
    return t->targets[t->GetOp() == Op::Loop ? 1 : t->targets.size() - 1];
  };
  size_t returns = 0;
  bool nested = false;
  for (const Block* b : dom.ReversePostOrder()) {
    if (b->Terminator()->GetOp() != Op::Return) continue;
    ++returns;
    for (const auto& [header, t] : headers) {
      if (!dom.Dominates(header, b) || dom.Dominates(merge_of(t), b)) continue;
      if (t->GetOp() == Op::Loop) return ReturnShape::NotInlinable;
      nested = true;
    }
  }
  return returns <= 1 && !nested ? ReturnShape::Direct : ReturnShape::Wrapped;
}

class State {
 public:
  State(ir::Module& module, const Options& options, bool resources)
      : module_(module), options_(options), resources_(resources) {}
  bool Run();
  /// inline-call-chains.
  bool RunCallChains();
  /// InlineCallAt (passes.h).
  bool InlineOne(Function& caller, Inst* call) {
    if (!CanInline(caller, *call)) return false;
    InlineCall(caller, call);
    return true;
  }

 private:
  bool InlineCalls(Function& f);
  bool ShouldInline(const Function& caller, const Inst& call) const;
  /// Whether the callee's body can be copied at `call`, whatever its size.
  bool CanInline(const Function& caller, const Inst& call) const;
  /// inline-resources: whether `call` must be inlined; reports the ones that cannot be.
  bool MustInline(Function& caller, Inst& call);
  /// Moves what a loop header computes into a new first block of its body.
  void SplitLoopHeader(Function& f, Block* header);
  void RemoveResourceFunctions();
  /// What inline-call-chains does once per caller instead of at each call: the uses of
  /// inlined calls' results to replace, and the blocks to place after each block.
  struct Deferred {
    std::map<const Value*, Value*> uses;
    std::map<const Block*, std::vector<Block*>> after;
    std::vector<Inst*> vars;
  };
  /// Places `vars` after the variables at the start of `entry`.
  static void JoinVars(Block* entry, const std::vector<Inst*>& vars) {
    size_t pos = 0;
    while (pos < entry->insts.size() && entry->insts[pos]->GetOp() == Op::Var) ++pos;
    entry->insts.insert(entry->insts.begin() + static_cast<std::ptrdiff_t>(pos), vars.begin(),
                        vars.end());
  }
  /// Inlines `call`. The uses of its result are replaced and the new blocks placed at
  /// once or, when `deferred` is given, recorded there (FinishDeferred does the rest);
  /// the calls of the copied body are then appended to `copied_calls`.
  void InlineCall(Function& f, Inst* call, Deferred* deferred = nullptr,
                  std::vector<Inst*>* copied_calls = nullptr);
  /// Replaces the recorded uses and places the recorded blocks, in one walk of `f`.
  static void FinishDeferred(Function& f, Deferred& deferred);
  Inst* NewInst(Op op, Block* b, source::SourceLoc loc) {
    Inst* inst = module_.NewInst(op, module_.Types().Void());
    inst->block = b;
    inst->loc = loc;
    b->insts.push_back(inst);
    return inst;
  }

  ir::Module& module_;
  const Options& options_;
  bool resources_;
};

bool State::ShouldInline(const Function& caller, const Inst& call) const {
  if (!call.callee->force_inline && InstCount(*call.callee) > options_.inline_threshold) return false;
  return CanInline(caller, call);
}

bool State::CanInline(const Function& caller, const Inst& call) const {
  const Function* callee = call.callee;
  if (callee == &caller || callee->blocks.empty()) return false;
  if (call.block->Terminator()->GetOp() == Op::Loop) return false;
  // A callee that calls back into this function is part of a cycle: leave it.
  for (const Block* b : callee->blocks) {
    for (const Inst* inst : b->insts) {
      if (inst->GetOp() == Op::Call && inst->callee == &caller) return false;
    }
  }
  return ShapeOfReturns(*callee) != ReturnShape::NotInlinable;
}

void State::InlineCall(Function& f, Inst* call, Deferred* deferred,
                       std::vector<Inst*>* copied_calls) {
  // What was exact in the callee stays exact where it lands.
  if (call->callee->precise) f.precise = true;
  const Function& callee = *call->callee;
  Block* b = call->block;
  source::SourceLoc loc = call->loc;
  bool wrapped = ShapeOfReturns(callee) == ReturnShape::Wrapped;

  // Split after the call: what followed it moves to the continuation.
  Block* cont = module_.AddBlock(&f);
  auto at = std::find(b->insts.begin(), b->insts.end(), call);
  for (auto it = at + 1; it != b->insts.end(); ++it) {
    (*it)->block = cont;
    cont->insts.push_back(*it);
  }
  b->insts.erase(at, b->insts.end());
  std::map<const Value*, Value*> replace;
  if (!call->GetType()->IsVoid()) {
    ir::Param* result = module_.AddParam(call->GetType(), cont);
    cont->params.push_back(result);
    replace[call] = result;
  }

  // Copy the callee: blocks and their parameters first, so that every operand and
  // target can be mapped whatever the order of definition.
  std::map<const Value*, Value*> values;
  std::map<const Block*, Block*> blocks;
  for (size_t i = 0; i < callee.params.size(); ++i) values[callee.params[i]] = call->operands[i];
  std::vector<Block*> copies;
  for (const Block* cb : callee.blocks) {
    Block* copy = module_.AddBlock(&f);
    blocks[cb] = copy;
    copies.push_back(copy);
    for (const ir::Param* p : cb->params) {
      ir::Param* np = module_.AddParam(p->GetType(), copy);
      copy->params.push_back(np);
      values[p] = np;
    }
  }
  Block* entry = f.blocks.front();
  std::vector<Inst*> vars;
  std::vector<Inst*> made;
  for (const Block* cb : callee.blocks) {
    Block* copy = blocks.at(cb);
    for (const Inst* inst : cb->insts) {
      if (inst->GetOp() == Op::Return) {
        Inst* br = NewInst(Op::Br, copy, inst->loc);
        br->targets = {cont};
        br->operands = inst->operands;
        made.push_back(br);
        continue;
      }
      Inst* clone = module_.NewInst(inst->GetOp(), inst->GetType());
      clone->operands = inst->operands;
      clone->imms = inst->imms;
      clone->callee = inst->callee;
      clone->loc = inst->loc;
      for (const Block* t : inst->targets) clone->targets.push_back(blocks.at(t));
      values[inst] = clone;
      made.push_back(clone);
      if (copied_calls != nullptr && inst->GetOp() == Op::Call) copied_calls->push_back(clone);
      if (inst->GetOp() == Op::Var) {
        clone->block = entry;
        vars.push_back(clone);
      } else {
        clone->block = copy;
        copy->insts.push_back(clone);
      }
    }
  }
  for (Inst* inst : made) {
    for (Value*& v : inst->operands) {
      auto it = values.find(v);
      if (it != values.end()) v = it->second;
    }
  }
  // The callee's variables join the caller's, first in the entry block (once per caller
  // when deferred: finding the end of the entry's variables at each call is quadratic).
  if (deferred != nullptr) {
    deferred->vars.insert(deferred->vars.end(), vars.begin(), vars.end());
  } else {
    JoinVars(entry, vars);
  }

  // Enter the copy, directly or through a loop that runs once.
  std::vector<Block*> placed;
  if (wrapped) {
    Block* header = module_.AddBlock(&f);
    Block* latch = module_.AddBlock(&f);
    NewInst(Op::Br, b, loc)->targets = {header};
    NewInst(Op::Loop, header, loc)->targets = {copies.front(), cont, latch};
    NewInst(Op::Br, latch, loc)->targets = {header};
    placed.push_back(header);
    placed.insert(placed.end(), copies.begin(), copies.end());
    placed.push_back(latch);
  } else {
    NewInst(Op::Br, b, loc)->targets = {copies.front()};
    placed = copies;
  }
  placed.push_back(cont);
  if (deferred != nullptr) {
    // Ahead of what earlier inlining placed after `b`, as inserting right after it would.
    std::vector<Block*>& after = deferred->after[b];
    after.insert(after.begin(), placed.begin(), placed.end());
    deferred->uses.insert(replace.begin(), replace.end());
    return;
  }
  auto where = std::find(f.blocks.begin(), f.blocks.end(), b) + 1;
  f.blocks.insert(where, placed.begin(), placed.end());
  ir::ReplaceUses(f, replace);
}

void State::FinishDeferred(Function& f, Deferred& deferred) {
  if (!deferred.vars.empty()) JoinVars(f.blocks.front(), deferred.vars);
  if (!deferred.after.empty()) {
    // Each block, then what was placed after it (each of those followed by its own).
    std::vector<Block*> order;
    std::vector<Block*> stack(f.blocks.rbegin(), f.blocks.rend());
    while (!stack.empty()) {
      Block* b = stack.back();
      stack.pop_back();
      order.push_back(b);
      auto it = deferred.after.find(b);
      if (it != deferred.after.end()) stack.insert(stack.end(), it->second.rbegin(), it->second.rend());
    }
    f.blocks = std::move(order);
  }
  if (!deferred.uses.empty()) ir::ReplaceUses(f, deferred.uses);
}

bool State::MustInline(Function& caller, Inst& call) {
  const Function* callee = call.callee;
  if (callee->blocks.empty()) return false;
  if (!TouchesResources(*callee)) {
    // A [ForceInline] function is inlined here too, when it can be.
    return callee->force_inline && callee != &caller && ShouldInline(caller, call);
  }
  const char* why = nullptr;
  if (callee == &caller) {
    why = "it is recursive";
  } else if (ShapeOfReturns(*callee) == ReturnShape::NotInlinable) {
    why = "it returns from inside a loop";
  } else {
    for (const Block* b : callee->blocks) {
      for (const Inst* inst : b->insts) {
        if (inst->GetOp() == Op::Call && inst->callee == &caller) why = "it is recursive";
      }
    }
  }
  if (why != nullptr) {
    ReportError(options_, diag::DiagId::ResourceFunctionNotInlined, call.loc, callee->Name(), why);
    return false;
  }
  if (call.block->Terminator()->GetOp() == Op::Loop) SplitLoopHeader(caller, call.block);
  return true;
}

void State::SplitLoopHeader(Function& f, Block* header) {
  Inst* loop = header->Terminator();
  Block* first = module_.AddBlock(&f);
  for (Inst* inst : header->insts) {
    if (inst == loop) break;
    inst->block = first;
    first->insts.push_back(inst);
  }
  header->insts = {loop};
  NewInst(Op::Br, first, loop->loc)->targets = {loop->targets[0]};
  loop->targets[0] = first;
  f.blocks.insert(std::find(f.blocks.begin(), f.blocks.end(), header) + 1, first);
}

void State::RemoveResourceFunctions() {
  std::set<const Function*> called;
  for (const Function* f : module_.functions) {
    for (const Block* b : f->blocks) {
      for (const Inst* inst : b->insts) {
        if (inst->GetOp() == Op::Call) called.insert(inst->callee);
      }
    }
  }
  std::set<const Function*> removed;
  std::erase_if(module_.functions, [&](const Function* f) {
    bool unused = !f->is_entry && (TouchesResources(*f) || f->force_inline) && called.count(f) == 0;
    if (unused) removed.insert(f);
    return unused;
  });
  // This runs after differentiation, so every derivative is written: a derivative that
  // named a removed function (`bwd_diff(@f)` of an inlined dispatcher) stops naming it,
  // and the module still prints and parses back.
  for (Function* f : module_.functions) {
    for (Function** named : f->autodiff.Links()) {
      if (removed.count(*named) != 0) *named = nullptr;
    }
  }
}

bool State::InlineCalls(Function& f) {
  std::vector<Inst*> calls;
  for (const Block* b : f.blocks) {
    for (Inst* inst : b->insts) {
      if (inst->GetOp() == Op::Call) calls.push_back(inst);
    }
  }
  bool changed = false;
  // Calls copied in from a callee are not revisited: the callee's own inlining already
  // decided them.
  for (Inst* call : calls) {
    if (resources_ ? !MustInline(f, *call) : !ShouldInline(f, *call)) continue;
    InlineCall(f, call);
    changed = true;
  }
  return changed;
}

bool State::Run() {
  // Callees before callers (depth-first post-order over calls, in module order).
  std::vector<Function*> order;
  std::set<const Function*> seen;
  std::function<void(Function*)> visit = [&](Function* f) {
    if (!seen.insert(f).second) return;
    for (const Block* b : f->blocks) {
      for (const Inst* inst : b->insts) {
        if (inst->GetOp() == Op::Call) visit(inst->callee);
      }
    }
    order.push_back(f);
  };
  for (Function* f : module_.functions) visit(f);
  bool changed = false;
  for (Function* f : order) changed = InlineCalls(*f) || changed;
  if (resources_) {
    size_t before = module_.functions.size();
    RemoveResourceFunctions();
    changed = changed || module_.functions.size() != before;
  }
  return changed;
}

bool State::RunCallChains() {
  std::map<const Function*, size_t> sites;
  for (const Function* f : module_.functions) {
    for (const Block* b : f->blocks) {
      for (const Inst* inst : b->insts) {
        if (inst->GetOp() == Op::Call) ++sites[inst->callee];
      }
    }
  }
  // The longest chain of calls below each function (a cycle, which reject-recursion
  // reports, counts as ending where it closes).
  std::map<const Function*, size_t> height;
  std::function<size_t(const Function*)> measure = [&](const Function* f) -> size_t {
    auto [it, fresh] = height.try_emplace(f, 0);
    if (!fresh) return it->second;
    size_t longest = 0;
    for (const Block* b : f->blocks) {
      for (const Inst* inst : b->insts) {
        if (inst->GetOp() == Op::Call) longest = std::max(longest, measure(inst->callee) + 1);
      }
    }
    height[f] = longest;
    return longest;
  };
  size_t depth = 0;
  for (const Function* f : module_.functions) depth += measure(f);
  if (depth <= options_.call_chain_budget &&
      module_.functions.size() <= options_.call_graph_most_functions) {
    return false;
  }

  auto single = [&](const Function* f) { return !f->is_entry && sites[f] == 1; };
  std::set<const Function*> inlined;
  for (Function* f : module_.functions) {
    // Functions called from one place are reached through their caller.
    if (single(f)) continue;
    std::vector<Inst*> work;
    for (const Block* b : f->blocks) {
      for (Inst* inst : b->insts) {
        if (inst->GetOp() == Op::Call) work.push_back(inst);
      }
    }
    Deferred deferred;
    while (!work.empty()) {
      Inst* call = work.back();
      work.pop_back();
      if (!single(call->callee) || !CanInline(*f, *call)) continue;
      inlined.insert(call->callee);
      InlineCall(*f, call, &deferred, &work);
    }
    FinishDeferred(*f, deferred);
  }
  if (inlined.empty()) return false;
  std::erase_if(module_.functions, [&](const Function* f) { return inlined.count(f) != 0; });
  for (Function* f : module_.functions) {
    for (Function** named : f->autodiff.Links()) {
      if (inlined.count(*named) != 0) *named = nullptr;
    }
  }
  return true;
}

}  // namespace

Result InlineCallChains(ir::Module& module, const Options& options) {
  Result result;
  result.changed = State(module, options, false).RunCallChains();
  return result;
}

Result Inline(ir::Module& module, const Options& options) {
  Result result;
  result.changed = State(module, options, false).Run();
  return result;
}

bool InlineCallAt(ir::Module& module, ir::Function& caller, ir::Inst* call) {
  Options options;
  return State(module, options, false).InlineOne(caller, call);
}

Result InlineResources(ir::Module& module, const Options& options) {
  Result result;
  result.changed = State(module, options, true).Run();
  return result;
}

}  // namespace slope::passes
