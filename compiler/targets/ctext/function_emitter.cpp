#include "compiler/targets/ctext/function_emitter.h"

#include <algorithm>
#include <functional>

#include "compiler/base/ice.h"
#include "compiler/ir/cfg.h"

namespace slope::targets::ctext {
namespace {

/// Deeper than this, printing has lost its way through the blocks (a cycle that is not a
/// structured loop): an internal error rather than a stack overflow.
constexpr int kMaxDepth = 2000;

/// Prints what `fn` prints into a writer of its own at `indent` and returns the text.
std::string Capture(TextWriter*& out, int indent, const std::function<void()>& fn) {
  TextWriter sub(indent);
  TextWriter* saved = out;
  out = &sub;
  fn();
  out = saved;
  return sub.Text();
}

}  // namespace

FunctionEmitter::FunctionEmitter(const ir::Function& f, NameTable names)
    : function_(f), names_(std::move(names)) {}

std::string FunctionEmitter::EmitBody(int indent) {
  PlanFolding();
  std::string body = Capture(out_, indent, [&] { EmitBlock(function_.blocks.front()); });
  TextWriter all(indent);
  for (const std::string& d : declarations_) all.Line(d + ";");
  all.Append(body);
  return all.Text();
}

void FunctionEmitter::PlanFolding() {
  std::map<const ir::Value*, const ir::Inst*> user;
  std::map<const ir::Inst*, size_t> position;
  for (const ir::Block* b : function_.blocks) {
    for (size_t i = 0; i < b->insts.size(); ++i) {
      const ir::Inst* inst = b->insts[i];
      position[inst] = i;
      for (const ir::Value* v : inst->operands) {
        if (v->VKind() != ir::ValueKind::Inst && v->VKind() != ir::ValueKind::Param) continue;
        ++uses_[v];
        user[v] = inst;
      }
    }
  }
  auto candidate = [&](const ir::Inst* inst) {
    if (!FoldsValues()) return false;
    const ir::Type* t = inst->GetType();
    if (inst->IsTerminator() || t->IsVoid() || IsPlace(t)) return false;
    auto it = uses_.find(inst);
    if (it == uses_.end() || it->second != 1) return false;
    if (user.at(inst)->block != inst->block || !IsExpression(*inst)) return false;
    if (KeepsNamed(*user.at(inst), *inst) || AlwaysFolds(*user.at(inst))) return false;
    return !ir::GetOpInfo(inst->GetOp()).has_side_effects;
  };
  std::vector<const ir::Inst*> loads;
  for (const ir::Block* b : function_.blocks) {
    for (const ir::Inst* inst : b->insts) {
      if (!candidate(inst)) continue;
      if (ir::GetOpInfo(inst->GetOp()).reads_memory) {
        loads.push_back(inst);
      } else {
        folded_.insert(inst);
      }
    }
  }
  // A load folds when nothing that may write memory runs between it and the place its
  // value is finally computed (the first user that is not folded itself).
  for (const ir::Inst* load : loads) {
    const ir::Inst* at = user.at(load);
    while (folded_.count(at) != 0) at = user.at(at);
    const ir::Block* b = load->block;
    bool clear = true;
    for (size_t i = position.at(load) + 1; i < position.at(at); ++i) {
      if (ir::GetOpInfo(b->insts[i]->GetOp()).has_side_effects) clear = false;
    }
    if (clear) folded_.insert(load);
  }
}

Expr FunctionEmitter::ValueExpr(const ir::Value* v) {
  switch (v->VKind()) {
    case ir::ValueKind::Constant:
      return ConstantExpr(*static_cast<const ir::Constant*>(v));
    case ir::ValueKind::Global:
      return GlobalExpr(*static_cast<const ir::Global*>(v));
    case ir::ValueKind::Param: {
      const auto* p = static_cast<const ir::Param*>(v);
      if (p->GetBlock() == nullptr) {
        auto it = std::find(function_.params.begin(), function_.params.end(), p);
        SLOPE_ASSERT(it != function_.params.end());
        return FunctionParamExpr(*p, static_cast<size_t>(it - function_.params.begin()));
      }
      auto it = variables_.find(p);
      if (it == variables_.end()) {
        it = variables_.emplace(p, NewVariable(p->GetType(), "b")).first;
      }
      return Atom(it->second);
    }
    case ir::ValueKind::Inst: {
      const auto* inst = static_cast<const ir::Inst*>(v);
      if (IsFolded(*inst) || IsPlace(inst->GetType())) return InstExpr(*inst);
      return Atom(ResultName(*inst));
    }
  }
  SLOPE_ICE("unknown value kind");
}

const std::string& FunctionEmitter::ResultName(const ir::Inst& inst) {
  auto it = variables_.find(&inst);
  if (it != variables_.end()) return it->second;
  const ir::Type* t = inst.GetType();
  if (inst.GetOp() == ir::Op::Var) t = t->Element();
  return variables_.emplace(&inst, NewVariable(t, "v")).first->second;
}

std::string FunctionEmitter::NewVariable(const ir::Type* t, std::string_view hint) {
  std::string name = names_.Make(std::string(hint) + std::to_string(next_temp_++));
  declarations_.push_back(Declare(t, name));
  return name;
}

void FunctionEmitter::EmitBlock(const ir::Block* b) {
  if (++depth_ > kMaxDepth) SLOPE_ICE("control flow is not structured");
  const ir::Inst* t = b->Terminator();
  SLOPE_ASSERT(t != nullptr);
  if (t->GetOp() == ir::Op::Loop) {
    EmitLoop(b);
  } else {
    EmitBlockInsts(b);
    EmitTerminator(*t);
  }
  --depth_;
}

void FunctionEmitter::EmitBlockInsts(const ir::Block* b) {
  for (const ir::Inst* inst : b->insts) {
    if (inst->IsTerminator() || IsFolded(*inst)) continue;
    if (IsPlace(inst->GetType()) || inst->GetOp() == ir::Op::Var) continue;
    if (!ir::GetOpInfo(inst->GetOp()).has_side_effects && !IsUsed(*inst)) continue;
    EmitInst(*inst);
  }
}

void FunctionEmitter::EmitTerminator(const ir::Inst& t) {
  switch (t.GetOp()) {
    case ir::Op::Br:
      return EmitBranch(t.targets[0], ir::EdgeArgs(t, 0));
    case ir::Op::CondBr: {
      Expr cond = ValueExpr(t.operands[0]);
      int inner = out_->Indent() + 1;
      std::string on_true =
          Capture(out_, inner, [&] { EmitBranch(t.targets[0], ir::EdgeArgs(t, 0)); });
      std::string on_false =
          Capture(out_, inner, [&] { EmitBranch(t.targets[1], ir::EdgeArgs(t, 1)); });
      if (on_true.empty() && on_false.empty()) return;
      if (on_true.empty()) {
        out_->Line("if (" + Prefix("!", cond).text + ") {");
        out_->Append(on_false);
        out_->Line("}");
        return;
      }
      out_->Line("if (" + cond.text + ") {");
      out_->Append(on_true);
      if (!on_false.empty()) {
        out_->Line("} else {");
        out_->Append(on_false);
      }
      out_->Line("}");
      return;
    }
    case ir::Op::If:
      return EmitIf(t);
    case ir::Op::Loop:
      SLOPE_ICE("a loop header is printed by EmitLoop");
    case ir::Op::Switch:
      return EmitSwitch(t);
    case ir::Op::Return:
      if (t.operands.empty()) {
        out_->Line("return;");
      } else {
        out_->Line("return " + ValueExpr(t.operands[0]).text + ";");
      }
      return;
    case ir::Op::Unreachable:
      return;
    default:
      SLOPE_ICE("not a terminator");
  }
}

void FunctionEmitter::AssignParams(const ir::Block* to, const std::vector<ir::Value*>& args) {
  // Structured edges (`if`, `loop`, `switch` and the way to a merge) pass nothing: the
  // parameters of their targets were assigned on the `br` edges that pass arguments.
  if (args.empty()) return;
  SLOPE_ASSERT(args.size() == to->params.size());
  // Assignments happen one after another: when an argument reads a parameter of the
  // same block that an earlier assignment has overwritten (a swap in a loop), every
  // argument goes to a temporary first.
  std::function<bool(const ir::Value*, size_t)> reads_earlier = [&](const ir::Value* v,
                                                                    size_t before) {
    if (v->VKind() == ir::ValueKind::Param) {
      auto it = std::find(to->params.begin(), to->params.end(), v);
      return it != to->params.end() && static_cast<size_t>(it - to->params.begin()) < before;
    }
    if (v->VKind() != ir::ValueKind::Inst) return false;
    const auto* inst = static_cast<const ir::Inst*>(v);
    if (!IsFolded(*inst) && !IsPlace(inst->GetType())) return false;
    return std::any_of(inst->operands.begin(), inst->operands.end(),
                       [&](const ir::Value* op) { return reads_earlier(op, before); });
  };
  bool direct = true;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] != to->params[i] && reads_earlier(args[i], i)) direct = false;
  }
  std::vector<std::string> values;
  for (size_t i = 0; i < args.size(); ++i) {
    std::string value = ValueExpr(args[i]).text;
    if (!direct) {
      std::string temp = NewVariable(args[i]->GetType(), "t");
      out_->Line(temp + " = " + value + ";");
      value = temp;
    }
    values.push_back(value);
  }
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == to->params[i]) continue;
    out_->Line(ValueExpr(to->params[i]).text + " = " + values[i] + ";");
  }
}

