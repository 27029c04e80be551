#include "compiler/ir/printer.h"

#include <charconv>
#include <map>

#include "compiler/ir/cfg.h"

namespace slope::ir {
namespace {

class Printer {
 public:
  std::string Run(const Module& module);

 private:
  void PrintFunction(const Function& f);
  void PrintInst(const Inst& inst);
  std::string Ref(const Value* v);
  /// "^3" or "^3(%1, %2)": an edge's target and the arguments it passes.
  std::string EdgeRef(const Inst& term, size_t index);
  std::string BlockRef(const Block* b) {
    auto it = block_ids_.find(b);
    return it == block_ids_.end() ? std::string("^<unknown>") : "^" + std::to_string(it->second);
  }
  std::string Number(const Value* v) {
    auto [it, inserted] = ids_.emplace(v, static_cast<uint32_t>(ids_.size()));
    return "%" + std::to_string(it->second);
  }

  std::string out_;
  std::map<const Value*, uint32_t> ids_;
  std::map<const Block*, uint32_t> block_ids_;
};

std::string FormatConstant(const Constant& c) {
  const Type* t = c.GetType();
  std::string s = t->Name() + " ";
  if (t->IsBool()) return s + (c.Bits() != 0 ? "true" : "false");
  if (t->IsFloat()) {
    char buf[64];
    auto r = t->Width() == 32 ? std::to_chars(buf, buf + sizeof(buf), static_cast<float>(c.AsDouble()))
                              : std::to_chars(buf, buf + sizeof(buf), c.AsDouble());
    std::string text(buf, r.ptr);
    // Keep a float recognisable as one.
    if (text.find_first_of(".eni") == std::string::npos) text += ".0";
    return s + text;
  }
  if (t->IsSigned()) return s + std::to_string(c.AsSigned());
  return s + std::to_string(c.Bits());
}

std::string Printer::Ref(const Value* v) {
  switch (v->VKind()) {
    case ValueKind::Constant: return FormatConstant(*static_cast<const Constant*>(v));
    case ValueKind::Global: return "@" + static_cast<const Global*>(v)->Name();
    case ValueKind::Param:
    case ValueKind::Inst: {
      auto it = ids_.find(v);
      return it == ids_.end() ? std::string("%<undefined>") : "%" + std::to_string(it->second);
    }
  }
  return "?";
}

std::string Printer::EdgeRef(const Inst& term, size_t index) {
  std::string s = BlockRef(term.targets.at(index));
  std::vector<Value*> args = EdgeArgs(term, index);
  if (args.empty()) return s;
  s += "(";
  for (size_t i = 0; i < args.size(); ++i) {
    if (i != 0) s += ", ";
    s += Ref(args[i]);
  }
  return s + ")";
}

std::string Printer::Run(const Module& module) {
  for (const Type* s : module.Types().Structs()) {
    out_ += "struct " + s->StructName() + " {";
    for (size_t i = 0; i < s->Members().size(); ++i) {
      out_ += (i == 0 ? " " : ", ") + s->MemberNames()[i] + ": " + s->Members()[i]->Name();
      if (s->MemberMatrixLayout(i) != MatrixLayout::Default) {
        out_ += s->MemberMatrixLayout(i) == MatrixLayout::RowMajor ? " row_major" : " column_major";
      }
    }
    out_ += " }\n";
  }
  // Derivatives not in the struct the members' differentials make, after every struct
  // (a differential struct comes after the struct it differentiates).
  for (const Type* s : module.Types().Structs()) {
    const TypeTable::DifferentialLayout* layout = module.Types().FindDifferential(s);
    if (layout == nullptr || layout->differential == nullptr) continue;
    out_ += "differential " + s->Name() + ": " + layout->differential->Name() + " members(";
    for (size_t i = 0; i < layout->members.size(); ++i) {
      if (i != 0) out_ += ", ";
      out_ += layout->members[i] < 0 ? "none" : std::to_string(layout->members[i]);
    }
    out_ += ")\n";
  }
  for (const Global* g : module.globals) {
    out_ += "global @" + g->Name() + " : " + g->GetType()->Name();
    // A workgroup variable is no resource: it has no binding.
    if (!g->IsWorkgroup() && !g->IsPrivate() && !g->IsPushConstant()) {
      out_ += " set(" + std::to_string(g->set) + ") binding(" + std::to_string(g->binding) + ")";
    }
    if (g->image_format != ImageFormat::Unknown) {
      out_ += std::string(" format(") + ImageFormatName(g->image_format) + ")";
    }
    out_ += "\n";
  }
  // `global @k : i32 spec_id(3) default(i32 4)`: a specialization constant.
  for (const Global* g : module.spec_constants) {
    out_ += "global @" + g->Name() + " : " + g->GetType()->Name() + " spec_id(" +
            std::to_string(g->spec_id) + ") default(" + FormatConstant(*g->spec_default) + ")\n";
  }
  for (const Function* f : module.functions) {
    if (!out_.empty()) out_ += "\n";
    PrintFunction(*f);
  }
  return out_;
}

void Printer::PrintFunction(const Function& f) {
  ids_.clear();
  block_ids_.clear();
  for (size_t i = 0; i < f.blocks.size(); ++i) block_ids_[f.blocks[i]] = static_cast<uint32_t>(i);
  // Number every value in print order first, so that a use printed before its
  // definition (a block argument from a later block) still names it.
  for (const Param* p : f.params) Number(p);
  for (const Block* b : f.blocks) {
    for (const Param* p : b->params) Number(p);
    for (const Inst* inst : b->insts) {
      if (!inst->GetType()->IsVoid()) Number(inst);
    }
  }
  out_ += "func @" + f.Name() + "(";
  for (size_t i = 0; i < f.params.size(); ++i) {
    if (i != 0) out_ += ", ";
    out_ += Number(f.params[i]) + ": " + f.params[i]->GetType()->Name();
    if (f.is_entry && i < f.entry.param_semantics.size()) {
      out_ += " semantic(" + f.entry.param_semantics[i] + ")";
    }
  }
  out_ += ") -> " + f.ResultType()->Name();
  if (f.is_entry) {
    out_ += " compute numthreads(" + std::to_string(f.entry.numthreads[0]) + ", " +
            std::to_string(f.entry.numthreads[1]) + ", " + std::to_string(f.entry.numthreads[2]) +
            ")";
    const auto& spec = f.entry.numthreads_spec;
    if (spec[0] != nullptr || spec[1] != nullptr || spec[2] != nullptr) {
      // `spec_numthreads(@kX, none, none)`: the dimensions a specialization constant sets.
      out_ += " spec_numthreads(";
      for (size_t i = 0; i < 3; ++i) {
        out_ += i != 0 ? ", " : "";
        out_ += spec[i] != nullptr ? "@" + spec[i]->Name() : "none";
      }
      out_ += ")";
    }
    if (f.entry.wave_size != 0) out_ += " wave_size(" + std::to_string(f.entry.wave_size) + ")";
  }
  if (f.force_inline) out_ += " forceinline";
  if (f.precise) out_ += " precise";
  if (f.autodiff.differentiable) out_ += " differentiable";
  if (f.autodiff.zero_derivative) out_ += " zero_derivative";
  if (f.autodiff.prefer_recompute) out_ += " prefer_recompute";
  if (f.autodiff.no_diff_result) out_ += " no_diff_result";
  if (f.autodiff.fwd_diff_of != nullptr)
    out_ += " fwd_diff(@" + f.autodiff.fwd_diff_of->Name() + ")";
  if (f.autodiff.custom_fwd != nullptr)
    out_ += " custom_fwd(@" + f.autodiff.custom_fwd->Name() + ")";
  if (f.autodiff.primal_substitute != nullptr)
    out_ += " primal_subst(@" + f.autodiff.primal_substitute->Name() + ")";
  if (f.autodiff.bwd_diff_of != nullptr)
    out_ += " bwd_diff(@" + f.autodiff.bwd_diff_of->Name() + ")";
  if (f.autodiff.custom_bwd != nullptr)
    out_ += " custom_bwd(@" + f.autodiff.custom_bwd->Name() + ")";
  if (!f.autodiff.no_diff_params.empty()) {
    out_ += " no_diff(";
    for (size_t i = 0; i < f.autodiff.no_diff_params.size(); ++i) {
      out_ += (i == 0 ? "" : ", ") + std::to_string(f.autodiff.no_diff_params[i]);
    }
    out_ += ")";
  }
  if (!f.autodiff.ptr_params.empty()) {
    out_ += " ptr_pair(";
    for (size_t i = 0; i < f.autodiff.ptr_params.size(); ++i) {
      const auto& [index, pair] = f.autodiff.ptr_params[i];
      out_ += (i == 0 ? "" : ", ") + std::to_string(index) + ": " + pair->Name();
    }
    out_ += ")";
  }
  out_ += " {\n";
  for (const Block* b : f.blocks) {
    out_ += BlockRef(b);
    if (!b->params.empty()) {
      out_ += "(";
      for (size_t i = 0; i < b->params.size(); ++i) {
        if (i != 0) out_ += ", ";
        out_ += Number(b->params[i]) + ": " + b->params[i]->GetType()->Name();
      }
      out_ += ")";
    }
    out_ += ":\n";
    for (const Inst* inst : b->insts) PrintInst(*inst);
  }
  out_ += "}\n";
}

void Printer::PrintInst(const Inst& inst) {
  out_ += "  ";
  bool has_result = !inst.GetType()->IsVoid();
  if (has_result) out_ += Number(&inst) + " = ";
  out_ += GetOpInfo(inst.GetOp()).mnemonic;
  if (inst.GetOp() == Op::Intrinsic) {
    out_ += " ";
    out_ += GetIntrinsicInfo(static_cast<Intrinsic>(inst.imms.at(0))).mnemonic;
  }
  bool named_imm = inst.GetOp() == Op::Intrinsic || inst.GetOp() == Op::Atomic ||
                   inst.GetOp() == Op::Barrier || inst.GetOp() == Op::Wave;
  if (inst.GetOp() != Op::Intrinsic && named_imm) {
    out_ += " ";
    out_ += inst.imms.empty() ? "<invalid>" : SyncOpMnemonic(inst.GetOp(), inst.imms[0]);
  }
  if (inst.callee != nullptr) out_ += " @" + inst.callee->Name();
  const char* sep = " ";
  auto block_list = [&](const char* label, size_t index) {
    out_ += sep;
    out_ += label;
    out_ += BlockRef(inst.targets[index]);
    sep = ", ";
  };
  // Branches print their edges with arguments; loop headers only name blocks.
  if (inst.GetOp() == Op::Br) {
    out_ += " " + EdgeRef(inst, 0) + "\n";
    return;
  }
  if (inst.GetOp() == Op::CondBr) {
    out_ += " " + Ref(inst.operands.at(0)) + ", " + EdgeRef(inst, 0) + ", " + EdgeRef(inst, 1) + "\n";
    return;
  }
  if (inst.GetOp() == Op::Loop) {
    block_list("", 0);
    block_list("merge ", 1);
    block_list("continue ", 2);
    if (!inst.imms.empty() && inst.imms[0] != 0) out_ += std::string(" ") + LoopControlName(inst.imms[0]);
    if (inst.imms.size() > 1) out_ += " max_iters(" + std::to_string(inst.imms[1]) + ")";
    out_ += "\n";
    return;
  }
  if (inst.GetOp() == Op::Switch) {
    // "switch %0, default ^1, case i32 3: ^2, merge ^4"
    out_ += " " + Ref(inst.operands.at(0));
    out_ += ", default " + BlockRef(inst.targets.at(0));
    for (size_t i = 1; i < inst.operands.size(); ++i) {
      out_ += ", case " + Ref(inst.operands[i]) + ": " + BlockRef(inst.targets.at(i));
    }
    out_ += ", merge " + BlockRef(inst.targets.back()) + "\n";
    return;
  }
  for (const Value* v : inst.operands) {
    out_ += sep + Ref(v);
    sep = ", ";
  }
  if (inst.GetOp() == Op::If) {
    block_list("", 0);
    block_list("", 1);
    block_list("merge ", 2);
  }
  if (!named_imm && !inst.imms.empty()) {
    out_ += sep;
    out_ += "[";
    for (size_t i = 0; i < inst.imms.size(); ++i) {
      if (i != 0) out_ += ", ";
      out_ += std::to_string(inst.imms[i]);
    }
    out_ += "]";
  }
  if (has_result) out_ += " : " + inst.GetType()->Name();
  std::string format;
  bool is_asm = inst.GetOp() == Op::SpirvAsm || inst.GetOp() == Op::SpirvAsmValue;
  if (is_asm && UnpackString(inst.imms, &format)) {
    // The instructions, for the reader (the parser skips comments).
    out_ += "  // " + format;
  }
  if (inst.GetOp() == Op::Printf && UnpackString(inst.imms, &format)) {
    // The format, for the reader (the parser skips comments).
    out_ += "  // \"";
    for (char c : format) {
      if (c == '\n') {
        out_ += "\\n";
      } else if (c == '"' || c == '\\') {
        out_ += '\\';
        out_ += c;
      } else {
        out_ += static_cast<unsigned char>(c) < 0x20 ? '?' : c;
      }
    }
    out_ += "\"";
  }
  out_ += "\n";
}

}  // namespace

std::string PrintModule(const Module& module) { return Printer().Run(module); }

}  // namespace slope::ir
