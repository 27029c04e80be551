#pragma once
// The SPIR-V grammar as flat tables, generated at build time from the
// spirv.core.grammar.json of the spirv-headers package (gen_spirv_grammar.py). Read
// through spirv_asm.h, not directly.

#include <cstddef>
#include <cstdint>

namespace slope::ir::spirv_grammar {

enum class Quantifier : uint8_t { One, Optional, Many };

/// One operand of an instruction or of an enumerant: its kind and how often it appears.
struct GrammarOperand {
  const char* kind;
  Quantifier quantifier;
};

/// One instruction: its operands are kOperands[first_operand, +operand_count).
struct GrammarInst {
  const char* name;
  uint32_t opcode;
  const char* klass;
  uint32_t first_operand;
  uint32_t operand_count;
};

/// One name of an enum kind, with the operands that follow it (kOperands[first, +count)).
struct GrammarEnumerant {
  const char* name;
  uint32_t value;
  uint32_t first_param;
  uint32_t param_count;
};

/// One operand kind: its category ("Id", "Literal", "ValueEnum", "BitEnum",
/// "Composite"), a pair's two kinds, an enum's enumerants.
struct GrammarKind {
  const char* name;
  const char* category;
  const char* base0;
  const char* base1;
  uint32_t first_enumerant;
  uint32_t enumerant_count;
};

extern const GrammarOperand kOperands[];
extern const GrammarInst kInsts[];
extern const size_t kInstCount;
extern const GrammarEnumerant kEnumerants[];
extern const GrammarKind kKinds[];
extern const size_t kKindCount;

}  // namespace slope::ir::spirv_grammar