void FunctionEmitter::EmitBranch(const ir::Block* to, const std::vector<ir::Value*>& args) {
  AssignParams(to, args);
  for (size_t i = constructs_.size(); i-- > 0;) {
    Construct& c = constructs_[i];
    if (c.kind == Kind::Loop) {
      if (to == c.header) {
        out_->Line("continue;");
        return;
      }
      if (to == c.cont) {
        EmitBlock(to);
        return;
      }
      if (to == c.merge) {
        bool through_switch = false;
        for (size_t k = i + 1; k < constructs_.size(); ++k) {
          if (constructs_[k].kind != Kind::Switch) continue;
          through_switch = true;
          constructs_[k].flag_used = true;
        }
        if (through_switch) {
          if (c.break_flag.empty()) {
            c.break_flag = names_.Make("leave" + std::to_string(next_temp_++));
            declarations_.push_back(BoolType() + " " + c.break_flag);
          }
          out_->Line(c.break_flag + " = true;");
        }
        out_->Line("break;");
        return;
      }
      break;  // structured control flow leaves a loop only through its merge
    }
    if (c.kind == Kind::Selection && to == c.merge) return;
    if (c.kind == Kind::Switch) {
      if (to == c.merge) {
        out_->Line("break;");
        return;
      }
      if (std::find(c.case_order.begin(), c.case_order.end(), to) != c.case_order.end()) {
        // Falling into the next case needs nothing; into another, its code again.
        if (to != c.next_case) EmitBlock(to);
        return;
      }
    }
  }
  EmitBlock(to);
}

