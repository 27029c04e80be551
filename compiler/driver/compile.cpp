#include "compiler/driver/compile.h"
#include "compiler/driver/modules.h"
#include "compiler/driver/validate_output.h"

#include <algorithm>
#include <iostream>

#include "compiler/ast/ast.h"
#include "compiler/ast/dump.h"
#include "compiler/base/big_stack.h"
#include "compiler/base/ice.h"
#include "compiler/diag/diag.h"
#include "compiler/ir/printer.h"
#include "compiler/ir/verifier.h"
#include "compiler/lower/lower.h"
#include "compiler/parse/parser.h"
#include "compiler/passes/passes.h"
#include "compiler/preprocess/lexer.h"
#include "compiler/preprocess/preprocessor.h"
#include "compiler/sema/check.h"
#include "compiler/driver/targets.h"
#include "compiler/targets/spirv/limits.h"
#include "compiler/targets/spirv/validate.h"
#include "stdlib/core_library.h"

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
  static constexpr ScalarKind kUInts[] = {ScalarKind::UInt8, ScalarKind::UInt16,
                                          ScalarKind::UInt32, ScalarKind::UInt64};
  uint32_t w = s->Width();
  size_t index = w == 8 ? 0 : w == 16 ? 1 : w == 32 ? 2 : 3;
  return s->IsFloat() ? kFloats[index] : s->IsSigned() ? kInts[index] : kUInts[index];
}

void FlattenFields(const ir::Type* t, const std::string& prefix, uint32_t base,
                   Rules rules, std::vector<FieldLayout>* out);

/// One member of type `m` named `name` at `offset`: arrays become one entry per element
/// ("w[0]", "w[1]"), structs their flattened members.
void FlattenMember(const ir::Type* m, const std::string& name, uint32_t offset,
                   Rules rules, std::vector<FieldLayout>* out) {
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
      FlattenMember(m->Element(), name + "[" + std::to_string(k) + "]", offset + k * stride,
                    rules, out);
    }
  } else {
    out->push_back({name, ScalarKindOf(m), m->Count(), offset});
  }
}

