#include "compiler/targets/spirv/writer.h"

#include <spirv/unified1/GLSL.std.450.h>
#include <spirv/unified1/spirv.hpp11>

#include <algorithm>
#include <bit>
#include <cstring>
#include <map>
#include <set>

#include "compiler/base/half.h"
#include "compiler/base/ice.h"
#include "compiler/ir/cfg.h"

namespace slope::targets::spirv {

using ir::Op;
using SpvOp = spv::Op;

namespace {

/// A sequence of instructions of one module section.
class Section {
 public:
  void Emit(SpvOp op, std::initializer_list<uint32_t> operands) {
    Emit(op, std::vector<uint32_t>(operands));
  }
  void Emit(SpvOp op, const std::vector<uint32_t>& operands) {
    words_.push_back(static_cast<uint32_t>(operands.size() + 1) << 16 | static_cast<uint32_t>(op));
    words_.insert(words_.end(), operands.begin(), operands.end());
  }
  const std::vector<uint32_t>& Words() const { return words_; }

 private:
  std::vector<uint32_t> words_;
};

/// Packs a string as SPIR-V literal words (nul-terminated, zero padded).
std::vector<uint32_t> StringWords(const std::string& s) {
  std::vector<uint32_t> words((s.size() + 4) / 4, 0);
  std::memcpy(words.data(), s.data(), s.size());
  return words;
}

std::vector<uint32_t> Concat(std::vector<uint32_t> a, const std::vector<uint32_t>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

class Writer {
 public:
  Writer(ir::Module& module, const WriterOptions& options)
      : module_(module), options_(options) {}
  std::vector<uint32_t> Run();

 private:
  uint32_t NewId() { return next_id_++; }
  void Require(spv::Capability capability) { capabilities_used_.insert(capability); }
  /// Requires the storage capabilities for the 8- and 16-bit scalars `t` holds.
  void RequireStorageWidths(const ir::Type* t);
  /// The literal words of scalar constant `bits` of type `t` (integers as two's
  /// complement bits, floats as the bits of a double), low-order word first.
  std::vector<uint32_t> LiteralWords(const ir::Type* t, uint64_t bits);
  uint32_t TypeId(const ir::Type* t);
  /// The type of `t` as a storage buffer holds it: structs with Offset decorations.
  uint32_t LayoutTypeId(const ir::Type* t);
  uint32_t StructTypeId(const ir::Type* t, bool with_layout);
  /// An array type; the laid-out form has an ArrayStride decoration.
  uint32_t ArrayTypeId(const ir::Type* t, bool with_layout);
  uint32_t IndexConst(uint32_t index);
  /// Loads and stores of whole structs and arrays in a storage buffer go member by member
  /// (element by element), since the laid-out type differs from the one values have.
  uint32_t LoadStorageStruct(uint32_t ptr, const ir::Type* t);
  void StoreStorageStruct(uint32_t ptr, const ir::Type* t, uint32_t value);
  uint32_t PointerTypeId(spv::StorageClass sc, const ir::Type* pointee);
  uint32_t ConstantId(const ir::Constant* c);
  uint32_t ScalarConst(const ir::Type* t, double f, int64_t i);
  uint32_t SplatConst(const ir::Type* t, uint32_t scalar_id);
  uint32_t FunctionTypeId(uint32_t result, const std::vector<uint32_t>& params);
  uint32_t BuiltinVar(const std::string& semantic);
  uint32_t ValueId(const ir::Value* v);
  void DeclareGlobal(const ir::Global* g);
  void WriteFunction(const ir::Function& f);
  void WriteInst(const ir::Inst& inst);
  /// A signed integer remainder, truncating toward zero as HLSL requires.
  void WriteSignedRem(const ir::Inst& inst);
  void WriteConvert(const ir::Inst& inst);
  uint32_t Glsl(ir::Intrinsic which, const ir::Type* t);
  /// The core SPIR-V instruction an intrinsic maps to, or 0 (GLSL.std.450 or expanded).
  static uint32_t CoreOpOf(ir::Intrinsic which);
  void WriteIntrinsic(const ir::Inst& inst);
  /// f32tof16 / f16tof32, lane by lane through PackHalf2x16 / UnpackHalf2x16.
  void WriteHalfConversion(const ir::Inst& inst, bool to_half);

  ir::Module& module_;
  const WriterOptions& options_;
  uint32_t next_id_ = 1;
  uint32_t glsl_ext_ = 0;
  std::set<spv::Capability> capabilities_used_;
  Section capabilities_, extensions_, ext_imports_, memory_model_, entry_points_,
      execution_modes_, names_, decorations_, globals_, functions_;
  std::map<const ir::Type*, uint32_t> types_;
  std::map<const ir::Type*, uint32_t> layout_types_;
  std::map<std::pair<spv::StorageClass, const ir::Type*>, uint32_t> pointer_types_;
  std::map<std::pair<uint32_t, std::vector<uint32_t>>, uint32_t> function_types_;
  std::map<const ir::Constant*, uint32_t> constants_;
  std::map<std::pair<const ir::Type*, uint64_t>, uint32_t> typed_consts_;
  std::map<std::string, uint32_t> builtins_;
  std::map<const ir::Value*, uint32_t> values_;
  std::map<const ir::Block*, uint32_t> labels_;
  std::map<const ir::Function*, uint32_t> function_ids_;
  std::vector<uint32_t> interface_;  // builtins used by the function being written
};

uint32_t Writer::TypeId(const ir::Type* t) {
  auto it = types_.find(t);
  if (it != types_.end()) return it->second;
  uint32_t id = 0;
  switch (t->Kind()) {
    case ir::TypeKind::Void: id = NewId(); globals_.Emit(SpvOp::OpTypeVoid, {id}); break;
    case ir::TypeKind::Bool: id = NewId(); globals_.Emit(SpvOp::OpTypeBool, {id}); break;
    case ir::TypeKind::Int:
      id = NewId();
      globals_.Emit(SpvOp::OpTypeInt, {id, t->Width(), t->IsSigned() ? 1u : 0u});
      if (t->Width() != 32) {
        Require(t->Width() == 8    ? spv::Capability::Int8
                : t->Width() == 16 ? spv::Capability::Int16
                                   : spv::Capability::Int64);
      }
      break;
    case ir::TypeKind::Float:
      id = NewId();
      globals_.Emit(SpvOp::OpTypeFloat, {id, t->Width()});
      if (t->Width() != 32) {
        Require(t->Width() == 16 ? spv::Capability::Float16 : spv::Capability::Float64);
      }
      break;
    case ir::TypeKind::Vector: {
      uint32_t element = TypeId(t->Element());
      id = NewId();
      globals_.Emit(SpvOp::OpTypeVector, {id, element, t->Count()});
      break;
    }
    case ir::TypeKind::Pointer:
      return PointerTypeId(t->Space() == ir::AddressSpace::Function ? spv::StorageClass::Function
                                                                    : spv::StorageClass::StorageBuffer,
                           t->Element());
    case ir::TypeKind::Buffer:
      SLOPE_ICE("buffer types are declared with their global");
    case ir::TypeKind::Struct:
      return StructTypeId(t, false);
    case ir::TypeKind::Array:
      return ArrayTypeId(t, false);
  }
  types_[t] = id;
  return id;
}

uint32_t Writer::LayoutTypeId(const ir::Type* t) {
  if (t->IsArray()) return ArrayTypeId(t, true);
  return t->IsStruct() ? StructTypeId(t, true) : TypeId(t);
}

uint32_t Writer::ArrayTypeId(const ir::Type* t, bool with_layout) {
  auto& cache = with_layout ? layout_types_ : types_;
  auto it = cache.find(t);
  if (it != cache.end()) return it->second;
  uint32_t element = with_layout ? LayoutTypeId(t->Element()) : TypeId(t->Element());
  uint32_t length = ScalarConst(module_.Types().Int(32, false), 0, t->Count());
  uint32_t id = NewId();
  globals_.Emit(SpvOp::OpTypeArray, {id, element, length});
  if (with_layout) {
    decorations_.Emit(SpvOp::OpDecorate, {id, static_cast<uint32_t>(spv::Decoration::ArrayStride),
                                          LayoutArrayStride(t->Element(), options_.layout)});
  }
  cache[t] = id;
  return id;
}

uint32_t Writer::StructTypeId(const ir::Type* t, bool with_layout) {
  auto& cache = with_layout ? layout_types_ : types_;
  auto it = cache.find(t);
  if (it != cache.end()) return it->second;
  std::vector<uint32_t> members;
  for (const ir::Type* m : t->Members()) {
    members.push_back(with_layout ? LayoutTypeId(m) : TypeId(m));
  }
  uint32_t id = NewId();
  globals_.Emit(SpvOp::OpTypeStruct, Concat({id}, members));
  names_.Emit(SpvOp::OpName, Concat({id}, StringWords(t->StructName())));
  std::vector<uint32_t> offsets = LayoutMemberOffsets(t, options_.layout);
  for (uint32_t i = 0; i < members.size(); ++i) {
    names_.Emit(SpvOp::OpMemberName, Concat({id, i}, StringWords(t->MemberNames()[i])));
    if (with_layout) {
      decorations_.Emit(SpvOp::OpMemberDecorate,
                        {id, i, static_cast<uint32_t>(spv::Decoration::Offset), offsets[i]});
    }
  }
  cache[t] = id;
  return id;
}

uint32_t Writer::IndexConst(uint32_t index) {
  return ScalarConst(module_.Types().Int(32, true), 0, index);
}

uint32_t Writer::LoadStorageStruct(uint32_t ptr, const ir::Type* t) {
  std::vector<uint32_t> ops{TypeId(t), 0};
  auto count = static_cast<uint32_t>(t->IsArray() ? t->Count() : t->Members().size());
  for (uint32_t i = 0; i < count; ++i) {
    const ir::Type* m = t->IsArray() ? t->Element() : t->Members()[i];
    uint32_t member_ptr = NewId();
    uint32_t member_ptr_type = PointerTypeId(spv::StorageClass::StorageBuffer, m);
    functions_.Emit(SpvOp::OpAccessChain, {member_ptr_type, member_ptr, ptr, IndexConst(i)});
    uint32_t value = 0;
    if (m->IsStruct() || m->IsArray()) {
      value = LoadStorageStruct(member_ptr, m);
    } else {
      value = NewId();
      functions_.Emit(SpvOp::OpLoad, {TypeId(m), value, member_ptr});
    }
    ops.push_back(value);
  }
  ops[1] = NewId();
  functions_.Emit(SpvOp::OpCompositeConstruct, ops);
  return ops[1];
}

void Writer::StoreStorageStruct(uint32_t ptr, const ir::Type* t, uint32_t value) {
  auto count = static_cast<uint32_t>(t->IsArray() ? t->Count() : t->Members().size());
  for (uint32_t i = 0; i < count; ++i) {
    const ir::Type* m = t->IsArray() ? t->Element() : t->Members()[i];
    uint32_t part = NewId();
    functions_.Emit(SpvOp::OpCompositeExtract, {TypeId(m), part, value, i});
    uint32_t member_ptr = NewId();
    uint32_t member_ptr_type = PointerTypeId(spv::StorageClass::StorageBuffer, m);
    functions_.Emit(SpvOp::OpAccessChain, {member_ptr_type, member_ptr, ptr, IndexConst(i)});
    if (m->IsStruct() || m->IsArray()) {
      StoreStorageStruct(member_ptr, m, part);
    } else {
      functions_.Emit(SpvOp::OpStore, {member_ptr, part});
    }
  }
}

uint32_t Writer::PointerTypeId(spv::StorageClass sc, const ir::Type* pointee) {
  auto key = std::make_pair(sc, pointee);
  auto it = pointer_types_.find(key);
  if (it != pointer_types_.end()) return it->second;
  // Storage buffers hold the laid-out form of a struct; everything else the plain one.
  uint32_t pointee_id =
      sc == spv::StorageClass::StorageBuffer ? LayoutTypeId(pointee) : TypeId(pointee);
  uint32_t id = NewId();
  globals_.Emit(SpvOp::OpTypePointer, {id, static_cast<uint32_t>(sc), pointee_id});
  pointer_types_[key] = id;
  return id;
}

uint32_t Writer::FunctionTypeId(uint32_t result, const std::vector<uint32_t>& params) {
  auto key = std::make_pair(result, params);
  auto it = function_types_.find(key);
  if (it != function_types_.end()) return it->second;
  uint32_t id = NewId();
  std::vector<uint32_t> ops{id, result};
  ops.insert(ops.end(), params.begin(), params.end());
  globals_.Emit(SpvOp::OpTypeFunction, ops);
  function_types_[key] = id;
  return id;
}

uint32_t Writer::ConstantId(const ir::Constant* c) {
  auto it = constants_.find(c);
  if (it != constants_.end()) return it->second;
  const ir::Type* t = c->GetType();
  uint32_t type = TypeId(t);
  uint32_t id = NewId();
  if (t->IsBool()) {
    globals_.Emit(c->Bits() != 0 ? SpvOp::OpConstantTrue : SpvOp::OpConstantFalse, {type, id});
  } else {
    globals_.Emit(SpvOp::OpConstant, Concat({type, id}, LiteralWords(t, c->Bits())));
  }
  constants_[c] = id;
  return id;
}

uint32_t Writer::ScalarConst(const ir::Type* t, double f, int64_t i) {
  uint64_t key_bits;
  if (t->IsFloat()) {
    std::memcpy(&key_bits, &f, sizeof(key_bits));
  } else {
    key_bits = static_cast<uint64_t>(i);
  }
  auto key = std::make_pair(t, key_bits);
  auto it = typed_consts_.find(key);
  if (it != typed_consts_.end()) return it->second;
  uint32_t type = TypeId(t);
  uint32_t id = NewId();
  globals_.Emit(SpvOp::OpConstant, Concat({type, id}, LiteralWords(t, key_bits)));
  typed_consts_[key] = id;
  return id;
}

std::vector<uint32_t> Writer::LiteralWords(const ir::Type* t, uint64_t bits) {
  if (t->IsFloat()) {
    double d;
    std::memcpy(&d, &bits, sizeof(d));
    if (t->Width() == 16) return {base::HalfFromDouble(d)};
    if (t->Width() == 32) return {std::bit_cast<uint32_t>(static_cast<float>(d))};
  } else if (t->Width() < 32) {
    // Narrow signed literals are sign-extended to the word, unsigned ones zero-extended.
    uint64_t mask = (uint64_t{1} << t->Width()) - 1;
    bits &= mask;
    if (t->IsSigned() && (bits >> (t->Width() - 1)) != 0) bits |= ~mask;
    return {static_cast<uint32_t>(bits)};
  } else if (t->Width() == 32) {
    return {static_cast<uint32_t>(bits)};
  }
  return {static_cast<uint32_t>(bits), static_cast<uint32_t>(bits >> 32)};
}

uint32_t Writer::SplatConst(const ir::Type* t, uint32_t scalar_id) {
  if (!t->IsVector()) return scalar_id;
  uint32_t id = NewId();
  std::vector<uint32_t> ops{TypeId(t), id};
  for (uint32_t i = 0; i < t->Count(); ++i) ops.push_back(scalar_id);
  globals_.Emit(SpvOp::OpConstantComposite, ops);
  return id;
}

uint32_t Writer::BuiltinVar(const std::string& semantic) {
  auto it = builtins_.find(semantic);
  uint32_t id;
  if (it != builtins_.end()) {
    id = it->second;
  } else {
    ir::TypeTable& types = module_.Types();
    const ir::Type* u32 = types.Int(32, false);
    bool is_index = semantic == "SV_GroupIndex";
    const ir::Type* type = is_index ? u32 : types.Vector(u32, 3);
    spv::BuiltIn builtin = semantic == "SV_DispatchThreadID" ? spv::BuiltIn::GlobalInvocationId
                           : semantic == "SV_GroupThreadID"  ? spv::BuiltIn::LocalInvocationId
                           : semantic == "SV_GroupID"        ? spv::BuiltIn::WorkgroupId
                                                             : spv::BuiltIn::LocalInvocationIndex;
    uint32_t ptr = PointerTypeId(spv::StorageClass::Input, type);
    id = NewId();
    globals_.Emit(SpvOp::OpVariable, {ptr, id, static_cast<uint32_t>(spv::StorageClass::Input)});
    decorations_.Emit(SpvOp::OpDecorate, {id, static_cast<uint32_t>(spv::Decoration::BuiltIn),
                                          static_cast<uint32_t>(builtin)});
    builtins_[semantic] = id;
  }
  if (std::find(interface_.begin(), interface_.end(), id) == interface_.end()) interface_.push_back(id);
  return id;
}

void Writer::RequireStorageWidths(const ir::Type* t) {
  if (t->IsStruct()) {
    for (const ir::Type* m : t->Members()) RequireStorageWidths(m);
    return;
  }
  if (t->IsArray()) return RequireStorageWidths(t->Element());
  uint32_t width = t->Scalar()->IsBool() ? 32 : t->Scalar()->Width();
  if (width == 8) Require(spv::Capability::StorageBuffer8BitAccess);
  if (width == 16) Require(spv::Capability::StorageBuffer16BitAccess);
}

void Writer::DeclareGlobal(const ir::Global* g) {
  const ir::Type* element = g->GetType()->Element();
  RequireStorageWidths(element);
  uint32_t element_id = LayoutTypeId(element);
  uint32_t array = NewId();
  globals_.Emit(SpvOp::OpTypeRuntimeArray, {array, element_id});
  decorations_.Emit(SpvOp::OpDecorate, {array, static_cast<uint32_t>(spv::Decoration::ArrayStride),
                                        LayoutArrayStride(element, options_.layout)});
  uint32_t block = NewId();
  globals_.Emit(SpvOp::OpTypeStruct, {block, array});
  decorations_.Emit(SpvOp::OpDecorate, {block, static_cast<uint32_t>(spv::Decoration::Block)});
  decorations_.Emit(SpvOp::OpMemberDecorate,
                    {block, 0, static_cast<uint32_t>(spv::Decoration::Offset), 0});
  if (!g->GetType()->IsWritable()) {
    decorations_.Emit(SpvOp::OpMemberDecorate,
                      {block, 0, static_cast<uint32_t>(spv::Decoration::NonWritable)});
  }
  uint32_t ptr = NewId();
  globals_.Emit(SpvOp::OpTypePointer,
                {ptr, static_cast<uint32_t>(spv::StorageClass::StorageBuffer), block});
  uint32_t var = NewId();
  globals_.Emit(SpvOp::OpVariable, {ptr, var, static_cast<uint32_t>(spv::StorageClass::StorageBuffer)});
  decorations_.Emit(SpvOp::OpDecorate, {var, static_cast<uint32_t>(spv::Decoration::DescriptorSet), g->set});
  decorations_.Emit(SpvOp::OpDecorate, {var, static_cast<uint32_t>(spv::Decoration::Binding), g->binding});
  names_.Emit(SpvOp::OpName, Concat({var}, StringWords(g->Name())));
  values_[g] = var;
}

uint32_t Writer::ValueId(const ir::Value* v) {
  if (v->VKind() == ir::ValueKind::Constant) return ConstantId(static_cast<const ir::Constant*>(v));
  auto it = values_.find(v);
  if (it != values_.end()) return it->second;
  // A forward reference (a block argument used by an OpPhi): allocate now.
  uint32_t id = NewId();
  values_[v] = id;
  return id;
}

std::vector<uint32_t> Writer::Run() {
  capabilities_.Emit(SpvOp::OpCapability, {static_cast<uint32_t>(spv::Capability::Shader)});
  glsl_ext_ = NewId();
  ext_imports_.Emit(SpvOp::OpExtInstImport, Concat({glsl_ext_}, StringWords("GLSL.std.450")));
  memory_model_.Emit(SpvOp::OpMemoryModel, {static_cast<uint32_t>(spv::AddressingModel::Logical),
                                            static_cast<uint32_t>(spv::MemoryModel::GLSL450)});
  for (const ir::Global* g : module_.globals) DeclareGlobal(g);
  for (const ir::Function* f : module_.functions) function_ids_[f] = NewId();
  for (const ir::Function* f : module_.functions) {
    if (f->is_entry && !options_.entry_points.empty() &&
        std::find(options_.entry_points.begin(), options_.entry_points.end(), f->Name()) ==
            options_.entry_points.end()) {
      continue;
    }
    WriteFunction(*f);
  }
  for (spv::Capability capability : capabilities_used_) {
    capabilities_.Emit(SpvOp::OpCapability, {static_cast<uint32_t>(capability)});
  }
  if (capabilities_used_.count(spv::Capability::StorageBuffer8BitAccess) != 0) {
    extensions_.Emit(SpvOp::OpExtension, StringWords("SPV_KHR_8bit_storage"));
  }
  std::vector<uint32_t> words{spv::MagicNumber, 0x00010300u, 0x534C0001u /* generator */, 0, 0};
  for (const Section* s : {&capabilities_, &extensions_, &ext_imports_, &memory_model_,
                           &entry_points_, &execution_modes_, &names_, &decorations_, &globals_,
                           &functions_}) {
    words.insert(words.end(), s->Words().begin(), s->Words().end());
  }
  words[3] = next_id_;  // bound
  return words;
}

void Writer::WriteFunction(const ir::Function& f) {
  interface_.clear();
  uint32_t fid = function_ids_.at(&f);
  uint32_t result = TypeId(f.ResultType());
  std::vector<uint32_t> param_types;
  if (!f.is_entry) {
    for (const ir::Param* p : f.params) param_types.push_back(TypeId(p->GetType()));
  }
  uint32_t ftype = FunctionTypeId(result, param_types);
  names_.Emit(SpvOp::OpName, Concat({fid}, StringWords(f.Name())));
  functions_.Emit(SpvOp::OpFunction, {result, fid, 0, ftype});
  if (!f.is_entry) {
    for (const ir::Param* p : f.params) {
      uint32_t id = ValueId(p);
      functions_.Emit(SpvOp::OpFunctionParameter, {TypeId(p->GetType()), id});
    }
  }
  for (const ir::Block* b : f.blocks) labels_[b] = NewId();
  for (const ir::Block* b : f.blocks) {
    functions_.Emit(SpvOp::OpLabel, {labels_.at(b)});
    size_t first = 0;
    if (b == f.blocks.front()) {
      // OpVariable must open the entry block.
      while (first < b->insts.size() && b->insts[first]->GetOp() == Op::Var) WriteInst(*b->insts[first++]);
      if (f.is_entry) {
        ir::TypeTable& types = module_.Types();
        for (size_t i = 0; i < f.params.size(); ++i) {
          const std::string& semantic = f.entry.param_semantics[i];
          uint32_t var = BuiltinVar(semantic);
          const ir::Type* u32 = types.Int(32, false);
          const ir::Type* loaded_type = semantic == "SV_GroupIndex" ? u32 : types.Vector(u32, 3);
          uint32_t loaded = NewId();
          functions_.Emit(SpvOp::OpLoad, {TypeId(loaded_type), loaded, var});
          const ir::Type* want = f.params[i]->GetType();
          if (loaded_type->IsVector() && !want->IsVector()) {
            uint32_t x = NewId();
            functions_.Emit(SpvOp::OpCompositeExtract, {TypeId(u32), x, loaded, 0});
            loaded = x;
            loaded_type = u32;
          }
          if (want != loaded_type) {
            uint32_t cast = NewId();
            functions_.Emit(SpvOp::OpBitcast, {TypeId(want), cast, loaded});
            loaded = cast;
          }
          values_[f.params[i]] = loaded;
        }
      }
    }
    for (const ir::Param* p : b->params) {
      // Block parameters become OpPhi over every branch that passes arguments here.
      std::vector<uint32_t> ops{TypeId(p->GetType()), ValueId(p)};
      size_t index = std::find(b->params.begin(), b->params.end(), p) - b->params.begin();
      for (const ir::Block* pred : f.blocks) {
        const ir::Inst* t = pred->Terminator();
        if (!ir::EdgeTakesArgs(*t)) continue;
        for (size_t edge = 0; edge < ir::EdgeCount(*t); ++edge) {
          if (t->targets[edge] != b) continue;
          ops.push_back(ValueId(ir::EdgeArgs(*t, edge).at(index)));
          ops.push_back(labels_.at(pred));
          break;  // one entry per predecessor block (the verifier rules out two edges)
        }
      }
      functions_.Emit(SpvOp::OpPhi, ops);
    }
    for (size_t i = first; i < b->insts.size(); ++i) WriteInst(*b->insts[i]);
  }
  functions_.Emit(SpvOp::OpFunctionEnd, {});
  if (f.is_entry) {
    std::vector<uint32_t> ops{static_cast<uint32_t>(spv::ExecutionModel::GLCompute), fid};
    std::vector<uint32_t> name = StringWords(f.Name());
    ops.insert(ops.end(), name.begin(), name.end());
    ops.insert(ops.end(), interface_.begin(), interface_.end());
    entry_points_.Emit(SpvOp::OpEntryPoint, ops);
    execution_modes_.Emit(SpvOp::OpExecutionMode,
                          {fid, static_cast<uint32_t>(spv::ExecutionMode::LocalSize),
                           f.entry.numthreads[0], f.entry.numthreads[1], f.entry.numthreads[2]});
  }
}

uint32_t Writer::Glsl(ir::Intrinsic which, const ir::Type* t) {
  using I = ir::Intrinsic;
  const ir::Type* s = t->Scalar();
  bool f = s->IsFloat();
  bool sign = s->IsInt() && s->IsSigned();
  switch (which) {
    case I::Sqrt: return GLSLstd450Sqrt;
    case I::Abs: return f ? GLSLstd450FAbs : GLSLstd450SAbs;
    case I::Min: return f ? GLSLstd450FMin : sign ? GLSLstd450SMin : GLSLstd450UMin;
    case I::Max: return f ? GLSLstd450FMax : sign ? GLSLstd450SMax : GLSLstd450UMax;
    case I::Clamp: case I::Saturate:
      return f ? GLSLstd450FClamp : sign ? GLSLstd450SClamp : GLSLstd450UClamp;
    case I::Floor: return GLSLstd450Floor;
    case I::Ceil: return GLSLstd450Ceil;
    case I::Exp: return GLSLstd450Exp;
    case I::Log: return GLSLstd450Log;
    case I::Sin: return GLSLstd450Sin;
    case I::Cos: return GLSLstd450Cos;
    case I::Pow: return GLSLstd450Pow;
    case I::Lerp: return GLSLstd450FMix;
    case I::Length: return GLSLstd450Length;
    case I::Step: return GLSLstd450Step;
    case I::Smoothstep: return GLSLstd450SmoothStep;
    case I::Sign: return f ? GLSLstd450FSign : GLSLstd450SSign;
    case I::Round: return GLSLstd450RoundEven;
    case I::Trunc: return GLSLstd450Trunc;
    case I::Frac: return GLSLstd450Fract;
    case I::Rsqrt: return GLSLstd450InverseSqrt;
    case I::Exp2: return GLSLstd450Exp2;
    case I::Log2: case I::Log10: return GLSLstd450Log2;
    case I::Tan: return GLSLstd450Tan;
    case I::Asin: return GLSLstd450Asin;
    case I::Acos: return GLSLstd450Acos;
    case I::Atan: return GLSLstd450Atan;
    case I::Atan2: return GLSLstd450Atan2;
    case I::Sinh: return GLSLstd450Sinh;
    case I::Cosh: return GLSLstd450Cosh;
    case I::Tanh: return GLSLstd450Tanh;
    case I::Fma: case I::Mad: return GLSLstd450Fma;
    case I::Cross: return GLSLstd450Cross;
    case I::Distance: return GLSLstd450Distance;
    case I::Normalize: return GLSLstd450Normalize;
    case I::Reflect: return GLSLstd450Reflect;
    case I::Refract: return GLSLstd450Refract;
    case I::FaceForward: return GLSLstd450FaceForward;
    case I::FirstBitHigh: return sign ? GLSLstd450FindSMsb : GLSLstd450FindUMsb;
    case I::FirstBitLow: return GLSLstd450FindILsb;
    case I::F32ToF16: return GLSLstd450PackHalf2x16;
    case I::F16ToF32: return GLSLstd450UnpackHalf2x16;
    case I::Dot: case I::Rcp: case I::IsNan: case I::IsInf: case I::CountBits:
    case I::ReverseBits: case I::Bitcast: case I::Fmod:
      break;
  }
  SLOPE_ICE("intrinsic has no GLSL.std.450 form");
}

uint32_t Writer::CoreOpOf(ir::Intrinsic which) {
  switch (which) {
    case ir::Intrinsic::Dot: return static_cast<uint32_t>(SpvOp::OpDot);
    case ir::Intrinsic::Fmod: return static_cast<uint32_t>(SpvOp::OpFRem);  // sign of x
    case ir::Intrinsic::IsNan: return static_cast<uint32_t>(SpvOp::OpIsNan);
    case ir::Intrinsic::IsInf: return static_cast<uint32_t>(SpvOp::OpIsInf);
    case ir::Intrinsic::CountBits: return static_cast<uint32_t>(SpvOp::OpBitCount);
    case ir::Intrinsic::ReverseBits: return static_cast<uint32_t>(SpvOp::OpBitReverse);
    case ir::Intrinsic::Bitcast: return static_cast<uint32_t>(SpvOp::OpBitcast);
    default: return 0;
  }
}

void Writer::WriteIntrinsic(const ir::Inst& inst) {
  using I = ir::Intrinsic;
  auto which = static_cast<I>(inst.imms[0]);
  const ir::Type* t = inst.GetType();
  const ir::Type* arg = inst.operands[0]->GetType();
  if (which == I::F32ToF16 || which == I::F16ToF32) {
    return WriteHalfConversion(inst, which == I::F32ToF16);
  }
  uint32_t type = TypeId(t), id = ValueId(&inst);
  std::vector<uint32_t> args;
  for (const ir::Value* v : inst.operands) args.push_back(ValueId(v));
  auto ext = [&](uint32_t result_type, uint32_t result, const std::vector<uint32_t>& xs) {
    functions_.Emit(SpvOp::OpExtInst,
                    Concat({result_type, result, glsl_ext_, Glsl(which, arg)}, xs));
  };
  auto splat = [&](double v) {
    return SplatConst(arg, ScalarConst(arg->Scalar(), v, static_cast<int64_t>(v)));
  };
  if (uint32_t op = CoreOpOf(which)) {
    functions_.Emit(static_cast<SpvOp>(op), Concat({type, id}, args));
  } else if (which == I::Rcp) {
    functions_.Emit(SpvOp::OpFDiv, {type, id, splat(1.0), args[0]});
  } else if (which == I::Saturate) {
    ext(type, id, {args[0], splat(0.0), splat(1.0)});
  } else if (which == I::Log10) {  // log10(x) = log2(x) * log10(2)
    uint32_t log2 = NewId();
    ext(type, log2, args);
    functions_.Emit(SpvOp::OpFMul, {type, id, log2, splat(0.30102999566398119521)});
  } else if (which == I::Mad && !arg->Scalar()->IsFloat()) {
    uint32_t product = NewId();
    functions_.Emit(SpvOp::OpIMul, {type, product, args[0], args[1]});
    functions_.Emit(SpvOp::OpIAdd, {type, id, product, args[2]});
  } else if (which == I::Sign && arg->Scalar()->IsFloat()) {
    uint32_t fsign = NewId();
    ext(TypeId(arg), fsign, args);
    functions_.Emit(SpvOp::OpConvertFToS, {type, id, fsign});
  } else {
    ext(type, id, args);
  }
}

void Writer::WriteHalfConversion(const ir::Inst& inst, bool to_half) {
  // GLSL.std.450 packs and unpacks pairs: lane i goes through the low half of a pair.
  const ir::Type* t = inst.GetType();
  const ir::Type* from = inst.operands[0]->GetType();
  const ir::Type* pair = module_.Types().Vector(module_.Types().Float(32), 2);
  uint32_t op = to_half ? GLSLstd450PackHalf2x16 : GLSLstd450UnpackHalf2x16;
  std::vector<uint32_t> lanes;
  for (uint32_t i = 0; i < t->Count(); ++i) {
    uint32_t lane = ValueId(inst.operands[0]);
    if (from->IsVector()) {
      lane = NewId();
      functions_.Emit(SpvOp::OpCompositeExtract,
                      {TypeId(from->Scalar()), lane, ValueId(inst.operands[0]), i});
    }
    uint32_t in = lane;
    if (to_half) {
      in = NewId();
      functions_.Emit(SpvOp::OpCompositeConstruct,
                      {TypeId(pair), in, lane, ScalarConst(from->Scalar(), 0.0, 0)});
    }
    // A scalar result is the last instruction of its one lane.
    uint32_t last = t->IsVector() ? NewId() : ValueId(&inst);
    uint32_t out = to_half ? last : NewId();
    functions_.Emit(SpvOp::OpExtInst,
                    {TypeId(to_half ? t->Scalar() : pair), out, glsl_ext_, op, in});
    if (!to_half) functions_.Emit(SpvOp::OpCompositeExtract, {TypeId(t->Scalar()), last, out, 0});
    lanes.push_back(last);
  }
  if (!t->IsVector()) return;
  functions_.Emit(SpvOp::OpCompositeConstruct, Concat({TypeId(t), ValueId(&inst)}, lanes));
}

void Writer::WriteConvert(const ir::Inst& inst) {
  const ir::Type* to = inst.GetType();
  const ir::Type* from = inst.operands[0]->GetType();
  const ir::Type* fs = from->Scalar();
  const ir::Type* ts = to->Scalar();
  uint32_t type = TypeId(to), id = ValueId(&inst), v = ValueId(inst.operands[0]);
  if (ts->IsBool()) {
    uint32_t zero = SplatConst(from, ScalarConst(fs, 0.0, 0));
    functions_.Emit(fs->IsFloat() ? SpvOp::OpFUnordNotEqual : SpvOp::OpINotEqual, {type, id, v, zero});
  } else if (fs->IsBool()) {
    uint32_t one = SplatConst(to, ScalarConst(ts, 1.0, 1));
    uint32_t zero = SplatConst(to, ScalarConst(ts, 0.0, 0));
    functions_.Emit(SpvOp::OpSelect, {type, id, v, one, zero});
  } else if (fs->IsInt() && ts->IsInt() && fs->Width() == ts->Width()) {
    functions_.Emit(SpvOp::OpBitcast, {type, id, v});
  } else if (fs->IsInt() && ts->IsInt()) {
    // Widening extends by the source's signedness (as C does); the result keeps the
    // source's signedness, then changes it.
    const ir::Type* same_sign = module_.Types().WithScalar(
        to, module_.Types().Int(ts->Width(), fs->IsSigned()));
    uint32_t resized = same_sign == to ? id : NewId();
    functions_.Emit(fs->IsSigned() ? SpvOp::OpSConvert : SpvOp::OpUConvert,
                    {TypeId(same_sign), resized, v});
    if (same_sign != to) functions_.Emit(SpvOp::OpBitcast, {type, id, resized});
  } else if (fs->IsInt() && ts->IsFloat()) {
    functions_.Emit(fs->IsSigned() ? SpvOp::OpConvertSToF : SpvOp::OpConvertUToF, {type, id, v});
  } else if (fs->IsFloat() && ts->IsInt()) {
    functions_.Emit(ts->IsSigned() ? SpvOp::OpConvertFToS : SpvOp::OpConvertFToU, {type, id, v});
  } else {
    functions_.Emit(SpvOp::OpFConvert, {type, id, v});
  }
}

void Writer::WriteSignedRem(const ir::Inst& inst) {
  // a - (a / b) * b: OpSRem's result for negative operands differs between drivers
  // (an NVIDIA driver gives -7 % 2 = 1), while OpSDiv truncates everywhere.
  uint32_t type = TypeId(inst.GetType());
  uint32_t a = ValueId(inst.operands[0]);
  uint32_t b = ValueId(inst.operands[1]);
  uint32_t quotient = NewId();
  uint32_t product = NewId();
  functions_.Emit(SpvOp::OpSDiv, {type, quotient, a, b});
  functions_.Emit(SpvOp::OpIMul, {type, product, quotient, b});
  functions_.Emit(SpvOp::OpISub, {type, ValueId(&inst), a, product});
}

void Writer::WriteInst(const ir::Inst& inst) {
  const ir::Type* t = inst.GetType();
  auto operand = [&](size_t i) { return ValueId(inst.operands[i]); };
  const ir::Type* s0 = inst.operands.empty() ? t->Scalar() : inst.operands[0]->GetType()->Scalar();
  bool is_float = s0->IsFloat();
  bool is_signed = s0->IsInt() && s0->IsSigned();
  auto binary = [&](SpvOp op) {
    functions_.Emit(op, {TypeId(t), ValueId(&inst), operand(0), operand(1)});
  };
  auto unary = [&](SpvOp op) { functions_.Emit(op, {TypeId(t), ValueId(&inst), operand(0)}); };
  switch (inst.GetOp()) {
    case Op::Add: return binary(is_float ? SpvOp::OpFAdd : SpvOp::OpIAdd);
    case Op::Sub: return binary(is_float ? SpvOp::OpFSub : SpvOp::OpISub);
    case Op::Mul: return binary(is_float ? SpvOp::OpFMul : SpvOp::OpIMul);
    case Op::Div: return binary(is_float ? SpvOp::OpFDiv : is_signed ? SpvOp::OpSDiv : SpvOp::OpUDiv);
    case Op::Rem:
      if (!is_signed) return binary(is_float ? SpvOp::OpFRem : SpvOp::OpUMod);
      return WriteSignedRem(inst);
    case Op::Neg: return unary(is_float ? SpvOp::OpFNegate : SpvOp::OpSNegate);
    case Op::BitAnd: return binary(SpvOp::OpBitwiseAnd);
    case Op::BitOr: return binary(SpvOp::OpBitwiseOr);
    case Op::BitXor: return binary(SpvOp::OpBitwiseXor);
    case Op::BitNot: return unary(SpvOp::OpNot);
    case Op::Shl: return binary(SpvOp::OpShiftLeftLogical);
    case Op::Shr: return binary(is_signed ? SpvOp::OpShiftRightArithmetic : SpvOp::OpShiftRightLogical);
    case Op::LogicalAnd: return binary(SpvOp::OpLogicalAnd);
    case Op::LogicalOr: return binary(SpvOp::OpLogicalOr);
    case Op::LogicalNot: return unary(SpvOp::OpLogicalNot);
    case Op::Eq:
      return binary(s0->IsBool() ? SpvOp::OpLogicalEqual : is_float ? SpvOp::OpFOrdEqual : SpvOp::OpIEqual);
    case Op::Ne:
      return binary(s0->IsBool() ? SpvOp::OpLogicalNotEqual : is_float ? SpvOp::OpFUnordNotEqual : SpvOp::OpINotEqual);
    case Op::Lt: return binary(is_float ? SpvOp::OpFOrdLessThan : is_signed ? SpvOp::OpSLessThan : SpvOp::OpULessThan);
    case Op::Le: return binary(is_float ? SpvOp::OpFOrdLessThanEqual : is_signed ? SpvOp::OpSLessThanEqual : SpvOp::OpULessThanEqual);
    case Op::Gt: return binary(is_float ? SpvOp::OpFOrdGreaterThan : is_signed ? SpvOp::OpSGreaterThan : SpvOp::OpUGreaterThan);
    case Op::Ge: return binary(is_float ? SpvOp::OpFOrdGreaterThanEqual : is_signed ? SpvOp::OpSGreaterThanEqual : SpvOp::OpUGreaterThanEqual);
    case Op::Convert: return WriteConvert(inst);
    case Op::MakeVector:
    case Op::Splat: {
      std::vector<uint32_t> ops{TypeId(t), ValueId(&inst)};
      if (inst.GetOp() == Op::Splat) {
        for (uint32_t i = 0; i < t->Count(); ++i) ops.push_back(operand(0));
      } else {
        for (size_t i = 0; i < inst.operands.size(); ++i) ops.push_back(operand(i));
      }
      functions_.Emit(SpvOp::OpCompositeConstruct, ops);
      return;
    }
    case Op::Extract:
      functions_.Emit(SpvOp::OpCompositeExtract, {TypeId(t), ValueId(&inst), operand(0), inst.imms[0]});
      return;
    case Op::ExtractDynamic: return binary(SpvOp::OpVectorExtractDynamic);
    case Op::Insert:
      functions_.Emit(SpvOp::OpCompositeInsert,
                      {TypeId(t), ValueId(&inst), operand(1), operand(0), inst.imms[0]});
      return;
    case Op::InsertDynamic:
      functions_.Emit(SpvOp::OpVectorInsertDynamic,
                      {TypeId(t), ValueId(&inst), operand(0), operand(1), operand(2)});
      return;
    case Op::Shuffle: {
      std::vector<uint32_t> ops{TypeId(t), ValueId(&inst), operand(0), operand(1)};
      ops.insert(ops.end(), inst.imms.begin(), inst.imms.end());
      functions_.Emit(SpvOp::OpVectorShuffle, ops);
      return;
    }
    case Op::Intrinsic: return WriteIntrinsic(inst);
    case Op::Call: {
      std::vector<uint32_t> ops{TypeId(t), ValueId(&inst), function_ids_.at(inst.callee)};
      for (size_t i = 0; i < inst.operands.size(); ++i) ops.push_back(operand(i));
      functions_.Emit(SpvOp::OpFunctionCall, ops);
      return;
    }
    case Op::Var:
      functions_.Emit(SpvOp::OpVariable, {TypeId(t), ValueId(&inst),
                                          static_cast<uint32_t>(spv::StorageClass::Function)});
      return;
    case Op::Load: {
      const ir::Type* p = inst.operands[0]->GetType();
      if ((t->IsStruct() || t->IsArray()) && p->Space() == ir::AddressSpace::StorageBuffer) {
        values_[&inst] = LoadStorageStruct(operand(0), t);
        return;
      }
      return unary(SpvOp::OpLoad);
    }
    case Op::Store: {
      const ir::Type* p = inst.operands[0]->GetType();
      if ((p->Element()->IsStruct() || p->Element()->IsArray()) &&
          p->Space() == ir::AddressSpace::StorageBuffer) {
        StoreStorageStruct(operand(0), p->Element(), operand(1));
        return;
      }
      functions_.Emit(SpvOp::OpStore, {operand(0), operand(1)});
      return;
    }
    case Op::MemberPtr:
      functions_.Emit(SpvOp::OpAccessChain,
                      {TypeId(t), ValueId(&inst), operand(0), IndexConst(inst.imms[0])});
      return;
    case Op::MakeStruct:
    case Op::MakeArray: {
      std::vector<uint32_t> ops{TypeId(t), ValueId(&inst)};
      for (size_t i = 0; i < inst.operands.size(); ++i) ops.push_back(operand(i));
      functions_.Emit(SpvOp::OpCompositeConstruct, ops);
      return;
    }
    case Op::ElementPtr: {
      if (inst.operands[0]->GetType()->IsPointer()) {
        functions_.Emit(SpvOp::OpAccessChain, {TypeId(t), ValueId(&inst), operand(0), operand(1)});
        return;
      }
      // legalize-resources traced every buffer value back to its global.
      SLOPE_ASSERT(inst.operands[0]->VKind() == ir::ValueKind::Global);
      uint32_t zero = ScalarConst(module_.Types().Int(32, true), 0, 0);
      functions_.Emit(SpvOp::OpAccessChain, {TypeId(t), ValueId(&inst), operand(0), zero, operand(1)});
      return;
    }
    case Op::Br: functions_.Emit(SpvOp::OpBranch, {labels_.at(inst.targets[0])}); return;
    case Op::CondBr:
      functions_.Emit(SpvOp::OpBranchConditional,
                      {operand(0), labels_.at(inst.targets[0]), labels_.at(inst.targets[1])});
      return;
    case Op::If:
      functions_.Emit(SpvOp::OpSelectionMerge, {labels_.at(inst.targets[2]), 0});
      functions_.Emit(SpvOp::OpBranchConditional,
                      {operand(0), labels_.at(inst.targets[0]), labels_.at(inst.targets[1])});
      return;
    case Op::Loop:
      // A loop the unroll pass left still asks the driver to unroll it.
      functions_.Emit(SpvOp::OpLoopMerge,
                      {labels_.at(inst.targets[1]), labels_.at(inst.targets[2]),
                       inst.imms.empty() || inst.imms[0] == 0
                           ? 0u
                           : static_cast<uint32_t>(spv::LoopControlMask::Unroll)});
      functions_.Emit(SpvOp::OpBranch, {labels_.at(inst.targets[0])});
      return;
    case Op::Switch: {
      functions_.Emit(SpvOp::OpSelectionMerge, {labels_.at(inst.targets.back()), 0});
      // Literals take the selector's width: one word up to 32 bits, low word first above.
      bool wide = inst.operands[0]->GetType()->Width() > 32;
      std::vector<uint32_t> ops{operand(0), labels_.at(inst.targets[0])};
      for (size_t i = 1; i < inst.operands.size(); ++i) {
        uint64_t bits = static_cast<const ir::Constant*>(inst.operands[i])->Bits();
        ops.push_back(static_cast<uint32_t>(bits));
        if (wide) ops.push_back(static_cast<uint32_t>(bits >> 32));
        ops.push_back(labels_.at(inst.targets[i]));
      }
      functions_.Emit(SpvOp::OpSwitch, ops);
      return;
    }
    case Op::Return:
      if (inst.operands.empty()) {
        functions_.Emit(SpvOp::OpReturn, {});
      } else {
        functions_.Emit(SpvOp::OpReturnValue, {operand(0)});
      }
      return;
    case Op::Unreachable: functions_.Emit(SpvOp::OpUnreachable, {}); return;
  }
}

}  // namespace

std::vector<uint32_t> WriteSpirv(ir::Module& module, const WriterOptions& options) {
  return Writer(module, options).Run();
}

}  // namespace slope::targets::spirv
