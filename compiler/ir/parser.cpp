#include "compiler/ir/parser.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "compiler/ir/cfg.h"
#include "compiler/ir/verifier.h"
#include "compiler/ir/verify_diff.h"

namespace slope::ir {
namespace {

using diag::DiagId;

constexpr size_t kOpCount = 0
#define INST(name, mnemonic, flags, rule, transpose) +1
#include "compiler/ir/insts.def"
#undef INST
    ;
enum class TokKind : uint8_t { End, Ident, Value, Symbol, Block, Number, Punct };

struct Token {
  TokKind kind = TokKind::End;
  std::string_view text;  ///< without the %, @ or ^ sigil
  uint32_t offset = 0;
  uint32_t line = 0;
};

// Names keep the source's letters: the bytes of non-ASCII (UTF-8) letters are name
// characters too, as in Slope's lexer.
bool IsNonAscii(char c) { return static_cast<unsigned char>(c) >= 0x80; }
bool IsNameChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         c == '_' || c == '.' || c == '$' || IsNonAscii(c);  // '$': types nested in structs
}
bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsLetter(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$' || IsNonAscii(c);
}

/// Splits IR text into tokens; `//` comments and white space separate them.
std::vector<Token> Tokenize(std::string_view text, uint32_t* bad_offset) {
  std::vector<Token> out;
  uint32_t line = 1;
  size_t i = 0;
  auto push = [&](TokKind k, size_t begin, size_t end, size_t at) {
    out.push_back(Token{k, text.substr(begin, end - begin), static_cast<uint32_t>(at), line});
  };
  while (i < text.size()) {
    char c = text[i];
    if (c == '\n') {
      ++line;
      ++i;
    } else if (c == ' ' || c == '\t' || c == '\r') {
      ++i;
    } else if (c == '/' && i + 1 < text.size() && text[i + 1] == '/') {
      while (i < text.size() && text[i] != '\n') ++i;
    } else if (c == '%' || c == '@' || c == '^') {
      size_t j = i + 1;
      while (j < text.size() && IsNameChar(text[j])) ++j;
      // `@bufs[1]`: a global for an element of an array of buffers.
      while (c == '@' && j + 2 < text.size() && text[j] == '[' && IsDigit(text[j + 1])) {
        size_t k = j + 1;
        while (k < text.size() && IsDigit(text[k])) ++k;
        if (k >= text.size() || text[k] != ']') break;
        j = k + 1;
      }
      TokKind k = c == '%' ? TokKind::Value : c == '@' ? TokKind::Symbol : TokKind::Block;
      push(k, i + 1, j, i);
      i = j;
    } else if (IsLetter(c)) {
      size_t j = i;
      while (j < text.size() && IsNameChar(text[j])) ++j;
      push(TokKind::Ident, i, j, i);
      i = j;
    } else if (IsDigit(c) || ((c == '-' || c == '+') && i + 1 < text.size() &&
                              (IsDigit(text[i + 1]) || IsLetter(text[i + 1])))) {
      // Numbers, including "1e+10", "-inf" and "nan".
      size_t j = i + 1;
      while (j < text.size() &&
             (IsNameChar(text[j]) ||
              ((text[j] == '+' || text[j] == '-') && (text[j - 1] == 'e' || text[j - 1] == 'E')))) {
        ++j;
      }
      push(TokKind::Number, i, j, i);
      i = j;
    } else if (c == '-' && i + 1 < text.size() && text[i + 1] == '>') {
      push(TokKind::Punct, i, i + 2, i);
      i += 2;
    } else if (std::strchr("(){}<>,:=[]", c) != nullptr) {
      push(TokKind::Punct, i, i + 1, i);
      ++i;
    } else {
      *bad_offset = static_cast<uint32_t>(i);
      return out;
    }
  }
  out.push_back(Token{TokKind::End, {}, static_cast<uint32_t>(text.size()), line});
  return out;
}

/// A use of a value or block not yet defined, resolved at the end of the function.
struct ValueFixup {
  Inst* inst;
  size_t operand;
  std::string name;
  uint32_t offset;
};

class Parser {
 public:
  Parser(source::FileId file, diag::DiagEngine& diags)
      : file_(file), diags_(diags), module_(std::make_unique<Module>()) {}
  std::unique_ptr<Module> Run();

 private:
  // Tokens.
  const Token& Peek(size_t n = 0) const { return tokens_[std::min(pos_ + n, tokens_.size() - 1)]; }
  const Token& Next() { return tokens_[pos_ < tokens_.size() - 1 ? pos_++ : pos_]; }
  bool IsPunct(std::string_view p, size_t n = 0) const {
    return Peek(n).kind == TokKind::Punct && Peek(n).text == p;
  }
  bool IsIdent(std::string_view word) const {
    return Peek().kind == TokKind::Ident && Peek().text == word;
  }
  bool Accept(std::string_view p) {
    if (!IsPunct(p)) return false;
    Next();
    return true;
  }
  bool Expect(std::string_view p);
  bool ExpectWord(std::string_view word);
  bool Fail(DiagId id, const Token& at, const std::string& a = "", const std::string& b = "");
  bool Expected(const std::string& what);
  std::string Describe(const Token& t) const;
  source::SourceLoc Loc(uint32_t offset) const { return source::SourceLoc{file_, offset}; }

  // Grammar.
  bool ParseGlobal();
  bool ParseSpecNumThreads(Function* f);
  bool ParseStruct();
  bool ParseDifferential();
  bool ParseFunction();
  bool ParseType(const Type** out);
  bool ParseUint(uint32_t* out);
  bool ParseConstant(const Type* type, Value** out);
  bool ParseOperand(Inst* inst, size_t index);
  bool ParseOperandList(Inst* inst);
  bool ParseEdge(Inst* inst);
  bool ParseBlockRef(Block** out);
  bool ParseBlockHeader(Function* f);
  bool ParseInst();
  bool ParseInstBody(Inst* inst);
  bool DefineValue(const Token& name, Value* v);
  bool StartsOperand() const;
  bool FinishFunction(Function* f);