void FlattenFields(const ir::Type* t, const std::string& prefix, uint32_t base,
                   Rules rules, std::vector<FieldLayout>* out) {
  std::vector<uint32_t> offsets =
      targets::LayoutMemberOffsets(t, rules.buffers, rules.matrices);
  for (size_t i = 0; i < t->Members().size(); ++i) {
    Rules own{rules.buffers,
              targets::MatrixLayoutOf(t->MemberMatrixLayout(i), rules.matrices)};
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
  const bool entry_block = g.IsPushConstant() && g.Name().size() > kUniforms.size() &&
                           g.Name().compare(g.Name().size() - kUniforms.size(), kUniforms.size(),
                                            kUniforms) == 0;
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
    bool is_cbuffer = struct_name.size() > kCBuffer.size() &&
                      struct_name.compare(struct_name.size() - kCBuffer.size(), kCBuffer.size(),
                                          kCBuffer) == 0;
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

Reflection Reflect(const ir::Module& module, const std::vector<std::string>& entries,
                   Rules rules) {
  Reflection r;
  for (const ir::Function* f : module.functions) {
    if (!f->is_entry) continue;
    if (!entries.empty() && std::find(entries.begin(), entries.end(), f->Name()) == entries.end()) continue;
    r.entry_points.push_back({f->Name(), f->entry.numthreads});
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

/// SPIR-V's limit on global variables, checked before lowering when the declarations
/// alone pass it: each buffer, texture or sampler variable, `groupshared` variable and
/// `static` variable becomes at least one global (10^5 buffers were lowered and run
/// through the passes before the writer's check, CheckLimits, said so). False, with an
/// error at the declaration that passes the limit, when they do; the writer's check
/// counts the rest (arrays and structs of buffers, cbuffers, built-in inputs).
bool CheckGlobalCount(const sema::CheckedModule& checked, diag::DiagEngine& diags) {
  std::vector<const ast::Decl*> globals;
  for (const ast::Decl* d : checked.resources) {
    if (d->kind == ast::DeclKind::Var &&
        static_cast<const ast::VarDecl*>(d)->type->IsResource()) {
      globals.push_back(d);
    }
  }
  globals.insert(globals.end(), checked.groupshared.begin(), checked.groupshared.end());
  globals.insert(globals.end(), checked.statics.begin(), checked.statics.end());
  if (globals.size() <= targets::spirv::kMaxGlobalVariables) return true;
  const ast::Decl* first_over = globals[targets::spirv::kMaxGlobalVariables];
  diags.Report(diag::DiagId::SpirvTooManyGlobals, first_over->name_range, first_over->name,
               "at least " + std::to_string(globals.size()), targets::spirv::kMaxGlobalVariables);
  return false;
}

}  // namespace

bool ValidateOutput(const std::vector<uint32_t>& words, diag::DiagEngine& diags,
                    bool scalar_layout) {
  std::string message;
  if (targets::spirv::ValidateSpirv(words, &message, scalar_layout)) return true;
  diags.Report(diag::DiagId::SpirvValidationFailed, source::SourceRange(), message);
  return false;
}

namespace {
CompileResult CompileOnThisThread(const CompileOptions& options) {
  CompileResult result;
  std::ostream& diag_out = options.diag_out != nullptr ? *options.diag_out : std::cerr;
  source::SourceManager sources;
  diag::Options diag_options;
  diag_options.format = options.diag_format == DiagFormat::Json ? diag::Format::Json : diag::Format::Text;
  diag_options.error_limit = options.error_limit;
  diag_options.disabled_warnings = options.disabled_warnings;
  diag_options.error_warnings = options.error_warnings;
  diag_options.all_warnings_are_errors = options.all_warnings_are_errors;
  diag_options.records = options.diagnostics;
  if (options.report_checkpoint_intermediates) {
    diag_options.remarks.push_back(diag::Remark::CheckpointIntermediates);
  }
  diag::DiagEngine diags(sources, diag_out, diag_options);
  auto finish = [&]() -> CompileResult& {
    result.error_count = diags.ErrorCount();
    result.warning_count = diags.WarningCount();
    result.ok = !diags.HasErrors();
    return result;
  };
  base::IceLocationScope ice(options.input_path);

  source::FileId file = options.source_text.has_value()
                            ? sources.AddFile(options.input_path, *options.source_text)
                            : sources.LoadFile(options.input_path);
  if (file == 0) {
    diags.Report(diag::DiagId::CannotOpenFile, source::SourceRange(), options.input_path);
    return finish();
  }

  // Front end.
  preprocess::PreprocessOptions pp_options;
  pp_options.include_paths = options.include_paths;
  pp_options.defines = options.defines;
  preprocess::PreprocessResult pp_result;
  std::vector<preprocess::Token> tokens =
      preprocess::Preprocess(sources, file, pp_options, diags, &pp_result);
  result.files_read.push_back(options.input_path);
  for (std::string& path : pp_result.included_files) result.files_read.push_back(std::move(path));
  if (options.preprocess_only) {
    result.text = preprocess::PrintTokens(tokens, sources);
    return finish();
  }
  ast::AstContext ast_ctx;
  parse::ParseOptions parse_options;
  if (const TargetInfo* t = FindTarget(options.target)) {
    parse_options.target_cases.emplace_back(t->switch_case);
  }
  ast::Module* module = parse::ParseModule(tokens, ast_ctx, diags, parse_options);
  if (options.target == Target::Ast) {
    result.text = ast::DumpModule(*module);
    return finish();
  }
  if (options.target == Target::Parse) return finish();
  if (diags.HasErrors()) return finish();
  // Imported modules' declarations come before the file's, each module's after those
  // of the modules it imports (modules.cpp).
  ModuleGraph graph;
  if (!ImportModules(sources, ast_ctx, diags, pp_options, parse_options, file, module,
                     &result.files_read, &graph)) {
    return finish();
  }
  // The core library's declarations come first, as if the module began with them.
  source::FileId core = sources.AddFile(std::string(stdlib::kCoreLibraryPath),
                                       std::string(stdlib::CoreLibrarySource()));
  std::vector<preprocess::Token> core_tokens =
      preprocess::Preprocess(sources, core, preprocess::PreprocessOptions{}, diags);
  ast::Module* core_module = parse::ParseModule(core_tokens, ast_ctx, diags);
  if (diags.HasErrors()) SLOPE_ICE("the core library does not parse");
  module->decls = core_module->decls;
  module->decls.insert(module->decls.end(), graph.decls.begin(), graph.decls.end());
  graph.map.file_starts.emplace_back(core, static_cast<uint32_t>(graph.map.units.size()));
  graph.map.units.push_back({"core", true});
  std::sort(graph.map.file_starts.begin(), graph.map.file_starts.end());
  sema::TypeContext types;
  sema::CheckedModule checked;
  sema::EntryRequest entry_request;
  entry_request.names = options.entries;
  entry_request.stage = options.stage;
  const TargetInfo* target = FindTarget(options.target);
  entry_request.require_one = target != nullptr;
  entry_request.file = file;
  if (!sema::CheckModule(*module, ast_ctx, types, diags, &checked, &graph.map, &entry_request)) {
    return finish();
  }

  // Which entry points to emit: those -entry names (sema checked they exist), else all.
  const std::vector<std::string>& entries = options.entries;
  if (options.target == Target::None) {
    // A check gives what the module offers: its entry points (the embedded API lists
    // them for a loaded module).
    for (const ast::FuncDecl* f : checked.entry_points) {
      result.reflection.entry_points.push_back({f->name, sema::NumThreadsOf(*f)});
    }
    return finish();
  }

  if ((options.target == Target::SpirV || options.target == Target::SpirVAsm) &&
      !CheckGlobalCount(checked, diags)) {
    return finish();
  }

  // Middle.
  // Code for entry points, and the target's passes that -dump-ir-after shows: functions
  // no entry point reaches are not lowered (the writers would drop them). -dump-ir shows
  // every function.
  const bool reachable_only = target != nullptr || !options.dump_ir_after.empty();
  std::unique_ptr<ir::Module> ir_module = lower::LowerModule(checked, sources, reachable_only);
  // Atomics in generic code, on the types they were specialized with: those no target
  // takes are reported before the verifier (which would call them malformed) sees them.
  passes::Options check_options;
  check_options.diags = &diags;
  passes::CheckAtomics(*ir_module, check_options);
  if (diags.HasErrors()) return finish();
  ir::VerifyOrIce(*ir_module, "lowering");
  const bool scalar = options.scalar_layout || (target != nullptr && target->scalar_layout_only);
  const BufferLayout rules = scalar ? BufferLayout::Scalar : BufferLayout::Std430;
  const ir::MatrixLayout matrices =
      options.column_major ? ir::MatrixLayout::ColumnMajor : ir::MatrixLayout::RowMajor;
  result.reflection = Reflect(*ir_module, entries, {rules, matrices});
  if (options.target == Target::Ir && options.dump_ir_after.empty()) {
    result.text = ir::PrintModule(*ir_module);
    return finish();
  }

  // The target's passes.
  const TargetInfo& passes = target != nullptr ? *target : DefaultTarget();
  const std::vector<std::string_view>& pipeline = passes.pass_names();
  if (!options.dump_ir_after.empty() &&
      std::find(pipeline.begin(), pipeline.end(), options.dump_ir_after) == pipeline.end()) {
    std::string names;
    for (std::string_view name : pipeline) names += (names.empty() ? "" : ", ") + std::string(name);
    diags.Report(diag::DiagId::IrUnknownPass, source::SourceRange(), options.dump_ir_after, names);
    return finish();
  }
  bool dumped = false;
  passes.run_passes(
      *ir_module,
      [&](std::string_view pass, const ir::Module& m) {
        if (!dumped && pass == options.dump_ir_after) {
          result.text = ir::PrintModule(m);
          dumped = true;
        }
      },
      &diags, options.verify_each_pass);
  if (target == nullptr || diags.HasErrors()) return finish();

  // The target's writer.
  if (checked.entry_points.empty()) {
    diags.Report(diag::DiagId::NoEntryPoints, source::SourceRange(source::SourceLoc{file, 0}),
                 "no function has [numthreads] or [shader(\"compute\")]");
    return finish();
  }
  EmitRequest request{*ir_module, options,  checked.entry_points.size(), rules, matrices,
                      sources,    file,     diags,                       result};
  target->emit(request);
  return finish();
}
}  // namespace

CompileResult Compile(const CompileOptions& options) {
  // On a stack sized for the parser's limits, whatever stack the caller runs on.
  CompileResult result;
  base::RunWithStack(base::kCompileStackBytes, [&] { result = CompileOnThisThread(options); });
  return result;
}

}  // namespace slope::driver
