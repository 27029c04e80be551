// `spirv_asm { ... }` blocks: each instruction's opcode and operands are checked against
// the SPIR-V grammar (ir/spirv_asm.h), its `$value` operands as expressions and its
// `$$Type` operands as types, and its `%ids` are defined once, before they are used. The
// `def : $$T = OpX ...` form becomes the grammar's order (`OpX $$T def ...`) in
// SpirvAsmInst::checked, which lowering reads. The block's type is the result type of
// the instruction defining `result` (void when none does).

#include <map>
#include <string>

#include "compiler/ir/spirv_asm.h"
#include "compiler/sema/checker.h"

namespace slope::sema {

using diag::DiagId;

namespace {

using Operand = ast::SpirvAsmOperand;

std::string IdName(const Operand& op) {
  return op.kind == Operand::Kind::Result ? "result" : "%" + op.text;
}

/// The operand as the grammar matcher sees it (values and types by position only).
ir::AsmOperand ToIr(const Operand& op) {
  ir::AsmOperand out;
  switch (op.kind) {
    case Operand::Kind::Value:
      out.kind = ir::AsmOperand::Kind::Value;
      break;
    case Operand::Kind::Type:
      out.kind = ir::AsmOperand::Kind::Type;
      break;
    case Operand::Kind::Local:
      out.kind = ir::AsmOperand::Kind::Local;
      break;
    case Operand::Kind::Result:
      out.kind = ir::AsmOperand::Kind::Result;
      break;
    case Operand::Kind::Int:
      out.kind = ir::AsmOperand::Kind::Int;
      break;
    case Operand::Kind::String:
      out.kind = ir::AsmOperand::Kind::String;
      break;
    case Operand::Kind::Name:
    case Operand::Kind::Builtin:
    case Operand::Kind::Address:
      out.kind = ir::AsmOperand::Kind::Name;
      break;
  }
  out.number = op.number;
  out.text = op.text;
  return out;
}

}  // namespace

ast::Expr* Checker::CheckSpirvAsm(ast::SpirvAsmExpr* expr) {
  expr->type = types_.Void();
  bool ok = true;
  bool pure = true;
  const Type* result_type = nullptr;
  // Ids defined so far, and by which instruction.
  std::map<std::string, size_t> defined;
  // Checks a value or type operand; false after a diagnostic.
  auto check_data = [&](Operand& op) {
    const Type* t = nullptr;
    if (op.kind == Operand::Kind::Value) {
      op.value = CheckExpr(op.value);
      t = op.value->type;
    } else {
      t = ResolveType(op.type);
    }
    if (t->IsError()) return false;
    const char* why = t->IsVoid()        ? "it has no value"
                      : t->IsResource()  ? "resources are not supported there yet"
                      : t->IsInterface() ? "interface types are not supported there yet"
                                         : nullptr;
    if (why != nullptr) {
      diags_.Report(DiagId::SpirvAsmBadType, op.range, t->Name(), why);
      return false;
    }
    return true;
  };
  // Pass 1: the ids each instruction defines, for the annotations that may name an id
  // defined after them.
  std::map<std::string, size_t> defined_anywhere;
  for (size_t i = 0; i < expr->insts.size(); ++i) {
    const ast::SpirvAsmInst& inst = expr->insts[i];
    if (inst.has_def) defined_anywhere.emplace(IdName(inst.def), i);
  }
  for (size_t index = 0; index < expr->insts.size(); ++index) {
    ast::SpirvAsmInst& inst = expr->insts[index];
    const ir::spirv_grammar::GrammarInst* g = ir::FindAsmOpcode(inst.opcode);
    if (g == nullptr) {
      diags_.Report(DiagId::SpirvAsmUnknownOpcode, inst.opcode_range, inst.opcode);
      ok = false;
      continue;
    }
    std::string why = ir::AsmUnsupportedReason(*g);
    if (!why.empty()) {
      diags_.Report(DiagId::UnsupportedConstruct, inst.opcode_range,
                    "'" + inst.opcode + "': " + why + " in spirv_asm blocks", "are");
      ok = false;
      continue;
    }
    bool annotation = ir::AsmSectionOf(*g) == ir::AsmSection::Annotation;
    pure = pure && ir::AsmIsPure(*g);
    // The grammar's order: `def : $$T = OpX a b` is `OpX $$T def a b`.
    inst.checked.clear();
    if (inst.has_def) {
      if (inst.def_type != nullptr) {
        if (!ir::AsmHasResultType(*g)) {
          diags_.Report(DiagId::SpirvAsmNoResult, inst.def_type->range, inst.opcode, "result type",
                        IdName(inst.def) + " : $$T = ...");
          ok = false;
          continue;
        }
        Operand type;
        type.kind = Operand::Kind::Type;
        type.type = inst.def_type;
        type.range = inst.def_type->range;
        inst.checked.push_back(type);
      }
      if (!ir::AsmHasResultId(*g)) {
        diags_.Report(DiagId::SpirvAsmNoResult, inst.def.range, inst.opcode, "result id",
                      IdName(inst.def) + " = ...");
        ok = false;
        continue;
      }
      inst.checked.push_back(inst.def);
    }
    inst.checked.insert(inst.checked.end(), inst.operands.begin(), inst.operands.end());
    // Operands that are no SPIR-V operand kind at all.
    bool operands_ok = true;
    for (Operand& op : inst.checked) {
      if (op.kind == Operand::Kind::Builtin || op.kind == Operand::Kind::Address) {
        diags_.Report(DiagId::UnsupportedConstruct, op.range,
                      op.kind == Operand::Kind::Builtin
                          ? "'builtin(...)' operands in spirv_asm blocks"
                          : "'&' (address) operands in spirv_asm blocks",
                      "are");
        operands_ok = false;
      } else if (op.kind == Operand::Kind::Value || op.kind == Operand::Kind::Type) {
        operands_ok = check_data(op) && operands_ok;
      }
    }
    if (!operands_ok) {
      ok = false;
      continue;
    }
    ir::AsmInst probe;
    probe.opcode = inst.opcode;
    for (const Operand& op : inst.checked) probe.operands.push_back(ToIr(op));
    std::vector<ir::AsmSlot> slots;
    std::string error;
    size_t bad = 0;
    if (!ir::AsmMatch(probe, &slots, &error, &bad)) {
      source::SourceRange where = bad < inst.checked.size() ? inst.checked[bad].range : inst.range;
      diags_.Report(DiagId::SpirvAsmBadOperand, where, inst.opcode, error);
      ok = false;
      continue;
    }
    // Ids: each defined once; a use follows its definition (an annotation may name an
    // id defined anywhere in the block).
    for (size_t i = 0; i < inst.checked.size(); ++i) {
      Operand& op = inst.checked[i];
      if (op.kind != Operand::Kind::Local && op.kind != Operand::Kind::Result) continue;
      std::string name = IdName(op);
      if (slots[i].kind == "IdResult") {
        if (!defined.emplace(name, index).second) {
          diags_.Report(DiagId::SpirvAsmRedefinedId, op.range, name);
          ok = false;
        }
        if (op.kind == Operand::Kind::Result) {
          if (!ir::AsmHasResultType(*g)) {
            diags_.Report(DiagId::SpirvAsmNoResult, op.range, inst.opcode, "result type", "result");
            ok = false;
          } else {
            result_type = inst.checked[0].type->resolved;
          }
        }
        continue;
      }
      bool known = defined.count(name) != 0 || (annotation && defined_anywhere.count(name) != 0);
      if (!known) {
        diags_.Report(DiagId::SpirvAsmUndefinedId, op.range, name);
        ok = false;
      }
    }
  }
  if (!ok) {
    expr->type = types_.Error();
    return expr;
  }
  if (result_type != nullptr) expr->type = result_type;
  expr->pure = pure && result_type != nullptr;
  return expr;
}

}  // namespace slope::sema
