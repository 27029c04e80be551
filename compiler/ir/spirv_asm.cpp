// Inline SPIR-V assembly: the text of a block's instructions and their grammar check
// (spirv_asm.h).

#include "compiler/ir/spirv_asm.h"

#include <cctype>
#include <cstring>

namespace slope::ir {

using spirv_grammar::GrammarInst;
using spirv_grammar::GrammarKind;
using spirv_grammar::Quantifier;

std::string PrintAsm(const std::vector<AsmInst>& insts) {
  std::string out;
  for (const AsmInst& inst : insts) {
    if (!out.empty()) out += "; ";
    out += inst.opcode;
    for (const AsmOperand& op : inst.operands) {
      out += ' ';
      switch (op.kind) {
        case AsmOperand::Kind::Value:
          out += "$" + std::to_string(op.index);
          break;
        case AsmOperand::Kind::Type:
          out += "$$" + std::to_string(op.index);
          break;
        case AsmOperand::Kind::Local:
          out += "%" + op.text;
          break;
        case AsmOperand::Kind::Result:
          out += "result";
          break;
        case AsmOperand::Kind::Int:
          out += std::to_string(op.number);
          break;
        case AsmOperand::Kind::Name:
          out += op.text;
          break;
        case AsmOperand::Kind::String:
          out += '"';
          for (char c : op.text) {
            if (c == '"' || c == '\\') out += '\\';
            if (c == '\n') {
              out += "\\n";
              continue;
            }
            out += c;
          }
          out += '"';
          break;
      }
    }
  }
  return out;
}

namespace {

bool IsWordChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

bool ParseNumber(std::string_view digits, uint64_t* out) {
  if (digits.empty() || digits.size() > 20) return false;
  uint64_t v = 0;
  for (char c : digits) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
    uint64_t next = v * 10 + static_cast<uint64_t>(c - '0');
    if (next / 10 != v) return false;
    v = next;
  }
  *out = v;
  return true;
}

}  // namespace

bool ParseAsm(std::string_view text, std::vector<AsmInst>* insts) {
  size_t i = 0;
  auto skip_space = [&] {
    while (i < text.size() && text[i] == ' ') ++i;
  };
  auto word = [&] {
    size_t start = i;
    while (i < text.size() && IsWordChar(text[i])) ++i;
    return text.substr(start, i - start);
  };
  insts->clear();
  while (true) {
    skip_space();
    AsmInst inst;
    inst.opcode = std::string(word());
    if (inst.opcode.empty()) return false;
    while (true) {
      skip_space();
      if (i == text.size() || text[i] == ';') break;
      AsmOperand op;
      if (text[i] == '$') {
        ++i;
        op.kind = AsmOperand::Kind::Value;
        if (i < text.size() && text[i] == '$') {
          ++i;
          op.kind = AsmOperand::Kind::Type;
        }
        uint64_t n = 0;
        if (!ParseNumber(word(), &n) || n > UINT32_MAX) return false;
        op.index = static_cast<uint32_t>(n);
      } else if (text[i] == '%') {
        ++i;
        op.kind = AsmOperand::Kind::Local;
        op.text = std::string(word());
        if (op.text.empty()) return false;
      } else if (text[i] == '"') {
        op.kind = AsmOperand::Kind::String;
        ++i;
        while (i < text.size() && text[i] != '"') {
          if (text[i] == '\\' && i + 1 < text.size()) {
            ++i;
            op.text += text[i] == 'n' ? '\n' : text[i];
          } else {
            op.text += text[i];
          }
          ++i;
        }
        if (i == text.size()) return false;
        ++i;
      } else if (std::isdigit(static_cast<unsigned char>(text[i]))) {
        op.kind = AsmOperand::Kind::Int;
        if (!ParseNumber(word(), &op.number)) return false;
      } else {
        std::string_view name = word();
        if (name.empty()) return false;
        op.kind = name == "result" ? AsmOperand::Kind::Result : AsmOperand::Kind::Name;
        if (op.kind == AsmOperand::Kind::Name) op.text = std::string(name);
      }
      inst.operands.push_back(std::move(op));
    }
    insts->push_back(std::move(inst));
    if (i == text.size()) return true;
    ++i;  // ';'
  }
}

const GrammarInst* FindAsmOpcode(std::string_view name) {
  for (size_t i = 0; i < spirv_grammar::kInstCount; ++i) {
    if (name == spirv_grammar::kInsts[i].name) return &spirv_grammar::kInsts[i];
  }
  return nullptr;
}

bool AsmHasResultType(const GrammarInst& inst) {
  return inst.operand_count > 0 &&
         std::strcmp(spirv_grammar::kOperands[inst.first_operand].kind, "IdResultType") == 0;
}

bool AsmHasResultId(const GrammarInst& inst) {
  for (uint32_t i = 0; i < inst.operand_count && i < 2; ++i) {
    if (std::strcmp(spirv_grammar::kOperands[inst.first_operand + i].kind, "IdResult") == 0) {
      return true;
    }
  }
  return false;
}