void FunctionEmitter::EmitIf(const ir::Inst& t) {
  Expr cond = ValueExpr(t.operands[0]);
  const ir::Block* merge = t.targets[2];
  Construct selection;
  selection.kind = Kind::Selection;
  selection.header = t.block;
  selection.merge = merge;
  constructs_.push_back(selection);
  int inner = out_->Indent() + 1;
  std::string then_text = Capture(out_, inner, [&] { EmitBranch(t.targets[0], {}); });
  std::string else_text = Capture(out_, inner, [&] { EmitBranch(t.targets[1], {}); });
  constructs_.pop_back();
  if (!then_text.empty()) {
    out_->Line("if (" + cond.text + ") {");
    out_->Append(then_text);
    if (!else_text.empty()) {
      out_->Line("} else {");
      out_->Append(else_text);
    }
    out_->Line("}");
  } else if (!else_text.empty()) {
    out_->Line("if (" + Prefix("!", cond).text + ") {");
    out_->Append(else_text);
    out_->Line("}");
  }
  EmitBranch(merge, {});
}

void FunctionEmitter::EmitLoop(const ir::Block* header) {
  const ir::Inst& t = *header->Terminator();
  Construct loop;
  loop.kind = Kind::Loop;
  loop.header = header;
  loop.merge = t.targets[1];
  loop.cont = t.targets[2];
  constructs_.push_back(loop);
  out_->Open("while (true)");
  EmitBlockInsts(header);
  EmitBranch(t.targets[0], {});
  out_->Close();
  constructs_.pop_back();
  EmitBranch(t.targets[1], {});
}

