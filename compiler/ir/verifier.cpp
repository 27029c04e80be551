#include "compiler/ir/verifier.h"

#include <algorithm>
#include <map>
#include <memory>
#include <set>

#include "compiler/base/ice.h"
#include "compiler/base/pointer_hash.h"
#include "compiler/ir/cfg.h"
#include "compiler/ir/printer.h"
#include "compiler/ir/spirv_asm.h"
#include "compiler/ir/verify_diff.h"

namespace slope::ir {
namespace {

/// Why `operands` and `result` do not fit an intrinsic of signature `sig`, or null.
const char* IntrinsicTypeError(IntrinsicSig sig, const std::vector<const Type*>& operands,
                               const Type* result) {
  const Type* t = operands[0];
  const Type* s = t->Scalar();
  auto same_shape = [&](const Type* r) {
    return r->IsVector() == t->IsVector() && r->IsMatrix() == t->IsMatrix() &&
           r->Count() == t->Count() && r->Cols() == t->Cols();
  };
  bool one_type =
      std::all_of(operands.begin(), operands.end(), [&](const Type* o) { return o == t; });
  switch (sig) {
    case IntrinsicSig::FloatSame:
      if (!one_type || !s->IsFloat()) return "intrinsic needs float operands of one type";
      return result == t ? nullptr : "intrinsic result type";
    case IntrinsicSig::NumSame:
      if (!one_type || !(s->IsFloat() || s->IsInt())) {
        return "intrinsic needs numeric operands of one type";
      }
      return result == t ? nullptr : "intrinsic result type";
    case IntrinsicSig::IntSame:
      if (!one_type || !s->IsInt()) return "intrinsic needs integer operands of one type";
      return result == t ? nullptr : "intrinsic result type";
    case IntrinsicSig::FloatScalar:
      if (!one_type || !s->IsFloat()) return "intrinsic needs float operands of one type";
      return result == s ? nullptr : "intrinsic result must be the operands' scalar";
    case IntrinsicSig::FloatBool:
      if (!s->IsFloat()) return "intrinsic needs a float operand";
      return result->Scalar()->IsBool() && same_shape(result) ? nullptr : "intrinsic result type";
    case IntrinsicSig::NumInt:
      if (!(s->IsFloat() || s->IsInt())) return "intrinsic needs a numeric operand";
      return result->Scalar()->IsInt() && result->Scalar()->IsSigned() && same_shape(result)
                 ? nullptr : "intrinsic result type";
    case IntrinsicSig::IntUInt:
      if (!s->IsInt()) return "intrinsic needs an integer operand";
      return result->Scalar()->IsInt() && !result->Scalar()->IsSigned() && same_shape(result)
                 ? nullptr : "intrinsic result type";
    case IntrinsicSig::Refract:
      if (!s->IsFloat() || operands[1] != t || operands[2] != s) return "refract operands";
      return result == t ? nullptr : "intrinsic result type";
    case IntrinsicSig::Bits: {
      auto numeric = [](const Type* x) {
        return (x->IsScalar() || x->IsVector()) && !x->Scalar()->IsBool();
      };
      if (!numeric(t)) return "intrinsic needs a numeric scalar or vector operand";
      return numeric(result) &&
                     result->Count() * result->Scalar()->Width() == t->Count() * s->Width()
                 ? nullptr
                 : "intrinsic result type";
    }
    case IntrinsicSig::F32ToF16:
    case IntrinsicSig::F16ToF32: {
      bool to_half = sig == IntrinsicSig::F32ToF16;
      bool in_ok = to_half ? s->IsFloat() : s->IsInt() && !s->IsSigned();
      const Type* rs = result->Scalar();
      bool out_ok = to_half ? rs->IsInt() && !rs->IsSigned() : rs->IsFloat();
      return in_ok && s->Width() == 32 && out_ok && rs->Width() == 32 && same_shape(result)
                 ? nullptr : "half conversion types";
    }
    case IntrinsicSig::MatMul: {
      const Type* a = operands[0];
      const Type* b = operands[1];
      if (a->Scalar() != b->Scalar() || s->IsBool()) {
        return "mul needs numeric operands of one scalar type";
      }
      if (a->IsScalar() || b->IsScalar()) {
        return result == (a->IsScalar() ? b : a) ? nullptr : "intrinsic result type";
      }
      if (a->IsMatrix() && b->IsVector()) {
        if (a->Cols() != b->Count()) return "mul of a matrix by a vector of another length";
        return result->IsVector() && result->Count() == a->Count() && result->Scalar() == s
                   ? nullptr : "intrinsic result type";
      }
      if (a->IsVector() && b->IsMatrix()) {
        if (a->Count() != b->Count()) return "mul of a vector by a matrix of another height";
        return result == b->Element() ? nullptr : "intrinsic result type";
      }
      if (a->IsMatrix() && b->IsMatrix()) {
        if (a->Cols() != b->Count()) return "mul of matrices whose inner sizes differ";
        return result->IsMatrix() && result->Scalar() == s && result->Count() == a->Count() &&
                       result->Cols() == b->Cols() ? nullptr : "intrinsic result type";
      }
      return "mul needs a matrix operand or a scalar one";
    }
    case IntrinsicSig::Transpose:
      if (!t->IsMatrix()) return "transpose needs a matrix";
      return result->IsMatrix() && result->Scalar() == s && result->Count() == t->Cols() &&
                     result->Cols() == t->Count() ? nullptr : "intrinsic result type";
    case IntrinsicSig::Determinant:
      if (!t->IsMatrix() || t->Count() != t->Cols() || !s->IsFloat()) {
        return "determinant needs a square float matrix";
      }
      return result == s ? nullptr : "intrinsic result must be the operand's scalar";
  }
  return "unknown intrinsic signature";
}

/// Why `operands` and `result` do not fit a wave operation of signature `sig`, or null.
const char* WaveTypeError(WaveSig sig, const std::vector<const Type*>& operands,
                          const Type* result) {
  const Type* t = operands.empty() ? nullptr : operands[0];
  bool value = t != nullptr && (t->IsScalar() || t->IsVector());
  bool u32 = result->IsInt() && !result->IsSigned() && result->Width() == 32;
  switch (sig) {
    case WaveSig::None:  // checked by the caller, which knows the operation
      return nullptr;
    case WaveSig::NumSame:
      if (!value || !(t->Scalar()->IsInt() || t->Scalar()->IsFloat())) {
        return "wave operation needs an int or float operand";
      }
      return result == t ? nullptr : "wave result type";
    case WaveSig::IntSame:
      if (!value || !t->Scalar()->IsInt()) return "wave operation needs an integer operand";
      return result == t ? nullptr : "wave result type";
    case WaveSig::Bool:
      return t->IsBool() && result->IsBool() ? nullptr : "wave operation needs bool";
    case WaveSig::Equal:
      return value && result->IsBool() ? nullptr : "wave all_equal types";
    case WaveSig::CountBits:
      return t->IsBool() && u32 ? nullptr : "wave bit count needs bool and gives u32";
    case WaveSig::Ballot:
      return t->IsBool() && result->IsVector() && result->Count() == 4 &&
                     result->Element()->IsInt() && !result->Element()->IsSigned() &&
                     result->Element()->Width() == 32
                 ? nullptr : "wave ballot needs bool and gives vec<u32, 4>";
    case WaveSig::ReadAt:
      if (!value || !(t->Scalar()->IsInt() || t->Scalar()->IsFloat())) {
        return "wave read_at needs an int or float value";
      }
      if (!operands[1]->IsInt() || operands[1]->IsSigned() || operands[1]->Width() != 32) {
        return "wave read_at needs a u32 lane";
      }
      return result == t ? nullptr : "wave result type";
  }
  return "unknown wave signature";
}

/// Whether `ptr` points into a read-only buffer (through members and array elements).
bool PointsIntoReadOnlyBuffer(const Value* ptr) {
  while (ptr->VKind() == ValueKind::Inst &&
         (static_cast<const Inst*>(ptr)->GetOp() == Op::MemberPtr ||
          (static_cast<const Inst*>(ptr)->GetOp() == Op::ElementPtr &&
           static_cast<const Inst*>(ptr)->operands[0]->GetType()->IsPointer()))) {
    ptr = static_cast<const Inst*>(ptr)->operands[0];
  }
  return ptr->VKind() == ValueKind::Inst &&
         static_cast<const Inst*>(ptr)->GetOp() == Op::ElementPtr &&
         !static_cast<const Inst*>(ptr)->operands[0]->GetType()->IsWritable();
}

/// What is wrong with `spirv_asm` instruction `inst`, or null: its text must parse, match
/// the grammar and name operands it has; a result is defined by one instruction, whose
/// result type is the instruction's type.
const char* SpirvAsmError(const Inst& inst) {
  std::string text;
  std::vector<AsmInst> insts;
  if (!UnpackString(inst.imms, &text) || !ParseAsm(text, &insts)) return "bad spirv_asm text";
  const Type* defined = nullptr;
  int results = 0;
  for (const AsmInst& a : insts) {
    std::vector<AsmSlot> slots;
    std::string error;
    size_t bad = 0;
    if (!AsmMatch(a, &slots, &error, &bad))
      return "spirv_asm instruction does not match the grammar";
    for (size_t i = 0; i < a.operands.size(); ++i) {
      const AsmOperand& op = a.operands[i];
      bool indexed = op.kind == AsmOperand::Kind::Value || op.kind == AsmOperand::Kind::Type;
      if (indexed && op.index >= inst.operands.size())
        return "spirv_asm operand index out of range";
      if (slots[i].kind == "IdResult" && op.kind == AsmOperand::Kind::Result) {
        ++results;
        const AsmOperand& type = a.operands[0];
        if (i == 1 && type.kind == AsmOperand::Kind::Type && type.index < inst.operands.size()) {
          defined = inst.operands[type.index]->GetType();
        }
      }
    }
  }
  if (results > 1) return "spirv_asm defines result twice";
  if (inst.GetOp() == Op::SpirvAsmValue && inst.GetType()->IsVoid()) {
    return "spirv_asm_value has a result";
  }
  if (!inst.GetType()->IsVoid() && defined != inst.GetType()) {
    return "spirv_asm result type is the type of the instruction defining result";
  }
  return nullptr;
}

/// What is wrong with `texture` instruction `inst`, or null (ir.h's TextureOp says what
/// each operation takes).
const char* TextureError(const Inst& inst) {
  if (inst.imms.empty() || inst.imms[0] > static_cast<uint32_t>(TextureOp::Atomic)) {
    return "bad texture operation";
  }
  if (inst.operands.empty() || !inst.operands[0]->GetType()->IsTexture()) {
    return "texture operand 0 must be a texture";
  }
  const Type* tex = inst.operands[0]->GetType();
  const Type* t = inst.GetType();
  auto op = static_cast<TextureOp>(inst.imms[0]);
  uint32_t axes = TextureAxes(tex->Dim());
  uint32_t layers = tex->IsArrayed() ? 1 : 0;
  auto is_vec = [](const Type* v, uint32_t n, bool want_float) {
    const Type* s = v->Scalar();
    bool kind = want_float ? s->IsFloat() : s->IsInt();
    return (v->IsScalar() || v->IsVector()) && v->Count() == n && kind && s->Width() == 32;
  };
  auto count = [&](size_t n) { return inst.operands.size() == n; };
  // A combined texture and sampler is its own sampler: operand 1 repeats operand 0.
  auto sampler_at_1 = [&](bool comparison) {
    if (inst.operands.size() > 1 && tex->IsCombined()) {
      return tex->IsComparison() == comparison && inst.operands[1] == inst.operands[0];
    }
    return inst.operands.size() > 1 && inst.operands[1]->GetType()->IsSampler() &&
           inst.operands[1]->GetType()->IsComparison() == comparison;
  };
  switch (op) {
    case TextureOp::Fetch:
      if (tex->IsWritable() || tex->Dim() == TextureDim::kCube) return "fetch needs a sampled, non-cube texture";
      if (count(4) && !is_vec(inst.operands[3]->GetType(), axes, false)) {
        return "a texel offset is an integer per axis";
      }
      if (!(count(3) || count(4)) || !is_vec(inst.operands[1]->GetType(), axes + layers, false) ||
          !is_vec(inst.operands[2]->GetType(), 1, false)) {
        return "fetch takes a texture, an integer coordinate and an integer level";
      }
      return t == tex->Element() ? nullptr : "fetch result must be the texel type";
    case TextureOp::Read:
    case TextureOp::Write:
      if (!tex->IsWritable()) return "read and write need a storage texture";
      if (!count(op == TextureOp::Read ? 2 : 3) || !is_vec(inst.operands[1]->GetType(), axes + layers, false)) {
        return "read/write take a texture and an integer coordinate (and the texel)";
      }
      if (op == TextureOp::Write) {
        return inst.operands[2]->GetType() == tex->Element() && t->IsVoid()
                   ? nullptr : "write stores a texel and has no result";
      }
      return t == tex->Element() ? nullptr : "read result must be the texel type";
    case TextureOp::SampleLevel:
    case TextureOp::SampleGrad:
    case TextureOp::Gather:
    case TextureOp::SampleCmpLevelZero: {
      if (tex->IsWritable() || tex->IsTexelBuffer()) return "sampling needs a sampled texture";
      bool cmp = op == TextureOp::SampleCmpLevelZero;
      size_t n = op == TextureOp::SampleGrad ? 5 : op == TextureOp::Gather ? 3 : 4;
      // sample_level may end with a texel offset, an integer per axis.
      if (op == TextureOp::SampleLevel && count(5)) {
        if (tex->Dim() == TextureDim::kCube || !is_vec(inst.operands[4]->GetType(), axes, false)) {
          return "a texel offset is an integer per axis (no cubes)";
        }
        n = 5;
      }
      if (!count(n) || !sampler_at_1(cmp) || !is_vec(inst.operands[2]->GetType(), axes + layers, true)) {
        return "sampling takes a texture, a sampler and a float coordinate";
      }
      if (op == TextureOp::SampleLevel || cmp) {
        if (!is_vec(inst.operands[3]->GetType(), 1, true)) return "sampling level or reference must be f32";
      }
      if (op == TextureOp::SampleGrad && (!is_vec(inst.operands[3]->GetType(), axes, true) ||
                                          !is_vec(inst.operands[4]->GetType(), axes, true))) {
        return "sample_grad gradients must be float vectors of the texture's axes";
      }
      if (op == TextureOp::Gather) {
        if (inst.imms.size() != 2 || inst.imms[1] >= tex->Element()->Count()) return "gather component";
        return is_vec(t, 4, tex->Element()->Scalar()->IsFloat()) &&
                       t->Scalar() == tex->Element()->Scalar()
                   ? nullptr : "gather result must be a 4-vector of the texel's scalar";
      }
      if (cmp) return t->IsFloat() && t->Width() == 32 ? nullptr : "comparison result is f32";
      return t == tex->Element() ? nullptr : "sample result must be the texel type";
    }
    case TextureOp::Size: {
      size_t n = tex->IsWritable() ? 1 : 2;
      if (!count(n) || (n == 2 && !is_vec(inst.operands[1]->GetType(), 1, false))) {
        return "size takes a texture (and a level, for a sampled one)";
      }
      uint32_t sizes = (tex->Dim() == TextureDim::kCube ? 2 : axes) + layers;
      return is_vec(t, sizes, false) && !t->Scalar()->IsSigned() ? nullptr
                                                                 : "size result must be u32 per axis";
    }
    case TextureOp::Levels:
      if (tex->IsWritable() || tex->IsTexelBuffer() || !count(1)) {
        return "levels takes a sampled texture";
      }
      return t->IsInt() && !t->IsSigned() && t->Width() == 32 ? nullptr : "levels result is u32";
    case TextureOp::Atomic: {
      if (!tex->IsWritable() || !tex->IsTexelBuffer() || !tex->Element()->IsInt() ||
          tex->Element()->Width() != 32) {
        return "atomic needs a storage typed buffer of 32-bit integers";
      }
      if (inst.imms.size() != 2 ||
          inst.imms[1] > static_cast<uint32_t>(AtomicOp::CompareExchange)) {
        return "atomic takes its ir::AtomicOp in imms[1]";
      }
      bool cmp = static_cast<AtomicOp>(inst.imms[1]) == AtomicOp::CompareExchange;
      if (!count(cmp ? 4 : 3) || !is_vec(inst.operands[1]->GetType(), 1, false)) {
        return "atomic takes a texture, an integer coordinate and its values";
      }
      for (size_t i = 2; i < inst.operands.size(); ++i) {
        if (inst.operands[i]->GetType() != tex->Element()) return "atomic values are texels";
      }
      return t == tex->Element() ? nullptr : "atomic result must be the texel type";
    }
  }
  return "bad texture operation";
}

class Verifier {
 public:
  explicit Verifier(const Module& m) : module_(m) {}
  std::vector<std::string> Run();

