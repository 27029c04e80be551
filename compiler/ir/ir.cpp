#include "compiler/ir/ir.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <set>

#include "compiler/base/half.h"
#include "compiler/base/ice.h"
#include "compiler/base/pointer_hash.h"

namespace slope::ir {

namespace {
constexpr int kPure = 0, kReadsMemory = 1, kSideEffect = 2, kTerminator = 3;
constexpr OpInfo MakeOpInfo(const char* mnemonic, int flags) {
  return OpInfo{mnemonic, flags == kTerminator, flags == kSideEffect || flags == kTerminator,
                flags == kReadsMemory};
}
constexpr OpInfo kOpInfos[] = {
#define INST(name, mnemonic, flags, rule, transpose) MakeOpInfo(mnemonic, flags),
#include "compiler/ir/insts.def"
#undef INST
};
constexpr IntrinsicInfo kIntrinsicInfos[] = {
#define INTRINSIC(name, mnemonic, arity, sig, rule, transpose) {mnemonic, arity, IntrinsicSig::sig},
#include "compiler/ir/intrinsics.def"
#undef INTRINSIC
};
constexpr AtomicInfo kAtomicInfos[] = {
#define ATOMIC(name, mnemonic, values) {mnemonic, values},
#include "compiler/ir/sync_ops.def"
};
constexpr BarrierInfo kBarrierInfos[] = {
#define BARRIER(name, mnemonic, memory, sync) {mnemonic, BarrierMemory::memory, sync},
#include "compiler/ir/sync_ops.def"
};
constexpr WaveInfo kWaveInfos[] = {
#define WAVE(name, mnemonic, arity, sig, rule, transpose) \
  {mnemonic, arity, WaveSig::sig, WaveDiff::rule, WaveTranspose::transpose},
#include "compiler/ir/sync_ops.def"
};

/// The number of operations of `atomic`, `barrier` or `wave`.
uint32_t SyncOpCount(Op op) {
  switch (op) {
    case Op::Atomic: return kAtomicOpCount;
    case Op::Barrier: return kBarrierKindCount;
    case Op::Wave: return kWaveOpCount;
    default: SLOPE_ICE("not an instruction with sync operations");
  }
}
}  // namespace

const AtomicInfo& GetAtomicInfo(AtomicOp op) { return kAtomicInfos[static_cast<size_t>(op)]; }
const BarrierInfo& GetBarrierInfo(BarrierKind kind) {
  return kBarrierInfos[static_cast<size_t>(kind)];
}
const WaveInfo& GetWaveInfo(WaveOp op) { return kWaveInfos[static_cast<size_t>(op)]; }

const char* SyncOpMnemonic(Op op, uint32_t imm) {
  if (imm >= SyncOpCount(op)) return "<invalid>";
  switch (op) {
    case Op::Atomic: return kAtomicInfos[imm].mnemonic;
    case Op::Barrier: return kBarrierInfos[imm].mnemonic;
    default: return kWaveInfos[imm].mnemonic;
  }
}

bool FindSyncOp(Op op, std::string_view mnemonic, uint32_t* out) {
  for (uint32_t i = 0; i < SyncOpCount(op); ++i) {
    if (mnemonic == SyncOpMnemonic(op, i)) {
      *out = i;
      return true;
    }
  }
  return false;
}

std::vector<uint32_t> PackString(std::string_view text) {
  std::vector<uint32_t> imms{static_cast<uint32_t>(text.size())};
  imms.resize(1 + (text.size() + 3) / 4, 0);
  for (size_t i = 0; i < text.size(); ++i) {
    imms[1 + i / 4] |= static_cast<uint32_t>(static_cast<unsigned char>(text[i])) << (8 * (i % 4));
  }
  return imms;
}

bool UnpackString(const std::vector<uint32_t>& imms, std::string* text) {
  if (imms.empty() || imms.size() != 1 + (static_cast<size_t>(imms[0]) + 3) / 4) return false;
  text->clear();
  for (size_t i = 0; i < imms[0]; ++i) {
    text->push_back(static_cast<char>((imms[1 + i / 4] >> (8 * (i % 4))) & 0xFFu));
  }
  return true;
}

const char* AddressSpaceName(AddressSpace space) {
  switch (space) {
    case AddressSpace::Function: return "function";
    case AddressSpace::StorageBuffer: return "storage";
    case AddressSpace::Workgroup: return "workgroup";
    case AddressSpace::Uniform: return "uniform";
    case AddressSpace::PushConstant: return "push_constant";
    case AddressSpace::Private: return "private";
    case AddressSpace::Device: return "device";
  }
  return "?";
}

const OpInfo& GetOpInfo(Op op) { return kOpInfos[static_cast<size_t>(op)]; }
const IntrinsicInfo& GetIntrinsicInfo(Intrinsic i) {
  return kIntrinsicInfos[static_cast<size_t>(i)];
}

bool FindIntrinsic(std::string_view mnemonic, Intrinsic* out) {
  for (uint32_t i = 0; i < kIntrinsicCount; ++i) {
    if (mnemonic == kIntrinsicInfos[i].mnemonic) {
      *out = static_cast<Intrinsic>(i);
      return true;
    }
  }
  return false;
}

std::string Type::Name() const {
  switch (kind_) {
    case TypeKind::Void: return "void";
    case TypeKind::Bool: return "bool";
    case TypeKind::Int: return (is_signed_ ? "i" : "u") + std::to_string(width_);
    case TypeKind::Float: return "f" + std::to_string(width_);
    case TypeKind::Vector: return "vec<" + element_->Name() + ", " + std::to_string(count_) + ">";
    case TypeKind::Pointer:
      return std::string("ptr<") + AddressSpaceName(space_) + ", " + element_->Name() + ">";
    case TypeKind::Buffer: return (writable_ ? "rwbuffer<" : "buffer<") + element_->Name() + ">";
    case TypeKind::Struct: return "struct<" + struct_name_ + ">";
    case TypeKind::Array: return "array<" + element_->Name() + ", " + std::to_string(count_) + ">";
    case TypeKind::Matrix:
      return "mat<" + element_->Element()->Name() + ", " + std::to_string(count_) + ", " +
             std::to_string(element_->Count()) + ">";
    case TypeKind::Texture: {
      static const char* const kDims[] = {"?", "1d", "2d", "3d", "cube", "buffer"};
      return std::string(writable_    ? "rwtexture"
                         : is_signed_ ? "sampled"
                                      : "texture") +
             kDims[count_ <= 5 ? count_ : 0] + (arrayed_ ? "_array" : "") +
             (width_ != 0 ? "_shadow<" : "<") + element_->Name() + ">";
    }
    case TypeKind::Sampler: return writable_ ? "sampler_cmp" : "sampler";
  }
  return "?";
}

namespace {
constexpr const char* kImageFormatNames[] = {
    "unknown", "rgba32f", "rgba16f", "rg32f", "rg16f", "r32f", "r16f", "rgba8", "rgba8snorm",
    "rg8", "r8", "rgba32i", "rgba16i", "rgba8i", "rg32i", "r32i", "rgba32ui", "rgba16ui",
    "rgba8ui", "rg32ui", "r32ui"};
constexpr const char* kTextureOpNames[] = {"fetch", "read", "write", "sample_level",
                                           "sample_grad", "gather", "sample_cmp_lz", "size",
                                           "levels", "atomic"};
}  // namespace

const char* ImageFormatName(ImageFormat format) {
  auto i = static_cast<size_t>(format);
  return i < std::size(kImageFormatNames) ? kImageFormatNames[i] : "?";
}

bool FindImageFormat(std::string_view name, ImageFormat* out) {
  for (size_t i = 1; i < std::size(kImageFormatNames); ++i) {
    if (name == kImageFormatNames[i]) {
      *out = static_cast<ImageFormat>(i);
      return true;
    }
  }
  return false;
}

uint32_t ImageFormatComponents(ImageFormat format) {
  std::string_view name = ImageFormatName(format);
  if (format == ImageFormat::Unknown) return 0;
  if (name.starts_with("rgba")) return 4;
  if (name.starts_with("rg")) return 2;
  return 1;
}

const char* TextureOpName(TextureOp op) {
  auto i = static_cast<size_t>(op);
  return i < std::size(kTextureOpNames) ? kTextureOpNames[i] : "<invalid>";
}

bool FindTextureOp(std::string_view name, TextureOp* out) {
  for (size_t i = 0; i < std::size(kTextureOpNames); ++i) {
    if (name == kTextureOpNames[i]) {
      *out = static_cast<TextureOp>(i);
      return true;
    }
  }
  return false;
}

const Type* TypeTable::Get(const Key& key) {
  auto it = types_.find(key);
  if (it != types_.end()) return it->second.get();
  std::unique_ptr<Type> t(new Type());
  t->kind_ = std::get<0>(key);
  t->width_ = std::get<1>(key);
  t->is_signed_ = std::get<2>(key);
  t->element_ = std::get<3>(key);
  t->count_ = std::get<4>(key);
  t->space_ = std::get<5>(key);
  t->writable_ = std::get<6>(key);
  t->arrayed_ = std::get<7>(key);
  const Type* raw = t.get();
  types_.emplace(key, std::move(t));
  return raw;
}

const Type* TypeTable::Void() {
  return Get({TypeKind::Void, 0, false, nullptr, 1, AddressSpace::Function, false, false});
}
const Type* TypeTable::Bool() {
  return Get({TypeKind::Bool, 0, false, nullptr, 1, AddressSpace::Function, false, false});
}
const Type* TypeTable::Int(uint32_t width, bool is_signed) {
  return Get({TypeKind::Int, width, is_signed, nullptr, 1, AddressSpace::Function, false, false});
}
const Type* TypeTable::Float(uint32_t width) {
  return Get({TypeKind::Float, width, false, nullptr, 1, AddressSpace::Function, false, false});
}
const Type* TypeTable::Vector(const Type* element, uint32_t count) {
  SLOPE_ASSERT(element->IsScalar());
  if (count == 1) return element;
  return Get({TypeKind::Vector, 0, false, element, count, AddressSpace::Function, false, false});
}
const Type* TypeTable::Pointer(AddressSpace space, const Type* pointee) {
  return Get({TypeKind::Pointer, 0, false, pointee, 1, space, false, false});
}
const Type* TypeTable::Buffer(const Type* element, bool writable) {
  return Get({TypeKind::Buffer, 0, false, element, 1, AddressSpace::StorageBuffer, writable, false});
}
const Type* TypeTable::Texture(const Type* element, TextureDim dim, bool arrayed, bool writable,
                               bool combined, bool comparison) {
  SLOPE_ASSERT(!comparison || combined);
  return Get({TypeKind::Texture, comparison ? 1u : 0u, combined, element,
              static_cast<uint32_t>(dim), AddressSpace::Function, writable, arrayed});
}
const Type* TypeTable::Sampler(bool comparison) {
  return Get({TypeKind::Sampler, 0, false, nullptr, 1, AddressSpace::Function, comparison, false});
}
const Type* TypeTable::Array(const Type* element, uint32_t count) {
  return Get({TypeKind::Array, 0, false, element, count, AddressSpace::Function, false, false});
}
void TypeTable::SetMemberMatrixLayouts(const Type* s, std::vector<MatrixLayout> layouts) {
  auto it = structs_.find(s->StructName());
  SLOPE_ASSERT(it != structs_.end() && it->second.get() == s &&
               layouts.size() == s->members_.size());
  it->second->member_layouts_ = std::move(layouts);
}

const Type* TypeTable::Matrix(const Type* scalar, uint32_t rows, uint32_t cols) {
  SLOPE_ASSERT(scalar->IsScalar() && rows >= 2 && rows <= 4 && cols >= 2 && cols <= 4);
  return Get({TypeKind::Matrix, 0, false, Vector(scalar, cols), rows, AddressSpace::Function,
              false, false});
}
const Type* TypeTable::Struct(const std::string& name, std::vector<const Type*> members,
                              std::vector<std::string> member_names) {
  auto it = structs_.find(name);
  if (it != structs_.end()) {
    SLOPE_ASSERT(it->second->members_ == members);
    return it->second.get();
  }
  SLOPE_ASSERT(members.size() == member_names.size());
  std::unique_ptr<Type> t(new Type());
  t->kind_ = TypeKind::Struct;
  t->struct_name_ = name;
  t->members_ = std::move(members);
  t->member_names_ = std::move(member_names);
  const Type* raw = t.get();
  structs_.emplace(name, std::move(t));
  struct_order_.push_back(raw);
  return raw;
}

void TypeTable::DefineStruct(const Type* s, std::vector<const Type*> members,
                             std::vector<std::string> member_names) {
  auto it = structs_.find(s->StructName());
  SLOPE_ASSERT(it != structs_.end() && it->second.get() == s && s->members_.empty());
  SLOPE_ASSERT(members.size() == member_names.size());
  it->second->members_ = std::move(members);
  it->second->member_names_ = std::move(member_names);
  // Keep every struct after the structs it holds: a depth-first order from the old one.
  std::vector<const Type*> order;
  std::set<const Type*> placed;
  std::function<void(const Type*)> place = [&](const Type* t) {
    while (t->IsArray()) t = t->Element();
    if (!t->IsStruct() || !placed.insert(t).second) return;
    for (const Type* m : t->Members()) place(m);
    order.push_back(t);
  };
  for (const Type* t : struct_order_) place(t);
  struct_order_ = std::move(order);
}

const Type* TypeTable::FindStruct(const std::string& name) const {
  auto it = structs_.find(name);
  return it == structs_.end() ? nullptr : it->second.get();
}

const Type* TypeTable::WithScalar(const Type* shape_of, const Type* scalar) {
  if (shape_of->IsMatrix()) return Matrix(scalar, shape_of->Count(), shape_of->Cols());
  return Vector(scalar, shape_of->IsVector() ? shape_of->Count() : 1);
}

double Constant::AsDouble() const {
  double d;
  std::memcpy(&d, &bits_, sizeof(d));
  return d;
}

int64_t Constant::AsSigned() const {
  const Type* t = GetType();
  if (t->IsInt() && t->IsSigned() && t->Width() < 64) {
    uint64_t sign = 1ull << (t->Width() - 1);
    uint64_t mask = (1ull << t->Width()) - 1;
    uint64_t v = bits_ & mask;
    return static_cast<int64_t>((v ^ sign) - sign);
  }
  return static_cast<int64_t>(bits_);
}

const Constant* Module::GetConstant(const Type* type, uint64_t bits) {
  auto key = std::make_pair(type, bits);
  auto it = constants_.find(key);
  if (it != constants_.end()) return it->second.get();
  auto c = std::make_unique<Constant>(type, bits);
  const Constant* raw = c.get();
  constants_.emplace(key, std::move(c));
  return raw;
}

Value* Module::ConstInt(const Type* type, int64_t v) {
  SLOPE_ASSERT(type->IsInt());
  uint64_t mask = type->Width() >= 64 ? ~0ull : (1ull << type->Width()) - 1;
  return const_cast<Constant*>(GetConstant(type, static_cast<uint64_t>(v) & mask));
}

Value* Module::ConstFloat(const Type* type, double v) {
  SLOPE_ASSERT(type->IsFloat());
  if (type->Width() == 32) v = static_cast<double>(static_cast<float>(v));
  if (type->Width() == 16) v = base::RoundToHalf(v);
  uint64_t bits;
  std::memcpy(&bits, &v, sizeof(bits));
  return const_cast<Constant*>(GetConstant(type, bits));
}

Value* Module::ConstBool(bool v) {
  return const_cast<Constant*>(GetConstant(types_.Bool(), v ? 1 : 0));
}

Global* Module::AddGlobal(const Type* type, std::string name) {
  auto g = std::make_unique<Global>(type, std::move(name));
  Global* raw = g.get();
  values_.push_back(std::move(g));
  globals.push_back(raw);
  return raw;
}

Global* Module::AddSpecConstant(std::string name, uint32_t id, const Constant* default_value) {
  auto g = std::make_unique<Global>(default_value->GetType(), std::move(name));
  Global* raw = g.get();
  raw->spec_default = default_value;
  raw->spec_id = id;
  values_.push_back(std::move(g));
  spec_constants.push_back(raw);
  return raw;
}

std::vector<const Function*> Module::EntryPoints(const std::vector<std::string>& names) const {
  std::vector<const Function*> out;
  for (const Function* f : functions) {
    if (!f->is_entry) continue;
    if (names.empty() || std::find(names.begin(), names.end(), f->Name()) != names.end()) {
      out.push_back(f);
    }
  }
  return out;
}

Function* Module::AddFunction(std::string name, const Type* result) {
  functions_.push_back(std::make_unique<Function>(std::move(name), result));
  functions.push_back(functions_.back().get());
  return functions.back();
}

Block* Module::AddBlock(Function* f) {
  blocks_.push_back(std::make_unique<Block>(f));
  return blocks_.back().get();
}

Param* Module::AddParam(const Type* type, Block* block) {
  auto p = std::make_unique<Param>(type, block);
  Param* raw = p.get();
  values_.push_back(std::move(p));
  return raw;
}

Inst* Module::NewInst(Op op, const Type* type) {
  auto i = std::make_unique<Inst>(op, type);
  Inst* raw = i.get();
  values_.push_back(std::move(i));
  return raw;
}

void Module::CollectGarbage() {
  // Nothing to do until at least a fifth of the values are garbage: counting what the
  // functions hold takes a step per block, marking it a step per value.
  size_t held = globals.size() + spec_constants.size();
  for (const Function* f : functions) {
    for (const Block* b : f->blocks) held += b->params.size() + b->insts.size();
  }
  if (values_.size() < held + held / 4 + 1024) return;
  base::PointerSet<Function> listed(functions.size());
  for (const Function* f : functions) listed.Insert(f);
  base::PointerSet<Value> kept(held);
  base::PointerSet<Block> kept_blocks;
  for (const std::unique_ptr<Function>& f : functions_) {
    for (const Param* p : f->params) kept.Insert(p);
    if (!listed.Contains(f.get())) {
      f->blocks.clear();
      continue;
    }
    for (const Block* b : f->blocks) {
      kept_blocks.Insert(b);
      for (const Param* p : b->params) kept.Insert(p);
      for (const Inst* i : b->insts) kept.Insert(i);
    }
  }
  std::erase_if(values_, [&](const std::unique_ptr<Value>& v) {
    return v->VKind() != ValueKind::Global && !kept.Contains(v.get());
  });
  std::erase_if(blocks_,
                [&](const std::unique_ptr<Block>& b) { return !kept_blocks.Contains(b.get()); });
}

const char* LoopControlName(uint32_t control) {
  switch (static_cast<LoopControl>(control)) {
    case LoopControl::None: return "";
    case LoopControl::Unroll: return "unroll";
    case LoopControl::ForceUnroll: return "force_unroll";
  }
  return "";
}

}  // namespace slope::ir
