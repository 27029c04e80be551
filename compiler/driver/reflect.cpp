#include "compiler/driver/reflect.h"

#include <algorithm>
#include <bit>

namespace slope::driver {
namespace {

using targets::BufferLayout;

/// The layout rules of buffer memory: the rule set and the matrices' default.
struct Rules {
  BufferLayout buffers;
  ir::MatrixLayout matrices;
};

ScalarKind ScalarKindOf(const ir::Type* t) {
  if (t->IsDevicePointer()) return ScalarKind::UInt64;  // a pointer reflects as its address
  const ir::Type* s = t->Scalar();
  if (s->IsBool()) return ScalarKind::Bool;
  // Indexed by log2(width / 8): 8, 16, 32, 64 bits.
  static constexpr ScalarKind kFloats[] = {ScalarKind::Float16, ScalarKind::Float16,
                                           ScalarKind::Float32, ScalarKind::Float64};
  static constexpr ScalarKind kInts[] = {ScalarKind::Int8, ScalarKind::Int16, ScalarKind::Int32,
                                         ScalarKind::Int64};
  static constexpr ScalarKind kUInts[] = {ScalarKind::UInt8, ScalarKind::UInt16, ScalarKind::UInt32,
                                          ScalarKind::UInt64};
  uint32_t w = s->Width();
  size_t index = w == 8 ? 0 : w == 16 ? 1 : w == 32 ? 2 : 3;
  return s->IsFloat() ? kFloats[index] : s->IsSigned() ? kInts[index] : kUInts[index];
}

void FlattenFields(const ir::Type* t, const std::string& prefix, uint32_t base, Rules rules,
                   std::vector<FieldLayout>* out);

/// One member of type `m` named `name` at `offset`: arrays become one entry per element
/// ("w[0]", "w[1]"), structs their flattened members.
void FlattenMember(const ir::Type* m, const std::string& name, uint32_t offset, Rules rules,
                   std::vector<FieldLayout>* out) {
  if (m->IsStruct()) {
    FlattenFields(m, name + ".", offset, rules, out);
  } else if (m->IsMatrix()) {
    // One entry per row; a column-major row's components are a matrix stride apart.
    uint32_t stride = targets::LayoutMatrixStride(m, rules.buffers, rules.matrices);
    uint32_t scalar = ScalarKindBytes(ScalarKindOf(m));
    bool row_major = rules.matrices != ir::MatrixLayout::ColumnMajor;
    for (uint32_t r = 0; r < m->Count(); ++r) {
      FieldLayout field{name + "[" + std::to_string(r) + "]", ScalarKindOf(m), m->Cols(),
                        offset + r * (row_major ? stride : scalar)};
      field.component_stride = row_major ? 0 : stride;
      out->push_back(field);
    }
  } else if (m->IsArray()) {
    uint32_t stride = targets::LayoutArrayStride(m->Element(), rules.buffers, rules.matrices);
    for (uint32_t k = 0; k < m->Count(); ++k) {
      FlattenMember(m->Element(), name + "[" + std::to_string(k) + "]", offset + k * stride, rules,
                    out);
    }
  } else {
    out->push_back({name, ScalarKindOf(m), m->Count(), offset});
  }
}

void FlattenFields(const ir::Type* t, const std::string& prefix, uint32_t base, Rules rules,
                   std::vector<FieldLayout>* out) {
  std::vector<uint32_t> offsets = targets::LayoutMemberOffsets(t, rules.buffers, rules.matrices);
  for (size_t i = 0; i < t->Members().size(); ++i) {
    Rules own{rules.buffers, targets::MatrixLayoutOf(t->MemberMatrixLayout(i), rules.matrices)};
    FlattenMember(t->Members()[i], prefix + t->MemberNames()[i], base + offsets[i], own, out);
  }
}

ElementLayout LayoutOf(const ir::Type* element, Rules rules) {
  ElementLayout layout;
  layout.size = targets::LayoutSize(element, rules.buffers, rules.matrices);
  layout.stride = targets::LayoutArrayStride(element, rules.buffers, rules.matrices);
  if (element->IsStruct()) {
    layout.struct_name = element->StructName();
    FlattenFields(element, "", 0, rules, &layout.fields);
    return layout;
  }
  layout.scalar = ScalarKindOf(element);
  layout.components = element->Count();
  if (element->IsMatrix()) {
    // Rows of Cols() components; where each lies depends on the matrix layout.
    uint32_t stride = targets::LayoutMatrixStride(element, rules.buffers, rules.matrices);
    uint32_t scalar = ScalarKindBytes(layout.scalar);
    bool row_major = rules.matrices != ir::MatrixLayout::ColumnMajor;
    layout.rows = element->Count();
    layout.components = element->Cols();
    layout.row_step = row_major ? stride : scalar;
    layout.component_stride = row_major ? scalar : stride;
  }
  return layout;
}

/// A uniform buffer or push-constant block; an empty name when it belongs to an entry
/// point not emitted. Uniform buffers follow std140 and push constants std430 unless the
/// scalar layout is chosen, as the SPIR-V writer lays them out.
BindingInfo ReflectUniform(const ir::Global& g, const std::vector<std::string>& entries,
                           Rules rules) {
  BindingInfo b;
  const ir::Type* block = g.GetType()->Element();
  Rules own = rules;
  if (rules.buffers != BufferLayout::Scalar) {
    own.buffers = g.IsUniform() ? BufferLayout::Std140 : BufferLayout::Std430;
  }
  b.element.size = targets::LayoutSize(block, own.buffers, own.matrices);
  b.element.stride = b.element.size;
  b.set = g.set;
  b.binding = g.binding;
  const std::string kCBuffer = ".cbuffer";
  const std::string kUniforms = ".uniforms";
  const std::string& struct_name = block->StructName();
  std::string prefix;
  const bool entry_block =
      g.IsPushConstant() && g.Name().size() > kUniforms.size() &&
      g.Name().compare(g.Name().size() - kUniforms.size(), kUniforms.size(), kUniforms) == 0;
  if (entry_block) {
    b.kind = ResourceKind::PushConstant;
    b.entry_point = g.Name().substr(0, g.Name().size() - kUniforms.size());
    b.element.struct_name = struct_name;
    if (!entries.empty() &&
        std::find(entries.begin(), entries.end(), b.entry_point) == entries.end()) {
      return BindingInfo{};
    }
  } else {
    // A uniform buffer, or a `[[vk::push_constant]]` block every entry point reads (Reflect
    // names the entry points).
    b.kind = g.IsPushConstant() ? ResourceKind::PushConstant : ResourceKind::UniformBuffer;
    bool is_cbuffer =
        struct_name.size() > kCBuffer.size() &&
        struct_name.compare(struct_name.size() - kCBuffer.size(), kCBuffer.size(), kCBuffer) == 0;
    // A cbuffer's members are read unqualified; a ConstantBuffer<T> p is a block holding
    // one T named p, whose members flatten to "p.a"; the plain fields of a struct holding
    // buffers are read through its name.
    if (!is_cbuffer) prefix = g.Name() + ".";
    b.element.struct_name = is_cbuffer ? g.Name() : struct_name;
    if (is_cbuffer && block->Members().size() == 1 && block->MemberNames()[0] == g.Name() &&
        block->Members()[0]->IsStruct()) {
      b.element.struct_name = block->Members()[0]->StructName();
    }
  }
  b.name = g.Name();
  FlattenFields(block, prefix, 0, own, &b.element.fields);
  return b;
}

}  // namespace

namespace {

/// The view format of typed buffer `g`: its storage format, else the one its element
/// type implies (float4: rgba32f, int: r32i, uint3: rgb32ui, ...).
std::string TexelBufferFormat(const ir::Global& g) {
  if (g.image_format != ir::ImageFormat::Unknown) return ir::ImageFormatName(g.image_format);
  const ir::Type* e = g.GetType()->Element();
  const ir::Type* s = e->Scalar();
  static const char* const kChannels[] = {"r", "rg", "rgb", "rgba"};
  const char* kind = s->IsFloat() ? "32f" : s->IsSigned() ? "32i" : "32ui";
  return std::string(kChannels[(e->IsVector() ? e->Count() : 1) - 1]) + kind;
}

/// One texel of `format` as a buffer's memory holds it: unorm components are bytes,
/// snorm ones signed bytes.
ElementLayout FormatTexelLayout(std::string_view format) {
  ElementLayout layout;
  size_t channels = format.find_first_of("0123456789");
  std::string_view kind = format.substr(channels);
  layout.components = static_cast<uint32_t>(channels);
  layout.scalar = kind == "32f"      ? ScalarKind::Float32
                  : kind == "16f"    ? ScalarKind::Float16
                  : kind == "32i"    ? ScalarKind::Int32
                  : kind == "16i"    ? ScalarKind::Int16
                  : kind == "8i"     ? ScalarKind::Int8
                  : kind == "8snorm" ? ScalarKind::Int8
                  : kind == "32ui"   ? ScalarKind::UInt32
                  : kind == "16ui"   ? ScalarKind::UInt16
                                     : ScalarKind::UInt8;
  layout.size = layout.stride = layout.components * ScalarKindBytes(layout.scalar);
  return layout;
}

}  // namespace

Reflection Reflect(const ir::Module& module, const std::vector<std::string>& entries,
                   targets::BufferLayout buffers, ir::MatrixLayout matrices) {
  const Rules rules{buffers, matrices};
  Reflection r;
  for (const ir::Function* f : module.functions) {
    if (!f->is_entry) continue;
    if (!entries.empty() && std::find(entries.begin(), entries.end(), f->Name()) == entries.end())
      continue;
    EntryPointInfo& e = r.entry_points.emplace_back();
    e.name = f->Name();
    e.numthreads = f->entry.numthreads;
    e.wave_size = f->entry.wave_size;
    for (size_t i = 0; i < 3; ++i) {
      if (f->entry.numthreads_spec[i] != nullptr) {
        e.numthreads_spec_ids[i] = f->entry.numthreads_spec[i]->spec_id;
      }
    }
  }
  for (const ir::Global* g : module.spec_constants) {
    SpecConstantInfo s;
    s.name = g->Name();
    s.id = g->spec_id;
    s.type = ScalarKindOf(g->GetType());
    const ir::Constant* c = g->spec_default;
    if (g->GetType()->IsFloat()) {
      s.default_bits = std::bit_cast<uint32_t>(static_cast<float>(c->AsDouble()));
    } else {
      s.default_bits = static_cast<uint32_t>(c->Bits());
    }
    s.value_bits = s.default_bits;
    r.spec_constants.push_back(std::move(s));
  }
  for (const ir::Global* g : module.globals) {
    if (g->IsWorkgroup() || g->IsPrivate()) continue;  // workgroup and private memory bind nothing
    if (g->IsUniform() || g->IsPushConstant()) {
      BindingInfo b = ReflectUniform(*g, entries, rules);
      if (b.name.empty()) continue;
      if (b.kind == ResourceKind::PushConstant && b.entry_point.empty()) {
        // The module's `[[vk::push_constant]]` block: each entry point's push constants.
        for (const EntryPointInfo& e : r.entry_points) {
          b.entry_point = e.name;
          r.bindings.push_back(b);
        }
        continue;
      }
      r.bindings.push_back(std::move(b));
      continue;
    }
    BindingInfo b;
    b.name = g->Name();
    b.set = g->set;
    b.binding = g->binding;
    const ir::Type* t = g->GetType();
    if (t->IsSampler()) {
      b.kind = ResourceKind::Sampler;
      b.texture.comparison = t->IsComparison();
      b.element = ElementLayout{};
      b.element.size = b.element.stride = 0;
      r.bindings.push_back(b);
      continue;
    }
    if (t->IsTexelBuffer()) {
      b.kind = t->IsWritable() ? ResourceKind::RWTexelBuffer : ResourceKind::TexelBuffer;
      b.texture.dim = static_cast<uint32_t>(t->Dim());
      b.texture.format = TexelBufferFormat(*g);
      b.element = FormatTexelLayout(b.texture.format);
      r.bindings.push_back(b);
      continue;
    }
    if (t->IsTexture()) {
      b.kind = t->IsWritable()   ? ResourceKind::RWTexture
               : t->IsCombined() ? ResourceKind::SampledTexture
                                 : ResourceKind::Texture;
      b.texture.dim = static_cast<uint32_t>(t->Dim());
      b.texture.arrayed = t->IsArrayed();
      b.texture.comparison = t->IsCombined() && t->IsComparison();
      if (g->image_format != ir::ImageFormat::Unknown) {
        b.texture.format = ir::ImageFormatName(g->image_format);
      }
    } else {
      b.kind = t->IsWritable() ? ResourceKind::RWStructuredBuffer : ResourceKind::StructuredBuffer;
    }
    b.element = LayoutOf(t->Element(), rules);
    r.bindings.push_back(b);
  }
  return r;
}

}  // namespace slope::driver