  source::FileId file_;
  diag::DiagEngine& diags_;
  std::unique_ptr<Module> module_;
  std::vector<Token> tokens_;
  size_t pos_ = 0;
  std::map<std::string, Function*, std::less<>> functions_;
  std::vector<std::pair<Inst*, Token>> callee_fixups_;
  /// `fwd_diff(@f)` / `custom_fwd(@g)` on a function: the field to set once all are known.
  std::vector<std::pair<Function**, Token>> function_ref_fixups_;
  /// Parses `(@name)` after a function attribute into `*field` (resolved at the end).
  bool ParseFunctionRef(Function** field);
  std::map<std::string, uint32_t, std::less<>> function_offsets_;  ///< where each `func` is
  // Per function.
  Block* block_ = nullptr;  ///< the block being filled
  std::map<std::string, Value*, std::less<>> values_;
  std::map<std::string, Block*, std::less<>> blocks_;
  std::map<const Block*, Token> block_first_use_;
  std::map<const Block*, bool> block_defined_;
  std::vector<ValueFixup> fixups_;
};

std::string Parser::Describe(const Token& t) const {
  switch (t.kind) {
    case TokKind::End: return "end of file";
    case TokKind::Value: return "'%" + std::string(t.text) + "'";
    case TokKind::Symbol: return "'@" + std::string(t.text) + "'";
    case TokKind::Block: return "'^" + std::string(t.text) + "'";
    case TokKind::Ident:
    case TokKind::Number:
    case TokKind::Punct: return "'" + std::string(t.text) + "'";
  }
  return "?";
}

bool Parser::Fail(DiagId id, const Token& at, const std::string& a, const std::string& b) {
  bool sigil = at.kind == TokKind::Value || at.kind == TokKind::Symbol || at.kind == TokKind::Block;
  uint32_t length = static_cast<uint32_t>(at.text.size()) + (sigil ? 1 : 0);
  source::SourceRange range(Loc(at.offset), Loc(at.offset + length));
  if (b.empty() && a.empty()) {
    diags_.Report(id, range);
  } else if (b.empty()) {
    diags_.Report(id, range, a);
  } else {
    diags_.Report(id, range, a, b);
  }
  return false;
}

bool Parser::Expected(const std::string& what) {
  return Fail(DiagId::IrExpected, Peek(), what, Describe(Peek()));
}

bool Parser::Expect(std::string_view p) {
  if (Accept(p)) return true;
  return Expected("'" + std::string(p) + "'");
}

bool Parser::ExpectWord(std::string_view word) {
  if (IsIdent(word)) {
    Next();
    return true;
  }
  return Expected("'" + std::string(word) + "'");
}

std::unique_ptr<Module> Parser::Run() {
  uint32_t bad = UINT32_MAX;
  tokens_ = Tokenize(diags_.Sources().Text(file_), &bad);
  if (bad != UINT32_MAX) {
    std::string_view text = diags_.Sources().Text(file_);
    Token t{TokKind::Punct, text.substr(bad, 1), bad, 0};
    Fail(DiagId::IrExpected, t, "a token", "'" + std::string(t.text) + "'");
    return nullptr;
  }
  while (Peek().kind != TokKind::End) {
    bool ok = IsIdent("global")         ? ParseGlobal()
              : IsIdent("struct")       ? ParseStruct()
              : IsIdent("func")         ? ParseFunction()
              : IsIdent("differential") ? ParseDifferential()
                                        : Expected("'global', 'struct', 'differential' or 'func'");
    if (!ok) return nullptr;
  }
  for (auto& [inst, name] : callee_fixups_) {
    auto it = functions_.find(name.text);
    if (it == functions_.end()) {
      Fail(DiagId::IrUndefinedSymbol, name, "function", std::string(name.text));
      return nullptr;
    }
    inst->callee = it->second;
  }
  for (auto& [field, name] : function_ref_fixups_) {
    auto it = functions_.find(name.text);
    if (it == functions_.end()) {
      Fail(DiagId::IrUndefinedSymbol, name, "function", std::string(name.text));
      return nullptr;
    }
    *field = it->second;
  }
  std::vector<std::string> errors = VerifyModule(*module_);
  if (!errors.empty()) {
    for (const std::string& e : errors) {
      // Point at the function the message names ("in function @f: ...").
      uint32_t at = 0;
      for (const auto& [name, offset] : function_offsets_) {
        if (e.rfind("in function @" + name + ":", 0) == 0) at = offset;
      }
      diags_.Report(DiagId::IrVerifyFailed, source::SourceRange(Loc(at)), e);
    }
    return nullptr;
  }
  return std::move(module_);
}

bool Parser::ParseSpecNumThreads(Function* f) {
  // `spec_numthreads(@kX, none, none)`: per dimension a specialization constant or none.
  Next();
  if (!Expect("(")) return false;
  for (size_t i = 0; i < 3; ++i) {
    if (i != 0 && !Expect(",")) return false;
    const Token t = Peek();
    if (t.kind == TokKind::Ident && t.text == "none") {
      Next();
      continue;
    }
    if (t.kind != TokKind::Symbol) return Expected("a specialization constant ('@name') or 'none'");
    Next();
    for (const Global* g : module_->spec_constants) {
      if (g->Name() == t.text) f->entry.numthreads_spec[i] = g;
    }
    const Global* g = f->entry.numthreads_spec[i];
    if (g == nullptr) {
      return Fail(DiagId::IrUndefinedSymbol, t, "specialization constant", std::string(t.text));
    }
    if (!g->GetType()->IsInt() || g->GetType()->Width() != 32) {
      return Fail(DiagId::IrInvalidType, t, "a workgroup size is a 32-bit integer constant");
    }
  }
  return Expect(")");
}

bool Parser::ParseGlobal() {
  Next();  // global
  const Token name = Peek();
  if (name.kind != TokKind::Symbol) return Expected("a global name ('@name')");
  Next();
  for (const auto* list : {&module_->globals, &module_->spec_constants}) {
    for (const Global* g : *list) {
      if (g->Name() == name.text)
        return Fail(DiagId::IrRedefinedSymbol, name, std::string(name.text));
    }
  }
  const Type* type = nullptr;
  if (!Expect(":") || !ParseType(&type)) return false;
  if (type->IsScalar() && Peek().kind == TokKind::Ident && Peek().text == "spec_id") {
    // `global @k : i32 spec_id(3) default(i32 4)`: a specialization constant.
    Next();
    uint32_t id = 0;
    const Type* default_type = nullptr;
    Value* value = nullptr;
    if (!(Expect("(") && ParseUint(&id) && Expect(")") && ExpectWord("default") && Expect("(") &&
          ParseType(&default_type))) {
      return false;
    }
    if (default_type != type) {
      return Fail(DiagId::IrInvalidType, name,
                  "a specialization constant's default has the constant's type");
    }
    if (!ParseConstant(type, &value) || !Expect(")")) return false;
    for (const Global* g : module_->spec_constants) {
      if (g->spec_id == id) {
        return Fail(DiagId::IrInvalidType, name,
                    "two specialization constants have spec_id " + std::to_string(id));
      }
    }
    module_->AddSpecConstant(std::string(name.text), id, static_cast<const Constant*>(value));
    return true;
  }
  bool workgroup = type->IsPointer() && (type->Space() == AddressSpace::Workgroup ||
                                         type->Space() == AddressSpace::Private);
  bool uniform = type->IsPointer() && (type->Space() == AddressSpace::Uniform ||
                                       type->Space() == AddressSpace::PushConstant) &&
                 type->Element()->IsStruct();
  if (!type->IsResource() && !workgroup && !uniform) {
    return Fail(DiagId::IrInvalidType, name,
                "a global must be a buffer, texture or sampler, a pointer into workgroup or "
                "private memory or a pointer to a uniform or push-constant struct");
  }
  Global* g = module_->AddGlobal(type, std::string(name.text));
  // Workgroup variables and push constants have no binding.
  if (workgroup || g->IsPushConstant()) return true;
  if (!(ExpectWord("set") && Expect("(") && ParseUint(&g->set) && Expect(")") &&
        ExpectWord("binding") && Expect("(") && ParseUint(&g->binding) && Expect(")"))) {
    return false;
  }
  // A storage texture's format: `format(rgba32f)`.
  if (type->IsTexture() && type->IsWritable() && Peek().kind == TokKind::Ident &&
      Peek().text == "format") {
    Next();
    if (!Expect("(")) return false;
    const Token f = Peek();
    if (f.kind != TokKind::Ident || !FindImageFormat(f.text, &g->image_format)) {
      return Expected("an image format ('rgba32f')");
    }
    Next();
    return Expect(")");
  }
  return true;
}

bool Parser::ParseStruct() {
  Next();  // struct
  const Token name = Peek();
  if (name.kind != TokKind::Ident) return Expected("a struct name");
  Next();
  if (module_->Types().FindStruct(std::string(name.text)) != nullptr) {
    return Fail(DiagId::IrRedefinedSymbol, name, std::string(name.text));
  }
  std::vector<const Type*> members;
  std::vector<std::string> member_names;
  std::vector<MatrixLayout> layouts;
  bool any_layout = false;
  if (!Expect("{")) return false;
  while (!IsPunct("}")) {
    if (!members.empty() && !Expect(",")) return false;
    const Token member = Peek();
    if (member.kind != TokKind::Ident) return Expected("a member name");
    Next();
    const Type* type = nullptr;
    if (!Expect(":") || !ParseType(&type)) return false;
    if (type->IsVoid() || (type->IsPointer() && !type->IsDevicePointer())) {
      return Fail(DiagId::IrInvalidType, member,
                  "a struct member cannot have type '" + type->Name() + "'");
    }
    members.push_back(type);
    member_names.push_back(std::string(member.text));
    // `m: mat<f32, 3, 3> row_major`: a matrix field's own buffer layout.
    layouts.push_back(MatrixLayout::Default);
    if (IsIdent("row_major") || IsIdent("column_major")) {
      const Token layout = Peek();
      Next();
      const Type* inner = type;
      while (inner->IsArray()) inner = inner->Element();
      if (!inner->IsMatrix()) {
        return Fail(DiagId::IrInvalidType, layout, "'" + std::string(layout.text) +
                                                       "' needs a matrix member");
      }
      layouts.back() = layout.text == "row_major" ? MatrixLayout::RowMajor
                                                  : MatrixLayout::ColumnMajor;
      any_layout = true;
    }
  }
  Next();  // }
  const Type* made = module_->Types().Struct(std::string(name.text), std::move(members),
                                             std::move(member_names));
  if (any_layout) module_->Types().SetMemberMatrixLayouts(made, std::move(layouts));
  return true;
}

/// `differential struct<S>: struct<D> members(0, none, 1)`: S's derivative is stored in
/// D, member i's in D's member members[i] (none: member i carries none).
bool Parser::ParseDifferential() {
  Next();  // differential
  const Token at = Peek();
  const Type* s = nullptr;
  const Type* d = nullptr;
  if (!ParseType(&s)) return false;
  if (!s->IsStruct())
    return Fail(DiagId::IrInvalidType, at,
                "a differential is given for a struct, not '" + s->Name() + "'");
  if (module_->Types().FindDifferential(s) != nullptr)
    return Fail(DiagId::IrInvalidType, at, s->Name() + " has a differential already");
  const Token at_d = Peek();
  if (!Expect(":") || !ParseType(&d)) return false;
  if (!d->IsStruct())
    return Fail(DiagId::IrInvalidType, at_d,
                "a differential must be a struct, not '" + d->Name() + "'");
  TypeTable::DifferentialLayout layout{d, {}};
  if (!ExpectWord("members") || !Expect("(")) return false;
  std::set<uint32_t> used;
  while (!IsPunct(")")) {
    if (!layout.members.empty() && !Expect(",")) return false;
    const Token member = Peek();
    size_t i = layout.members.size();
    if (IsIdent("none")) {
      Next();
      layout.members.push_back(-1);
      continue;
    }
    uint32_t k = 0;
    if (!ParseUint(&k)) return false;
    if (i >= s->Members().size() || k >= d->Members().size() || !used.insert(k).second ||
        !IsDifferentialOf(module_->Types(), d->Members()[k], s->Members()[i])) {
      return Fail(DiagId::IrInvalidType, member,
                  "member " + std::to_string(k) + " of " + d->Name() +
                      " cannot hold the derivative of member " + std::to_string(i) + " of " +
                      s->Name());
    }
    layout.members.push_back(static_cast<int>(k));
  }
  const Token close = Peek();
  Next();  // )
  if (layout.members.size() != s->Members().size()) {
    return Fail(DiagId::IrInvalidType, close,
                s->Name() + " has " + std::to_string(s->Members().size()) + " members, not " +
                    std::to_string(layout.members.size()));
  }
  module_->Types().SetDifferential(s, std::move(layout));
  return true;
}

bool Parser::ParseUint(uint32_t* out) {
  const Token& t = Peek();
  if (t.kind != TokKind::Number) return Expected("an integer");
  auto r = std::from_chars(t.text.data(), t.text.data() + t.text.size(), *out);
  if (r.ec != std::errc() || r.ptr != t.text.data() + t.text.size()) {
    return Fail(DiagId::IrInvalidConstant, t, "u32", std::string(t.text));
  }
  Next();
  return true;
}

bool Parser::ParseType(const Type** out) {
  const Token t = Peek();
  if (t.kind != TokKind::Ident) return Expected("a type");
  Next();
  TypeTable& types = module_->Types();
  std::string_view w = t.text;
  auto width_of = [&](std::string_view digits, uint32_t* width) {
    auto r = std::from_chars(digits.data(), digits.data() + digits.size(), *width);
    return r.ec == std::errc() && r.ptr == digits.data() + digits.size() && !digits.empty();
  };
  uint32_t width = 0;
  if (w == "void") {
    *out = types.Void();
  } else if (w == "bool") {
    *out = types.Bool();
  } else if ((w[0] == 'i' || w[0] == 'u') && width_of(w.substr(1), &width)) {
    if (width != 8 && width != 16 && width != 32 && width != 64) {
      return Fail(DiagId::IrInvalidType, t, "integer widths are 8, 16, 32 and 64");
    }
    *out = types.Int(width, w[0] == 'i');
  } else if (w[0] == 'f' && width_of(w.substr(1), &width)) {
    if (width != 16 && width != 32 && width != 64) {
      return Fail(DiagId::IrInvalidType, t, "float widths are 16, 32 and 64");
    }
    *out = types.Float(width);
  } else if (w == "vec") {
    const Type* element = nullptr;
    uint32_t count = 0;
    if (!Expect("<") || !ParseType(&element) || !Expect(",") || !ParseUint(&count) ||
        !Expect(">")) {
      return false;
    }
    if (!element->IsScalar() || count < 2 || count > 4) {
      return Fail(DiagId::IrInvalidType, t, "a vector has 2 to 4 elements of a scalar type");
    }
    *out = types.Vector(element, count);
  } else if (w == "mat") {
    const Type* element = nullptr;
    uint32_t rows = 0;
    uint32_t cols = 0;
    if (!Expect("<") || !ParseType(&element) || !Expect(",") || !ParseUint(&rows) ||
        !Expect(",") || !ParseUint(&cols) || !Expect(">")) {
      return false;
    }
    if (!element->IsScalar() || rows < 2 || rows > 4 || cols < 2 || cols > 4) {
      return Fail(DiagId::IrInvalidType, t,
                  "a matrix has 2 to 4 rows and 2 to 4 columns of a scalar type");
    }
    *out = types.Matrix(element, rows, cols);
  } else if (w == "ptr") {
    if (!Expect("<")) return false;
    const Token space = Peek();
    if (!IsIdent("function") && !IsIdent("storage") && !IsIdent("workgroup") &&
        !IsIdent("uniform") && !IsIdent("push_constant") && !IsIdent("private") &&
        !IsIdent("device")) {
      return Expected(
          "'function', 'storage', 'workgroup', 'uniform', 'push_constant', 'private' or 'device'");
    }
    Next();
    const Type* pointee = nullptr;
    if (!Expect(",") || !ParseType(&pointee) || !Expect(">")) return false;
    if (pointee->IsVoid()) {
      return Fail(DiagId::IrInvalidType, t, "a pointer cannot point at '" + pointee->Name() + "'");
    }
    *out = types.Pointer(space.text == "function"    ? AddressSpace::Function
                         : space.text == "storage"   ? AddressSpace::StorageBuffer
                         : space.text == "uniform"   ? AddressSpace::Uniform
                         : space.text == "workgroup" ? AddressSpace::Workgroup
                         : space.text == "private"   ? AddressSpace::Private
                         : space.text == "device"    ? AddressSpace::Device
                                                     : AddressSpace::PushConstant,
                         pointee);
  } else if (w == "struct") {
    if (!Expect("<")) return false;
    const Token name = Peek();
    if (name.kind != TokKind::Ident) return Expected("a struct name");
    Next();
    if (!Expect(">")) return false;
    *out = types.FindStruct(std::string(name.text));
    if (*out == nullptr) {
      return Fail(DiagId::IrInvalidType, name, "unknown struct '" + std::string(name.text) + "'");
    }
  } else if (w == "array") {
    const Type* element = nullptr;
    uint32_t count = 0;
    if (!Expect("<") || !ParseType(&element) || !Expect(",") || !ParseUint(&count) ||
        !Expect(">")) {
      return false;
    }
    if (element->IsVoid() || element->IsPointer() || count == 0) {
      return Fail(DiagId::IrInvalidType, t, "an array has at least one element of a value or buffer type");
    }
    *out = types.Array(element, count);
  } else if (w == "buffer" || w == "rwbuffer") {
    const Type* element = nullptr;
    if (!Expect("<") || !ParseType(&element) || !Expect(">")) return false;
    if (!element->IsScalar() && !element->IsVector() && !element->IsStruct() &&
        !element->IsArray() && !element->IsMatrix()) {
      return Fail(DiagId::IrInvalidType, t,
                  "a buffer holds scalars, vectors, matrices, structs or arrays");
    }
    *out = types.Buffer(element, w == "rwbuffer");
  } else if (w == "sampler" || w == "sampler_cmp") {
    *out = types.Sampler(w == "sampler_cmp");
  } else if (w.starts_with("texture") || w.starts_with("rwtexture") ||
             w.starts_with("sampled")) {
    bool writable = w.starts_with("rw");
    bool combined = w.starts_with("sampled");
    std::string_view shape = w.substr(writable ? 9 : 7);
    bool comparison = combined && shape.ends_with("_shadow");
    if (comparison) shape.remove_suffix(7);
    bool arrayed = shape.ends_with("_array");
    if (arrayed) shape.remove_suffix(6);
    TextureDim dim = shape == "1d"       ? TextureDim::k1D
                     : shape == "2d"     ? TextureDim::k2D
                     : shape == "3d"     ? TextureDim::k3D
                     : shape == "buffer" ? TextureDim::kBuffer
                                         : TextureDim::kCube;
    if ((shape != "1d" && shape != "2d" && shape != "3d" && shape != "cube" && shape != "buffer") ||
        (dim == TextureDim::kBuffer && (combined || arrayed))) {
      return Fail(DiagId::IrInvalidType, t, "unknown type '" + std::string(w) + "'");
    }
    const Type* element = nullptr;
    if (!Expect("<") || !ParseType(&element) || !Expect(">")) return false;
    if ((!element->IsScalar() && !element->IsVector()) || element->Scalar()->Width() != 32) {
      return Fail(DiagId::IrInvalidType, t, "a texture holds 32-bit scalars or vectors");
    }
    *out = types.Texture(element, dim, arrayed, writable, combined, comparison);
  } else {
    return Fail(DiagId::IrInvalidType, t, "unknown type '" + std::string(w) + "'");
  }
  return true;
}

bool Parser::ParseConstant(const Type* type, Value** out) {
  const Token t = Peek();
  std::string_view s = t.text;
  if (t.kind != TokKind::Number && t.kind != TokKind::Ident) return Expected("a constant");
  Next();
  const char* end = s.data() + s.size();
  auto bad = [&]() { return Fail(DiagId::IrInvalidConstant, t, type->Name(), std::string(s)); };
  if (type->IsBool()) {
    if (s != "true" && s != "false") return bad();
    *out = module_->ConstBool(s == "true");
  } else if (type->IsInt()) {
    uint32_t w = type->Width();
    if (type->IsSigned()) {
      int64_t v = 0;
      auto r = std::from_chars(s.data(), end, v);
      int64_t lo = w == 64 ? INT64_MIN : -(int64_t{1} << (w - 1));
      int64_t hi = w == 64 ? INT64_MAX : (int64_t{1} << (w - 1)) - 1;
      if (r.ec != std::errc() || r.ptr != end || v < lo || v > hi) return bad();
      *out = module_->ConstInt(type, v);
    } else {
      uint64_t v = 0;
      auto r = std::from_chars(s.data(), end, v);
      if (r.ec != std::errc() || r.ptr != end || (w < 64 && v >> w != 0)) return bad();
      *out = module_->ConstInt(type, static_cast<int64_t>(v));
    }
  } else if (type->IsFloat()) {
    // from_chars does not take a leading '+'.
    if (!s.empty() && s[0] == '+') return bad();
    if (type->Width() == 32) {
      float v = 0;
      auto r = std::from_chars(s.data(), end, v);
      if (r.ec != std::errc() || r.ptr != end) return bad();
      *out = module_->ConstFloat(type, static_cast<double>(v));
    } else {
      double v = 0;
      auto r = std::from_chars(s.data(), end, v);
      if (r.ec != std::errc() || r.ptr != end) return bad();
      *out = module_->ConstFloat(type, v);
    }
  } else {
    return Fail(DiagId::IrInvalidType, t, "constants are scalars, not '" + type->Name() + "'");
  }
  return true;
}

bool Parser::StartsOperand() const {
  const Token& t = Peek();
  if (t.kind == TokKind::Value || t.kind == TokKind::Symbol) return true;
  if (t.kind != TokKind::Ident) return false;
  std::string_view w = t.text;
  return w == "bool" ||
         ((w[0] == 'i' || w[0] == 'u' || w[0] == 'f') && w.size() > 1 && IsDigit(w[1]));
}

bool Parser::ParseOperand(Inst* inst, size_t index) {
  const Token t = Peek();
  if (inst->operands.size() <= index) inst->operands.resize(index + 1, nullptr);
  if (t.kind == TokKind::Value) {
    Next();
    auto it = values_.find(t.text);
    if (it != values_.end()) {
      inst->operands[index] = it->second;
    } else {
      fixups_.push_back(ValueFixup{inst, index, std::string(t.text), t.offset});
    }
    return true;
  }
  if (t.kind == TokKind::Symbol) {
    Next();
    for (const auto* list : {&module_->globals, &module_->spec_constants}) {
      for (Global* g : *list) {
        if (g->Name() == t.text) {
          inst->operands[index] = g;
          return true;
        }
      }
    }
    return Fail(DiagId::IrUndefinedSymbol, t, "global", std::string(t.text));
  }
  if (!StartsOperand()) return Expected("an operand");
  const Type* type = nullptr;
  Value* c = nullptr;
  if (!ParseType(&type) || !ParseConstant(type, &c)) return false;
  inst->operands[index] = c;
  return true;
}

bool Parser::ParseOperandList(Inst* inst) {
  if (!StartsOperand()) return true;
  do {
    if (!ParseOperand(inst, inst->operands.size())) return false;
  } while (IsPunct(",") && !IsPunct("[", 1) && Accept(","));
  return true;
}

bool Parser::ParseBlockRef(Block** out) {
  const Token t = Peek();
  if (t.kind != TokKind::Block || t.text.empty()) return Expected("a block ('^n')");
  Next();
  auto it = blocks_.find(t.text);
  if (it == blocks_.end()) {
    Block* b = module_->AddBlock(nullptr);
    it = blocks_.emplace(std::string(t.text), b).first;
    block_first_use_.emplace(b, t);
  }
  *out = it->second;
  return true;
}

bool Parser::ParseEdge(Inst* inst) {
  Block* target = nullptr;
  if (!ParseBlockRef(&target)) return false;
  inst->targets.push_back(target);
  // Arguments follow in parentheses; they go after the operands already parsed, which
  // is the layout EdgeArgs reads (cond_br: condition, true arguments, false arguments).
  if (Accept("(")) return ParseOperandList(inst) && Expect(")");
  return true;
}

bool Parser::DefineValue(const Token& name, Value* v) {
  if (!values_.emplace(std::string(name.text), v).second) {
    return Fail(DiagId::IrRedefinedValue, name, std::string(name.text));
  }
  return true;
}

bool Parser::ParseFunction() {
  uint32_t func_offset = Next().offset;
  const Token name = Peek();
  if (name.kind != TokKind::Symbol) return Expected("a function name ('@name')");
  Next();
  values_.clear();
  blocks_.clear();
  block_first_use_.clear();
  block_defined_.clear();
  fixups_.clear();
  // Parameters first: the result type comes after them.
  struct ParamText {
    Token name;
    const Type* type;
    std::string semantic;
    Token semantic_at;
  };
  std::vector<ParamText> params;
  if (!Expect("(")) return false;
  while (!IsPunct(")")) {
    if (!params.empty() && !Expect(",")) return false;
    ParamText p{Peek(), nullptr, "", Peek()};
    if (p.name.kind != TokKind::Value) return Expected("a parameter ('%name: type')");
    Next();
    if (!Expect(":") || !ParseType(&p.type)) return false;
    if (IsIdent("semantic")) {
      p.semantic_at = Next();
      if (!Expect("(")) return false;
      if (Peek().kind != TokKind::Ident) return Expected("a semantic name");
      p.semantic = std::string(Next().text);
      if (!Expect(")")) return false;
    }
    params.push_back(p);
  }
  Next();  // )
  const Type* result = nullptr;
  if (!Expect("->") || !ParseType(&result)) return false;
  if (functions_.count(name.text) != 0)
    return Fail(DiagId::IrRedefinedSymbol, name, std::string(name.text));
  Function* f = module_->AddFunction(std::string(name.text), result);
  functions_.emplace(std::string(name.text), f);
  function_offsets_.emplace(std::string(name.text), func_offset);
  if (IsIdent("compute")) {
    Next();
    f->is_entry = true;
    if (!ExpectWord("numthreads") || !Expect("(")) return false;
    for (size_t i = 0; i < 3; ++i) {
      if ((i != 0 && !Expect(",")) || !ParseUint(&f->entry.numthreads[i])) return false;
    }
    if (!Expect(")")) return false;
    if (IsIdent("spec_numthreads") && !ParseSpecNumThreads(f)) return false;
    if (IsIdent("wave_size")) {
      Next();
      if (!Expect("(") || !ParseUint(&f->entry.wave_size) || !Expect(")")) return false;
    }
  }
  if (IsIdent("forceinline")) {
    Next();
    f->force_inline = true;
  }
  if (IsIdent("precise")) {
    Next();
    f->precise = true;
  }
  if (IsIdent("differentiable")) {
    Next();
    f->autodiff.differentiable = true;
  }
  if (IsIdent("zero_derivative")) {
    Next();
    f->autodiff.zero_derivative = true;
  }
  if (IsIdent("prefer_recompute")) {
    Next();
    f->autodiff.prefer_recompute = true;
  }
  if (IsIdent("no_diff_result")) {
    Next();
    f->autodiff.no_diff_result = true;
  }
  if (IsIdent("fwd_diff")) {
    Next();
    if (!ParseFunctionRef(&f->autodiff.fwd_diff_of)) return false;
  }
  if (IsIdent("custom_fwd")) {
    Next();
    if (!ParseFunctionRef(&f->autodiff.custom_fwd)) return false;
  }
  if (IsIdent("primal_subst")) {
    Next();
    if (!ParseFunctionRef(&f->autodiff.primal_substitute)) return false;
  }
  if (IsIdent("bwd_diff")) {
    Next();
    if (!ParseFunctionRef(&f->autodiff.bwd_diff_of)) return false;
  }
  if (IsIdent("custom_bwd")) {
    Next();
    if (!ParseFunctionRef(&f->autodiff.custom_bwd)) return false;
  }
  if (IsIdent("no_diff")) {
    Next();
    if (!Expect("(")) return false;
    do {
      uint32_t index = 0;
      if (!ParseUint(&index)) return false;
      f->autodiff.no_diff_params.push_back(index);
    } while (Accept(","));
    if (!Expect(")")) return false;
  }
  if (IsIdent("ptr_pair")) {
    Next();
    if (!Expect("(")) return false;
    do {
      uint32_t index = 0;
      const Type* pair = nullptr;
      if (!ParseUint(&index) || !Expect(":") || !ParseType(&pair)) return false;
      f->autodiff.ptr_params.push_back({index, pair});
    } while (Accept(","));
    if (!Expect(")")) return false;
  }
  for (const ParamText& p : params) {
    if (p.type->IsVoid())
      return Fail(DiagId::IrInvalidType, p.name, "a parameter cannot have type 'void'");
    if (!p.semantic.empty() && !f->is_entry)
      return Fail(DiagId::IrSemanticOutsideEntry, p.semantic_at);
    Param* param = module_->AddParam(p.type, nullptr);
    f->params.push_back(param);
    if (f->is_entry) f->entry.param_semantics.push_back(p.semantic);
    if (!DefineValue(p.name, param)) return false;
  }
  if (!Expect("{")) return false;
  while (!IsPunct("}")) {
    if (Peek().kind == TokKind::End) return Expected("'}'");
    if (Peek().kind == TokKind::Block) {
      if (!ParseBlockHeader(f)) return false;
    } else if (block_ == nullptr) {
      return Expected("a block label ('^n:')");
    } else if (!ParseInst()) {
      return false;
    }
  }
  Next();  // }
  block_ = nullptr;
  return FinishFunction(f);
}

bool Parser::ParseFunctionRef(Function** field) {
  if (!Expect("(")) return false;
  const Token name = Peek();
  if (name.kind != TokKind::Symbol) return Expected("a function name ('@name')");
  Next();
  function_ref_fixups_.push_back({field, name});
  return Expect(")");
}

bool Parser::ParseBlockHeader(Function* f) {
  const Token label = Peek();
  Block* b = nullptr;
  if (!ParseBlockRef(&b)) return false;
  if (block_defined_[b]) return Fail(DiagId::IrRedefinedBlock, label, std::string(label.text));
  block_defined_[b] = true;
  // The block was made before its function was known: rebuild it in place.
  *b = Block(f);
  f->blocks.push_back(b);
  block_ = b;
  if (Accept("(")) {
    while (!IsPunct(")")) {
      if (!b->params.empty() && !Expect(",")) return false;
      const Token name = Peek();
      if (name.kind != TokKind::Value) return Expected("a block parameter ('%name: type')");
      Next();
      const Type* type = nullptr;
      if (!Expect(":") || !ParseType(&type)) return false;
      if (type->IsVoid())
        return Fail(DiagId::IrInvalidType, name, "a parameter cannot have type 'void'");
      Param* p = module_->AddParam(type, b);
      b->params.push_back(p);
      if (!DefineValue(name, p)) return false;
    }
    Next();  // )
  }
  return Expect(":");
}

bool Parser::ParseInst() {
  Token result{};
  bool named = false;
  if (Peek().kind == TokKind::Value) {
    result = Next();
    named = true;
    if (!Expect("=")) return false;
  }
  const Token mnemonic = Peek();
  if (mnemonic.kind != TokKind::Ident) return Expected("an instruction");
  Next();
  std::optional<Op> op;
  for (size_t i = 0; i < kOpCount; ++i) {
    if (mnemonic.text == GetOpInfo(static_cast<Op>(i)).mnemonic) op = static_cast<Op>(i);
  }
  if (!op.has_value())
    return Fail(DiagId::IrUnknownInstruction, mnemonic, std::string(mnemonic.text));
  const OpInfo& info = GetOpInfo(*op);
  bool makes_value =
      !info.is_terminator && *op != Op::Store && *op != Op::Barrier && *op != Op::Printf;
  // A spirv_asm block has a result only when it defines `result`.
  bool maybe_value = *op == Op::Call || *op == Op::Texture || *op == Op::SpirvAsm;
  if (named && !makes_value)
    return Fail(DiagId::IrUnexpectedResult, result, std::string(mnemonic.text));
  if (!named && makes_value && !maybe_value) {
    return Fail(DiagId::IrMissingResult, mnemonic, std::string(mnemonic.text));
  }
  // The instruction is made with a placeholder type and rebuilt once the type is read.
  Inst scratch(*op, module_->Types().Void());
  size_t first_fixup = fixups_.size();
  if (!ParseInstBody(&scratch)) return false;
  const Type* type = module_->Types().Void();
  if (named) {
    if (!IsPunct(":") || Peek().line != mnemonic.line) {
      return Fail(DiagId::IrMissingType, result, std::string(result.text));
    }
    Next();
    const Token type_at = Peek();
    if (!ParseType(&type)) return false;
    if (type->IsVoid())
      return Fail(DiagId::IrInvalidType, type_at, "a result cannot have type 'void'");
  }
  Inst* inst = module_->NewInst(*op, type);
  inst->operands = std::move(scratch.operands);
  inst->targets = std::move(scratch.targets);
  inst->imms = std::move(scratch.imms);
  inst->block = block_;
  inst->loc = Loc(mnemonic.offset);
  for (size_t i = first_fixup; i < fixups_.size(); ++i) fixups_[i].inst = inst;
  for (auto& [pending, name] : callee_fixups_) {
    if (pending == &scratch) pending = inst;
  }
  block_->insts.push_back(inst);
  return !named || DefineValue(result, inst);
}

bool Parser::ParseInstBody(Inst* inst) {
  switch (inst->GetOp()) {
    case Op::Br:
      return ParseEdge(inst);
    case Op::CondBr:
      return ParseOperand(inst, 0) && Expect(",") && ParseEdge(inst) && Expect(",") &&
             ParseEdge(inst);
    case Op::If: {
      Block* b = nullptr;
      if (!ParseOperand(inst, 0)) return false;
      for (const char* label : {"", "", "merge"}) {
        if (!Expect(",")) return false;
        if (*label != 0 && !ExpectWord(label)) return false;
        if (!ParseBlockRef(&b)) return false;
        inst->targets.push_back(b);
      }
      return true;
    }
    case Op::Loop: {
      Block* b = nullptr;
      for (const char* label : {"", "merge", "continue"}) {
        if (*label != 0 && (!Expect(",") || !ExpectWord(label))) return false;
        if (!ParseBlockRef(&b)) return false;
        inst->targets.push_back(b);
      }
      for (auto control : {LoopControl::Unroll, LoopControl::ForceUnroll}) {
        if (!IsIdent(LoopControlName(static_cast<uint32_t>(control)))) continue;
        Next();
        inst->imms = {static_cast<uint32_t>(control)};
        break;
      }
      if (IsIdent("max_iters")) {
        Next();
        uint32_t bound = 0;
        if (!Expect("(") || !ParseUint(&bound) || !Expect(")")) return false;
        if (inst->imms.empty()) inst->imms.push_back(0);
        inst->imms.push_back(bound);
      }
      return true;
    }
    case Op::Switch: {
      // "switch %sel, default ^d, case i32 1: ^a, ..., merge ^m"
      Block* b = nullptr;
      if (!ParseOperand(inst, 0) || !Expect(",") || !ExpectWord("default") ||
          !ParseBlockRef(&b)) {
        return false;
      }
      inst->targets.push_back(b);
      while (true) {
        if (!Expect(",")) return false;
        bool is_merge = IsIdent("merge");
        if (!is_merge && !IsIdent("case")) return Expected("'case' or 'merge'");
        Next();
        if (!is_merge && (!ParseOperand(inst, inst->operands.size()) || !Expect(":"))) {
          return false;
        }
        if (!ParseBlockRef(&b)) return false;
        inst->targets.push_back(b);
        if (is_merge) return true;
      }
    }
    case Op::Return:
      // The returned value, when there is one, is on the same line.
      if (StartsOperand() && Peek().line == tokens_[pos_ - 1].line) {
        return ParseOperand(inst, 0);
      }
      return true;
    case Op::Unreachable:
      return true;
    case Op::Intrinsic: {
      const Token name = Peek();
      if (name.kind != TokKind::Ident) return Expected("an intrinsic name");
      Next();
      std::optional<uint32_t> id;
      for (uint32_t i = 0; i < kIntrinsicCount; ++i) {
        if (name.text == GetIntrinsicInfo(static_cast<Intrinsic>(i)).mnemonic) id = i;
      }
      if (!id.has_value()) return Fail(DiagId::IrUnknownIntrinsic, name, std::string(name.text));
      inst->imms.push_back(*id);
      return ParseOperandList(inst);
    }
    case Op::Atomic:
    case Op::Barrier:
    case Op::Wave: {
      // "atomic add %p, %v", "barrier group_sync", "wave sum %x".
      const Token name = Peek();
      uint32_t which = 0;
      if (name.kind != TokKind::Ident) return Expected("an operation name");
      if (!FindSyncOp(inst->GetOp(), name.text, &which)) {
        return Fail(DiagId::IrUnknownIntrinsic, name, std::string(name.text));
      }
      Next();
      inst->imms.push_back(which);
      // A barrier takes no operands (and ends its line: no `: type` follows).
      return inst->GetOp() == Op::Barrier || ParseOperandList(inst);
    }
    case Op::Call: {
      const Token callee = Peek();
      if (callee.kind != TokKind::Symbol) return Expected("a function name ('@name')");
      Next();
      callee_fixups_.push_back({inst, callee});
      // `call @f` without arguments ends its line: the next line's `%v = ...` is not one.
      if (Peek().line != callee.line) return true;
      break;
    }
    case Op::Add: case Op::Sub: case Op::Mul: case Op::Div: case Op::Rem: case Op::Neg:
    case Op::BitAnd: case Op::BitOr: case Op::BitXor: case Op::BitNot: case Op::Shl:
    case Op::Shr: case Op::LogicalAnd: case Op::LogicalOr: case Op::LogicalNot: case Op::Eq:
    case Op::Ne: case Op::Lt: case Op::Le: case Op::Gt: case Op::Ge: case Op::Convert:
    case Op::MakeVector: case Op::Splat: case Op::Extract: case Op::ExtractDynamic:
    case Op::Insert: case Op::InsertDynamic: case Op::Shuffle: case Op::Var: case Op::Load:
    case Op::Store: case Op::ElementPtr: case Op::MakeStruct: case Op::MakeArray: case Op::MakeMatrix:
    case Op::MemberPtr: case Op::Printf: case Op::BufferInfo: case Op::Texture: case Op::PtrOffset:
    case Op::PtrCast:
    case Op::SpirvAsm:
    case Op::SpirvAsmValue:
      break;
  }
  // Operands, then immediates in brackets: "extract %v, [1]", "shuffle %a, %b, [0, 2]".
  if (!ParseOperandList(inst)) return false;
  if (!inst->operands.empty() && IsPunct(",") && IsPunct("[", 1)) Next();
  if (Accept("[")) {
    do {
      uint32_t v = 0;
      if (!ParseUint(&v)) return false;
      inst->imms.push_back(v);
    } while (Accept(","));
    return Expect("]");
  }
  return true;
}

bool Parser::FinishFunction(Function* f) {
  for (const auto& [name, b] : blocks_) {
    if (!block_defined_[b]) {
      return Fail(DiagId::IrUndefinedBlock, block_first_use_.at(b), name);
    }
  }
  for (const ValueFixup& fix : fixups_) {
    auto it = values_.find(fix.name);
    if (it == values_.end()) {
      Token t{TokKind::Value, fix.name, fix.offset, 0};
      return Fail(DiagId::IrUndefinedValue, t, fix.name);
    }
    fix.inst->operands.at(fix.operand) = it->second;
  }
  // Only a derivative the forward- or reverse-mode pass has yet to write may have no body.
  bool awaits_body =
      std::any_of(function_ref_fixups_.begin(), function_ref_fixups_.end(), [&](const auto& fix) {
        return fix.first == &f->autodiff.fwd_diff_of || fix.first == &f->autodiff.bwd_diff_of;
      });
  if (f->blocks.empty() && !awaits_body) return Expected("a block ('^0:')");
  return true;
}

}  // namespace

std::unique_ptr<Module> ParseModule(source::FileId file, diag::DiagEngine& diags) {
  return Parser(file, diags).Run();
}

}  // namespace slope::ir
