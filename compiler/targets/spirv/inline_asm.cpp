// `spirv_asm` / `spirv_asm_value` instructions: the inline SPIR-V of a `spirv_asm`
// block, assembled by the grammar (ir/spirv_asm.h). Operands become ids of the IR
// operands and their types, of the block's own ids (fresh per instruction written), of
// the result (the IR instruction's value), literal words, strings and enumerant values;
// a scope or memory semantics written by name becomes a constant. OpCapability and
// OpExtension go to their module sections (once each), OpDecorate and OpMemberDecorate
// to the annotations, everything else where the block is.

#include <map>

#include "compiler/ir/spirv_asm.h"
#include "compiler/targets/spirv/writer_internal.h"

namespace slope::targets::spirv {

void Writer::WriteSpirvAsm(const ir::Inst& inst) {
  std::string text;
  std::vector<ir::AsmInst> insts;
  if (!ir::UnpackString(inst.imms, &text) || !ir::ParseAsm(text, &insts)) {
    SLOPE_ICE("spirv_asm instruction without its text");
  }
  std::map<std::string, uint32_t> locals;
  auto local_id = [&](const std::string& name) {
    auto [it, added] = locals.emplace(name, 0);
    if (added) it->second = NewId();
    return it->second;
  };
  for (const ir::AsmInst& a : insts) {
    std::vector<ir::AsmSlot> slots;
    std::string error;
    size_t bad = 0;
    const ir::spirv_grammar::GrammarInst* g = ir::FindAsmOpcode(a.opcode);
    if (g == nullptr || !ir::AsmMatch(a, &slots, &error, &bad)) {
      SLOPE_ICE("spirv_asm instruction '" + a.opcode + "' the verifier accepted: " + error);
    }
    std::vector<uint32_t> words;
    for (size_t i = 0; i < a.operands.size(); ++i) {
      const ir::AsmOperand& op = a.operands[i];
      switch (slots[i].encode) {
        case ir::AsmSlot::Encode::Id:
          switch (op.kind) {
            case ir::AsmOperand::Kind::Value:
              words.push_back(ValueId(inst.operands.at(op.index)));
              break;
            case ir::AsmOperand::Kind::Type:
              words.push_back(TypeId(inst.operands.at(op.index)->GetType()));
              break;
            case ir::AsmOperand::Kind::Result:
              // The block's value when it has one; else an id of its own.
              words.push_back(inst.GetType()->IsVoid() ? local_id("result") : ValueId(&inst));
              break;
            default:
              words.push_back(local_id(op.text));
              break;
          }
          break;
        case ir::AsmSlot::Encode::Word:
          words.push_back(slots[i].word);
          break;
        case ir::AsmSlot::Encode::String:
          // Four bytes a word, first byte lowest, nul-terminated.
          for (size_t at = 0; at <= op.text.size(); at += 4) {
            uint32_t word = 0;
            for (size_t j = 0; j < 4 && at + j < op.text.size(); ++j) {
              word |= static_cast<uint32_t>(static_cast<unsigned char>(op.text[at + j])) << (8 * j);
            }
            words.push_back(word);
          }
          break;
        case ir::AsmSlot::Encode::Constant:
          words.push_back(U32Const(slots[i].word));
          break;
      }
    }
    auto opcode = static_cast<SpvOp>(g->opcode);
    switch (ir::AsmSectionOf(*g)) {
      case ir::AsmSection::Capability:
        Require(static_cast<spv::Capability>(words.at(0)));
        break;
      case ir::AsmSection::Extension:
        if (asm_extensions_.insert(a.operands.at(0).text).second) {
          extensions_.Emit(opcode, words);
        }
        break;
      case ir::AsmSection::Annotation:
        decorations_.Emit(opcode, words);
        break;
      case ir::AsmSection::Function:
        functions_.Emit(opcode, words);
        break;
    }
  }
}

}  // namespace slope::targets::spirv
