// Reverse mode as linearize -> unzip -> transpose.
//
// Linearize: forward mode writes the JVP of `f` (forward/jvp.cpp), with every call of a
// differentiable function left as a call of a bodiless stand-in for the callee's JVP.
// Unzip: each value of the JVP is primal or linear (it depends on a tangent); linear
// memory is the tangent `var`s and what is stored into them. The primal values are
// copied into the backward function in order. Transpose: the linear instructions are
// visited in reverse order and each adds its adjoint's contribution to the adjoints of
// its linear operands (an adjoint lives in a `var`, which mem2reg later promotes); a
// linear `var` gets an adjoint `var` that mirrors it; a stand-in call becomes the primal
// call forward and a call of the callee's backward derivative in reverse.
// Before linearizing, early `return`, `break` and `continue` are made into flags
// (normalize.cpp), so every structured region the reverse sweep walks ends at its merge
// block; loops may nest, their per-iteration storage indexed by every enclosing loop.

#include "compiler/autodiff/reverse/reverse.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "compiler/autodiff/differential.h"
#include "compiler/autodiff/forward/jvp.h"
#include "compiler/autodiff/reverse/custom_forward.h"
#include "compiler/autodiff/reverse/normalize.h"
#include "compiler/autodiff/reverse/reverser.h"
#include "compiler/autodiff/reverse/values.h"
#include "compiler/base/ice.h"
#include "compiler/ir/builder.h"
#include "compiler/ir/cfg.h"
#include "compiler/ir/type_walk.h"