 private:
  void VerifyFunction(const Function& f);
  void VerifyInst(const Function& f, const Inst& inst);
  /// Structured control flow: each block merges (or continues) at most one construct,
  /// a reachable header dominates its reachable merge and continue blocks, and every
  /// back edge (to a block dominating its source) goes to a loop header.
  void VerifyStructure(const Function& f);
  void Fail(const Function& f, const std::string& msg) {
    errors_.push_back("in function @" + f.Name() + ": " + msg);
  }
  std::string Where(const Function& f, const Inst& inst) const {
    auto it = std::find(f.blocks.begin(), f.blocks.end(), inst.block);
    return std::string(GetOpInfo(inst.GetOp()).mnemonic) + " in block ^" +
           std::to_string(it - f.blocks.begin());
  }

  const Module& module_;
  std::vector<std::string> errors_;
  std::unique_ptr<DomTree> dom_;  // of the function being verified
};

std::vector<std::string> Verifier::Run() {
  std::set<std::string> names;
  for (const Global* g : module_.globals) {
    const Type* t = g->GetType();
    bool workgroup = t->IsPointer() &&
                     (t->Space() == AddressSpace::Workgroup || t->Space() == AddressSpace::Private) &&
                     !t->Element()->IsBuffer() && !t->Element()->IsPointer();
    bool uniform = (g->IsUniform() || g->IsPushConstant()) && t->Element()->IsStruct();
    if (!t->IsResource() && !workgroup && !uniform) {
      errors_.push_back("global @" + g->Name() + " is neither a resource nor a workgroup or private variable");
    }
    if (g->image_format != ImageFormat::Unknown && !(t->IsTexture() && t->IsWritable())) {
      errors_.push_back("global @" + g->Name() + " has an image format but is no RW texture");
    }
    if (!names.insert(g->Name()).second) errors_.push_back("duplicate global @" + g->Name());
    if (g->IsSpecConstant()) {
      errors_.push_back("global @" + g->Name() + " is a specialization constant among the globals");
    }
  }
  std::set<uint32_t> spec_ids;
  for (const Global* g : module_.spec_constants) {
    if (!g->IsSpecConstant() || !g->GetType()->IsScalar() ||
        g->spec_default->GetType() != g->GetType()) {
      errors_.push_back("specialization constant @" + g->Name() +
                        " needs a scalar type and a default of that type");
    }
    if (!names.insert(g->Name()).second) errors_.push_back("duplicate global @" + g->Name());
    if (!spec_ids.insert(g->spec_id).second) {
      errors_.push_back("specialization constant @" + g->Name() + " repeats spec_id " +
                        std::to_string(g->spec_id));
    }
  }
  std::set<std::string> fnames;
  for (const Function* f : module_.functions) {
    if (!fnames.insert(f->Name()).second) errors_.push_back("duplicate function @" + f->Name());
    VerifyFunction(*f);
  }
  VerifyDerivativeForms(module_, &errors_);
  return errors_;
}

void Verifier::VerifyFunction(const Function& f) {
  for (uint32_t i : f.autodiff.no_diff_params) {
    if (i >= f.params.size()) Fail(f, "no_diff names a parameter the function does not have");
  }
  for (const auto& [i, pair] : f.autodiff.ptr_params) {
    if (i >= f.params.size()) {
      Fail(f, "ptr_pair names a parameter the function does not have");
    } else if (!pair->IsStruct() || pair->Members().size() != 2 ||
               pair->Members()[0] != f.params[i]->GetType()) {
      Fail(f, "ptr_pair's type is not a pair of the parameter's type and its differential");
    }
  }
  if (f.blocks.empty()) {
    // A derivative waits for the forward- or reverse-mode pass to write its body.
    if (f.autodiff.fwd_diff_of == nullptr && f.autodiff.bwd_diff_of == nullptr)
      Fail(f, "function has no blocks");
    return;
  }
  if (f.is_entry && f.entry.param_semantics.size() != f.params.size()) {
    Fail(f, "entry point needs one semantic per parameter");
  }
  // Later checks assume a sound block structure in this function (other functions'
  // errors do not stop them).
  size_t errors_before = errors_.size();
  std::set<const Block*> blocks(f.blocks.begin(), f.blocks.end());
  for (const Block* b : f.blocks) {
    if (b->GetFunction() != &f) Fail(f, "block belongs to another function");
    if (b->insts.empty() || b->Terminator() == nullptr) {
      Fail(f, "block ^" + std::to_string(std::find(f.blocks.begin(), f.blocks.end(), b) - f.blocks.begin()) +
                  " does not end with a terminator");
      return;
    }
    for (size_t i = 0; i + 1 < b->insts.size(); ++i) {
      if (b->insts[i]->IsTerminator()) Fail(f, "terminator in the middle of a block");
    }
    for (const Inst* inst : b->insts) {
      if (inst->block != b) Fail(f, "instruction's block link is wrong");
      for (const Block* t : inst->targets) {
        if (blocks.count(t) == 0) Fail(f, Where(f, *inst) + " targets a block outside the function");
      }
    }
  }
  if (errors_.size() != errors_before) return;
  if (!f.blocks.front()->params.empty()) Fail(f, "the entry block cannot take parameters");
  std::map<const Block*, std::vector<Edge>> preds = Predecessors(f);
  if (preds.count(f.blocks.front()) != 0) Fail(f, "no branch may target the entry block");
  for (const Block* b : f.blocks) {
    for (const Param* p : b->params) {
      if (p->GetBlock() != b) Fail(f, "block parameter's block link is wrong");
    }
  }
  dom_ = std::make_unique<DomTree>(f);

  // Where each value is defined: block and position.
  size_t values = f.params.size();
  for (const Block* b : f.blocks) values += b->params.size() + b->insts.size();
  base::PointerMap<Value, std::pair<const Block*, size_t>> defs(values);
  for (const Param* p : f.params) defs[p] = {nullptr, 0};
  for (const Block* b : f.blocks) {
    for (const Param* p : b->params) defs[p] = {b, 0};
    for (size_t i = 0; i < b->insts.size(); ++i) defs[b->insts[i]] = {b, i + 1};
  }
  for (const Block* b : f.blocks) {
    bool reachable = dom_->IsReachable(b);
    for (size_t i = 0; i < b->insts.size(); ++i) {
      const Inst* inst = b->insts[i];
      VerifyInst(f, *inst);
      for (const Value* v : inst->operands) {
        if (v->VKind() == ValueKind::Constant || v->VKind() == ValueKind::Global) continue;
        const std::pair<const Block*, size_t>* def = defs.Find(v);
        if (def == nullptr) {
          Fail(f, Where(f, *inst) + " uses a value from another function");
          continue;
        }
        const Block* def_block = def->first;
        if (def_block == nullptr || !reachable) continue;  // function params dominate all
        bool ok = def_block == b ? def->second <= i : dom_->Dominates(def_block, b);
        if (!ok) Fail(f, Where(f, *inst) + " uses a value that does not dominate it");
      }
    }
  }
  VerifyStructure(f);
}

void Verifier::VerifyStructure(const Function& f) {
  std::map<const Block*, const Inst*> merge_of, continue_of;
  for (const Block* b : f.blocks) {
    const Inst* term = b->Terminator();
    if (term == nullptr || term->targets.empty()) continue;
    Op op = term->GetOp();
    if (op != Op::If && op != Op::Switch && op != Op::Loop) continue;
    const Block* merge = op == Op::Loop ? term->targets.at(1) : term->targets.back();
    if (!merge_of.emplace(merge, term).second) {
      Fail(f, Where(f, *term) + ": its merge block is already the merge block of another construct");
    }
    if (op == Op::Loop && term->targets.size() == 3 &&
        !continue_of.emplace(term->targets[2], term).second) {
      Fail(f, Where(f, *term) + ": its continue block is already the continue block of another loop");
    }
    if (!dom_->IsReachable(b)) continue;
    if (dom_->IsReachable(merge) && !dom_->Dominates(b, merge)) {
      Fail(f, Where(f, *term) + ": the header does not dominate its merge block");
    }
    if (op == Op::Loop && term->targets.size() == 3 && dom_->IsReachable(term->targets[2]) &&
        !dom_->Dominates(b, term->targets[2])) {
      Fail(f, Where(f, *term) + ": the loop header does not dominate its continue block");
    }
  }
  for (const Block* b : f.blocks) {
    const Inst* term = b->Terminator();
    if (term == nullptr || !dom_->IsReachable(b)) continue;
    for (size_t i = 0; i < EdgeCount(*term); ++i) {
      const Block* target = term->targets[i];
      if (!dom_->Dominates(target, b)) continue;
      const Inst* header = target->Terminator();
      if (header == nullptr || header->GetOp() != Op::Loop) {
        Fail(f, Where(f, *term) + ": a back edge must go to a loop header");
      }
    }
  }
}

void Verifier::VerifyInst(const Function& f, const Inst& inst) {
  const Type* t = inst.GetType();
  auto op_type = [&](size_t i) { return inst.operands[i]->GetType(); };
  auto need = [&](bool cond, const char* what) {
    if (!cond) Fail(f, Where(f, inst) + ": " + what);
    return cond;
  };
  auto arity = [&](size_t n) { return need(inst.operands.size() == n, "wrong operand count"); };
  bool numeric = t->Scalar()->IsInt() || t->Scalar()->IsFloat();
  switch (inst.GetOp()) {
    case Op::Add: case Op::Sub: case Op::Mul: case Op::Div: case Op::Rem:
      if (arity(2)) need(op_type(0) == t && op_type(1) == t && numeric, "operands must match a numeric result type");
      break;
    case Op::Neg:
      if (arity(1)) need(op_type(0) == t && numeric, "operand must match a numeric result type");
      break;
    case Op::BitAnd: case Op::BitOr: case Op::BitXor: case Op::Shl: case Op::Shr:
      if (arity(2)) need(op_type(0) == t && op_type(1) == t && t->Scalar()->IsInt(), "operands must match an integer result type");
      break;
    case Op::BitNot:
      if (arity(1)) need(op_type(0) == t && t->Scalar()->IsInt(), "operand must match an integer result type");
      break;
    case Op::LogicalAnd: case Op::LogicalOr:
      if (arity(2)) need(op_type(0) == t && op_type(1) == t && t->Scalar()->IsBool(), "operands must be bool");
      break;
    case Op::LogicalNot:
      if (arity(1)) need(op_type(0) == t && t->Scalar()->IsBool(), "operand must be bool");
      break;
    case Op::Eq: case Op::Ne: case Op::Lt: case Op::Le: case Op::Gt: case Op::Ge:
      if (arity(2)) {
        need(op_type(0) == op_type(1), "compared operands differ in type");
        need(t->Scalar()->IsBool() && t->Count() == op_type(0)->Count() &&
                 t->IsMatrix() == op_type(0)->IsMatrix() && t->Cols() == op_type(0)->Cols(),
             "comparison result must be bool of the operands' shape");
      }
      break;
    case Op::Convert:
      if (arity(1)) need(op_type(0)->Count() == t->Count() && op_type(0)->Cols() == t->Cols() && op_type(0)->IsMatrix() == t->IsMatrix() && (t->IsScalar() || t->IsVector() || t->IsMatrix()) && op_type(0) != t, "convert changes the scalar kind of one shape");
      break;
    case Op::MakeVector: {
      uint32_t total = 0;
      for (const Value* v : inst.operands) {
        need(v->GetType()->Scalar() == t->Scalar(), "make_vector operand has the wrong scalar type");
        total += v->GetType()->Count();
      }
      need(t->IsVector() && total == t->Count(), "make_vector operands do not fill the vector");
      break;
    }
    case Op::Splat:
      if (arity(1)) need(t->IsVector() && op_type(0) == t->Element(), "splat of the wrong scalar");
      break;
    case Op::Extract:
      if (arity(1) && need(inst.imms.size() == 1, "extract needs one index")) {
        if (op_type(0)->IsStruct()) {
          const auto& members = op_type(0)->Members();
          need(inst.imms[0] < members.size() && t == members[inst.imms[0]],
               "bad extract of a struct member");
        } else if (op_type(0)->IsArray() || op_type(0)->IsMatrix()) {
          need(inst.imms[0] < op_type(0)->Count() && t == op_type(0)->Element(),
               "bad extract of an array element or matrix row");
        } else {
          need(op_type(0)->IsVector() && inst.imms[0] < op_type(0)->Count() && t == op_type(0)->Element(), "bad extract");
        }
      }
      break;
    case Op::ExtractDynamic:
      if (arity(2)) need(op_type(0)->IsVector() && op_type(1)->IsInt() && t == op_type(0)->Element(), "bad extract_dynamic");
      break;
    case Op::Insert:
      if (arity(2) && need(inst.imms.size() == 1, "insert needs one index") && t->IsStruct()) {
        const auto& members = t->Members();
        need(t == op_type(0) && inst.imms[0] < members.size() &&
                 op_type(1) == members[inst.imms[0]],
             "bad insert of a struct member");
      } else if (inst.operands.size() == 2 && inst.imms.size() == 1 &&
                 (t->IsArray() || t->IsMatrix())) {
        need(t == op_type(0) && op_type(1) == t->Element() && inst.imms[0] < t->Count(),
             "bad insert of an array element or matrix row");
      } else if (inst.operands.size() == 2 && inst.imms.size() == 1) {
        need(t == op_type(0) && t->IsVector() && op_type(1) == t->Element() && inst.imms[0] < t->Count(), "bad insert");
      }
      break;
    case Op::MakeStruct:
      if (need(t->IsStruct(), "make_struct must make a struct") && arity(t->Members().size())) {
        for (size_t i = 0; i < inst.operands.size(); ++i) {
          need(op_type(i) == t->Members()[i], "make_struct member type");
        }
      }
      break;
    case Op::MakeMatrix:
      if (need(t->IsMatrix(), "make_matrix must make a matrix") && arity(t->Count())) {
        for (size_t i = 0; i < inst.operands.size(); ++i) {
          need(op_type(i) == t->Element(), "make_matrix row type");
        }
      }
      break;
    case Op::MakeArray:
      if (need(t->IsArray(), "make_array must make an array") && arity(t->Count())) {
        for (size_t i = 0; i < inst.operands.size(); ++i) {
          need(op_type(i) == t->Element(), "make_array element type");
        }
      }
      break;
    case Op::PtrOffset:
      if (arity(2)) {
        need(t->IsDevicePointer() && op_type(0) == t && op_type(1)->IsInt(),
             "ptr_offset takes a device pointer and an integer");
      }
      break;
    case Op::PtrCast:
      if (arity(1)) {
        const Type* from = op_type(0);
        bool wide_int_from = from->IsInt() && from->Width() == 64;
        bool wide_int_to = t->IsInt() && t->Width() == 64;
        need((from->IsDevicePointer() && (t->IsDevicePointer() || wide_int_to)) ||
                 (wide_int_from && t->IsDevicePointer()),
             "ptr_cast converts between device pointers and 64-bit integers");
      }
      break;
    case Op::MemberPtr:
      if (arity(1) && need(inst.imms.size() == 1, "member_ptr needs one index")) {
        const Type* p = op_type(0);
        if (need(p->IsPointer() && p->Element()->IsStruct(),
                 "member_ptr base must point at a struct")) {
          const auto& members = p->Element()->Members();
          need(inst.imms[0] < members.size() && t->IsPointer() && t->Space() == p->Space() &&
                   t->Element() == members[inst.imms[0]],
               "member_ptr type");
        }
      }
      break;
    case Op::InsertDynamic:
      if (arity(3)) {
        need(t == op_type(0) && t->IsVector() && op_type(1) == t->Element() && op_type(2)->IsInt(), "bad insert_dynamic");
      }
      break;
    case Op::Shuffle:
      if (arity(2)) {
        need(op_type(0)->IsVector() && op_type(1)->IsVector() && op_type(0)->Element() == op_type(1)->Element(), "shuffle of mismatched vectors");
        uint32_t lanes = op_type(0)->Count() + op_type(1)->Count();
        for (uint32_t lane : inst.imms) need(lane < lanes, "shuffle lane out of range");
        need(t->Scalar() == op_type(0)->Scalar() && t->Count() == inst.imms.size(), "shuffle result type");
      }
      break;
    case Op::Intrinsic: {
      if (!need(inst.imms.size() == 1 && inst.imms[0] < kIntrinsicCount, "bad intrinsic id")) break;
      const IntrinsicInfo& info = GetIntrinsicInfo(static_cast<Intrinsic>(inst.imms[0]));
      if (!arity(info.arity)) break;
      std::vector<const Type*> operands;
      for (const Value* v : inst.operands) operands.push_back(v->GetType());
      if (const char* why = IntrinsicTypeError(info.sig, operands, t)) need(false, why);
      break;
    }
    case Op::Call:
      if (need(inst.callee != nullptr, "call without callee")) {
        const Function* c = inst.callee;
        if (need(c->params.size() == inst.operands.size(), "call argument count")) {
          for (size_t i = 0; i < c->params.size(); ++i) need(c->params[i]->GetType() == op_type(i), "call argument type");
        }
        need(t == c->ResultType(), "call result type");
        need(!c->is_entry, "entry points cannot be called");
      }
      break;
    case Op::Var:
      arity(0);
      need(t->IsPointer() && t->Space() == AddressSpace::Function, "var must be a function pointer");
      need(inst.block == f.blocks.front(), "var outside the entry block");
      break;
    case Op::Load:
      if (arity(1)) need(op_type(0)->IsPointer() && t == op_type(0)->Element(), "load type");
      break;
    case Op::Store:
      if (arity(2)) {
        need(op_type(0)->IsPointer() && op_type(1) == op_type(0)->Element(), "store type");
        need(!PointsIntoReadOnlyBuffer(inst.operands[0]), "store into a read-only buffer");
        need(op_type(0)->IsPointer() && op_type(0)->Space() != AddressSpace::Uniform &&
                 op_type(0)->Space() != AddressSpace::PushConstant,
             "store into uniform memory");
      }
      break;
    case Op::Atomic: {
      if (!need(inst.imms.size() == 1 && inst.imms[0] < kAtomicOpCount, "bad atomic operation")) {
        break;
      }
      auto which = static_cast<AtomicOp>(inst.imms[0]);
      if (!arity(1 + GetAtomicInfo(which).values)) break;
      const Type* p = op_type(0);
      if (!need(p->IsPointer() && p->Space() != AddressSpace::Function,
                "atomic needs a pointer into storage-buffer or workgroup memory")) {
        break;
      }
      bool wide_int = t->IsInt() && (t->Width() == 32 || t->Width() == 64);
      bool f32_add = which == AtomicOp::Add && t->IsFloat() && t->Width() == 32;
      need(p->Element() == t && (wide_int || f32_add),
           "atomic result must be the pointee: a 32- or 64-bit integer, or f32 for add");
      for (size_t i = 1; i < inst.operands.size(); ++i) {
        need(op_type(i) == t, "atomic operand type");
      }
      need(!PointsIntoReadOnlyBuffer(inst.operands[0]), "atomic on a read-only buffer");
      break;
    }
    case Op::BufferInfo:
      if (!arity(1)) break;
      need(op_type(0)->IsBuffer(), "buffer_info operand must be a buffer");
      need(inst.imms.size() == 1 && inst.imms[0] <= 1, "buffer_info takes [0] or [1]");
      need(t->IsInt() && !t->IsSigned() && t->Width() == 32, "buffer_info result is u32");
      break;
    case Op::Texture:
      if (const char* error = TextureError(inst)) need(false, error);
      break;
    case Op::Printf: {
      std::string format;
      need(UnpackString(inst.imms, &format), "printf format immediates");
      need(t->IsVoid(), "printf has no result");
      for (const Value* v : inst.operands) {
        const Type* s = v->GetType()->IsVector() ? v->GetType()->Element() : v->GetType();
        need(s->IsScalar() && (s->IsInt() || s->IsFloat()) && s->Width() == 32,
             "printf operands are 32-bit integer or float scalars or vectors");
      }
      break;
    }
    case Op::SpirvAsm:
    case Op::SpirvAsmValue:
      if (const char* error = SpirvAsmError(inst)) need(false, error);
      break;
    case Op::Barrier:
      arity(0);
      need(inst.imms.size() == 1 && inst.imms[0] < kBarrierKindCount, "bad barrier kind");
      need(t->IsVoid(), "barrier has no result");
      break;
    case Op::Wave: {
      if (!need(inst.imms.size() == 1 && inst.imms[0] < kWaveOpCount, "bad wave operation")) break;
      const WaveInfo& info = GetWaveInfo(static_cast<WaveOp>(inst.imms[0]));
      if (!arity(info.arity)) break;
      std::vector<const Type*> operands;
      for (const Value* v : inst.operands) operands.push_back(v->GetType());
      if (info.sig == WaveSig::None) {
        // lane_index and lane_count give u32, is_first_lane bool.
        bool is_first = static_cast<WaveOp>(inst.imms[0]) == WaveOp::IsFirstLane;
        bool u32 = t->IsInt() && !t->IsSigned() && t->Width() == 32;
        need(is_first ? t->IsBool() : u32, "wave result type");
      } else if (const char* why = WaveTypeError(info.sig, operands, t)) {
        need(false, why);
      }
      break;
    }
    case Op::ElementPtr:
      if (!arity(2)) break;
      if (op_type(0)->IsPointer()) {
        // An element of the array a pointer points at.
        const Type* p = op_type(0);
        // (A vector component is reached this way only for an atomic on it.)
        bool composite =
            p->Element()->IsArray() || p->Element()->IsMatrix() || p->Element()->IsVector();
        need(composite, "element_ptr base must point at an array, a matrix or a vector");
        need(op_type(1)->IsInt(), "element_ptr index must be an integer");
        need(composite && t->IsPointer() && t->Space() == p->Space() &&
                 t->Element() == p->Element()->Element(),
             "element_ptr type");
      } else {
        // Any buffer value here; the SPIR-V target needs a global (legalize-resources).
        need(op_type(0)->IsBuffer(), "element_ptr base must be a buffer");
        need(op_type(1)->IsInt(), "element_ptr index must be an integer");
        need(t->IsPointer() && t->Space() == AddressSpace::StorageBuffer && t->Element() == op_type(0)->Element(), "element_ptr type");
      }
      break;
    case Op::Br:
      if (need(inst.targets.size() == 1, "br needs one target")) {
        const Block* dest = inst.targets[0];
        if (need(dest->params.size() == inst.operands.size(), "br argument count differs from the block's parameters")) {
          for (size_t i = 0; i < dest->params.size(); ++i) need(dest->params[i]->GetType() == op_type(i), "br argument type");
        }
      }
      break;
    case Op::CondBr:
      if (!need(inst.targets.size() == 2, "cond_br needs two targets")) break;
      if (!need(inst.operands.size() == 1 + inst.targets[0]->params.size() + inst.targets[1]->params.size(),
                "cond_br argument count differs from the targets' parameters")) {
        break;
      }
      need(op_type(0)->IsBool(), "condition must be bool");
      need(inst.targets[0] != inst.targets[1] || inst.targets[0]->params.empty(),
           "cond_br cannot pass arguments to the same block twice");
      for (size_t t = 0; t < 2; ++t) {
        std::vector<Value*> args = EdgeArgs(inst, t);
        for (size_t i = 0; i < args.size(); ++i) {
          need(inst.targets[t]->params[i]->GetType() == args[i]->GetType(), "cond_br argument type");
        }
      }
      break;
    case Op::If:
      if (arity(1)) need(op_type(0)->IsBool(), "condition must be bool");
      if (need(inst.targets.size() == 3, "if needs then, else and merge")) {
        need(inst.targets[0] != inst.targets[2], "if's then block cannot be its merge block");
        need(inst.targets[0]->params.empty() && inst.targets[1]->params.empty(), "if targets take no parameters");
        need(inst.targets[2] != inst.block, "if cannot merge into its own header");
      }
      break;
    case Op::Loop:
      arity(0);
      if (need(inst.targets.size() == 3, "loop needs body, merge and continue")) {
        need(inst.targets[0] != inst.targets[1] && inst.targets[1] != inst.targets[2], "loop blocks must differ");
        need(inst.targets[0]->params.empty(), "loop body takes no parameters");
      }
      need(inst.imms.size() <= 2 && (inst.imms.empty() || inst.imms[0] <= 2),
           "loop takes an unrolling hint and an iteration bound at most");
      break;
    case Op::Switch: {
      if (!need(!inst.operands.empty(), "switch needs a selector")) break;
      need(op_type(0)->IsInt(), "switch selector must be an integer scalar");
      if (!need(inst.targets.size() == inst.operands.size() + 1,
                "switch needs a default target, one target per case and a merge block")) {
        break;
      }
      std::set<uint64_t> values;
      for (size_t i = 1; i < inst.operands.size(); ++i) {
        const Value* v = inst.operands[i];
        if (!need(v->VKind() == ValueKind::Constant && v->GetType() == op_type(0),
                  "switch case value must be a constant of the selector's type")) {
          continue;
        }
        need(values.insert(static_cast<const Constant*>(v)->Bits()).second,
             "switch case values must differ");
      }
      for (size_t i = 0; i + 1 < inst.targets.size(); ++i) {
        need(inst.targets[i]->params.empty(), "switch targets take no parameters");
      }
      need(inst.targets.back() != inst.block, "switch cannot merge into its own header");
      break;
    }
    case Op::Return:
      if (f.ResultType()->IsVoid()) {
        arity(0);
      } else if (arity(1)) {
        need(op_type(0) == f.ResultType(), "returned value has the wrong type");
      }
      break;
    case Op::Unreachable:
      arity(0);
      break;
  }
}

}  // namespace

std::vector<std::string> VerifyModule(const Module& module) { return Verifier(module).Run(); }

void VerifyOrIce(const Module& module, const std::string& after) {
  std::vector<std::string> errors = VerifyModule(module);
  if (errors.empty()) return;
  std::string msg = "IR verification failed after " + after + ":";
  for (const std::string& e : errors) msg += "\n  " + e;
  msg += "\n" + PrintModule(module);
  SLOPE_ICE(msg);
}

}  // namespace slope::ir
