#pragma once
// Inline SPIR-V assembly (`spirv_asm { ... }`): the instructions of a block as sema
// checked them, their text in the immediates of the IR's `spirv_asm` instructions, and
// the SPIR-V grammar (opcode names, operand kinds and enum names, from the grammar file
// of the spirv-headers package) that sema checks them against and the SPIR-V writer
// encodes them with.
//
// An instruction's operands are positional, as the grammar lists them: its result type
// (`$$N`) and result id (`%name` or `result`) first when it has them. In the IR text,
// `$N` is the IR instruction's operand N (a value) and `$$N` the type of operand N.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "compiler/ir/spirv_grammar_tables.h"

namespace slope::ir {

/// One operand of an inline SPIR-V instruction.
struct AsmOperand {
  enum class Kind : uint8_t {
    Value,   ///< `$N`: the value of operand N
    Type,    ///< `$$N`: the type of operand N
    Local,   ///< `%name`: an id the block defines
    Result,  ///< `result`: the block's value
    Int,     ///< an integer literal
    String,  ///< a string literal
    Name,    ///< an enumerant written by name (`Device`, `NoContraction`)
  };
  Kind kind = Kind::Int;
  uint32_t index = 0;   ///< Value, Type: the operand index
  uint64_t number = 0;  ///< Int
  std::string text;     ///< Local: the name; String: the text; Name: the enumerant
};

/// One inline SPIR-V instruction, operands in grammar order.
struct AsmInst {
  std::string opcode;
  std::vector<AsmOperand> operands;
};

/// The text of a block's instructions (`OpIAdd $$0 result $0 $1; ...`).
std::string PrintAsm(const std::vector<AsmInst>& insts);
/// Reads PrintAsm's text back; false when it is not such text.
bool ParseAsm(std::string_view text, std::vector<AsmInst>* insts);

/// The grammar's instruction named `name` (`OpIAdd`), or null.
const spirv_grammar::GrammarInst* FindAsmOpcode(std::string_view name);
/// Whether `inst`'s operands start with a result type / a result id.
bool AsmHasResultType(const spirv_grammar::GrammarInst& inst);
bool AsmHasResultId(const spirv_grammar::GrammarInst& inst);

/// How a written operand is encoded, as AsmMatch found it.
struct AsmSlot {
  enum class Encode : uint8_t {
    Id,        ///< the id of a value, type, local or the result
    Word,      ///< one literal word (`word`)
    String,    ///< a literal string
    Constant,  ///< an `IdScope` / `IdMemorySemantics` given as a number or name: the id
               ///< of a 32-bit unsigned constant `word`
  };
  Encode encode = Encode::Id;
  uint32_t word = 0;
  std::string kind;  ///< the grammar's operand kind (`IdRef`, `Scope`, `LiteralInteger`)
};

/// Matches `inst`'s operands against its opcode's grammar, resolving enumerant names.
/// On success `slots` has one entry per operand. On failure returns false with `error`
/// saying why (lower case, no final period) and `bad_operand` the operand at fault
/// (operands.size() when one is missing).
bool AsmMatch(const AsmInst& inst, std::vector<AsmSlot>* slots, std::string* error,
              size_t* bad_operand);

/// Whether the instruction computes a value only (arithmetic, bit operations,
/// conversions, composite operations, comparisons, or a declaration: capability,
/// extension, decoration), so that a block of such instructions may be removed when its
/// value is unused.
bool AsmIsPure(const spirv_grammar::GrammarInst& inst);
/// Why the instruction may not appear in a block (a type or function declaration, a
/// variable, control flow, an entry point), as a phrase naming it; empty when it may.
std::string AsmUnsupportedReason(const spirv_grammar::GrammarInst& inst);
/// Where the instruction goes: a capability, an extension or a decoration goes to its
/// module section; everything else where the block is.
enum class AsmSection : uint8_t { Function, Capability, Extension, Annotation };
AsmSection AsmSectionOf(const spirv_grammar::GrammarInst& inst);

}  // namespace slope::ir