namespace slope::autodiff::reverse {

namespace {

/// The most entries a per-iteration array may have (the product of the bounds plus one
/// of a loop and the loops around it).
constexpr uint64_t kMaxTapeEntries = uint64_t{1} << 24;

}  // namespace

Value* Reverser::P(Value* v) {
  if (v->VKind() == ir::ValueKind::Constant || v->VKind() == ir::ValueKind::Global) return v;
  Value* const* primal = primal_.Find(v);
  if (primal == nullptr) SLOPE_ICE("reverse mode: primal value used before its definition");
  return in_reverse_ ? Spilled(*primal) : *primal;
}

Value* Reverser::Spilled(Value* copy) {
  Block* block = nullptr;
  if (copy->VKind() == ir::ValueKind::Inst) block = static_cast<Inst*>(copy)->block;
  if (copy->VKind() == ir::ValueKind::Param) block = static_cast<ir::Param*>(copy)->GetBlock();
  if (block == nullptr || top_level_.count(block) != 0) return copy;
  if (Value* again = Recomputed(copy)) return again;
  auto loop = loop_of_.find(block);
  if (loop != loop_of_.end() &&
      !(ir::ContainsResource(copy->GetType()) && InvariantLoad(copy, loop->second))) {
    // Per iteration: an array indexed by the iteration (clamped to the bound). A value
    // holding a resource cannot live in such an array (each use must name its buffer);
    // one read from a variable the loop does not write is the same in every iteration,
    // and kept once below.
    const LoopInfo* info = loop->second;
    auto [tape, fresh] = tapes_.emplace(copy, nullptr);
    if (fresh) {
      NoteStored(copy, static_cast<uint32_t>(info->entries));
      tape->second = b_.Var(bwd_, types_.Array(copy->GetType(), static_cast<uint32_t>(info->entries)));
      Value* index = forward_index_.at(block);
      Inst* ptr = ctx_.module.NewInst(Op::ElementPtr, types_.Pointer(ir::AddressSpace::Function, copy->GetType()));
      ptr->operands = {tape->second, index};
      ptr->block = block;
      Inst* store = ctx_.module.NewInst(Op::Store, types_.Void());
      store->operands = {ptr, copy};
      store->block = block;
      auto at = std::find(block->insts.begin(), block->insts.end(), copy);
      if (at == block->insts.end()) at = std::find(block->insts.begin(), block->insts.end(), index);
      at = block->insts.insert(at + 1, ptr);
      block->insts.insert(at + 1, store);
    }
    return b_.Load(b_.IndexPtr(tape->second, TapeIndex(info)));
  }
  auto [it, inserted] = spills_.emplace(copy, nullptr);
  if (inserted) {
    NoteStored(copy, 1);
    it->second = b_.Var(bwd_, copy->GetType());
    Inst* store = ctx_.module.NewInst(Op::Store, types_.Void());
    store->operands = {it->second, copy};
    store->block = block;
    auto at = block->insts.begin();
    if (copy->VKind() == ir::ValueKind::Inst) {
      at = std::find(block->insts.begin(), block->insts.end(), copy) + 1;
    }
    block->insts.insert(at, store);
  }
  return b_.Load(it->second);
}

bool Reverser::InvariantLoad(const Value* copy, const LoopInfo* info) const {
  if (copy->VKind() != ir::ValueKind::Inst) return false;
  const auto* load = static_cast<const Inst*>(copy);
  if (load->GetOp() != Op::Load) return false;
  const Value* var = PointerRoot(load->operands[0]);
  if (var->VKind() != ir::ValueKind::Inst || static_cast<const Inst*>(var)->GetOp() != Op::Var) {
    return false;
  }
  // Nothing in the loop but loads may touch the variable (a store, a call taking it).
  for (const Block* jvp_block : info->all) {
    for (const Inst* inst : forward_.at(jvp_block)->insts) {
      if (inst->GetOp() == Op::Load || inst->GetOp() == Op::ElementPtr ||
          inst->GetOp() == Op::MemberPtr) {
        continue;
      }
      for (const Value* v : inst->operands) {
        if (v->GetType()->IsPointer() && PointerRoot(v) == var) return false;
      }
    }
  }
  return true;
}

bool Reverser::ReadOnlyPath(const Value* ptr) const {
  ptr = PointerRoot(ptr);
  if (ptr->VKind() != ir::ValueKind::Global) return false;
  const auto* global = static_cast<const ir::Global*>(ptr);
  const ir::Type* t = global->GetType();
  return (t->IsBuffer() && !t->IsWritable()) || global->IsUniform() || global->IsPushConstant();
}


Value* Reverser::Recomputed(Value* copy) {
  auto operand = [&](Value* v) {
    bool fixed = v->VKind() == ir::ValueKind::Constant || v->VKind() == ir::ValueKind::Global;
    return fixed ? v : Spilled(v);
  };
  if (copy->VKind() == ir::ValueKind::Param) {
    auto it = inductions_.find(copy);
    if (it == inductions_.end() || !Free(copy)) return nullptr;
    const Induction& ind = it->second;
    const ir::Type* t = copy->GetType();
    Value* start =
        ind.start->VKind() == ir::ValueKind::Constant ? ind.start : primal_.At(ind.start);
    Value* k = Iteration(ind.loop);
    if (k->GetType() != t) k = b_.Convert(k, t);
    Value* step = ctx_.module.ConstInt(t, static_cast<uint64_t>(ind.step));
    return b_.Binary(Op::Add, operand(start), b_.Binary(Op::Mul, k, step));
  }
  if (copy->VKind() != ir::ValueKind::Inst) return nullptr;
  auto* inst = static_cast<Inst*>(copy);
  const ir::Type* rt = inst->GetType();
  bool small = (rt->IsInt() || rt->IsBool()) ||
               (rt->IsVector() && (rt->Element()->IsInt() || rt->Element()->IsBool()));
  // A value holding a resource (a TensorView put together from its globals) cannot be
  // kept in function memory: it is put together again, from operands kept or recomputed.
  bool holds_resource = ir::ContainsResource(rt) && PureOp(inst->GetOp());
  if ((small && PureOp(inst->GetOp()) && Free(copy)) || holds_resource) {
    std::vector<Value*> operands;
    for (Value* v : inst->operands) operands.push_back(operand(v));
    Inst* again = b_.Emit(inst->GetOp(), rt, std::move(operands), inst->imms);
    again->callee = inst->callee;
    return again;
  }
  std::set<const Value*> carried;
  if (Reformable(inst, 0, &carried) &&
      (carried.size() <= 1 ||
       std::all_of(carried.begin(), carried.end(), [&](const Value* v) { return tapes_.count(v) != 0; }))) {
    std::vector<Value*> operands;
    for (Value* v : inst->operands) operands.push_back(operand(v));
    return b_.Emit(inst->GetOp(), rt, std::move(operands), inst->imms);
  }
  switch (inst->GetOp()) {
    case Op::Load:
    case Op::ElementPtr:
    case Op::MemberPtr: {
      if (!ReadOnlyPath(inst->GetOp() == Op::Load ? inst->operands[0] : inst)) return nullptr;
      // The same instruction (a buffer's element pointer has the buffer as its base).
      std::vector<Value*> operands;
      for (Value* v : inst->operands) operands.push_back(operand(v));
      return b_.Emit(inst->GetOp(), inst->GetType(), std::move(operands), inst->imms);
    }
    case Op::Call: {
      if (!inst->callee->autodiff.prefer_recompute && !IsIdentity(inst->callee)) return nullptr;
      for (const Value* v : inst->operands) {
        if (v->GetType()->IsPointer()) return nullptr;
      }
      // detach of a value that is itself kept costs nothing to keep instead.
      if (!inst->callee->autodiff.prefer_recompute &&
          inst->operands[0]->VKind() == ir::ValueKind::Inst &&
          static_cast<Inst*>(inst->operands[0])->GetOp() != Op::Load) {
        return nullptr;
      }
      std::vector<Value*> args;
      for (Value* v : inst->operands) args.push_back(operand(v));
      return b_.Call(inst->callee, std::move(args));
    }
    default: return nullptr;
  }
}

bool Reverser::Reformable(const Inst* inst, int depth, std::set<const Value*>* carried) {
  // A float computed in a loop by a few arithmetic operations and intrinsics from values
  // that are free, and from at most one value the loop carries from one iteration to the
  // next (kept per iteration anyway when the reverse sweep needs it), is computed again
  // rather than kept: `cos(a * x + 0.05 * k)` of a step x' = x + h sin(a x + 0.05 k)
  // costs a multiply-add and a cosine again instead of a second array of the loop's
  // length in local memory.
  auto small_float = [](const ir::Type* t) {
    if (t->IsVector() && t->Count() <= 4) t = t->Element();
    return t->IsFloat();
  };
  auto small_scalar = [](const ir::Type* t) {
    if (t->IsVector() && t->Count() <= 4) t = t->Element();
    return t->IsFloat() || t->IsInt() || t->IsBool();
  };
  if (depth > 4 || !small_float(inst->GetType()) || !PureOp(inst->GetOp())) return false;
  auto loop = loop_of_.find(inst->block);
  if (loop == loop_of_.end()) return false;
  const Block* header = forward_.at(loop->second->header);
  for (const Value* v : inst->operands) {
    if (!small_scalar(v->GetType())) return false;
    if (v->VKind() == ir::ValueKind::Constant || v->VKind() == ir::ValueKind::Global || Free(v)) continue;
    if (v->VKind() == ir::ValueKind::Param && static_cast<const ir::Param*>(v)->GetBlock() == header) {
      carried->insert(v);
      continue;
    }
    if (v->VKind() != ir::ValueKind::Inst) return false;
    const auto* def = static_cast<const Inst*>(v);
    auto def_loop = loop_of_.find(def->block);
    if (def_loop == loop_of_.end() || def_loop->second != loop->second) return false;
    if (!Reformable(def, depth + 1, carried)) return false;
  }
  return true;
}

bool Reverser::Free(const Value* copy, int depth) {
  if (copy->VKind() == ir::ValueKind::Constant || copy->VKind() == ir::ValueKind::Global) return true;
  const Block* block = nullptr;
  if (copy->VKind() == ir::ValueKind::Inst) block = static_cast<const Inst*>(copy)->block;
  if (copy->VKind() == ir::ValueKind::Param) block = static_cast<const ir::Param*>(copy)->GetBlock();
  if (block == nullptr || top_level_.count(block) != 0) return true;
  auto known = free_.find(copy);
  if (known != free_.end()) return known->second;
  // Long chains are kept rather than formed again (and the walk stays shallow).
  if (depth > 32) return false;
  bool free = false;
  if (copy->VKind() == ir::ValueKind::Param) {
    auto it = inductions_.find(copy);
    if (it != inductions_.end()) {
      const Value* start = it->second.start;
      free = start->VKind() == ir::ValueKind::Constant || Free(primal_.At(start), depth + 1);
    }
  } else {
    const auto* inst = static_cast<const Inst*>(copy);
    const ir::Type* t = inst->GetType();
    Op op = inst->GetOp();
    bool small = (t->IsInt() || t->IsBool()) ||
                 (t->IsVector() && (t->Element()->IsInt() || t->Element()->IsBool()));
    bool pure = PureOp(op);
    bool read_only = (op == Op::Load && ReadOnlyPath(inst->operands[0])) ||
                     ((op == Op::ElementPtr || op == Op::MemberPtr) && ReadOnlyPath(inst));
    if ((small && pure) || read_only) {
      free = true;
      for (const Value* v : inst->operands) {
        if (!Free(v, depth + 1)) {
          free = false;
          break;
        }
      }
    }
  }
  free_[copy] = free;
  return free;
}

Value* Reverser::Iteration(const LoopInfo* info) {
  if (in_reverse_) {
    auto it = reverse_iter_.find(info);
    if (it != reverse_iter_.end()) return it->second;
  }
  if (info->exact) return ExactIteration(info);
  Value* outer = info->parent != nullptr ? TapeIndex(info->parent) : nullptr;
  return b_.Load(Counter(info, outer));
}

void Reverser::FindInductions() {
  for (auto& [header, info] : loops_) {
    const Inst* back = info.cont->Terminator();
    const Inst* entry = nullptr;
    int entries = 0;
    for (const Block* b : jvp_->blocks) {
      const Inst* t = b->Terminator();
      if (t != nullptr && t != back && t->GetOp() == Op::Br && t->targets[0] == header) {
        entry = t;
        ++entries;
      }
    }
    if (entries != 1 || back->GetOp() != Op::Br) continue;
    for (size_t i = 0; i < header->params.size() && i < back->operands.size(); ++i) {
      ir::Param* p = header->params[i];
      if (Linear(p) || !p->GetType()->IsInt() || p->GetType()->Width() > 32) continue;
      const Value* next = back->operands[i];
      if (next->VKind() != ir::ValueKind::Inst) continue;
      const auto* step = static_cast<const Inst*>(next);
      if ((step->GetOp() != Op::Add && step->GetOp() != Op::Sub) || step->operands[0] != p ||
          step->operands[1]->VKind() != ir::ValueKind::Constant) {
        continue;
      }
      int64_t s = static_cast<const ir::Constant*>(step->operands[1])->AsSigned();
      if (step->GetOp() == Op::Sub) s = -s;
      Value* start = entry->operands.at(i);
      if (Linear(start)) continue;
      inductions_[primal_.At(p)] = Induction{&info, start, s};
    }
  }
}

void Reverser::NoteStored(Value* copy, uint32_t copies) {
  Stored s;
  const ir::Type* t = copy->GetType();
  s.bytes = StoredBytes(t) * copies;
  if (copy->VKind() == ir::ValueKind::Inst) {
    s.loc = static_cast<Inst*>(copy)->loc;
  } else if (copy->VKind() == ir::ValueKind::Param) {
    // A block parameter: where its loop or selection is.
    Block* block = static_cast<ir::Param*>(copy)->GetBlock();
    auto loop = loop_of_.find(block);
    if (loop != loop_of_.end()) s.loc = loop->second->header->Terminator()->loc;
  }
  Block* block = nullptr;
  if (copy->VKind() == ir::ValueKind::Inst) block = static_cast<Inst*>(copy)->block;
  if (copy->VKind() == ir::ValueKind::Param) block = static_cast<ir::Param*>(copy)->GetBlock();
  auto loop = loop_of_.find(block);
  bool nested = loop != loop_of_.end() && loop->second->parent != nullptr;
  s.what = nested    ? "an array of " + std::to_string(copies) + " " + t->Name() +
                        " (one per iteration of its loop and the loops around it, and the exits)"
           : copies > 1 ? "an array of " + std::to_string(copies) + " " + t->Name() +
                              " (one per iteration, and the exit)"
                        : "a " + t->Name() + " in a variable";
  stored_.push_back(std::move(s));
}

void Reverser::ReportStored() {
  diag::DiagEngine* diags = ctx_.options.diags;
  if (diags == nullptr || !diags->Wants(diag::Remark::CheckpointIntermediates)) return;
  std::string name = SourceName(*bwd_);
  uint64_t total = 0;
  for (const Stored& s : stored_) total += s.bytes;
  std::string summary = stored_.empty()
                            ? "nothing stored (what it needs is kept from the forward sweep or "
                              "recomputed)"
                            : std::to_string(stored_.size()) + " stored value(s)";
  diags->Report(diag::DiagId::CheckpointTotal, f_->loc, name, total, summary);
  // Per source line, in line order; each note at the first place on its line.
  const source::SourceManager& sources = diags->Sources();
  std::map<std::pair<source::FileId, uint32_t>, std::vector<const Stored*>> lines;
  for (const Stored& s : stored_) {
    uint32_t line = s.loc.IsValid() ? sources.GetPhysicalLineCol(s.loc).line : 0;
    lines[{s.loc.file, line}].push_back(&s);
  }
  for (auto& [key, list] : lines) {
    uint64_t bytes = 0;
    std::string what;
    const Stored* first = list.front();
    for (const Stored* s : list) {
      bytes += s->bytes;
      what += (what.empty() ? "" : ", ") + s->what;
      if (s->loc.offset < first->loc.offset) first = s;
    }
    diags->Report(diag::DiagId::CheckpointHere, first->loc, name, bytes, what);
  }
}

Value* Reverser::AdjPtr(Value* ptr) {
  // In the reverse sweep, pointers into adjoint memory are formed again where used (the
  // forward sweep's may sit in an arm that does not dominate the use).
  if (in_reverse_ && ptr->VKind() == ir::ValueKind::Inst) {
    auto* inst = static_cast<Inst*>(ptr);
    if (inst->GetOp() == Op::ElementPtr) return b_.IndexPtr(AdjPtr(inst->operands[0]), P(inst->operands[1]));
    if (inst->GetOp() == Op::MemberPtr) return b_.MemberPtr(AdjPtr(inst->operands[0]), inst->imms.at(0));
  }
  Value* const* memory = adj_ptr_.Find(ptr);
  if (memory == nullptr) SLOPE_ICE("reverse mode: linear pointer without adjoint memory");
  return *memory;
}

Value* Reverser::Add(Value* a, Value* c) {
  const ir::Type* t = a->GetType();
  if (!t->IsStruct() && !t->IsArray()) return b_.Binary(Op::Add, a, c);
  std::vector<Value*> parts;
  size_t n = t->IsStruct() ? t->Members().size() : t->Count();
  for (uint32_t i = 0; i < n; ++i) parts.push_back(Add(b_.Extract(a, i), b_.Extract(c, i)));
  return t->IsStruct() ? static_cast<Value*>(b_.MakeStruct(t, std::move(parts)))
                       : static_cast<Value*>(b_.MakeArray(t, std::move(parts)));
}

void Reverser::AddAdj(Value* v, Value* x) {
  if (!Linear(v)) return;
  Value* const* adj = adj_.Find(v);
  if (adj == nullptr) SLOPE_ICE("reverse mode: linear value without an adjoint");
  AddToMemory(*adj, x);
}

Value* Reverser::LaneSum(Value* v) {
  Value* sum = b_.Extract(v, 0);
  for (uint32_t i = 1; i < v->GetType()->Count(); ++i) sum = b_.Binary(Op::Add, sum, b_.Extract(v, i));
  return sum;
}

Value* Reverser::Outer(Value* u, Value* v) {
  const ir::Type* vt = v->GetType();
  std::vector<Value*> rows;
  for (uint32_t i = 0; i < u->GetType()->Count(); ++i) {
    rows.push_back(b_.Binary(Op::Mul, b_.Splat(b_.Extract(u, i), vt->Count()), v));
  }
  const ir::Type* t = types_.Matrix(vt->Scalar(), u->GetType()->Count(), vt->Count());
  return b_.Emit(Op::MakeMatrix, t, std::move(rows));
}

Function* Reverser::Stub(Function* callee) {
  auto [it, inserted] = stub_of_.emplace(callee, nullptr);
  if (inserted) {
    it->second = forward::DeclareJvp(ctx_.module, callee);
    stubs_[it->second] = callee;
  }
  return it->second;
}

bool Reverser::WalkLoop(Block* header) {
  const Inst* term = header->Terminator();
  auto [slot, fresh] = loops_.try_emplace(header);
  if (!fresh) {
    Error(term->loc, "a loop not tested at its top is not supported in reverse mode");
    return false;
  }
  LoopInfo& info = slot->second;
  info.header = header;
  info.cont = term->targets[2];
  info.parent = walking_.empty() ? nullptr : walking_.back();
  Block* merge = term->targets[1];
  if (term->imms.size() > 1) {
    info.bound = term->imms[1];
  } else if (!ProveTripCount(*jvp_, header, &info.bound)) {
    passes::ReportError(ctx_.options, diag::DiagId::ReverseLoopUnbounded, term->loc,
                        SourceName(*f_));
    failed_ = true;
    return false;
  }
  info.entries = (info.parent != nullptr ? info.parent->entries : 1) * (uint64_t{info.bound} + 1);
  ProveExact(header, &info);
  if (info.entries > kMaxTapeEntries) {
    Error(term->loc, "the iterations of this loop and the loops around it need " +
                         std::to_string(info.entries) +
                         " entries of per-iteration storage (at most " +
                         std::to_string(kMaxTapeEntries) + "); lower their [MaxIters]");
    return false;
  }
  for (LoopInfo* outer : walking_) outer->all.push_back(header);
  walking_.push_back(&info);
  info.all.push_back(header);
  // The test: from the first block to the cond_br that leaves the loop.
  bool ok = Walk(term->targets[0], nullptr, &info.test, merge);
  const Inst* test = ok ? info.test.back()->Terminator() : nullptr;
  if (ok && (test->targets[0] == info.cont || info.cont->Terminator()->GetOp() != Op::Br ||
             info.cont->Terminator()->targets[0] != header)) {
    Error(term->loc, "this loop's shape (an empty body, or a continue block of more than one "
                     "block) is not supported in reverse mode");
    ok = false;
  }
  if (ok) {
    info.cond = info.test.back();
    ok = Walk(test->targets[0], info.cont, &info.body);
  }
  walking_.pop_back();
  if (!ok) return false;
  for (LoopInfo* outer : walking_) outer->all.push_back(info.cont);
  info.all.push_back(info.cont);
  for (const Block* b : info.all) loop_of_.emplace(b, &info);
  return true;
}

bool Reverser::Walk(Block* start, Block* end, std::vector<Block*>* chain, Block* test_exit) {
  for (Block* b = start; b != end;) {
    chain->push_back(b);
    for (LoopInfo* loop : walking_) loop->all.push_back(b);
    const Inst* term = b->Terminator();
    switch (term->GetOp()) {
      case Op::Return:
        if (end == nullptr && test_exit == nullptr) return true;
        Error(term->loc, "control flow leaving a loop or selection other than at its end is not "
                         "supported in reverse mode");
        return false;
      case Op::CondBr:
        if (test_exit != nullptr && term->targets[1] == test_exit && term->operands.size() == 1) {
          return true;
        }
        Error(term->loc, "a loop not tested at its top is not supported in reverse mode");
        return false;
      case Op::Br: b = term->targets[0]; break;
      case Op::Loop: {
        if (!WalkLoop(b)) return false;
        b = term->targets[1];
        break;
      }
      case Op::If:
      case Op::Switch: {
        Block* merge = term->targets.back();
        for (size_t i = 0; i + 1 < term->targets.size(); ++i) {
          Block* arm = term->targets[i];
          if (arm == merge || arm_chain_.count(arm) != 0) continue;
          std::vector<Block*>& inner = arm_chain_[arm];
          if (!Walk(arm, merge, &inner)) return false;
        }
        b = merge;
        break;
      }
      default:
        Error(term->loc, std::string("'") + ir::GetOpInfo(term->GetOp()).mnemonic +
                             "' control flow is not supported in reverse mode");
        return false;
    }
  }
  return true;
}

void Reverser::Classify() {
  // Seeds: the tangent parameters and the result's tangent slot.
  size_t k = 0;
  for (const ir::Param* p : f_->params) {
    jvp_index_.push_back(k);
    if (Diff(p->GetType()) != nullptr) {
      MarkLinear(jvp_->params.at(k + 1));
      k += 2;
    } else {
      k += 1;
    }
  }
  if (k < jvp_->params.size()) {
    result_slot_ = jvp_->params[k];
    MarkLinear(result_slot_);
  }
  // A value depending on a linear one is linear; memory a linear value is stored into,
  // or that a stand-in call writes a tangent into, is linear.
  auto root = [](Value* ptr) {
    while (ptr->VKind() == ir::ValueKind::Inst &&
           (static_cast<Inst*>(ptr)->GetOp() == Op::ElementPtr ||
            static_cast<Inst*>(ptr)->GetOp() == Op::MemberPtr)) {
      ptr = static_cast<Inst*>(ptr)->operands.at(0);
    }
    return ptr;
  };
  for (bool changed = true; changed;) {
    changed = false;
    for (Block* block : jvp_->blocks) {
      for (Inst* inst : block->insts) {
        if (inst->GetOp() == Op::Call && stubs_.count(inst->callee) != 0) {
          const Function* callee = stubs_.at(inst->callee);
          size_t a = 0;
          for (const ir::Param* p : callee->params) {
            ++a;
            if (Diff(p->GetType()) == nullptr) continue;
            Value* t = inst->operands.at(a++);
            if (t->GetType()->IsPointer()) changed |= MarkLinear(root(t));
          }
          if (a < inst->operands.size()) changed |= MarkLinear(root(inst->operands.at(a)));
          continue;
        }
        if (inst->GetOp() == Op::Store) {
          if (Linear(inst->operands[1])) changed |= MarkLinear(root(inst->operands[0]));
          continue;
        }
        if (inst->GetOp() == Op::Br) {
          for (size_t i = 0; i < inst->operands.size(); ++i) {
            if (Linear(inst->operands[i])) changed |= MarkLinear(inst->targets[0]->params.at(i));
          }
          continue;
        }
        if (inst->IsTerminator() || inst->GetOp() == Op::Call || inst->GetType()->IsVoid()) continue;
        for (const Value* v : inst->operands) {
          if (Linear(v)) {
            changed |= MarkLinear(inst);
            break;
          }
        }
      }
    }
  }
  // Only a stand-in call carries derivatives; one passed to any other call (from the
  // body of a custom forward derivative) would be lost.
  for (Block* block : jvp_->blocks) {
    for (Inst* inst : block->insts) {
      if (failed_ || inst->GetOp() != Op::Call || stubs_.count(inst->callee) != 0) continue;
      for (const Value* v : inst->operands) {
        if (!Linear(v)) continue;
        Error(inst->loc, "a derivative is passed to '" + SourceName(*inst->callee) +
                             "', which reverse mode cannot transpose (a function without a "
                             "body, or a recursive one)");
        break;
      }
    }
  }
}

void Reverser::UnpackParams() {
  bool has_dresult = bwd_->params.size() == f_->params.size() + 1;
  for (uint32_t i = 0; i < f_->params.size(); ++i) {
    const ir::Type* pt = f_->params[i]->GetType();
    Value* param = bwd_->params.at(i);
    Value* jp = jvp_->params.at(jvp_index_[i]);
    bool has_tangent = Diff(pt) != nullptr;
    Value* jt = has_tangent ? jvp_->params.at(jvp_index_[i] + 1) : nullptr;
    ParamKind kind = ParamKind::Plain;
    if (param->GetType() != pt) {
      kind = !pt->IsPointer() ? ParamKind::Pair
             : param->GetType()->IsPointer() ? ParamKind::InOutPair
                                             : ParamKind::OutGradient;
    }
    kinds_.push_back(kind);
    switch (kind) {
      case ParamKind::Plain:
        primal_[jp] = param;
        break;
      case ParamKind::Pair:
        primal_[jp] = b_.Extract(b_.Load(param), 0);
        break;
      case ParamKind::InOutPair: {
        Inst* var = b_.Var(bwd_, pt->Element());
        b_.Store(var, b_.Extract(b_.Load(param), 0));
        primal_[jp] = var;
        break;
      }
      case ParamKind::OutGradient:
        primal_[jp] = ZeroedVar(pt->Element());
        break;
    }
    if (jt == nullptr) continue;
    if (jt->GetType()->IsPointer()) {
      Inst* memory = ZeroedVar(jt->GetType()->Element());
      if (kind == ParamKind::InOutPair) b_.Store(memory, b_.Extract(b_.Load(param), 1));
      if (kind == ParamKind::OutGradient) b_.Store(memory, param);
      adj_ptr_[jt] = memory;
    } else {
      adj_[jt] = ZeroedVar(jt->GetType());
    }
  }
  if (result_slot_ != nullptr) {
    Value* slot = result_slot_;
    Inst* memory = ZeroedVar(slot->GetType()->Element());
    if (has_dresult) b_.Store(memory, bwd_->params.back());
    adj_ptr_[slot] = memory;
  }
}

void Reverser::ForwardSweep() {
  // Adjoints of the linear values (pointers excepted) start at zero. The variables are
  // made first, then their stores: a variable goes in among the entry block's others,
  // before its stores, so one made after each store would move every store before it
  // (quadratic in a long straight-line body).
  std::vector<Inst*> zeroed;
  auto zeroed_var = [&](const Value* v) {
    zeroed.push_back(b_.Var(bwd_, v->GetType()));
    adj_[v] = zeroed.back();
  };
  for (const Block* block : jvp_->blocks) {
    for (const ir::Param* p : block->params) {
      if (Linear(p)) zeroed_var(p);
    }
    for (const Inst* inst : block->insts) {
      if (Linear(inst) && !inst->GetType()->IsPointer()) zeroed_var(inst);
    }
  }
  for (Inst* var : zeroed) b_.Store(var, Zero(var->GetType()->Element()));
  // The forward blocks, with the primal block parameters.
  for (Block* block : jvp_->blocks) {
    Block* copy = block == jvp_->blocks.front() ? bwd_->blocks.front() : ctx_.module.AddBlock(bwd_);
    if (copy != bwd_->blocks.front()) bwd_->blocks.push_back(copy);
    forward_[block] = copy;
    for (ir::Param* p : block->params) {
      if (Linear(p)) continue;
      ir::Param* np = ctx_.module.AddParam(p->GetType(), copy);
      copy->params.push_back(np);
      primal_[p] = np;
    }
  }
  // Iteration counters: a top-level loop's is zero at entry; a nested loop's has one
  // entry per iteration of the loops around it, zeroed as the loop is entered.
  const ir::Type* i32 = types_.Int(32, true);
  for (Block* header : jvp_->blocks) {
    auto it = loops_.find(header);
    if (it == loops_.end()) continue;
    LoopInfo& info = it->second;
    if (info.exact) continue;
    if (info.parent == nullptr) {
      info.iter = b_.Var(bwd_, i32);
      b_.Store(info.iter, ctx_.module.ConstInt(i32, 0));
      continue;
    }
    info.iter = b_.Var(bwd_, types_.Array(i32, static_cast<uint32_t>(info.parent->entries)));
    // The trip counts are kept for the reverse sweep.
    Stored s;
    s.loc = header->Terminator()->loc;
    s.bytes = 4 * info.parent->entries;
    s.what = "an array of " + std::to_string(info.parent->entries) +
             " i32 (its trip count per iteration of the loops around it)";
    stored_.push_back(std::move(s));
  }
  for (Block* block : jvp_->blocks) {
    if (block != jvp_->blocks.front()) b_.SetInsertBlock(forward_.at(block));
    auto loop = loop_of_.find(block);
    if (loop != loop_of_.end()) {
      const LoopInfo* info = loop->second;
      forward_index_[forward_.at(block)] = TapeIndex(info);
      loop_of_[forward_.at(block)] = info;
      if (block == info->cont && !info->exact) {
        Value* counter = Counter(info, info->parent != nullptr ? TapeIndex(info->parent) : nullptr);
        b_.Store(counter, b_.Binary(Op::Add, b_.Load(counter), ctx_.module.ConstInt(i32, 1)));
      }
    }
    for (Inst* inst : block->insts) {
      b_.SetLoc(inst->loc);
      Op op = inst->GetOp();
      if (op == Op::Return) {
        ret_block_ = b_.GetInsertBlock();
        continue;
      }
      if (op == Op::Var) {
        if (Linear(inst)) {
          adj_ptr_[inst] = ZeroedVar(inst->GetType()->Element());
        } else {
          primal_[inst] = b_.Var(bwd_, inst->GetType()->Element());
        }
        continue;
      }
      if (op == Op::Call && stubs_.count(inst->callee) != 0) {
        ForwardCall(*inst);
        reverse_[block].push_back(inst);
        continue;
      }
      if (op == Op::Br) {
        auto entered = loops_.find(inst->targets[0]);
        if (entered != loops_.end() && entered->second.parent != nullptr &&
            !entered->second.exact && block != entered->second.cont) {
          const LoopInfo* info = &entered->second;
          b_.Store(Counter(info, TapeIndex(info->parent)), ctx_.module.ConstInt(i32, 0));
        }
        std::vector<Value*> args;
        for (size_t i = 0; i < inst->operands.size(); ++i) {
          if (!Linear(inst->targets[0]->params.at(i))) args.push_back(P(inst->operands[i]));
        }
        b_.Br(forward_.at(inst->targets[0]), std::move(args));
        continue;
      }
      bool linear_store = op == Op::Store && Linear(inst->operands[0]);
      if (Linear(inst) || linear_store) {
        if (op == Op::ElementPtr) adj_ptr_[inst] = b_.IndexPtr(AdjPtr(inst->operands[0]), P(inst->operands[1]));
        if (op == Op::MemberPtr) adj_ptr_[inst] = b_.MemberPtr(AdjPtr(inst->operands[0]), inst->imms.at(0));
        reverse_[block].push_back(inst);
        continue;
      }
      std::vector<Value*> operands;
      for (Value* v : inst->operands) {
        if (Linear(v)) {
          Error(inst->loc, std::string("'") + ir::GetOpInfo(op).mnemonic + "' of a value that carries a derivative");
          return;
        }
        operands.push_back(P(v));
      }
      Inst* r = b_.Emit(op, inst->GetType(), std::move(operands), inst->imms);
      r->callee = inst->callee;
      for (Block* t : inst->targets) r->targets.push_back(forward_.at(t));
      if (!inst->GetType()->IsVoid()) primal_[inst] = r;
    }
  }
}

void Reverser::ReverseBlock(Block* block) {
  // The edge out of the block first: its arguments receive the adjoints of the
  // parameters they were bound to.
  const Inst* term = block->Terminator();
  if (term->GetOp() == Op::Br) {
    Block* target = term->targets[0];
    for (size_t i = 0; i < term->operands.size(); ++i) {
      if (Linear(target->params[i])) AddAdj(term->operands[i], Adj(target->params[i]));
    }
  }
  auto it = reverse_.find(block);
  if (it == reverse_.end()) return;
  for (size_t i = it->second.size(); i-- > 0 && !failed_;) Transpose(*it->second[i]);
}

void Reverser::ReverseInsts(Block* block) {
  auto it = reverse_.find(block);
  if (it == reverse_.end()) return;
  for (size_t i = it->second.size(); i-- > 0 && !failed_;) Transpose(*it->second[i]);
}

void Reverser::ReverseLoop(const LoopInfo& info) {
  const ir::Type* i32 = types_.Int(32, true);
  Value* bound = ctx_.module.ConstInt(i32, info.bound);
  Value* outer = info.parent != nullptr ? TapeIndex(info.parent) : nullptr;
  Value* count = info.exact ? ctx_.module.ConstInt(i32, info.trips) : b_.Load(Counter(&info, outer));
  auto index = [&](Value* k) -> Value* {
    Value* clamped = b_.CallIntrinsic(ir::Intrinsic::Min, i32, {k, bound});
    if (outer == nullptr) return clamped;
    Value* base = b_.Binary(Op::Mul, outer, ctx_.module.ConstInt(i32, info.bound + 1));
    return b_.Binary(Op::Add, base, clamped);
  };
  // The exit pass: the header and the test ran once more.
  reverse_index_[&info] = index(count);
  reverse_iter_[&info] = count;
  ReverseRegion(info.test);
  ReverseInsts(info.header);
  // Iterations count-1 down to 0.
  Inst* k = b_.Var(bwd_, i32);
  b_.Store(k, b_.Binary(Op::Sub, count, ctx_.module.ConstInt(i32, 1)));
  Block* test = ctx_.module.AddBlock(bwd_);
  Block* body = ctx_.module.AddBlock(bwd_);
  Block* cont = ctx_.module.AddBlock(bwd_);
  Block* done = ctx_.module.AddBlock(bwd_);
  Block* head = EnterLoop(test, done, cont);
  Value* kv = b_.Load(k);
  b_.CondBr(b_.Compare(Op::Ge, kv, ctx_.module.ConstInt(i32, 0)), body, done);
  bwd_->blocks.push_back(body);
  b_.SetInsertBlock(body);
  Value* kv_body = b_.Load(k);
  reverse_index_[&info] = index(kv_body);
  reverse_iter_[&info] = kv_body;
  // Adjoints of the iteration's values start at zero; the header parameters' go to
  // the arguments the continue block passed them.
  for (const Block* b : info.all) {
    for (const Inst* inst : b->insts) {
      if (Value* const* adj = adj_.Find(inst)) b_.Store(*adj, Zero(inst->GetType()));
    }
    if (b == info.header) continue;
    for (const ir::Param* p : b->params) {
      if (Value* const* adj = adj_.Find(p)) b_.Store(*adj, Zero(p->GetType()));
    }
  }
  const Inst* back = info.cont->Terminator();
  std::vector<std::pair<Value*, Value*>> carried;
  for (size_t i = 0; i < back->operands.size(); ++i) {
    ir::Param* p = info.header->params[i];
    if (!Linear(p)) continue;
    carried.push_back({back->operands[i], Adj(p)});
    b_.Store(adj_.At(p), Zero(p->GetType()));
  }
  for (auto& [arg, adjoint] : carried) AddAdj(arg, adjoint);
  ReverseInsts(info.cont);
  ReverseRegion(info.body);
  ReverseRegion(info.test);
  ReverseInsts(info.header);
  b_.Br(cont);
  bwd_->blocks.push_back(cont);
  b_.SetInsertBlock(cont);
  b_.Store(k, b_.Binary(Op::Sub, b_.Load(k), ctx_.module.ConstInt(i32, 1)));
  b_.Br(head);
  bwd_->blocks.push_back(done);
  b_.SetInsertBlock(done);
  reverse_index_.erase(&info);
  reverse_iter_.erase(&info);
}

void Reverser::ProveExact(Block* header, LoopInfo* info) {
  // After normalization a loop leaves only through its test, so a test that is
  // `i < n` on a counter the entry edge starts at a constant and the back edge steps by
  // one (ProveTripCount) makes the trip count the same on every entry: nothing needs to
  // count the iterations, and the reverse sweep runs that many.
  uint32_t trips = 0;
  if (!ProveTripCount(*jvp_, header, &trips) || trips > info->bound) return;
  const Inst* test = header->Terminator()->targets[0]->Terminator();
  const auto* param = static_cast<const ir::Param*>(static_cast<const Inst*>(test->operands[0])->operands[0]);
  if (param->GetType() != types_.Int(32, true)) return;
  const Inst* back = info->cont->Terminator();
  size_t index = std::find(header->params.begin(), header->params.end(), param) - header->params.begin();
  const Inst* entry = nullptr;
  for (const Block* b : jvp_->blocks) {
    const Inst* t = b->Terminator();
    if (t != nullptr && t != back && t->GetOp() == Op::Br && t->targets[0] == header) entry = t;
  }
  const auto* step = static_cast<const Inst*>(back->operands[index]);
  info->exact = true;
  info->trips = trips;
  info->counter_param = index;
  info->start = static_cast<const ir::Constant*>(entry->operands[index])->AsSigned();
  info->step = static_cast<const ir::Constant*>(step->operands[1])->AsSigned();
}

Value* Reverser::ExactIteration(const LoopInfo* info) {
  const ir::Type* i32 = types_.Int(32, true);
  // In the reverse sweep outside the loop's own reversal: after the loop, all of it ran.
  if (in_reverse_) return ctx_.module.ConstInt(i32, info->trips);
  Value* i = P(info->header->params[info->counter_param]);
  Value* k = info->start == 0 ? i : b_.Binary(Op::Sub, i, ctx_.module.ConstInt(i32, static_cast<uint64_t>(info->start)));
  return info->step == 1 ? k : b_.Binary(Op::Div, k, ctx_.module.ConstInt(i32, static_cast<uint64_t>(info->step)));
}

Value* Reverser::Counter(const LoopInfo* info, Value* outer) {
  return info->parent == nullptr ? static_cast<Value*>(info->iter) : b_.IndexPtr(info->iter, outer);
}

Value* Reverser::TapeIndex(const LoopInfo* info) {
  if (in_reverse_) {
    auto it = reverse_index_.find(info);
    if (it != reverse_index_.end()) return it->second;
  }
  const ir::Type* i32 = types_.Int(32, true);
  Value* outer = info->parent != nullptr ? TapeIndex(info->parent) : nullptr;
  Value* iteration = info->exact ? ExactIteration(info) : b_.Load(Counter(info, outer));
  Value* clamped = b_.CallIntrinsic(ir::Intrinsic::Min, i32, {iteration, ctx_.module.ConstInt(i32, info->bound)});
  if (outer == nullptr) return clamped;
  Value* base = b_.Binary(Op::Mul, outer, ctx_.module.ConstInt(i32, info->bound + 1));
  return b_.Binary(Op::Add, base, clamped);
}

void Reverser::ReverseRegion(const std::vector<Block*>& chain) {
  for (size_t i = chain.size(); i-- > 0 && !failed_;) {
    Block* block = chain[i];
    const Inst* term = block->Terminator();
    if (term->GetOp() == Op::Loop) {
      ReverseLoop(loops_.at(block));
      continue;
    }
    if (term->GetOp() == Op::If || term->GetOp() == Op::Switch) {
      // The arms in reverse, selected as the forward pass selected them.
      Block* merge = term->targets.back();
      Block* after = ctx_.module.AddBlock(bwd_);
      std::map<Block*, Block*> arm_of;
      std::vector<Block*> targets;
      Block* header = b_.GetInsertBlock();
      for (size_t t = 0; t + 1 < term->targets.size(); ++t) {
        Block* arm = term->targets[t];
        auto [at, inserted] = arm_of.emplace(arm, after);
        if (inserted && arm != merge) {
          const std::vector<Block*>& inner = arm_chain_.at(arm);
          Block* start = ctx_.module.AddBlock(bwd_);
          bwd_->blocks.push_back(start);
          b_.SetInsertBlock(start);
          ReverseRegion(inner);
          b_.Br(after);
          at->second = start;
        }
        targets.push_back(at->second);
      }
      bwd_->blocks.push_back(after);
      b_.SetInsertBlock(header);
      Value* selector = P(term->operands[0]);
      if (term->GetOp() == Op::If) {
        b_.If(selector, targets[0], targets[1], after);
      } else {
        std::vector<ir::Builder::SwitchCase> cases;
        for (size_t c = 1; c < term->operands.size(); ++c) cases.push_back({term->operands[c], targets[c]});
        b_.Switch(selector, targets[0], cases, after);
      }
      b_.SetInsertBlock(after);
    }
    ReverseBlock(block);
  }
}


void Reverser::ForwardCall(Inst& call) {
  Function* callee = stubs_.at(call.callee);
  std::vector<Value*> args;
  size_t a = 0;
  for (size_t j = 0; j < callee->params.size(); ++j) {
    Value* v = call.operands.at(a++);
    const ir::Type* d = Diff(callee->params[j]->GetType());
    if (d != nullptr) ++a;
    args.push_back(P(v));
    // The input of an inout parameter, for the callee's backward derivative (which runs
    // the callee's primal again, from the state before the call).
    if (IsFunctionPointer(callee->params[j]->GetType())) saved_inout_[&call][j] = b_.Load(P(v));
  }
  Inst* r = b_.Call(callee, std::move(args));
  if (!call.GetType()->IsVoid()) primal_[&call] = r;
}

void Reverser::TransposeCall(Inst& call) {
  Function* callee = stubs_.at(call.callee);
  Function* cb = ctx_.bwd_of(callee);
  if (cb == nullptr) {
    Error(call.loc, "'" + callee->Name() + "' has no backward derivative; give it one ([BackwardDerivative]) or mark it [Differentiable]");
    return;
  }
  std::vector<Value*> args;
  std::vector<std::pair<Value*, Inst*>> add_back;   // tangent, pair slot
  std::vector<std::pair<Value*, Inst*>> set_back;   // tangent pointer, pair slot
  std::vector<Value*> clear;                        // tangent pointers read as gradients
  // A primal argument alone: an inout one (an int, `this` of a struct that carries no
  // derivative) as it was before the call, in memory of the backward derivative's own,
  // since the backward derivative runs the callee's primal again.
  auto primal_arg = [&](size_t j, Value* v) -> Value* {
    const ir::Type* pt = callee->params[j]->GetType();
    if (!IsFunctionPointer(pt)) return P(v);
    Inst* slot = b_.Var(bwd_, pt->Element());
    b_.Store(slot, Spilled(saved_inout_.at(&call).at(j)));
    return slot;
  };
  size_t a = 0;
  for (size_t j = 0; j < callee->params.size(); ++j) {
    Value* v = call.operands.at(a++);
    const ir::Type* pt = callee->params[j]->GetType();
    const ir::Type* want = cb->params.at(j)->GetType();
    if (Diff(pt) == nullptr) {
      args.push_back(primal_arg(j, v));
      continue;
    }
    Value* t = call.operands.at(a++);
    if (want == pt) {  // no_diff: the primal alone
      args.push_back(primal_arg(j, v));
    } else if (!pt->IsPointer()) {
      Inst* slot = b_.Var(bwd_, want->Element());
      b_.Store(slot, b_.MakeStruct(want->Element(), {P(v), Zero(Diff(pt))}));
      args.push_back(slot);
      if (Linear(t)) add_back.push_back({t, slot});
    } else if (want->IsPointer()) {
      Inst* slot = b_.Var(bwd_, want->Element());
      b_.Store(slot, b_.MakeStruct(want->Element(), {Spilled(saved_inout_.at(&call).at(j)), b_.Load(AdjPtr(t))}));
      args.push_back(slot);
      set_back.push_back({t, slot});
    } else {
      args.push_back(b_.Load(AdjPtr(t)));
      clear.push_back(t);
    }
  }
  if (a < call.operands.size() && cb->params.size() > callee->params.size()) {
    Value* memory = AdjPtr(call.operands[a]);
    args.push_back(b_.Load(memory));
    clear.push_back(call.operands[a]);
  }
  b_.Call(cb, std::move(args));
  for (auto& [t, slot] : add_back) AddAdj(t, b_.Extract(b_.Load(slot), 1));
  for (auto& [t, slot] : set_back) b_.Store(AdjPtr(t), b_.Extract(b_.Load(slot), 1));
  for (Value* t : clear) b_.Store(AdjPtr(t), Zero(AdjPtr(t)->GetType()->Element()));
}

void Reverser::WriteGradients() {
  for (uint32_t i = 0; i < f_->params.size(); ++i) {
    if (kinds_[i] != ParamKind::Pair && kinds_[i] != ParamKind::InOutPair) continue;
    Value* param = bwd_->params[i];
    Value* jt = jvp_->params.at(jvp_index_[i] + 1);
    Value* pair = b_.Load(param);
    // As in Slang, the gradient replaces what `.d` held: an input pair's `.d` is not read,
    // an inout pair's went in as the gradient of the new value.
    Value* grad = kinds_[i] == ParamKind::Pair ? Adj(jt) : b_.Load(AdjPtr(jt));
    b_.Store(param, b_.MakeStruct(param->GetType()->Element(), {b_.Extract(pair, 0), grad}));
  }
}

void Reverser::Run() {
  f_ = bwd_->autodiff.bwd_diff_of;
  if (f_->autodiff.primal_substitute != nullptr) f_ = f_->autodiff.primal_substitute;
  Block* entry = ctx_.module.AddBlock(bwd_);
  bwd_->blocks.push_back(entry);
  b_.SetInsertBlock(entry);
  if (f_->autodiff.custom_bwd != nullptr) {
    b_.Call(f_->autodiff.custom_bwd, std::vector<Value*>(bwd_->params.begin(), bwd_->params.end()));
    b_.Return();
    return;
  }
  if (ctx_.ensure_body) ctx_.ensure_body(f_);
  // Differentiable callees outside loops join f_'s body (on a copy), early exits become
  // flags (on a copy), then linearize.
  // A function whose only derivative is a custom forward one is linearized by it.
  bool by_custom_fwd = f_->autodiff.custom_fwd != nullptr && !f_->autodiff.differentiable;
  Function* inlined = by_custom_fwd ? f_ : InlineCallees(ctx_.module, f_);
  Function* source = by_custom_fwd ? f_ : NormalizeControlFlow(ctx_.module, ctx_.options, inlined);
  std::vector<Function*> scratch;
  failed_ = source == nullptr;
  if (by_custom_fwd) {
    jvp_ = forward::DeclareJvp(ctx_.module, source);
    if (JvpFromCustomForward(ctx_, f_, jvp_, &scratch) == nullptr) {
      if (f_->autodiff.custom_fwd->blocks.empty()) {
        Error(f_->loc, "its custom forward derivative '" + f_->autodiff.custom_fwd->Name() +
                           "' has no body to transpose; give it a [BackwardDerivative]");
      }
      failed_ = true;
    }
  } else if (source != nullptr) {
    forward::JvpContext jvp_context{ctx_.module, ctx_.options, [this](Function* c) { return Stub(c); }, true};
    jvp_ = forward::DeclareJvp(ctx_.module, source);
    forward::BuildJvp(jvp_context, source, jvp_);
  }
  if (!failed_) {
    Classify();
    UnpackParams();
    std::vector<Block*> chain;
    bool walked = Walk(jvp_->blocks.front(), nullptr, &chain);
    SLOPE_ASSERT(walked || failed_);
    if (walked) {
      for (Block* b : chain) {
        if (loops_.count(b) == 0) top_level_.insert(b);
      }
      // A pointer into differentiated memory chosen by control flow (a block parameter)
      // has no adjoint variable to mirror it.
      for (const Block* block : jvp_->blocks) {
        for (const ir::Param* p : block->params) {
          if (failed_ || !Linear(p) || !p->GetType()->IsPointer()) continue;
          Error(block->insts.empty() ? f_->loc : block->insts.front()->loc,
                "a pointer chosen by control flow (a branch passing one of several variables)");
        }
      }
      if (!failed_) ForwardSweep();
      if (!failed_) FindInductions();
    }
    std::set<const Block*> forward_top;
    for (const Block* b : top_level_) forward_top.insert(forward_.count(b) ? forward_.at(b) : b);
    top_level_ = forward_top;
    if (!failed_ && ret_block_ != nullptr) {
      // Transpose, from the end of the forward sweep.
      Block* back = ctx_.module.AddBlock(bwd_);
      bwd_->blocks.push_back(back);
      b_.SetInsertBlock(ret_block_);
      b_.Br(back);
      b_.SetInsertBlock(back);
      in_reverse_ = true;
      ReverseRegion(chain);
      if (!failed_) WriteGradients();
      if (!failed_) ReportStored();
    }
  }
  if (b_.IsTerminated()) {
    // An error left the builder in a finished block: end in a fresh one.
    Block* last = ctx_.module.AddBlock(bwd_);
    bwd_->blocks.push_back(last);
    b_.SetInsertBlock(last);
  }
  b_.Return();
  // Forward blocks an error left open end the function too.
  for (Block* block : bwd_->blocks) {
    if (block->Terminator() == nullptr) {
      b_.SetInsertBlock(block);
      b_.Return();
    }
  }
  // The JVP, the stand-ins and the normalized copy were only the linearization.
  auto& fs = ctx_.module.functions;
  fs.erase(std::remove_if(fs.begin(), fs.end(),
                          [&](const Function* g) {
                            return g == jvp_ || stubs_.count(g) != 0 ||
                                   (g != f_ && (g == source || g == inlined)) ||
                                   std::find(scratch.begin(), scratch.end(), g) != scratch.end();
                          }),
           fs.end());
}

void BuildBackward(const ReverseContext& context, ir::Function* bwd) { Reverser(context, bwd).Run(); }

}  // namespace slope::autodiff::reverse