namespace {

const GrammarKind* FindKind(std::string_view name) {
  for (size_t i = 0; i < spirv_grammar::kKindCount; ++i) {
    if (name == spirv_grammar::kKinds[i].name) return &spirv_grammar::kKinds[i];
  }
  return nullptr;
}

const spirv_grammar::GrammarEnumerant* FindEnumerant(const GrammarKind& kind,
                                                     std::string_view name) {
  for (uint32_t i = 0; i < kind.enumerant_count; ++i) {
    const auto& e = spirv_grammar::kEnumerants[kind.first_enumerant + i];
    if (name == e.name) return &e;
  }
  return nullptr;
}

const spirv_grammar::GrammarEnumerant* FindEnumerantValue(const GrammarKind& kind, uint64_t value) {
  for (uint32_t i = 0; i < kind.enumerant_count; ++i) {
    const auto& e = spirv_grammar::kEnumerants[kind.first_enumerant + i];
    if (e.value == value) return &e;
  }
  return nullptr;
}

std::string DescribeOperand(const AsmOperand& op) {
  switch (op.kind) {
    case AsmOperand::Kind::Value:
      return "a value";
    case AsmOperand::Kind::Type:
      return "a type";
    case AsmOperand::Kind::Local:
      return "the id '%" + op.text + "'";
    case AsmOperand::Kind::Result:
      return "the id 'result'";
    case AsmOperand::Kind::Int:
      return "an integer literal";
    case AsmOperand::Kind::String:
      return "a string literal";
    case AsmOperand::Kind::Name:
      return "the name '" + op.text + "'";
  }
  return "an operand";
}

bool IsId(const AsmOperand& op) {
  return op.kind == AsmOperand::Kind::Value || op.kind == AsmOperand::Kind::Local ||
         op.kind == AsmOperand::Kind::Result;
}

/// Walks the grammar's operand list over the written operands.
class Matcher {
 public:
  Matcher(const AsmInst& inst, std::vector<AsmSlot>* slots, std::string* error, size_t* bad)
      : inst_(inst), slots_(slots), error_(error), bad_(bad) {}

  bool MatchList(uint32_t first, uint32_t count) {
    for (uint32_t i = 0; i < count; ++i) {
      const spirv_grammar::GrammarOperand& g = spirv_grammar::kOperands[first + i];
      switch (g.quantifier) {
        case Quantifier::One:
          if (!MatchKind(g.kind)) return false;
          break;
        case Quantifier::Optional:
          if (pos_ < inst_.operands.size() && !MatchKind(g.kind)) return false;
          break;
        case Quantifier::Many:
          while (pos_ < inst_.operands.size()) {
            if (!MatchKind(g.kind)) return false;
          }
          break;
      }
    }
    return true;
  }

  bool Finish() {
    if (pos_ < inst_.operands.size()) {
      return Fail(pos_, DescribeOperand(inst_.operands[pos_]) + " is one operand too many");
    }
    return true;
  }

 private:
  bool Fail(size_t at, std::string message) {
    *bad_ = at;
    *error_ = std::move(message);
    return false;
  }

  void Take(AsmSlot::Encode encode, uint32_t word, std::string_view kind) {
    AsmSlot slot;
    slot.encode = encode;
    slot.word = word;
    slot.kind = std::string(kind);
    slots_->push_back(std::move(slot));
    ++pos_;
  }

  bool MatchKind(std::string_view kind_name) {
    const GrammarKind* kind = FindKind(kind_name);
    if (kind == nullptr)
      return Fail(pos_, "operand kind '" + std::string(kind_name) + "' is unknown");
    std::string_view category = kind->category;
    if (category == "Composite") return MatchKind(kind->base0) && MatchKind(kind->base1);
    if (pos_ >= inst_.operands.size()) {
      return Fail(inst_.operands.size(),
                  "an operand of kind '" + std::string(kind_name) + "' is missing");
    }
    const AsmOperand& op = inst_.operands[pos_];
    std::string found = ", not " + DescribeOperand(op);
    if (category == "Id") return MatchId(kind_name, op, found);
    if (category == "Literal") {
      if (kind_name == "LiteralString") {
        if (op.kind != AsmOperand::Kind::String) {
          return Fail(pos_, "the '" + std::string(kind_name) +
                                "' operand must be a string literal" + found);
        }
        Take(AsmSlot::Encode::String, 0, kind_name);
        return true;
      }
      if (op.kind != AsmOperand::Kind::Int) {
        return Fail(pos_, "the '" + std::string(kind_name) +
                              "' operand must be an integer literal" + found);
      }
      if (op.number > UINT32_MAX) {
        return Fail(pos_, "the '" + std::string(kind_name) + "' operand does not fit in 32 bits");
      }
      Take(AsmSlot::Encode::Word, static_cast<uint32_t>(op.number), kind_name);
      return true;
    }
    // ValueEnum or BitEnum: a name of the kind (or its number), then its parameters.
    const spirv_grammar::GrammarEnumerant* e = nullptr;
    if (op.kind == AsmOperand::Kind::Name) {
      e = FindEnumerant(*kind, op.text);
      if (e == nullptr) {
        return Fail(pos_, "'" + op.text + "' is not a '" + std::string(kind_name) + "' name");
      }
      Take(AsmSlot::Encode::Word, e->value, kind_name);
    } else if (op.kind == AsmOperand::Kind::Int && op.number <= UINT32_MAX) {
      e = FindEnumerantValue(*kind, op.number);
      Take(AsmSlot::Encode::Word, static_cast<uint32_t>(op.number), kind_name);
    } else {
      return Fail(pos_,
                  "the '" + std::string(kind_name) + "' operand must be one of its names" + found);
    }
    return e == nullptr || MatchList(e->first_param, e->param_count);
  }