void FunctionEmitter::EmitSwitch(const ir::Inst& t) {
  const ir::Block* def = t.targets[0];
  const ir::Block* merge = t.targets.back();
  // Targets in the order the cases are written (a case falls into the next one).
  std::vector<const ir::Block*> order;
  for (size_t i = 1; i + 1 < t.targets.size(); ++i) {
    if (t.targets[i] == merge && def == merge) continue;
    if (std::find(order.begin(), order.end(), t.targets[i]) == order.end())
      order.push_back(t.targets[i]);
  }
  if (def != merge && std::find(order.begin(), order.end(), def) == order.end())
    order.push_back(def);
  Construct c;
  c.kind = Kind::Switch;
  c.header = t.block;
  c.merge = merge;
  c.case_order = order;
  Expr selector = SwitchSelector(t.operands[0]);
  constructs_.push_back(c);
  size_t index = constructs_.size() - 1;
  int inner = out_->Indent() + 1;
  std::string body = Capture(out_, inner, [&] {
    for (size_t k = 0; k < order.size(); ++k) {
      const ir::Block* target = order[k];
      for (size_t i = 1; i + 1 < t.targets.size(); ++i) {
        if (t.targets[i] != target) continue;
        out_->Line("case " + CaseLabel(*static_cast<const ir::Constant*>(t.operands[i])) + ":");
      }
      if (target == def) out_->Line("default:");
      out_->SetIndent(inner + 1);
      constructs_[index].next_case = k + 1 < order.size() ? order[k + 1] : nullptr;
      if (target == merge) {
        out_->Line("break;");
      } else {
        EmitBlock(target);
      }
      out_->SetIndent(inner);
    }
  });
  Construct done = constructs_.back();
  constructs_.pop_back();
  std::string flag;
  if (done.flag_used) {
    for (size_t i = constructs_.size(); i-- > 0;) {
      if (constructs_[i].kind == Kind::Loop) {
        flag = constructs_[i].break_flag;
        break;
      }
    }
    SLOPE_ASSERT(!flag.empty());
    out_->Line(flag + " = false;");
  }
  out_->Line("switch (" + selector.text + ") {");
  out_->Append(body);
  out_->Line("}");
  if (done.flag_used) out_->Line("if (" + flag + ") break;");
  EmitBranch(merge, {});
}

Expr FunctionEmitter::DevicePlace(const ir::Value* ptr) {
  if (ptr->VKind() == ir::ValueKind::Inst) {
    const auto* inst = static_cast<const ir::Inst*>(ptr);
    // A member or element pointer printed in its one use is that place of its base.
    if (IsFolded(*inst) && inst->GetOp() == ir::Op::MemberPtr) {
      const ir::Type* s = inst->operands[0]->GetType()->Element();
      return Member(DevicePlace(inst->operands[0]), StructMemberName(s, inst->imms[0]));
    }
    if (IsFolded(*inst) && inst->GetOp() == ir::Op::ElementPtr) {
      return Index(DevicePlace(inst->operands[0]), ValueExpr(inst->operands[1]));
    }
  }
  return DeviceDeref(ValueExpr(ptr));
}

bool FunctionEmitter::DeviceMatrixRow(const ir::Inst& inst, ir::MatrixLayout layout) {
  if (inst.GetOp() != ir::Op::ElementPtr || !inst.GetType()->IsDevicePointer()) return false;
  if (layout != ir::MatrixLayout::ColumnMajor) return false;
  const ir::Value* base = inst.operands[0];
  if (base->GetType()->Element()->IsMatrix()) return true;
  return base->VKind() == ir::ValueKind::Inst &&
         DeviceMatrixRow(*static_cast<const ir::Inst*>(base), layout);
}

}  // namespace slope::targets::ctext
