#include "compiler/targets/spirv/writer_internal.h"

namespace slope::targets::spirv {


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
    case ir::TypeKind::Pointer: {
      spv::StorageClass sc = spv::StorageClass::StorageBuffer;
      switch (t->Space()) {
        case ir::AddressSpace::Function: sc = spv::StorageClass::Function; break;
        case ir::AddressSpace::Workgroup: sc = spv::StorageClass::Workgroup; break;
        case ir::AddressSpace::Private: sc = spv::StorageClass::Private; break;
        case ir::AddressSpace::StorageBuffer: sc = spv::StorageClass::StorageBuffer; break;
        case ir::AddressSpace::Uniform: sc = spv::StorageClass::Uniform; break;
        case ir::AddressSpace::PushConstant: sc = spv::StorageClass::PushConstant; break;
        case ir::AddressSpace::Device: return DevicePointerTypeId(t->Element());
      }
      return PointerTypeId(sc, t->Element());
    }
    case ir::TypeKind::Buffer:
      SLOPE_ICE("buffer types are declared with their global");
    case ir::TypeKind::Texture:
      return ImageTypeId(t, ir::ImageFormat::Unknown);
    case ir::TypeKind::Sampler:
      return SamplerTypeId();
    case ir::TypeKind::Struct:
      return StructTypeId(t, std::nullopt);
    case ir::TypeKind::Array:
      return ArrayTypeId(t, std::nullopt);
    case ir::TypeKind::Matrix: {
      uint32_t row = TypeId(t->Element());
      id = NewId();
      if (t->Scalar()->IsFloat()) {
        globals_.Emit(SpvOp::OpTypeMatrix, {id, row, t->Count()});
      } else {
        uint32_t length = ScalarConst(module_.Types().Int(32, false), 0, t->Count());
        globals_.Emit(SpvOp::OpTypeArray, {id, row, length});
      }
      break;
    }
  }
  types_[t] = id;
  return id;
}

uint32_t Writer::LayoutTypeId(const ir::Type* t, BufferLayout rules) {
  if (t->IsArray()) return ArrayTypeId(t, rules);
  return t->IsStruct() ? StructTypeId(t, rules) : TypeId(t);
}

BufferLayout Writer::RulesOf(spv::StorageClass sc) const {
  if (options_.layout == BufferLayout::Scalar) return BufferLayout::Scalar;
  return sc == spv::StorageClass::Uniform ? BufferLayout::Std140 : BufferLayout::Std430;
}

uint32_t Writer::ArrayTypeId(const ir::Type* t, std::optional<BufferLayout> rules) {
  if (!rules) {
    auto it = types_.find(t);
    if (it != types_.end()) return it->second;
  } else if (auto it = layout_types_.find({t, *rules}); it != layout_types_.end()) {
    return it->second;
  }
  uint32_t element = rules ? LayoutTypeId(t->Element(), *rules) : TypeId(t->Element());
  uint32_t length = ScalarConst(module_.Types().Int(32, false), 0, t->Count());
  uint32_t id = NewId();
  globals_.Emit(SpvOp::OpTypeArray, {id, element, length});
  if (rules) {
    decorations_.Emit(SpvOp::OpDecorate, {id, static_cast<uint32_t>(spv::Decoration::ArrayStride),
                                          LayoutArrayStride(t->Element(), *rules,
                                                            options_.matrix_layout)});
    layout_types_[{t, *rules}] = id;
  } else {
    types_[t] = id;
  }
  return id;
}

uint32_t Writer::StructTypeId(const ir::Type* t, std::optional<BufferLayout> rules) {
  if (!rules) {
    auto it = types_.find(t);
    if (it != types_.end()) return it->second;
  } else if (auto it = layout_types_.find({t, *rules}); it != layout_types_.end()) {
    return it->second;
  }
  std::vector<uint32_t> members;
  for (const ir::Type* m : t->Members()) {
    members.push_back(rules ? LayoutTypeId(m, *rules) : TypeId(m));
  }
  // SPIR-V allows a struct without members but drivers reject it (the Differential of a
  // struct with no differentiable field is one): such a struct holds one unused uint.
  if (members.empty() && !rules) members.push_back(TypeId(module_.Types().Int(32, false)));
  uint32_t id = NewId();
  globals_.Emit(SpvOp::OpTypeStruct, Concat({id}, members));
  names_.Emit(SpvOp::OpName, Concat({id}, NameWords(t->StructName())));
  std::vector<uint32_t> offsets;
  if (rules) offsets = LayoutMemberOffsets(t, *rules, options_.matrix_layout);
  for (uint32_t i = 0; i < t->Members().size(); ++i) {
    names_.Emit(SpvOp::OpMemberName, Concat({id, i}, NameWords(t->MemberNames()[i])));
    if (rules) {
      decorations_.Emit(SpvOp::OpMemberDecorate,
                        {id, i, static_cast<uint32_t>(spv::Decoration::Offset), offsets[i]});
      DecorateMatrixMember(id, i, t->Members()[i],
                           MatrixLayoutOf(t->MemberMatrixLayout(i), options_.matrix_layout),
                           *rules);
    }
  }
  if (rules) {
    layout_types_[{t, *rules}] = id;
  } else {
    types_[t] = id;
  }
  return id;
}

void Writer::DecorateMatrixMember(uint32_t id, uint32_t index, const ir::Type* member,
                                  ir::MatrixLayout layout, BufferLayout rules) {
  while (member->IsArray()) member = member->Element();
  if (!member->IsMatrix()) return;
  // SPIR-V's columns are HLSL's rows: a row-major HLSL matrix is ColMajor in SPIR-V.
  spv::Decoration major = layout == ir::MatrixLayout::ColumnMajor ? spv::Decoration::RowMajor
                                                                  : spv::Decoration::ColMajor;
  decorations_.Emit(SpvOp::OpMemberDecorate, {id, index, static_cast<uint32_t>(major)});
  decorations_.Emit(SpvOp::OpMemberDecorate,
                    {id, index, static_cast<uint32_t>(spv::Decoration::MatrixStride),
                     LayoutMatrixStride(member, rules, layout)});
}