  bool MatchId(std::string_view kind_name, const AsmOperand& op, const std::string& found) {
    if (kind_name == "IdResultType") {
      if (op.kind != AsmOperand::Kind::Type) {
        return Fail(pos_, "the result type must be a type ($$T)" + found);
      }
      Take(AsmSlot::Encode::Id, 0, kind_name);
      return true;
    }
    if (kind_name == "IdResult") {
      if (op.kind != AsmOperand::Kind::Local && op.kind != AsmOperand::Kind::Result) {
        return Fail(pos_, "the result id must be '%name' or 'result'" + found);
      }
      Take(AsmSlot::Encode::Id, 0, kind_name);
      return true;
    }
    if (kind_name == "IdScope" || kind_name == "IdMemorySemantics") {
      // A scope or memory semantics written by name or number becomes a constant.
      if (op.kind == AsmOperand::Kind::Name) {
        const GrammarKind* names = FindKind(kind_name == "IdScope" ? "Scope" : "MemorySemantics");
        const spirv_grammar::GrammarEnumerant* e =
            names == nullptr ? nullptr : FindEnumerant(*names, op.text);
        if (e == nullptr) {
          return Fail(pos_,
                      "'" + op.text + "' is not a '" + std::string(kind_name.substr(2)) + "' name");
        }
        Take(AsmSlot::Encode::Constant, e->value, kind_name);
        return true;
      }
      if (op.kind == AsmOperand::Kind::Int && op.number <= UINT32_MAX) {
        Take(AsmSlot::Encode::Constant, static_cast<uint32_t>(op.number), kind_name);
        return true;
      }
    }
    if (!IsId(op) && op.kind != AsmOperand::Kind::Type) {
      return Fail(pos_, "the '" + std::string(kind_name) +
                            "' operand must be an id ($value, $$type, %name or result)" + found);
    }
    Take(AsmSlot::Encode::Id, 0, kind_name);
    return true;
  }

  const AsmInst& inst_;
  std::vector<AsmSlot>* slots_;
  std::string* error_;
  size_t* bad_;
  size_t pos_ = 0;
};

}  // namespace

bool AsmMatch(const AsmInst& inst, std::vector<AsmSlot>* slots, std::string* error,
              size_t* bad_operand) {
  slots->clear();
  const GrammarInst* g = FindAsmOpcode(inst.opcode);
  if (g == nullptr) {
    *error = "unknown opcode";
    *bad_operand = 0;
    return false;
  }
  Matcher m(inst, slots, error, bad_operand);
  return m.MatchList(g->first_operand, g->operand_count) && m.Finish();
}

bool AsmIsPure(const GrammarInst& inst) {
  std::string_view k = inst.klass;
  return k == "Arithmetic" || k == "Bit" || k == "Conversion" || k == "Composite" ||
         k == "Relational_and_Logical" || AsmSectionOf(inst) != AsmSection::Function;
}

std::string AsmUnsupportedReason(const GrammarInst& inst) {
  std::string_view k = inst.klass;
  std::string_view name = inst.name;
  if (AsmSectionOf(inst) != AsmSection::Function) return "";
  if (k == "Type-Declaration") return "type declarations";
  if (k == "Constant-Creation") return "constant instructions";
  if (k == "Control-Flow") return "control-flow instructions";
  if (k == "Function") return "function instructions";
  if (k == "Mode-Setting") return "mode-setting instructions other than OpCapability";
  if (k == "Extension") return "extended instruction sets";
  if (k == "Debug") return "debug instructions";
  if (k == "Annotation") return "annotations other than OpDecorate and OpMemberDecorate";
  if (name == "OpVariable") return "variables";
  if (k == "@exclude" || k == "Reserved" || k == "Pipe" || k == "Device-Side_Enqueue") {
    return "'" + std::string(name) + "'";
  }
  return "";
}

AsmSection AsmSectionOf(const GrammarInst& inst) {
  std::string_view name = inst.name;
  if (name == "OpCapability") return AsmSection::Capability;
  if (name == "OpExtension") return AsmSection::Extension;
  if (name == "OpDecorate" || name == "OpMemberDecorate") return AsmSection::Annotation;
  return AsmSection::Function;
}

}  // namespace slope::ir
