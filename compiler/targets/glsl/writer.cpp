#include "compiler/targets/glsl/writer.h"

#include <algorithm>
#include <set>

#include "compiler/base/ice.h"
#include "compiler/targets/ctext/module.h"
#include "compiler/targets/ctext/text_writer.h"
#include "compiler/targets/glsl/context.h"
#include "compiler/targets/glsl/function_writer.h"

namespace slope::targets::glsl {
namespace {

using ctext::Reachable;
using ctext::UsedGlobals;

/// The entry point `options` names (the module's first when it names none).
const ir::Function* FindEntry(const ir::Module& module, const WriterOptions& options) {
  for (const ir::Function* f : module.functions) {
    if (f->is_entry && (options.entry_point.empty() || f->Name() == options.entry_point)) return f;
  }
  SLOPE_ICE("the entry point to write is not in the module");
}

/// The first matrix field under `t` whose layout differs from `layout`, or "".
std::string FindField(const ir::Type* t, ir::MatrixLayout layout) {
  while (t->IsArray()) t = t->Element();
  if (!t->IsStruct()) return "";
  for (size_t i = 0; i < t->Members().size(); ++i) {
    const ir::Type* m = t->Members()[i];
    while (m->IsArray()) m = m->Element();
    ir::MatrixLayout own = t->MemberMatrixLayout(i);
    // A float matrix member is held transposed (Context::IsTransposedMember); an array
    // of matrices or an integer matrix (an array of rows) has no such form.
    bool direct = t->Members()[i]->IsMatrix() && m->Scalar()->IsFloat();
    if (m->IsMatrix() && own != ir::MatrixLayout::Default && own != layout && !direct) {
      return t->StructName() + "." + t->MemberNames()[i];
    }
    std::string inner = FindField(m, layout);
    if (!inner.empty()) return inner;
  }
  return "";
}

/// `layout(set = S, binding = B) uniform texture2D name;` and the like: separate
/// textures (texture*, image* with the format) and samplers, as Vulkan GLSL has them.
std::string TextureDeclaration(const ir::Global& g, const std::string& name) {
  const ir::Type* t = g.GetType();
  std::string where = "set = " + std::to_string(g.set) + ", binding = " + std::to_string(g.binding);
  if (t->IsSampler()) {
    return "layout(" + where + ") uniform " + (t->IsComparison() ? "samplerShadow " : "sampler ") +
           name + ";";
  }
  const ir::Type* scalar = t->Element()->Scalar();
  std::string prefix = scalar->IsFloat() ? "" : scalar->IsSigned() ? "i" : "u";
  const char* shape = t->Dim() == ir::TextureDim::k1D       ? "1D"
                      : t->Dim() == ir::TextureDim::k2D     ? "2D"
                      : t->Dim() == ir::TextureDim::k3D     ? "3D"
                      : t->Dim() == ir::TextureDim::kBuffer ? "Buffer"
                                                            : "Cube";
  std::string suffix = std::string(shape) + (t->IsArrayed() ? "Array" : "");
  // A typed buffer (Buffer<T>) is a samplerBuffer: a uniform texel buffer, fetched
  // without a sampler; an RWBuffer<T> an imageBuffer (below).
  if (t->IsTexelBuffer() && !t->IsWritable()) {
    return "layout(" + where + ") uniform " + prefix + "samplerBuffer " + name + ";";
  }
  // A combined texture and sampler (Sampler2D) is GLSL's sampler2D; a shadow one
  // (Sampler2DShadow) its sampler2DShadow.
  if (t->IsCombined()) {
    return "layout(" + where + ") uniform " + prefix + "sampler" + suffix +
           (t->IsComparison() ? "Shadow " : " ") + name + ";";
  }
  if (!t->IsWritable()) return "layout(" + where + ") uniform " + prefix + "texture" + suffix + " " + name + ";";
  if (g.image_format != ir::ImageFormat::Unknown) {
    std::string format = ir::ImageFormatName(g.image_format);
    if (format == "rgba8snorm") format = "rgba8_snorm";
    where += ", " + format;
  }
  return "layout(" + where + ") uniform " + prefix + "image" + suffix + " " + name + ";";
}

/// Names every device pointer type that the functions, the globals and the structs
/// hold, before any function copies the module's names (a local must not take one).
void NamePointerTypes(Context& context, const std::vector<const ir::Function*>& functions) {
  auto visit = [&](const ir::Type* t) {
    while (t->IsArray() || (t->IsPointer() && !t->IsDevicePointer())) t = t->Element();
    if (t->IsDevicePointer()) context.TypeName(t);
  };
  for (const ir::Type* s : context.module_.Types().Structs()) {
    for (const ir::Type* m : s->Members()) visit(m);
  }
  for (const ir::Global* g : context.module_.globals) visit(g->GetType());
  for (const ir::Function* f : functions) {
    for (const ir::Param* p : f->params) visit(p->GetType());
    for (const ir::Block* b : f->blocks) {
      for (const ir::Param* p : b->params) visit(p->GetType());
      for (const ir::Inst* inst : b->insts) visit(inst->GetType());
    }
  }
}

/// The `buffer_reference` blocks of the device pointer types: each declared ahead (a
/// struct may hold a pointer to itself), then defined after the structs. Defining one
/// may name another (a pointer to a pointer), so the list grows while it is written.
std::pair<std::string, std::string> PointerBlocks(Context& context) {
  bool scalar = context.DeviceLayout() == targets::BufferLayout::Scalar;
  std::string packing = scalar ? "scalar" : "std430";
  if (context.options_.matrix_layout == ir::MatrixLayout::ColumnMajor) packing += ", row_major";
  ctext::TextWriter ahead, defined;
  for (size_t i = 0; i < context.Pointees().size(); ++i) {
    const ir::Type* pointee = context.Pointees()[i];
    const std::string name = context.PointerTypeName(pointee);
    uint32_t align =
        targets::LayoutAlign(pointee, context.DeviceLayout(), context.options_.matrix_layout);
    ahead.Line("layout(buffer_reference) buffer " + name + ";");
    defined.Open("layout(buffer_reference, " + packing + ", buffer_reference_align = " +
                 std::to_string(align) + ") buffer " + name);
    defined.Line(context.Declare(pointee, "v") + ";");
    defined.Close("};");
  }
  return {ahead.Text(), defined.Text()};
}

}  // namespace

std::string FindUnsupportedMatrixField(const ir::Module& module, const WriterOptions& options) {
  std::set<const ir::Global*> used = UsedGlobals(Reachable(module, {FindEntry(module, options)}));
  for (const ir::Global* g : module.globals) {
    if (g->IsWorkgroup() || g->IsPrivate() || used.count(g) == 0) continue;
    if (g->GetType()->IsTexture() || g->GetType()->IsSampler()) continue;
    std::string field = FindField(g->GetType()->Element(), options.matrix_layout);
    if (!field.empty()) return field;
  }
  return "";
}

std::string WriteGlsl(ir::Module& module, const WriterOptions& options) {
  const ir::Function* entry = FindEntry(module, options);
  WriterOptions resolved = options;
  resolved.entry_point = entry->Name();
  Context context(module, resolved);

  // Functions first: printing them finds the extensions the text needs.
  std::vector<const ir::Function*> functions = Reachable(module, {entry});
  NamePointerTypes(context, functions);
  std::string prototypes, definitions;
  for (const ir::Function* f : functions) {
    FunctionWriter writer(context, *f);
    if (f != entry) prototypes += writer.Prototype() + ";\n";
    definitions += "\n" + writer.Definition();
  }

  ctext::TextWriter decls;
  std::string structs =
      ctext::WriteStructs(module, context.ModuleNames(), [&](const ir::Type* s, size_t i) {
        return context.Declare(context.MemberStorageType(s, i), context.MemberName(s, i)) + ";";
      });
  auto [pointers_ahead, pointer_blocks] = PointerBlocks(context);
  decls.Append(pointers_ahead + structs + pointer_blocks);
  std::string packing = options.layout == targets::BufferLayout::Scalar ? "scalar" : "std430";
  if (options.layout == targets::BufferLayout::Scalar) context.Require("GL_EXT_scalar_block_layout");
  // GLSL's column_major is HLSL's row_major (GLSL's columns are HLSL's rows); a block's
  // qualifier reaches the matrices of the structs it holds.
  if (options.matrix_layout == ir::MatrixLayout::ColumnMajor) packing += ", row_major";
  // Specialization constants, every one (the pipeline may set any of them).
  for (const ir::Global* g : module.spec_constants) {
    decls.Line("layout(constant_id = " + std::to_string(g->spec_id) + ") const " +
               context.Declare(g->GetType(), context.GlobalName(g)) + " = " +
               context.Literal(g->GetType(), g->spec_default->Bits()).text + ";");
  }
  std::set<const ir::Global*> used = UsedGlobals(functions);
  for (const ir::Global* g : module.globals) {
    if (used.count(g) == 0) continue;
    const std::string& name = context.GlobalName(g);
    if (g->IsWorkgroup() || g->IsPrivate()) {
      // `groupshared` is shared memory; `static` a global variable, private to each
      // invocation.
      decls.Line((g->IsWorkgroup() ? "shared " : "") +
                 context.Declare(g->GetType()->Element(), name) + ";");
      continue;
    }
    if (g->GetType()->IsTexture() || g->GetType()->IsSampler()) {
      decls.Line(TextureDeclaration(*g, name));
      continue;
    }
    if (g->IsUniform() || g->IsPushConstant()) {
      // A block holding the struct as its one member at offset 0, so that the whole
      // struct can be read as a value; uniform buffers follow std140 unless the scalar
      // layout is chosen, push constants std430.
      std::string rules = options.layout == targets::BufferLayout::Scalar ? "scalar"
                          : g->IsUniform()                              ? "std140"
                                                                        : "std430";
      if (options.matrix_layout == ir::MatrixLayout::ColumnMajor) rules += ", row_major";
      std::string where = g->IsPushConstant() ? "push_constant, " + rules
                                              : rules + ", set = " + std::to_string(g->set) +
                                                    ", binding = " + std::to_string(g->binding);
      decls.Open("layout(" + where + ") uniform " + context.NewName(name + "_block"));
      decls.Line(context.Declare(g->GetType()->Element(), "data") + ";");
      decls.Close("} " + name + ";");
      continue;
    }
    decls.Open("layout(" + packing + ", set = " + std::to_string(g->set) + ", binding = " +
               std::to_string(g->binding) + ") " + (g->GetType()->IsWritable() ? "" : "readonly ") +
               "buffer " + context.NewName(name + "_block"));
    decls.Line(context.Declare(g->GetType()->Element(), "data[]") + ";");
    decls.Close("} " + name + ";");
  }

  ctext::TextWriter out;
  out.Line("#version 450");
  for (const std::string& e : context.Extensions()) out.Line("#extension " + e + " : require");
  // A dimension a specialization constant sets also gets `local_size_x_id = <its
  // constant_id>` (the size given beside it is the default).
  const auto& n = entry->entry.numthreads;
  std::string sizes;
  for (size_t i = 0; i < 3; ++i) {
    std::string axis = std::string("local_size_") + "xyz"[i];
    const ir::Global* spec = entry->entry.numthreads_spec[i];
    sizes += (i != 0 ? ", " : "") + axis + " = " + std::to_string(n[i]);
    if (spec != nullptr) sizes += ", " + axis + "_id = " + std::to_string(spec->spec_id);
  }
  out.Line("layout(" + sizes + ") in;");
  if (entry->entry.wave_size != 0) {
    // GLSL cannot say it: the pipeline requires the size (the reflection's "wave_size").
    out.Line("// [WaveSize(" + std::to_string(entry->entry.wave_size) +
             ")]: create the pipeline with requiredSubgroupSize " +
             std::to_string(entry->entry.wave_size) + " (VK_EXT_subgroup_size_control)");
  }
  std::string text = out.Text();
  if (!decls.Empty()) text += "\n" + decls.Text();
  if (!prototypes.empty()) text += "\n" + prototypes;
  return text + definitions;
}

}  // namespace slope::targets::glsl