uint32_t Writer::IndexConst(uint32_t index) {
  return ScalarConst(module_.Types().Int(32, true), 0, index);
}

uint32_t Writer::PointerTypeId(spv::StorageClass sc, const ir::Type* pointee) {
  if (sc == spv::StorageClass::PhysicalStorageBuffer) return DevicePointerTypeId(pointee);
  auto key = std::make_pair(sc, pointee);
  auto it = pointer_types_.find(key);
  if (it != pointer_types_.end()) return it->second;
  // Buffer memory holds the laid-out form of a struct; everything else the plain one.
  bool laid_out = sc == spv::StorageClass::StorageBuffer || sc == spv::StorageClass::Uniform ||
                  sc == spv::StorageClass::PushConstant;
  uint32_t pointee_id = laid_out ? LayoutTypeId(pointee, RulesOf(sc)) : TypeId(pointee);
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

bool Writer::WriteConstantComposite(const ir::Inst& inst) {
  const ir::Type* t = inst.GetType();
  if (inst.operands.empty() || (t->IsStruct() && t->Members().empty())) return false;
  // OpCompositeConstruct may build a vector from smaller vectors; a constant takes one
  // scalar per component.
  if (inst.GetOp() == Op::MakeVector && inst.operands.size() != t->Count()) return false;
  for (const ir::Value* v : inst.operands) {
    if (v->VKind() != ir::ValueKind::Constant && composite_consts_.count(v) == 0) return false;
  }
  std::vector<uint32_t> key{TypeId(t)};
  size_t count = inst.GetOp() == Op::Splat ? t->Count() : inst.operands.size();
  for (size_t i = 0; i < count; ++i) {
    key.push_back(ValueId(inst.operands[inst.GetOp() == Op::Splat ? 0 : i]));
  }
  composite_consts_.insert(&inst);
  // One constant per value, unless a phi named this instruction's id first.
  auto [it, added] = composite_ids_.emplace(key, 0);
  if (!added && values_.count(&inst) == 0) {
    values_[&inst] = it->second;
    return true;
  }
  uint32_t id = ValueId(&inst);
  if (added) it->second = id;
  key.insert(key.begin() + 1, id);
  globals_.Emit(SpvOp::OpConstantComposite, key);
  return true;
}

uint32_t Writer::BuiltinVar(const std::string& semantic) {
  auto it = builtins_.find(semantic);
  uint32_t id;
  if (it != builtins_.end()) {
    id = it->second;
  } else {
    ir::TypeTable& types = module_.Types();
    const ir::Type* u32 = types.Int(32, false);
    // Besides the semantics, "lane_index" and "lane_count" name the subgroup builtins.
    bool is_index = semantic == "SV_GroupIndex" || semantic == "lane_index" ||
                    semantic == "lane_count";
    const ir::Type* type = is_index ? u32 : types.Vector(u32, 3);
    spv::BuiltIn builtin = semantic == "SV_DispatchThreadID" ? spv::BuiltIn::GlobalInvocationId
                           : semantic == "SV_GroupThreadID"  ? spv::BuiltIn::LocalInvocationId
                           : semantic == "SV_GroupID"        ? spv::BuiltIn::WorkgroupId
                           : semantic == "lane_index" ? spv::BuiltIn::SubgroupLocalInvocationId
                           : semantic == "lane_count" ? spv::BuiltIn::SubgroupSize
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

void Writer::DeclareUniformGlobal(const ir::Global* g) {
  bool push = g->IsPushConstant();
  spv::StorageClass sc = push ? spv::StorageClass::PushConstant : spv::StorageClass::Uniform;
  const ir::Type* block = g->GetType()->Element();
  uint32_t ptr = PointerTypeId(sc, block);
  uint32_t block_id = LayoutTypeId(block, RulesOf(sc));
  if (block_structs_.insert(block_id).second) {
    decorations_.Emit(SpvOp::OpDecorate, {block_id, static_cast<uint32_t>(spv::Decoration::Block)});
  }
  uint32_t var = NewId();
  globals_.Emit(SpvOp::OpVariable, {ptr, var, static_cast<uint32_t>(sc)});
  if (!push) {
    decorations_.Emit(SpvOp::OpDecorate,
                      {var, static_cast<uint32_t>(spv::Decoration::DescriptorSet), g->set});
    decorations_.Emit(SpvOp::OpDecorate,
                      {var, static_cast<uint32_t>(spv::Decoration::Binding), g->binding});
  }
  names_.Emit(SpvOp::OpName, Concat({var}, NameWords(g->Name())));
  values_[g] = var;
}

void Writer::DeclareGlobal(const ir::Global* g) {
  if (g->IsUniform() || g->IsPushConstant()) return DeclareUniformGlobal(g);
  if (g->GetType()->IsTexture() || g->GetType()->IsSampler()) return DeclareTextureGlobal(g);
  if (g->IsWorkgroup() || g->IsPrivate()) {
    // `groupshared` and `static`: a Workgroup or Private variable of the plain (not
    // laid-out) type.
    uint32_t var = NewId();
    spv::StorageClass sc = g->IsPrivate() ? spv::StorageClass::Private : spv::StorageClass::Workgroup;
    globals_.Emit(SpvOp::OpVariable, {TypeId(g->GetType()), var, static_cast<uint32_t>(sc)});
    names_.Emit(SpvOp::OpName, Concat({var}, NameWords(g->Name())));
    values_[g] = var;
    return;
  }
  uint32_t ptr = StorageBufferPointerTypeId(g->GetType());
  uint32_t var = NewId();
  globals_.Emit(SpvOp::OpVariable, {ptr, var, static_cast<uint32_t>(spv::StorageClass::StorageBuffer)});
  decorations_.Emit(SpvOp::OpDecorate, {var, static_cast<uint32_t>(spv::Decoration::DescriptorSet), g->set});
  decorations_.Emit(SpvOp::OpDecorate, {var, static_cast<uint32_t>(spv::Decoration::Binding), g->binding});
  names_.Emit(SpvOp::OpName, Concat({var}, NameWords(g->Name())));
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
  if (options_.debug_sources != nullptr) StartDebugInfo();
  for (const ir::Global* g : module_.globals) DeclareGlobal(g);
  // Specialization constants: OpSpecConstant* with their default, decorated SpecId.
  for (const ir::Global* g : module_.spec_constants) {
    const ir::Type* t = g->GetType();
    uint32_t type = TypeId(t);
    uint32_t id = NewId();
    if (t->IsBool()) {
      globals_.Emit(
          g->spec_default->Bits() != 0 ? SpvOp::OpSpecConstantTrue : SpvOp::OpSpecConstantFalse,
          {type, id});
    } else {
      globals_.Emit(SpvOp::OpSpecConstant,
                    Concat({type, id}, LiteralWords(t, g->spec_default->Bits())));
    }
    decorations_.Emit(SpvOp::OpDecorate,
                      {id, static_cast<uint32_t>(spv::Decoration::SpecId), g->spec_id});
    names_.Emit(SpvOp::OpName, Concat({id}, NameWords(g->Name())));
    values_[g] = id;
  }
  for (const ir::Function* f : module_.functions) function_ids_[f] = NewId();
  for (const ir::Function* f : module_.functions) {
    if (f->is_entry && !options_.entry_points.empty() &&
        std::find(options_.entry_points.begin(), options_.entry_points.end(), f->Name()) ==
            options_.entry_points.end()) {
      continue;
    }
    WriteFunction(*f);
  }
  for (EntryPoint& entry : entry_points_written_) {
    for (const char* lane : {"lane_index", "lane_count"}) {
      auto it = builtins_.find(lane);
      if (it == builtins_.end()) continue;
      if (std::find(entry.interface.begin(), entry.interface.end(), it->second) ==
          entry.interface.end()) {
        entry.interface.push_back(it->second);
      }
    }
    std::vector<uint32_t> ops{static_cast<uint32_t>(spv::ExecutionModel::GLCompute), entry.id};
    bool main = options_.entry_names_main && entry_points_written_.size() == 1;
    std::vector<uint32_t> name = StringWords(main ? std::string("main") : entry.name);
    ops.insert(ops.end(), name.begin(), name.end());
    ops.insert(ops.end(), entry.interface.begin(), entry.interface.end());
    entry_points_.Emit(SpvOp::OpEntryPoint, ops);
  }
  if (!nan_preserve_widths_.empty()) {
    Require(spv::Capability::SignedZeroInfNanPreserve);
    extensions_.Emit(SpvOp::OpExtension, StringWords("SPV_KHR_float_controls"));
    for (const EntryPoint& entry : entry_points_written_) {
      for (uint32_t width : nan_preserve_widths_) {
        execution_modes_.Emit(
            SpvOp::OpExecutionMode,
            {entry.id, static_cast<uint32_t>(spv::ExecutionMode::SignedZeroInfNanPreserve), width});
      }
    }
  }
  // Device pointers are 64-bit addresses: the module's addressing model is physical.
  spv::AddressingModel addressing = spv::AddressingModel::Logical;
  if (uses_device_pointers_) {
    Require(spv::Capability::PhysicalStorageBufferAddresses);
    extensions_.Emit(SpvOp::OpExtension, StringWords("SPV_KHR_physical_storage_buffer"));
    addressing = spv::AddressingModel::PhysicalStorageBuffer64;
  }
  memory_model_.Emit(SpvOp::OpMemoryModel, {static_cast<uint32_t>(addressing),
                                            static_cast<uint32_t>(spv::MemoryModel::GLSL450)});
  for (spv::Capability capability : capabilities_used_) {
    capabilities_.Emit(SpvOp::OpCapability, {static_cast<uint32_t>(capability)});
  }
  if (capabilities_used_.count(spv::Capability::StorageBuffer8BitAccess) != 0) {
    extensions_.Emit(SpvOp::OpExtension, StringWords("SPV_KHR_8bit_storage"));
  }
  if (capabilities_used_.count(spv::Capability::AtomicFloat32AddEXT) != 0) {
    extensions_.Emit(SpvOp::OpExtension, StringWords("SPV_EXT_shader_atomic_float_add"));
  }
  std::vector<uint32_t> words{spv::MagicNumber, 0x00010300u, 0x534C0001u /* generator */, 0, 0};
  for (const Section* s : {&capabilities_, &extensions_, &ext_imports_, &memory_model_,
                           &entry_points_, &execution_modes_, &debug_strings_, &names_, &decorations_, &globals_,
                           &functions_}) {
    words.insert(words.end(), s->Words().begin(), s->Words().end());
  }
  words[3] = next_id_;  // bound
  return words;
}

void Writer::StartDebugInfo() {
  DebugSink sink;
  sink.new_id = [this] { return NewId(); };
  sink.u32 = [this](uint32_t v) { return U32Const(v); };
  sink.type_id = [this](const ir::Type* t) { return TypeId(t); };
  sink.void_type = [this] { return TypeId(module_.Types().Void()); };
  sink.strings = [this](const std::vector<uint32_t>& words) { debug_strings_.Append(words); };
  sink.globals = [this](const std::vector<uint32_t>& words) { globals_.Append(words); };
  sink.code = [this](const std::vector<uint32_t>& words) { functions_.Append(words); };
  debug_ = std::make_unique<DebugInfo>(*options_.debug_sources, options_.debug_file, sink);
  extensions_.Emit(SpvOp::OpExtension, StringWords("SPV_KHR_non_semantic_info"));
  ext_imports_.Emit(SpvOp::OpExtInstImport,
                    Concat({debug_->ImportId()}, StringWords("NonSemantic.Shader.DebugInfo.100")));
  debug_->Begin();
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
  names_.Emit(SpvOp::OpName, Concat({fid}, NameWords(f.Name())));
  if (debug_) debug_->DeclareFunction(f, fid);
  functions_.Emit(SpvOp::OpFunction, {result, fid, 0, ftype});
  if (!f.is_entry) {
    for (const ir::Param* p : f.params) {
      uint32_t id = ValueId(p);
      functions_.Emit(SpvOp::OpFunctionParameter, {TypeId(p->GetType()), id});
      DecorateDevicePointerHolder(id, p->GetType(), /*param=*/true);
    }
  }
  for (const ir::Block* b : f.blocks) labels_[b] = NewId();
  // Diamonds written as OpSelect (select_arms.h): their arms and merge blocks are written
  // inside the block that holds them, so a branch out of one leaves from that block.
  selects_ = PlanSelects(f);
  for (const auto& [b, holder] : selects_.owner) labels_[b] = labels_.at(holder);
  // Long `else if` chains written as a loop that runs once (else_chains.h): their merge
  // blocks but the first are not written, and branches to them go to the first.
  chains_ = PlanChains(f, selects_);
  chain_ids_.clear();
  // Branches into the values each foreign target receives from a chain's dispatch.
  std::unordered_map<const ir::Block*, std::vector<std::pair<uint32_t, const std::vector<uint32_t>*>>>
      dispatched;
  for (const ChainPlan::Chain& chain : chains_.chains) {
    ChainIds ids;
    ids.loop = NewId();
    ids.first = NewId();
    ids.continue_label = NewId();
    if (chain.Dispatched()) {
      ids.dispatch = NewId();
      ids.exit = labels_.at(chain.exit);
      ids.selector = NewId();
      for (const ir::Block* target : chain.foreign_targets) {
        ids.target_labels.push_back(NewId());
        ids.target_phis.emplace_back();
        for (size_t i = 0; i < target->params.size(); ++i) ids.target_phis.back().push_back(NewId());
      }
    }
    chain_ids_.push_back(std::move(ids));
  }
  for (size_t i = 0; i < chains_.chains.size(); ++i) {
    const ChainIds& ids = chain_ids_[i];
    for (size_t j = 0; j < ids.target_labels.size(); ++j) {
      dispatched[chains_.chains[i].foreign_targets[j]].emplace_back(ids.target_labels[j],
                                                                    &ids.target_phis[j]);
    }
  }
  // Branches to a dropped merge block, as to the exit, go to the loop's merge.
  for (const auto& [b, exit] : chains_.dropped) {
    const ChainIds& ids = chain_ids_[chains_.exit_chain.at(exit)];
    labels_[b] = ids.dispatch != 0 ? ids.dispatch : labels_.at(exit);
  }
  // Loop blocks written inside the block before them (block_merge.h), and the blocks
  // held by those.
  merges_ = PlanMerges(f, selects_, chains_);
  for (const auto& [b, holder] : merges_.owner) labels_[b] = labels_.at(holder);
  for (const auto& [b, holder] : selects_.owner) {
    auto merged = merges_.owner.find(holder);
    if (merged != merges_.owner.end()) labels_[b] = labels_.at(merged->second);
  }
  // The branches passing arguments into each block, one per predecessor block (the
  // verifier rules out two edges from one block to the same target), in block order.
  std::unordered_map<const ir::Block*, std::vector<std::pair<const ir::Block*, size_t>>> incoming;
  for (const ir::Block* pred : f.blocks) {
    const ir::Inst* t = pred->Terminator();
    if (!ir::EdgeTakesArgs(*t) || chains_.to_dispatch.count(pred) != 0) continue;
    for (size_t edge = 0; edge < ir::EdgeCount(*t); ++edge) {
      auto& list = incoming[t->targets[edge]];
      if (list.empty() || list.back().first != pred) list.emplace_back(pred, edge);
    }
  }
  const std::vector<std::pair<const ir::Block*, size_t>> no_edges;
  for (const ir::Block* b : f.blocks) {
    if (selects_.Absorbed(b) || chains_.dropped.count(b) != 0 || merges_.Absorbed(b)) continue;
    auto exit = chains_.exit_chain.find(b);
    if (exit != chains_.exit_chain.end()) {
      // The chain loop's continue block, never reached: it only has to exist.
      const ChainIds& ids = chain_ids_[exit->second];
      functions_.Emit(SpvOp::OpLabel, {ids.continue_label});
      functions_.Emit(SpvOp::OpBranch, {ids.loop});
      if (ids.dispatch != 0) WriteChainDispatch(exit->second);
    }
    functions_.Emit(SpvOp::OpLabel, {labels_.at(b)});
    size_t first = 0;
    if (b == f.blocks.front()) {
      // OpVariable must open the entry block.
      while (first < b->insts.size() && b->insts[first]->GetOp() == Op::Var) WriteInst(*b->insts[first++]);
      if (f.is_entry) {
        ir::TypeTable& types = module_.Types();
        // A builtin the entry point never reads is neither loaded nor declared.
        std::unordered_set<const ir::Value*> used;
        for (const ir::Block* block : f.blocks) {
          for (const ir::Inst* inst : block->insts)
            used.insert(inst->operands.begin(), inst->operands.end());
        }
        for (size_t i = 0; i < f.params.size(); ++i) {
          if (used.count(f.params[i]) == 0) continue;
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
    bool dispatched_exit = exit != chains_.exit_chain.end() && chain_ids_[exit->second].dispatch != 0;
    for (const ir::Param* p : dispatched_exit ? std::vector<ir::Param*>() : b->params) {
      // Block parameters become OpPhi over every branch that passes arguments here.
      std::vector<uint32_t> ops{TypeId(p->GetType()), ValueId(p)};
      size_t index = std::find(b->params.begin(), b->params.end(), p) - b->params.begin();
      if (exit != chains_.exit_chain.end()) {
        const ChainPlan::Chain& chain = chains_.chains[exit->second];
        for (size_t e = 0; e < chain.exits.size(); ++e) {
          ops.push_back(ValueId(chain.exit_values[e].at(index)));
          ops.push_back(labels_.at(chain.exits[e].first));
        }
      }
      for (const auto& [pred, edge] : exit != chains_.exit_chain.end() ? no_edges : incoming[b]) {
        ops.push_back(ValueId(ir::EdgeArgs(*pred->Terminator(), edge).at(index)));
        ops.push_back(labels_.at(pred));
      }
      auto from_dispatch = dispatched.find(b);
      if (from_dispatch != dispatched.end()) {
        for (const auto& [label, phis] : from_dispatch->second) {
          ops.push_back(phis->at(index));
          ops.push_back(label);
        }
      }
      functions_.Emit(SpvOp::OpPhi, ops);
    }
    if (debug_) {
      if (b == f.blocks.front()) debug_->DefineFunction(f, fid);
      debug_->EnterBlock(f);
    }
    WriteStraightLine(b, first);
  }
  functions_.Emit(SpvOp::OpFunctionEnd, {});
  if (f.is_entry) {
    entry_points_written_.push_back({fid, f.Name(), interface_});
    execution_modes_.Emit(SpvOp::OpExecutionMode,
                          {fid, static_cast<uint32_t>(spv::ExecutionMode::LocalSize),
                           f.entry.numthreads[0], f.entry.numthreads[1], f.entry.numthreads[2]});
    DeclareSpecWorkgroupSize(f);
  }
}

void Writer::WriteStraightLine(const ir::Block* start, size_t first) {
  // Each step writes a block's instructions from `first`, or (block null) the OpSelects
  // of `header`'s merge parameters. A stack rather than recursion: a chain of 10^5
  // `?:` arms nests as deep.
  struct Step {
    const ir::Block* block;
    size_t first;
    const ir::Block* header;
    const ir::Inst* loop = nullptr;  ///< written before the block's terminator
  };
  std::vector<Step> steps{{start, first, nullptr}};
  while (!steps.empty()) {
    Step step = steps.back();
    steps.pop_back();
    if (step.block == nullptr) {
      WriteSelects(*step.header);
      continue;
    }
    const ir::Block* b = step.block;
    const ir::Inst* t = b->Terminator();
    for (size_t i = step.first; i < b->insts.size(); ++i) {
      if (b->insts[i] == t) break;
      if (debug_) debug_->Line(b->insts[i]->loc);
      WriteInst(*b->insts[i]);
    }
    if (t == nullptr) continue;
    if (selects_.Converted(b)) {
      steps.push_back({t->targets[2], 0, nullptr});
      steps.push_back({nullptr, 0, b});
      steps.push_back({t->targets[1], 0, nullptr});
      steps.push_back({t->targets[0], 0, nullptr});
      continue;
    }
    // The end of a converted arm: its arguments become the OpSelects' operands.
    if (t->GetOp() == Op::Br && selects_.Absorbed(t->targets[0])) continue;
    // A loop's first body block or continue block written here (block_merge.h).
    if (auto body = merges_.header_body.find(b); body != merges_.header_body.end()) {
      steps.push_back({body->second, 0, nullptr, t});
      continue;
    }
    if (auto next = merges_.continue_after.find(b); next != merges_.continue_after.end()) {
      steps.push_back({next->second, 0, nullptr});
      continue;
    }
    if (debug_) debug_->Line(t->loc);
    auto chain = chains_.header_chain.find(b);
    auto foreign = chains_.to_dispatch.find(b);
    if (chain != chains_.header_chain.end()) {
      WriteChainBranch(*b, chain->second);
    } else if (foreign != chains_.to_dispatch.end()) {
      functions_.Emit(SpvOp::OpBranch, {chain_ids_[foreign->second].dispatch});
    } else {
      if (step.loop != nullptr) WriteLoopMerge(*step.loop);
      WriteInst(*t);
    }
  }
}

void Writer::WriteLoopMerge(const ir::Inst& loop) {
  // A loop the unroll pass left still asks the driver to unroll it.
  functions_.Emit(SpvOp::OpLoopMerge, {labels_.at(loop.targets[1]), labels_.at(loop.targets[2]),
                                       loop.imms.empty() || loop.imms[0] == 0
                                           ? 0u
                                           : static_cast<uint32_t>(spv::LoopControlMask::Unroll)});
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
    case I::Determinant: return GLSLstd450Determinant;
    case I::MatMul: case I::Transpose:
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
  if (which == I::MatMul) return WriteMatMul(inst);
  if (which == I::Transpose) return WriteTranspose(inst);
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
  if (which == I::IsNan || which == I::IsInf) nan_preserve_widths_.insert(arg->Scalar()->Width());
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

void Writer::WriteBarrier(const ir::Inst& inst) {
  // As DXC writes them: group barriers order workgroup memory at workgroup scope, device
  // and all barriers storage (and image) memory at device scope; `*_sync` adds the
  // workgroup execution barrier.
  const ir::BarrierInfo& info = ir::GetBarrierInfo(static_cast<ir::BarrierKind>(inst.imms[0]));
  using M = spv::MemorySemanticsMask;
  uint32_t semantics = static_cast<uint32_t>(M::AcquireRelease);
  if (info.memory != ir::BarrierMemory::Device) {
    semantics |= static_cast<uint32_t>(M::WorkgroupMemory);
  }
  if (info.memory != ir::BarrierMemory::Group) {
    semantics |= static_cast<uint32_t>(M::UniformMemory) | static_cast<uint32_t>(M::ImageMemory);
  }
  spv::Scope memory_scope =
      info.memory == ir::BarrierMemory::Group ? spv::Scope::Workgroup : spv::Scope::Device;
  uint32_t memory = U32Const(static_cast<uint32_t>(memory_scope));
  if (info.sync) {
    functions_.Emit(SpvOp::OpControlBarrier,
                    {U32Const(static_cast<uint32_t>(spv::Scope::Workgroup)), memory,
                     U32Const(semantics)});
  } else {
    functions_.Emit(SpvOp::OpMemoryBarrier, {memory, U32Const(semantics)});
  }
}

void Writer::WritePrintf(const ir::Inst& inst) {
  // The debug-printf instruction: the format as an OpString, then the values.
  if (printf_ext_ == 0) {
    // With -g the debug information has declared the extension already.
    if (debug_ == nullptr) {
      extensions_.Emit(SpvOp::OpExtension, StringWords("SPV_KHR_non_semantic_info"));
    }
    printf_ext_ = NewId();
    ext_imports_.Emit(SpvOp::OpExtInstImport,
                      Concat({printf_ext_}, StringWords("NonSemantic.DebugPrintf")));
  }
  std::string format;
  if (!ir::UnpackString(inst.imms, &format)) SLOPE_ICE("printf without a format");
  uint32_t str = NewId();
  debug_strings_.Emit(SpvOp::OpString, Concat({str}, StringWords(format)));
  std::vector<uint32_t> ops{TypeId(module_.Types().Void()), NewId(), printf_ext_,
                            1 /* DebugPrintf */, str};
  for (const ir::Value* v : inst.operands) ops.push_back(ValueId(v));
  functions_.Emit(SpvOp::OpExtInst, ops);
}

void Writer::WriteWave(const ir::Inst& inst) {
  using W = ir::WaveOp;
  using C = spv::Capability;
  auto which = static_cast<W>(inst.imms[0]);
  const ir::Type* t = inst.GetType();
  uint32_t type = TypeId(t), id = ValueId(&inst);
  uint32_t subgroup = U32Const(static_cast<uint32_t>(spv::Scope::Subgroup));
  Require(C::GroupNonUniform);
  if (which == W::LaneIndex || which == W::LaneCount) {
    uint32_t var = BuiltinVar(which == W::LaneIndex ? "lane_index" : "lane_count");
    functions_.Emit(SpvOp::OpLoad, {type, id, var});
    return;
  }
  if (which == W::IsFirstLane) {
    functions_.Emit(SpvOp::OpGroupNonUniformElect, {type, id, subgroup});
    return;
  }
  uint32_t x = ValueId(inst.operands[0]);
  const ir::Type* s = inst.operands[0]->GetType()->Scalar();
  bool f = s->IsFloat();
  bool sign = s->IsInt() && s->IsSigned();
  auto group_op = [&](SpvOp op, spv::GroupOperation g) {
    Require(C::GroupNonUniformArithmetic);
    functions_.Emit(op, {type, id, subgroup, static_cast<uint32_t>(g), x});
  };
  auto bit_count = [&](spv::GroupOperation g) {
    Require(C::GroupNonUniformBallot);
    const ir::Type* u32x4 = module_.Types().Vector(module_.Types().Int(32, false), 4);
    uint32_t ballot = NewId();
    functions_.Emit(SpvOp::OpGroupNonUniformBallot, {TypeId(u32x4), ballot, subgroup, x});
    functions_.Emit(SpvOp::OpGroupNonUniformBallotBitCount,
                    {type, id, subgroup, static_cast<uint32_t>(g), ballot});
  };
  using G = spv::GroupOperation;
  SpvOp add = f ? SpvOp::OpGroupNonUniformFAdd : SpvOp::OpGroupNonUniformIAdd;
  SpvOp mul = f ? SpvOp::OpGroupNonUniformFMul : SpvOp::OpGroupNonUniformIMul;
  switch (which) {
    case W::LaneIndex: case W::LaneCount: case W::IsFirstLane: return;
    case W::Sum: return group_op(add, G::Reduce);
    case W::Product: return group_op(mul, G::Reduce);
    case W::Min:
      return group_op(f ? SpvOp::OpGroupNonUniformFMin : sign ? SpvOp::OpGroupNonUniformSMin
                                                              : SpvOp::OpGroupNonUniformUMin,
                      G::Reduce);
    case W::Max:
      return group_op(f ? SpvOp::OpGroupNonUniformFMax : sign ? SpvOp::OpGroupNonUniformSMax
                                                              : SpvOp::OpGroupNonUniformUMax,
                      G::Reduce);
    case W::BitAnd: return group_op(SpvOp::OpGroupNonUniformBitwiseAnd, G::Reduce);
    case W::BitOr: return group_op(SpvOp::OpGroupNonUniformBitwiseOr, G::Reduce);
    case W::BitXor: return group_op(SpvOp::OpGroupNonUniformBitwiseXor, G::Reduce);
    case W::PrefixSum: return group_op(add, G::ExclusiveScan);
    case W::PrefixProduct: return group_op(mul, G::ExclusiveScan);
    case W::AllTrue: case W::AnyTrue: case W::AllEqual:
      Require(C::GroupNonUniformVote);
      functions_.Emit(which == W::AllTrue  ? SpvOp::OpGroupNonUniformAll
                      : which == W::AnyTrue ? SpvOp::OpGroupNonUniformAny
                                            : SpvOp::OpGroupNonUniformAllEqual,
                      {type, id, subgroup, x});
      return;
    case W::CountBits: return bit_count(G::Reduce);
    case W::PrefixCountBits: return bit_count(G::ExclusiveScan);
    case W::Ballot:
      Require(C::GroupNonUniformBallot);
      functions_.Emit(SpvOp::OpGroupNonUniformBallot, {type, id, subgroup, x});
      return;
    case W::ReadLaneFirst:
      Require(C::GroupNonUniformBallot);
      functions_.Emit(SpvOp::OpGroupNonUniformBroadcastFirst, {type, id, subgroup, x});
      return;
    case W::ReadLaneAt:
      // The lane need not be dynamically uniform: a shuffle, not a broadcast.
      Require(C::GroupNonUniformShuffle);
      functions_.Emit(SpvOp::OpGroupNonUniformShuffle,
                      {type, id, subgroup, x, ValueId(inst.operands[1])});
      return;
  }
}

uint32_t Writer::ExtractId(const ir::Type* element, uint32_t value, uint32_t index) {
  uint32_t id = NewId();
  functions_.Emit(SpvOp::OpCompositeExtract, {TypeId(element), id, value, index});
  return id;
}

void Writer::WriteByRows(const ir::Inst& inst) {
  const ir::Type* t = inst.GetType();
  // Each row is written as an instruction of its own over stand-ins for the operands'
  // rows; the stand-ins and the row instructions live only while it is written.
  std::vector<uint32_t> rows;
  for (uint32_t r = 0; r < t->Count(); ++r) {
    std::vector<std::unique_ptr<ir::Param>> parts;
    ir::Inst row(inst.GetOp(), t->Element());
    row.imms = inst.imms;
    for (ir::Value* v : inst.operands) {
      const ir::Type* vt = v->GetType();
      if (!vt->IsMatrix()) {
        row.operands.push_back(v);
        continue;
      }
      parts.push_back(std::make_unique<ir::Param>(vt->Element(), nullptr));
      values_[parts.back().get()] = ExtractId(vt->Element(), ValueId(v), r);
      row.operands.push_back(parts.back().get());
    }
    WriteInst(row);
    rows.push_back(values_.at(&row));
    values_.erase(&row);
    for (const auto& part : parts) values_.erase(part.get());
  }
  functions_.Emit(SpvOp::OpCompositeConstruct, Concat({TypeId(t), ValueId(&inst)}, rows));
}

uint32_t Writer::IntVectorTimesMatrix(uint32_t v, const ir::Type* m_type, uint32_t m) {
  const ir::Type* row_type = m_type->Element();
  uint32_t sum = 0;
  for (uint32_t i = 0; i < m_type->Count(); ++i) {
    uint32_t lane = ExtractId(row_type->Element(), v, i);
    uint32_t splat = NewId();
    functions_.Emit(SpvOp::OpCompositeConstruct,
                    Concat({TypeId(row_type), splat}, std::vector<uint32_t>(row_type->Count(), lane)));
    uint32_t term = NewId();
    functions_.Emit(SpvOp::OpIMul, {TypeId(row_type), term, splat, ExtractId(row_type, m, i)});
    if (i == 0) {
      sum = term;
      continue;
    }
    uint32_t next = NewId();
    functions_.Emit(SpvOp::OpIAdd, {TypeId(row_type), next, sum, term});
    sum = next;
  }
  return sum;
}

void Writer::WriteMatMul(const ir::Inst& inst) {
  const ir::Type* t = inst.GetType();
  const ir::Type* a = inst.operands[0]->GetType();
  const ir::Type* b = inst.operands[1]->GetType();
  uint32_t type = TypeId(t), id = ValueId(&inst);
  uint32_t x = ValueId(inst.operands[0]), y = ValueId(inst.operands[1]);
  bool is_float = t->Scalar()->IsFloat();
  if (a->IsScalar() || b->IsScalar()) {
    // A scaling: the scalar first.
    if (b->IsScalar()) std::swap(x, y);
    const ir::Type* scaled = a->IsScalar() ? b : a;
    if (scaled->IsScalar()) {
      functions_.Emit(is_float ? SpvOp::OpFMul : SpvOp::OpIMul, {type, id, x, y});
    } else if (is_float) {
      functions_.Emit(scaled->IsVector() ? SpvOp::OpVectorTimesScalar : SpvOp::OpMatrixTimesScalar,
                      {type, id, y, x});
    } else {
      const ir::Type* row = scaled->IsVector() ? scaled : scaled->Element();
      uint32_t splat = NewId();
      functions_.Emit(SpvOp::OpCompositeConstruct,
                      Concat({TypeId(row), splat}, std::vector<uint32_t>(row->Count(), x)));
      if (scaled->IsVector()) {
        functions_.Emit(SpvOp::OpIMul, {type, id, splat, y});
        return;
      }
      std::vector<uint32_t> rows;
      for (uint32_t r = 0; r < scaled->Count(); ++r) {
        rows.push_back(NewId());
        functions_.Emit(SpvOp::OpIMul, {TypeId(row), rows.back(), splat, ExtractId(row, y, r)});
      }
      functions_.Emit(SpvOp::OpCompositeConstruct, Concat({type, id}, rows));
    }
    return;
  }
  if (is_float) {
    // The SPIR-V matrix is the transpose of the HLSL one: mul(m, v) = v * M',
    // mul(v, m) = M' * v, mul(a, b) = B' * A'.
    SpvOp op = a->IsMatrix() && b->IsVector()   ? SpvOp::OpVectorTimesMatrix
               : a->IsVector() && b->IsMatrix() ? SpvOp::OpMatrixTimesVector
                                                : SpvOp::OpMatrixTimesMatrix;
    functions_.Emit(op, {type, id, y, x});
    return;
  }
  if (a->IsVector()) {
    functions_.Emit(SpvOp::OpCopyObject, {type, id, IntVectorTimesMatrix(x, b, y)});
    return;
  }
  std::vector<uint32_t> parts;
  for (uint32_t r = 0; r < a->Count(); ++r) {
    uint32_t row = ExtractId(a->Element(), x, r);
    if (b->IsMatrix()) {
      parts.push_back(IntVectorTimesMatrix(row, b, y));
      continue;
    }
    // Row r of m dotted with v.
    uint32_t product = NewId();
    functions_.Emit(SpvOp::OpIMul, {TypeId(b), product, row, y});
    uint32_t sum = ExtractId(b->Element(), product, 0);
    for (uint32_t i = 1; i < b->Count(); ++i) {
      uint32_t next = NewId();
      functions_.Emit(SpvOp::OpIAdd, {TypeId(b->Element()), next, sum,
                                      ExtractId(b->Element(), product, i)});
      sum = next;
    }
    parts.push_back(sum);
  }
  functions_.Emit(SpvOp::OpCompositeConstruct, Concat({type, id}, parts));
}

void Writer::WriteTranspose(const ir::Inst& inst) {
  const ir::Type* t = inst.GetType();
  const ir::Type* m = inst.operands[0]->GetType();
  uint32_t x = ValueId(inst.operands[0]);
  if (t->Scalar()->IsFloat()) {
    functions_.Emit(SpvOp::OpTranspose, {TypeId(t), ValueId(&inst), x});
    return;
  }
  std::vector<uint32_t> rows;
  for (uint32_t r = 0; r < m->Count(); ++r) rows.push_back(ExtractId(m->Element(), x, r));
  std::vector<uint32_t> result;
  for (uint32_t c = 0; c < t->Count(); ++c) {
    std::vector<uint32_t> lanes;
    for (uint32_t r = 0; r < m->Count(); ++r) lanes.push_back(ExtractId(m->Scalar(), rows[r], c));
    result.push_back(NewId());
    functions_.Emit(SpvOp::OpCompositeConstruct, Concat({TypeId(t->Element()), result.back()}, lanes));
  }
  functions_.Emit(SpvOp::OpCompositeConstruct, Concat({TypeId(t), ValueId(&inst)}, result));
}

void Writer::WriteInst(const ir::Inst& inst) {
  const ir::Type* t = inst.GetType();
  if (t->IsMatrix() && inst.GetOp() != Op::MakeMatrix && inst.GetOp() != Op::Insert &&
      inst.GetOp() != Op::Extract && inst.GetOp() != Op::Load && inst.GetOp() != Op::Call &&
      inst.GetOp() != Op::Var && inst.GetOp() != Op::Wave && inst.GetOp() != Op::Atomic) {
    if (inst.GetOp() != Op::Intrinsic) return WriteByRows(inst);
    ir::IntrinsicSig sig = ir::GetIntrinsicInfo(static_cast<ir::Intrinsic>(inst.imms[0])).sig;
    if (sig != ir::IntrinsicSig::MatMul && sig != ir::IntrinsicSig::Transpose) {
      return WriteByRows(inst);
    }
  }
  auto operand = [&](size_t i) { return ValueId(inst.operands[i]); };
  if (inst.block != nullptr && inst.block->GetFunction()->precise && t->Scalar()->IsFloat() &&
      (inst.GetOp() == Op::Add || inst.GetOp() == Op::Sub || inst.GetOp() == Op::Mul ||
       inst.GetOp() == Op::Div || inst.GetOp() == Op::Neg)) {
    decorations_.Emit(SpvOp::OpDecorate,
                      {ValueId(&inst), static_cast<uint32_t>(spv::Decoration::NoContraction)});
  }
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
      if (WriteConstantComposite(inst)) return;
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
    case Op::Atomic: return WriteAtomic(inst);
    case Op::Barrier: return WriteBarrier(inst);
    case Op::Wave: return WriteWave(inst);
    case Op::Printf: return WritePrintf(inst);
    case Op::SpirvAsm:
    case Op::SpirvAsmValue:
      return WriteSpirvAsm(inst);
    case Op::Texture: return WriteTexture(inst);
    case Op::BufferInfo: {
      // legalize-resources traced every buffer value back to its global.
      SLOPE_ASSERT(inst.operands[0]->VKind() == ir::ValueKind::Global);
      if (inst.imms[0] == 0) {
        functions_.Emit(SpvOp::OpArrayLength, {TypeId(t), ValueId(&inst), operand(0), 0});
        return;
      }
      uint32_t stride = LayoutArrayStride(inst.operands[0]->GetType()->Element(),
                                          RulesOf(spv::StorageClass::StorageBuffer),
                                          options_.matrix_layout);
      functions_.Emit(SpvOp::OpCopyObject, {TypeId(t), ValueId(&inst), ScalarConst(t, 0, stride)});
      return;
    }
    case Op::Call: {
      std::vector<uint32_t> ops{TypeId(t), ValueId(&inst), function_ids_.at(inst.callee)};
      for (size_t i = 0; i < inst.operands.size(); ++i) ops.push_back(operand(i));
      functions_.Emit(SpvOp::OpFunctionCall, ops);
      return;
    }
    case Op::Var:
      functions_.Emit(SpvOp::OpVariable, {TypeId(t), ValueId(&inst),
                                          static_cast<uint32_t>(spv::StorageClass::Function)});
      DecorateDevicePointerHolder(ValueId(&inst), t->Element(), /*param=*/false);
      return;
    case Op::PtrOffset: return WritePtrOffset(inst);
    case Op::PtrCast: return WritePtrCast(inst);
    case Op::Load: {
      const ir::Type* p = inst.operands[0]->GetType();
      if (p->IsDevicePointer()) {
        LoadLaidOut(operand(0), t, spv::StorageClass::PhysicalStorageBuffer, ValueId(&inst));
        return;
      }
      // Buffer memory holds the laid-out form of a struct or array: it is read by parts.
      if ((t->IsStruct() || t->IsArray()) && (p->Space() == ir::AddressSpace::StorageBuffer ||
                                              p->Space() == ir::AddressSpace::Uniform ||
                                              p->Space() == ir::AddressSpace::PushConstant)) {
        spv::StorageClass sc = p->Space() == ir::AddressSpace::StorageBuffer
                                   ? spv::StorageClass::StorageBuffer
                               : p->Space() == ir::AddressSpace::Uniform
                                   ? spv::StorageClass::Uniform
                                   : spv::StorageClass::PushConstant;
        LoadLaidOut(operand(0), t, sc, ValueId(&inst));
        return;
      }
      return unary(SpvOp::OpLoad);
    }
    case Op::Store: {
      const ir::Type* p = inst.operands[0]->GetType();
      if (p->IsDevicePointer()) {
        return StoreLaidOut(operand(0), p->Element(), operand(1),
                            spv::StorageClass::PhysicalStorageBuffer);
      }
      if ((p->Element()->IsStruct() || p->Element()->IsArray()) &&
          p->Space() == ir::AddressSpace::StorageBuffer) {
        return StoreLaidOut(operand(0), p->Element(), operand(1),
                            spv::StorageClass::StorageBuffer);
      }
      functions_.Emit(SpvOp::OpStore, {operand(0), operand(1)});
      return;
    }
    case Op::MemberPtr:
      functions_.Emit(SpvOp::OpAccessChain,
                      {TypeId(t), ValueId(&inst), operand(0), IndexConst(inst.imms[0])});
      return;
    case Op::MakeStruct:
    case Op::MakeArray:
    case Op::MakeMatrix: {
      // `int a[70000];` is zeroed by a composite too large for OpCompositeConstruct: a
      // copy of OpConstantNull, of any size (CheckLimits rejected other large ones).
      if (inst.operands.size() > kMaxCompositeValues && IsZeroValue(&inst, &zero_memo_)) {
        auto [null, added] = null_consts_.emplace(t, 0);
        if (added) {
          null->second = NewId();
          globals_.Emit(SpvOp::OpConstantNull, {TypeId(t), null->second});
        }
        functions_.Emit(SpvOp::OpCopyObject, {TypeId(t), ValueId(&inst), null->second});
        return;
      }
      if (WriteConstantComposite(inst)) return;
      std::vector<uint32_t> ops{TypeId(t), ValueId(&inst)};
      for (size_t i = 0; i < inst.operands.size(); ++i) ops.push_back(operand(i));
      if (t->IsStruct() && t->Members().empty()) {  // the placeholder member (StructTypeId)
        const ir::Type* u32 = module_.Types().Int(32, false);
        ops.push_back(ScalarConst(u32, 0, 0));
      }
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
      WriteLoopMerge(inst);
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


std::vector<uint32_t> WriteSpirv(ir::Module& module, const WriterOptions& options) {
  return Writer(module, options).Run();
}

}  // namespace slope::targets::spirv
