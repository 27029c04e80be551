#include "compiler/targets/spirv/writer_internal.h"

namespace slope::targets::spirv {

namespace {

spv::ImageFormat SpvImageFormat(ir::ImageFormat f) {
  using F = ir::ImageFormat;
  using S = spv::ImageFormat;
  switch (f) {
    case F::Unknown: return S::Unknown;
    case F::Rgba32f: return S::Rgba32f;
    case F::Rgba16f: return S::Rgba16f;
    case F::Rg32f: return S::Rg32f;
    case F::Rg16f: return S::Rg16f;
    case F::R32f: return S::R32f;
    case F::R16f: return S::R16f;
    case F::Rgba8: return S::Rgba8;
    case F::Rgba8Snorm: return S::Rgba8Snorm;
    case F::Rg8: return S::Rg8;
    case F::R8: return S::R8;
    case F::Rgba32i: return S::Rgba32i;
    case F::Rgba16i: return S::Rgba16i;
    case F::Rgba8i: return S::Rgba8i;
    case F::Rg32i: return S::Rg32i;
    case F::R32i: return S::R32i;
    case F::Rgba32ui: return S::Rgba32ui;
    case F::Rgba16ui: return S::Rgba16ui;
    case F::Rgba8ui: return S::Rgba8ui;
    case F::Rg32ui: return S::Rg32ui;
    case F::R32ui: return S::R32ui;
  }
  return S::Unknown;
}

/// Formats a storage image may have with the Shader capability alone (SPIR-V's table of
/// image formats); the others need StorageImageExtendedFormats.
bool IsBasicStorageFormat(ir::ImageFormat f) {
  using F = ir::ImageFormat;
  return f == F::Rgba32f || f == F::Rgba16f || f == F::R32f || f == F::Rgba8 ||
         f == F::Rgba8Snorm || f == F::Rgba32i || f == F::Rgba16i || f == F::Rgba8i ||
         f == F::R32i || f == F::Rgba32ui || f == F::Rgba16ui || f == F::Rgba8ui || f == F::R32ui;
}

}  // namespace

uint32_t Writer::ImageTypeId(const ir::Type* t, ir::ImageFormat format) {
  auto key = std::make_tuple(t->Element()->Scalar(), t->Dim(), t->IsArrayed(), t->IsWritable(),
                             format);
  auto it = image_types_.find(key);
  if (it != image_types_.end()) return it->second;
  uint32_t sampled_type = TypeId(t->Element()->Scalar());
  spv::Dim dim = t->Dim() == ir::TextureDim::k1D       ? spv::Dim::Dim1D
                 : t->Dim() == ir::TextureDim::k2D     ? spv::Dim::Dim2D
                 : t->Dim() == ir::TextureDim::k3D     ? spv::Dim::Dim3D
                 : t->Dim() == ir::TextureDim::kBuffer ? spv::Dim::Buffer
                                                       : spv::Dim::Cube;
  if (t->Dim() == ir::TextureDim::kCube && t->IsArrayed()) {
    Require(t->IsWritable() ? spv::Capability::ImageCubeArray : spv::Capability::SampledCubeArray);
  }
  if (t->Dim() == ir::TextureDim::k1D) {
    Require(t->IsWritable() ? spv::Capability::Image1D : spv::Capability::Sampled1D);
  }
  if (t->IsTexelBuffer()) {
    // A uniform texel buffer (Sampled 1) or a storage texel buffer (Sampled 2).
    Require(t->IsWritable() ? spv::Capability::ImageBuffer : spv::Capability::SampledBuffer);
  }
  if (t->IsWritable() && format != ir::ImageFormat::Unknown && !IsBasicStorageFormat(format)) {
    Require(spv::Capability::StorageImageExtendedFormats);
  }
  uint32_t id = NewId();
  globals_.Emit(SpvOp::OpTypeImage,
                {id, sampled_type, static_cast<uint32_t>(dim), 0u, t->IsArrayed() ? 1u : 0u, 0u,
                 t->IsWritable() ? 2u : 1u, static_cast<uint32_t>(SpvImageFormat(format))});
  image_types_[key] = id;
  return id;
}

uint32_t Writer::SampledImageTypeId(const ir::Type* t, ir::ImageFormat format) {
  uint32_t image_type = ImageTypeId(t, format);
  auto [it, added] = sampled_image_types_.emplace(image_type, 0);
  if (added) {
    it->second = NewId();
    globals_.Emit(SpvOp::OpTypeSampledImage, {it->second, image_type});
  }
  return it->second;
}

uint32_t Writer::HandleTypeId(const ir::Global* g) {
  const ir::Type* t = g->GetType();
  if (t->IsSampler()) return SamplerTypeId();
  // A combined texture and sampler (Sampler2D) is bound as a sampled image.
  return t->IsCombined() ? SampledImageTypeId(t, g->image_format) : ImageTypeId(t, g->image_format);
}

uint32_t Writer::SamplerTypeId() {
  if (sampler_type_ == 0) {
    sampler_type_ = NewId();
    globals_.Emit(SpvOp::OpTypeSampler, {sampler_type_});
  }
  return sampler_type_;
}

void Writer::DeclareTextureGlobal(const ir::Global* g) {
  uint32_t pointee = HandleTypeId(g);
  uint32_t ptr = NewId();
  globals_.Emit(SpvOp::OpTypePointer,
                {ptr, static_cast<uint32_t>(spv::StorageClass::UniformConstant), pointee});
  uint32_t var = NewId();
  globals_.Emit(SpvOp::OpVariable,
                {ptr, var, static_cast<uint32_t>(spv::StorageClass::UniformConstant)});
  decorations_.Emit(SpvOp::OpDecorate, {var, static_cast<uint32_t>(spv::Decoration::DescriptorSet), g->set});
  decorations_.Emit(SpvOp::OpDecorate, {var, static_cast<uint32_t>(spv::Decoration::Binding), g->binding});
  names_.Emit(SpvOp::OpName, Concat({var}, NameWords(g->Name())));
  values_[g] = var;
}

uint32_t Writer::ConstantVectorId(const ir::Value* v) {
  if (v->VKind() == ir::ValueKind::Constant) return ValueId(v);
  const auto* inst = v->VKind() == ir::ValueKind::Inst ? static_cast<const ir::Inst*>(v) : nullptr;
  if (inst == nullptr || (inst->GetOp() != Op::MakeVector && inst->GetOp() != Op::Splat)) {
    SLOPE_ICE("a texel offset that is not a constant reached the SPIR-V writer");
  }
  std::vector<uint32_t> parts{TypeId(v->GetType()), NewId()};
  for (uint32_t i = 0; i < v->GetType()->Count(); ++i) {
    const ir::Value* part = inst->operands[inst->GetOp() == Op::Splat ? 0 : i];
    if (part->VKind() != ir::ValueKind::Constant) {
      SLOPE_ICE("a texel offset that is not a constant reached the SPIR-V writer");
    }
    parts.push_back(ValueId(part));
  }
  globals_.Emit(SpvOp::OpConstantComposite, parts);
  return parts[1];
}

uint32_t Writer::LoadHandle(const ir::Value* v) {
  // legalize-resources traced every texture and sampler back to its global.
  SLOPE_ASSERT(v->VKind() == ir::ValueKind::Global);
  const auto* g = static_cast<const ir::Global*>(v);
  uint32_t id = NewId();
  functions_.Emit(SpvOp::OpLoad, {HandleTypeId(g), id, ValueId(g)});
  return id;
}

void Writer::WriteTexture(const ir::Inst& inst) {
  using T = ir::TextureOp;
  if (static_cast<T>(inst.imms[0]) == T::Atomic) return WriteTexelAtomic(inst);
  const auto* g = static_cast<const ir::Global*>(inst.operands[0]);
  const ir::Type* tex = g->GetType();
  const ir::Type* scalar = tex->Element()->Scalar();
  const ir::Type* vec4 = module_.Types().Vector(scalar, 4);
  auto op = static_cast<T>(inst.imms[0]);
  auto operand = [&](size_t i) { return ValueId(inst.operands[i]); };
  uint32_t image = LoadHandle(g);
  uint32_t combined = 0;
  if (tex->IsCombined()) {
    // The sampled image is what the binding holds; fetches and queries take its image.
    combined = image;
    image = NewId();
    functions_.Emit(SpvOp::OpImage, {ImageTypeId(tex, g->image_format), image, combined});
  }
  auto sampled = [&]() {
    if (combined != 0) return combined;
    uint32_t sampler = LoadHandle(inst.operands[1]);
    uint32_t id = NewId();
    functions_.Emit(SpvOp::OpSampledImage,
                    {SampledImageTypeId(tex, g->image_format), id, image, sampler});
    return id;
  };
  // A 4-vector result narrowed to the instruction's type.
  auto narrow = [&](uint32_t wide) {
    const ir::Type* t = inst.GetType();
    if (t->IsScalar()) {
      functions_.Emit(SpvOp::OpCompositeExtract, {TypeId(t), ValueId(&inst), wide, 0});
    } else if (t->Count() == 4) {
      functions_.Emit(SpvOp::OpCopyObject, {TypeId(t), ValueId(&inst), wide});
    } else {
      std::vector<uint32_t> ops{TypeId(t), ValueId(&inst), wide, wide};
      for (uint32_t i = 0; i < t->Count(); ++i) ops.push_back(i);
      functions_.Emit(SpvOp::OpVectorShuffle, ops);
    }
  };
  // The Lod image operand, with the texel offset at operand `offset_at` when the
  // instruction has one (Load and SampleLevel's last operand): ConstOffset, as Vulkan
  // allows offsets known at compile time only (sema made sure it is).
  auto lod_operands = [&](uint32_t lod, size_t offset_at = 0) {
    if (offset_at == 0 || offset_at >= inst.operands.size()) {
      return std::vector<uint32_t>{static_cast<uint32_t>(spv::ImageOperandsMask::Lod), lod};
    }
    uint32_t mask = static_cast<uint32_t>(spv::ImageOperandsMask::Lod) |
                    static_cast<uint32_t>(spv::ImageOperandsMask::ConstOffset);
    return std::vector<uint32_t>{mask, lod, ConstantVectorId(inst.operands[offset_at])};
  };
  uint32_t wide = NewId();
  switch (op) {
    case T::Fetch:
      if (tex->IsTexelBuffer()) {
        // A texel buffer has no levels: no Lod operand.
        functions_.Emit(SpvOp::OpImageFetch, {TypeId(vec4), wide, image, operand(1)});
        return narrow(wide);
      }
      functions_.Emit(SpvOp::OpImageFetch,
                      Concat({TypeId(vec4), wide, image, operand(1)}, lod_operands(operand(2), 3)));
      return narrow(wide);
    case T::Read:
      if (g->image_format == ir::ImageFormat::Unknown) {
        Require(spv::Capability::StorageImageReadWithoutFormat);
      }
      functions_.Emit(SpvOp::OpImageRead, {TypeId(vec4), wide, image, operand(1)});
      return narrow(wide);
    case T::Write: {
      if (g->image_format == ir::ImageFormat::Unknown) {
        Require(spv::Capability::StorageImageWriteWithoutFormat);
      }
      // The texel widened to four components (a write gives every component the format
      // has; the ones past the texel's are zero).
      const ir::Type* texel = inst.operands[2]->GetType();
      uint32_t value = operand(2);
      if (texel->Count() != 4) {
        std::vector<uint32_t> parts{TypeId(vec4), wide};
        for (uint32_t i = 0; i < 4; ++i) {
          if (i >= texel->Count()) {
            parts.push_back(ScalarConst(scalar, 0, 0));
          } else if (texel->IsScalar()) {
            parts.push_back(value);
          } else {
            parts.push_back(ExtractId(scalar, value, i));
          }
        }
        functions_.Emit(SpvOp::OpCompositeConstruct, parts);
        value = wide;
      }
      functions_.Emit(SpvOp::OpImageWrite, {image, operand(1), value});
      return;
    }
    case T::SampleLevel: {
      uint32_t si = sampled();
      functions_.Emit(SpvOp::OpImageSampleExplicitLod,
                      Concat({TypeId(vec4), wide, si, operand(2)}, lod_operands(operand(3), 4)));
      return narrow(wide);
    }
    case T::SampleGrad: {
      uint32_t si = sampled();
      functions_.Emit(SpvOp::OpImageSampleExplicitLod,
                      {TypeId(vec4), wide, si, operand(2),
                       static_cast<uint32_t>(spv::ImageOperandsMask::Grad), operand(3), operand(4)});
      return narrow(wide);
    }
    case T::Gather: {
      uint32_t si = sampled();
      functions_.Emit(SpvOp::OpImageGather,
                      {TypeId(vec4), ValueId(&inst), si, operand(2), U32Const(inst.imms[1])});
      return;
    }
    case T::SampleCmpLevelZero: {
      uint32_t si = sampled();
      const ir::Type* f32 = module_.Types().Float(32);
      functions_.Emit(SpvOp::OpImageSampleDrefExplicitLod,
                      Concat({TypeId(f32), ValueId(&inst), si, operand(2), operand(3)},
                             lod_operands(ScalarConst(f32, 0.0, 0))));
      return;
    }
    case T::Size:
      Require(spv::Capability::ImageQuery);
      if (tex->IsWritable() || tex->IsTexelBuffer()) {
        functions_.Emit(SpvOp::OpImageQuerySize, {TypeId(inst.GetType()), ValueId(&inst), image});
      } else {
        functions_.Emit(SpvOp::OpImageQuerySizeLod,
                        {TypeId(inst.GetType()), ValueId(&inst), image, operand(1)});
      }
      return;
    case T::Levels:
      Require(spv::Capability::ImageQuery);
      functions_.Emit(SpvOp::OpImageQueryLevels, {TypeId(inst.GetType()), ValueId(&inst), image});
      return;
    case T::Atomic:
      break;  // WriteTexelAtomic
  }
  SLOPE_ICE("unknown texture operation");
}

}  // namespace slope::targets::spirv
