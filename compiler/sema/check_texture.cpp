// Textures and samplers: the types (`Texture2D<float4>`, `RWTexture3D<uint>`,
// `SamplerState`, the combined `Sampler2D<float4>`, ..., and the typed buffers
// `Buffer<T>` / `RWBuffer<T>`, textures of one axis), their `[format]` attribute,
// `tex[coord]`, and their methods (Load, Sample, SampleLevel, SampleGrad, Gather*,
// SampleCmpLevelZero, GetDimensions), resolved here rather than through declarations, as
// buffer methods are. Each method call records its ir::TextureOp for lowering
// (lower/lower_texture.cpp).

#include <string>

#include "compiler/ir/ir.h"
#include "compiler/sema/checker.h"

namespace slope::sema {

using diag::DiagId;

namespace {

struct TextureName {
  const char* name;
  uint32_t dim;  ///< 1, 2, 3, or 4 for a cube
  bool arrayed;
  bool writable;
  bool combined = false;  ///< a texture with its sampler (`Sampler2D`)
  bool shadow = false;    ///< with a comparison sampler, of float depth (`Sampler2DShadow`)
};

constexpr TextureName kTextureNames[] = {
    {"Texture1D", 1, false, false},
    {"Texture2D", 2, false, false},
    {"Texture3D", 3, false, false},
    {"TextureCube", 4, false, false},
    {"Texture1DArray", 1, true, false},
    {"Texture2DArray", 2, true, false},
    {"TextureCubeArray", 4, true, false},
    {"RWTexture1D", 1, false, true},
    {"RWTexture2D", 2, false, true},
    {"RWTexture3D", 3, false, true},
    {"RWTexture1DArray", 1, true, true},
    {"RWTexture2DArray", 2, true, true},
    {"Sampler1D", 1, false, false, true},
    {"Sampler2D", 2, false, false, true},
    {"Sampler3D", 3, false, false, true},
    {"SamplerCube", 4, false, false, true},
    {"Sampler1DArray", 1, true, false, true},
    {"Sampler2DArray", 2, true, false, true},
    {"SamplerCubeArray", 4, true, false, true},
    {"Sampler1DShadow", 1, false, false, true, true},
    {"Sampler2DShadow", 2, false, false, true, true},
    {"SamplerCubeShadow", 4, false, false, true, true},
    {"Sampler1DArrayShadow", 1, true, false, true, true},
    {"Sampler2DArrayShadow", 2, true, false, true, true},
    {"SamplerCubeArrayShadow", 4, true, false, true, true},
    {"Buffer", Type::kTypedBufferDim, false, false},
    {"RWBuffer", Type::kTypedBufferDim, false, true},
};

/// Axes of a texel address before the layer: a typed buffer has one.
uint32_t TexelAxes(const Type* t) { return t->IsTypedBuffer() ? 1 : t->TextureDim(); }

/// Components of a coordinate that sampling takes: a cube's is a direction; the layer
/// of an arrayed texture comes last.
uint32_t SampleCoordCount(const Type* t) {
  return (t->TextureDim() == 4 ? 3 : t->TextureDim()) + (t->IsTextureArray() ? 1 : 0);
}

/// Components of a texel address (Load, []); cubes have none.
uint32_t TexelCoordCount(const Type* t) { return TexelAxes(t) + (t->IsTextureArray() ? 1 : 0); }

/// Components GetDimensions reports: the size of each axis, then the layer count.
uint32_t SizeCount(const Type* t) {
  return (t->TextureDim() == 4 ? 2 : TexelAxes(t)) + (t->IsTextureArray() ? 1 : 0);
}

bool IsTexelType(const Type* t) {
  if (!t->IsScalar() && !t->IsVector()) return false;
  const Type* s = t->ScalarType();
  return (s->Kind() == TypeKind::Int || s->Kind() == TypeKind::UInt ||
          s->Kind() == TypeKind::Float) &&
         s->Width() == 32;
}

bool IsIntVector(const Type* t, uint32_t n) {
  const Type* s = t->ScalarType();
  return (t->IsScalar() || t->IsVector()) && t->Count() == n && !t->IsDependent() &&
         (s->Kind() == TypeKind::Int || s->Kind() == TypeKind::UInt) && s->Width() == 32;
}

std::string KnownFormats() {
  std::string names;
  for (uint32_t i = 1; i <= static_cast<uint32_t>(ir::ImageFormat::R32ui); ++i) {
    if (!names.empty()) names += ", ";
    names += ir::ImageFormatName(static_cast<ir::ImageFormat>(i));
  }
  return names;
}

}  // namespace

const Type* Checker::ResolveTextureType(ast::TypeExpr* te) {
  // Every texture and sampler type name starts so; most type names do not.
  const std::string_view name = te->name;
  if (!name.starts_with("Texture") && !name.starts_with("RWTexture") &&
      !name.starts_with("Sampler") && name != "Buffer" && name != "RWBuffer") {
    return nullptr;
  }
  bool sampler = te->name == "SamplerState" || te->name == "SamplerComparisonState";
  const TextureName* found = nullptr;
  for (const TextureName& t : kTextureNames) {
    if (te->name == t.name) found = &t;
  }
  if (!sampler && found == nullptr) return nullptr;
  if (Lookup(te->name) != nullptr) return nullptr;  // the program declares its own
  if (sampler) {
    if (!te->type_args.empty() || !te->value_args.empty()) {
      diags_.Report(DiagId::TextureArgs, te->range, te->name, "no generic arguments");
      return types_.Error();
    }
    return types_.Sampler(te->name == "SamplerComparisonState");
  }
  if (found->shadow) {
    // Depth values: always float.
    if (!te->type_args.empty() || !te->value_args.empty()) {
      diags_.Report(DiagId::TextureArgs, te->range, te->name,
                    "no generic arguments (its texels are float depth values)");
      return types_.Error();
    }
    return types_.Texture(types_.Float(), found->dim, found->arrayed, false, true, true);
  }
  // `Texture2D` alone holds float4 texels, as in HLSL.
  const Type* element = types_.Vector(types_.Float(), 4);
  if (te->type_args.size() > 1 || !te->value_args.empty()) {
    diags_.Report(DiagId::TextureArgs, te->range, te->name,
                  "one generic argument, the texel type ('" + std::string(te->name) +
                      "<float4>')");
    return types_.Error();
  }
  if (te->type_args.size() == 1) {
    element = ResolveType(te->type_args[0]);
    if (element->IsError()) return element;
    // `Texture2D<T>` in generic code takes whatever T becomes (lowering sees it concrete).
    if (!element->IsDependent() && !IsTexelType(element)) {
      if (found->dim == Type::kTypedBufferDim) {
        diags_.Report(DiagId::TypedBufferElementType, te->type_args[0]->range, element->Name(),
                      std::string(found->writable ? "RWStructuredBuffer<" : "StructuredBuffer<") +
                          element->Name() + ">");
        return types_.Error();
      }
      diags_.Report(DiagId::TextureElementType, te->type_args[0]->range, element->Name());
      return types_.Error();
    }
  }
  return types_.Texture(element, found->dim, found->arrayed, found->writable, found->combined);
}

void Checker::CheckTextureFormat(ast::VarDecl* var) {
  const ast::Attribute* a = var->FindAttribute("format");
  if (a == nullptr) a = var->FindAttribute("vk::image_format");
  if (a == nullptr || var->type == nullptr || var->type->IsError()) return;
  const Type* t = var->type;
  if (!t->IsTexture() || !t->IsWritable()) {
    diags_.Report(DiagId::TextureFormatNotStorage, a->range, a->name, t->Name());
    return;
  }
  if (a->args.size() != 1 || a->args[0]->kind != ast::ExprKind::StringLiteral) {
    diags_.Report(DiagId::InvalidAttributeArgs, a->range, a->name, "one string literal");
    return;
  }
  const std::string& name = static_cast<const ast::StringLiteralExpr*>(a->args[0])->value;
  ir::ImageFormat format;
  if (!ir::FindImageFormat(name, &format)) {
    diags_.Report(DiagId::TextureFormatUnknown, a->args[0]->range, name, KnownFormats());
    return;
  }
  // The format's numbers must be the texel's kind: `f`, unorm and snorm formats hold
  // floats, `i` ints, `ui` uints; a write gives at least the format's components.
  const Type* s = t->Element()->ScalarType();
  TypeKind kind = name.ends_with("ui") ? TypeKind::UInt
                  : name.ends_with("i") ? TypeKind::Int
                                        : TypeKind::Float;
  if (s->Kind() != kind) {
    const char* holds = kind == TypeKind::UInt ? "uint" : kind == TypeKind::Int ? "int" : "float";
    diags_.Report(DiagId::TextureFormatMismatch, a->args[0]->range, name, t->Element()->Name(),
                  std::string("the format holds ") + holds + " values");
    return;
  }
  if (t->Element()->Count() < ir::ImageFormatComponents(format)) {
    diags_.Report(DiagId::TextureFormatMismatch, a->args[0]->range, name, t->Element()->Name(),
                  "the format has " + std::to_string(ir::ImageFormatComponents(format)) +
                      " components and a texel written must give each");
  }
}

const Type* Checker::CheckTextureIndex(ast::IndexExpr* expr) {
  const Type* t = expr->base->type;
  if (t->IsShadowSampler()) {
    diags_.Report(DiagId::TextureNotSampled, expr->range, "operator[]", t->Name(),
                  "a shadow sampler reads only by comparison (read the depth texels through a "
                  "Texture with a Load)");
    return types_.Error();
  }
  if (t->TextureDim() == 4) {
    diags_.Report(DiagId::TextureNotSampled, expr->range, "operator[]", t->Name(),
                  "a cube texture is read by sampling it with a direction");
    return types_.Error();
  }
  uint32_t n = TexelCoordCount(t);
  if (!IsIntVector(expr->index->type, n)) {
    expr->index = Coerce(expr->index, types_.Vector(types_.UInt(), n));
    if (expr->index->type->IsError()) return types_.Error();
  }
  return t->Element();
}

ast::Expr* Checker::CheckTextureMethod(ast::CallExpr* call, ast::MemberExpr* callee) {
  const Type* t = callee->base->type;
  const std::string& name = callee->member;
  const std::string shown = t->Name() + "." + name;
  call->receiver = callee->base;
  call->type = types_.Error();
  size_t argc = call->args.size();
  auto wrong = [&](const std::string& takes) {
    diags_.Report(DiagId::TextureArgs, call->range, shown, takes);
    return call;
  };
  auto refuse = [&](const std::string& why) {
    diags_.Report(DiagId::TextureNotSampled, callee->member_range, name, t->Name(), why);
    return call;
  };
  auto float_vector = [&](uint32_t n) { return types_.Vector(types_.Float(), n); };
  auto coerce = [&](size_t i, const Type* to) {
    call->args[i] = Coerce(call->args[i], to);
    return !call->args[i]->type->IsError();
  };
  auto int_coord = [&](size_t i, uint32_t n) {
    return IsIntVector(call->args[i]->type, n) || coerce(i, types_.Vector(types_.Int(), n));
  };
  auto record = [&](ir::TextureOp op, const Type* result, uint32_t extra = 0) {
    call->buffer_method = ast::BufferMethod::Texture;
    call->buffer_imm = static_cast<uint32_t>(op) | extra;
    call->value_type = result;
    call->type = result;
    return call;
  };
  const std::string coord_name = std::string(t->TextureDim() == 4 ? "direction" : "coordinate") +
                                 (t->IsTextureArray() ? " (the layer last)" : "");

  // An optional texel offset (Load, Sample, SampleLevel): an int per axis, known at
  // compile time (SPIR-V's ConstOffset, GLSL's *Offset functions); cubes have none.
  const uint32_t axes = t->TextureDim() == 4 ? 3 : t->TextureDim();
  const std::string offset_type = axes == 1 ? "int" : "int" + std::to_string(axes);
  auto offset_arg = [&](size_t i) {
    if (t->TextureDim() == 4) {
      refuse("a cube texture takes no texel offset");
      return false;
    }
    if (!int_coord(i, axes)) return false;
    if (!CheckConstantExpr(call->args[i])) {
      diags_.Report(DiagId::TextureArgs, call->args[i]->range, shown,
                    "a texel offset known at compile time (a constant " + offset_type + ")");
      return false;
    }
    return true;
  };

  if (name == "GetDimensions") return CheckTextureDims(call, callee);
  if (t->IsTypedBuffer()) {
    // Load(index): the element; a read-only buffer's is fetched, an RW buffer's read.
    if (name != "Load") {
      diags_.Report(DiagId::NoSuchMember, callee->member_range, t->Name(), name);
      return call;
    }
    if (argc != 1) return wrong("one argument, the element's int index");
    if (!int_coord(0, 1)) return call;
    return record(t->IsWritable() ? ir::TextureOp::Read : ir::TextureOp::Fetch, t->Element());
  }
  if (name == "Load" && t->IsShadowSampler()) {
    return refuse(
        "a shadow sampler reads only by comparison (read the depth texels through a "
        "Texture with a Load)");
  }
  if (name == "Load") {
    if (t->TextureDim() == 4) return refuse("a cube texture is read by sampling it");
    uint32_t n = TexelCoordCount(t);
    if (t->IsWritable()) {
      if (argc != 1) {
        return wrong("one argument, the texel's int" + std::to_string(n) + " " + coord_name);
      }
      if (!int_coord(0, n)) return call;
      return record(ir::TextureOp::Read, t->Element());
    }
    if (argc != 1 && argc != 2) {
      return wrong("an int" + std::to_string(n + 1) + ": the texel's " + coord_name +
                   ", then the mip level; and optionally a constant " + offset_type + " offset");
    }
    if (!int_coord(0, n + 1) || (argc == 2 && !offset_arg(1))) return call;
    return record(ir::TextureOp::Fetch, t->Element());
  }

  // Sampling: only sampled textures, with a sampler first.
  bool sample = name == "Sample" || name == "SampleLevel" || name == "SampleGrad" ||
                name == "SampleCmp" || name == "SampleCmpLevelZero" || name == "Gather" ||
                name == "GatherRed" || name == "GatherGreen" || name == "GatherBlue" ||
                name == "GatherAlpha";
  if (!sample) {
    diags_.Report(DiagId::NoSuchMember, callee->member_range, t->Name(), name);
    return call;
  }
  if (t->IsWritable()) {
    return refuse("an RW texture is read and written by texel ('Load', '[]'); sample a '" +
                  t->Name().substr(2) + "' with a SamplerState");
  }
  bool comparison = name == "SampleCmp" || name == "SampleCmpLevelZero";
  if (t->IsShadowSampler() && !comparison) {
    return refuse(
        "a shadow sampler samples only by comparison ('SampleCmp', "
        "'SampleCmpLevelZero')");
  }
  if (t->IsCombinedSampler()) {
    // `Sampler2D` samples with its own sampler: the receiver stands in for the
    // SamplerState argument the other textures take.
    if (comparison && !t->IsShadowSampler()) {
      return refuse(
          "its sampler is not a comparison sampler; compare with a "
          "'Sampler2DShadow'-style type or a SamplerComparisonState and a separate "
          "texture");
    }
    if (argc > 0 && call->args[0]->type->IsSampler()) {
      return wrong("no SamplerState: a '" + t->Name() + "' samples with its own sampler");
    }
    call->args.insert(call->args.begin(), callee->base);
    ++argc;
  }
  if (argc == 0 || (!call->args[0]->type->IsSampler() && !t->IsCombinedSampler()) ||
      (!t->IsCombinedSampler() && call->args[0]->type->IsComparisonSampler() != comparison)) {
    const char* sampler = comparison ? "SamplerComparisonState" : "SamplerState";
    return wrong(std::string("a ") + sampler + " as its first argument");
  }
  // What the arguments start with: a sampler, unless the texture holds its own.
  const std::string a_sampler = t->IsCombinedSampler() ? "" : "a sampler, ";
  uint32_t n = SampleCoordCount(t);
  std::string coord = "float" + std::to_string(n) + " " + coord_name;
  const Type* uv = float_vector(n);
  if (name == "Sample" || name == "SampleLevel") {
    bool level = name == "SampleLevel";
    size_t least = level ? 3u : 2u;
    if (argc != least && argc != least + 1) {
      return wrong(a_sampler + "the " + coord + (level ? ", the float mip level" : "") +
                   " and optionally a constant " + offset_type + " texel offset");
    }
    if (!coerce(1, uv) || (level && !coerce(2, types_.Float()))) return call;
    if (argc == least + 1 && !offset_arg(least)) return call;
    // A compute kernel has no derivatives to choose a level with: Sample reads level 0.
    return record(ir::TextureOp::SampleLevel, t->Element(), level ? 0 : ast::kTextureNoLod);
  }
  if (name == "SampleGrad") {
    uint32_t g = t->TextureDim() == 4 ? 3 : t->TextureDim();
    if (argc != 4) {
      return wrong(a_sampler + "the " + coord + ", and the float" + std::to_string(g) +
                   " derivatives of the coordinate along x and along y");
    }
    if (!coerce(1, uv) || !coerce(2, float_vector(g)) || !coerce(3, float_vector(g))) return call;
    return record(ir::TextureOp::SampleGrad, t->Element());
  }
  if (comparison) {
    if (t->Element() != types_.Float()) {
      return refuse("a comparison samples a texture of 'float' depth values");
    }
    if (argc != 3) {
      return wrong((t->IsCombinedSampler() ? "" : "a SamplerComparisonState, ") +
                   std::string("the ") + coord + " and the float reference");
    }
    if (!coerce(1, uv) || !coerce(2, types_.Float())) return call;
    return record(ir::TextureOp::SampleCmpLevelZero, types_.Float());
  }
  // Gather, GatherRed, ...: one component of the four texels bilinear filtering would use.
  if (t->TextureDim() != 2 && t->TextureDim() != 4) {
    return refuse("gathering needs a 2D or cube texture");
  }
  uint32_t component = name == "GatherGreen" ? 1 : name == "GatherBlue" ? 2 : name == "GatherAlpha" ? 3 : 0;
  if (component >= t->Element()->Count()) {
    return refuse("its texels have " + std::to_string(t->Element()->Count()) + " component(s)");
  }
  if (argc != 2) {
    return wrong(t->IsCombinedSampler() ? "the " + coord : "a sampler and the " + coord);
  }
  if (!coerce(1, uv)) return call;
  return record(ir::TextureOp::Gather, types_.Vector(t->Element()->ScalarType(), 4),
                component << 8);
}

ast::Expr* Checker::CheckTextureDims(ast::CallExpr* call, ast::MemberExpr* callee) {
  const Type* t = callee->base->type;
  const std::string shown = t->Name() + ".GetDimensions";
  uint32_t sizes = SizeCount(t);
  size_t argc = call->args.size();
  bool with_mip = !t->IsWritable() && !t->IsTypedBuffer() && argc == sizes + 2;
  if (t->IsTypedBuffer() && argc != 1) {
    diags_.Report(DiagId::TextureArgs, call->range, shown,
                  "one 'out uint' argument: the element count");
    return call;
  }
  if (argc != sizes && !with_mip) {
    std::string names = t->TextureDim() == 1 ? "width" : t->TextureDim() == 3 ? "width, height, depth" : "width, height";
    if (t->IsTextureArray()) names += ", layer count";
    std::string takes = "the 'out uint' " + names;
    if (!t->IsWritable()) takes += ", or a uint mip level, then those and the 'out uint' level count";
    diags_.Report(DiagId::TextureArgs, call->range, shown, takes);
    return call;
  }
  size_t first = 0;
  if (with_mip) {
    call->args[0] = Coerce(call->args[0], types_.UInt());
    if (call->args[0]->type->IsError()) return call;
    first = 1;
  }
  for (size_t i = first; i < argc; ++i) {
    ast::Expr*& out = call->args[i];
    if (!CheckAssignable(out)) return call;
    const Type* s = out->type;
    if (!s->IsScalar() || (s->Kind() != TypeKind::UInt && s->Kind() != TypeKind::Int &&
                           s->Kind() != TypeKind::Float)) {
      diags_.Report(DiagId::TextureArgs, out->range, shown,
                    "'out uint' (or int or float) arguments, not a value of type '" + s->Name() + "'");
      return call;
    }
  }
  call->buffer_method = ast::BufferMethod::TextureDims;
  call->buffer_imm = with_mip ? 3 : 0;
  call->type = types_.Void();
  return call;
}

}  // namespace slope::sema
