#include "compiler/driver/compile.h"

#include <algorithm>
#include <iostream>
#include <memory>
#include <mutex>
#include <unordered_map>

#include "compiler/ast/ast.h"
#include "compiler/ast/dump.h"
#include "compiler/base/big_stack.h"
#include "compiler/base/ice.h"
#include "compiler/diag/diag.h"
#include "compiler/driver/modules.h"
#include "compiler/driver/reflect.h"
#include "compiler/driver/targets.h"
#include "compiler/driver/validate_output.h"
#include "compiler/ir/printer.h"
#include "compiler/ir/verifier.h"
#include "compiler/lower/lower.h"
#include "compiler/parse/parser.h"
#include "compiler/passes/passes.h"
#include "compiler/preprocess/lexer.h"
#include "compiler/preprocess/preprocessor.h"
#include "compiler/sema/check.h"
#include "compiler/targets/spirv/limits.h"
#include "compiler/targets/spirv/validate.h"
#include "stdlib/core_tokens.h"

namespace slope::driver {
namespace {

/// The user-defined attributes sema recorded, as reflection shows them.
std::vector<UserAttributeInfo> UserAttributes(const sema::CheckedModule& checked) {
  std::vector<UserAttributeInfo> out;
  for (const sema::UserAttributeUse& use : checked.user_attributes) {
    UserAttributeInfo info{use.name, use.target_kind, use.target, {}};
    for (const ast::Expr* e : use.args) {
      AttributeArg arg;
      if (e->kind == ast::ExprKind::IntLiteral) {
        auto* lit = static_cast<const ast::IntLiteralExpr*>(e);
        arg.kind = lit->is_unsigned ? AttributeArg::Kind::UInt : AttributeArg::Kind::Int;
        arg.int_value = static_cast<int64_t>(lit->value);
      } else if (e->kind == ast::ExprKind::FloatLiteral) {
        arg.kind = AttributeArg::Kind::Float;
        arg.float_value = static_cast<const ast::FloatLiteralExpr*>(e)->value;
      } else if (e->kind == ast::ExprKind::BoolLiteral) {
        arg.kind = AttributeArg::Kind::Bool;
        arg.int_value = static_cast<const ast::BoolLiteralExpr*>(e)->value ? 1 : 0;
      } else {
        arg.kind = AttributeArg::Kind::String;
        arg.string_value = static_cast<const ast::StringLiteralExpr*>(e)->value;
      }
      info.args.push_back(std::move(arg));
    }
    out.push_back(std::move(info));
  }
  return out;
}

/// The interfaces with [anyValueSize] and their conformance ids, as reflection shows them.
std::vector<DynamicInterfaceInfo> DynamicInterfaces(const sema::CheckedModule& checked) {
  std::vector<DynamicInterfaceInfo> out;
  for (const sema::InterfaceInfo* iface : checked.dynamic_interfaces) {
    DynamicInterfaceInfo info;
    info.name = iface->name;
    info.any_value_size = static_cast<uint32_t>(iface->any_value_size);
    info.element_size = 16 + (info.any_value_size + 3) / 4 * 4;
    for (size_t id = 0; id < iface->dynamic_types.size(); ++id) {
      info.conformances.push_back({iface->dynamic_types[id]->Name(), static_cast<uint32_t>(id),
                                   iface->dynamic_payload_bytes[id]});
    }
    out.push_back(std::move(info));
  }
  return out;
}

/// Replaces every use of a specialization constant by its default value.
void BindSpecConstantDefaults(ir::Module& module) {
  if (module.spec_constants.empty()) return;
  for (ir::Function* f : module.functions) {
    for (ir::Block* b : f->blocks) {
      for (ir::Inst* inst : b->insts) {
        for (ir::Value*& operand : inst->operands) {
          if (operand->VKind() != ir::ValueKind::Global) continue;
          auto* g = static_cast<ir::Global*>(operand);
          if (g->IsSpecConstant()) operand = const_cast<ir::Constant*>(g->spec_default);
        }
      }
    }
  }
}

using targets::BufferLayout;

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

/// A module after the front end: everything the back end reads, and the state it
/// changes (core-library bodies parsed and checked on first use, types interned by
/// lowering). Compiles of one program are serialized by `mutex`.
struct CheckedProgram {
  std::mutex mutex;
  source::SourceManager sources;
  std::vector<diag::Record> front_records;  ///< diagnostics of the front end (records mode)
  std::unique_ptr<diag::DiagEngine> diags;
  ast::AstContext ast_ctx;
  ModuleGraph graph;
  std::vector<preprocess::Token> core_tokens;
  std::unordered_map<const ast::BlockStmt*, size_t> core_bodies;
  sema::TypeContext types;
  sema::CheckedModule checked;
  source::FileId file = 0;
  /// The front end's result: files read, and what a stop_after mode before lowering
  /// asked for; `ok` false when it reported an error.
  CompileResult front;
  bool ready = false;  ///< the front end succeeded and the back end may run
};

namespace {

CompileResult& Finish(CheckedProgram& p, CompileResult& result) {
  result.error_count = p.diags->ErrorCount();
  result.warning_count = p.diags->WarningCount();
  result.ok = !p.diags->HasErrors();
  return result;
}

/// Preprocesses, parses, resolves imports and checks `options`' module into `p`.
void RunFrontEnd(CheckedProgram& p, const CompileOptions& options) {
  CompileResult& result = p.front;
  std::ostream& diag_out = options.diag_out != nullptr ? *options.diag_out : std::cerr;
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
  p.diags = std::make_unique<diag::DiagEngine>(p.sources, diag_out, diag_options);
  diag::DiagEngine& diags = *p.diags;
  source::SourceManager& sources = p.sources;
  ast::AstContext& ast_ctx = p.ast_ctx;
  auto finish = [&] { Finish(p, result); };

  source::FileId file = options.source_text.has_value()
                            ? sources.AddFile(options.input_path, *options.source_text)
                            : sources.LoadFile(options.input_path);
  p.file = file;
  if (file == 0) {
    diags.Report(diag::DiagId::CannotOpenFile, source::SourceRange(), options.input_path);
    return finish();
  }
  // Front end.
  preprocess::PreprocessOptions pp_options;
  pp_options.include_paths = options.include_paths;
  pp_options.defines = options.defines;
  pp_options.language_version = options.language_version;
  preprocess::PreprocessResult pp_result;
  std::vector<preprocess::Token> tokens =
      preprocess::Preprocess(sources, file, pp_options, diags, &pp_result);
  result.files_read.push_back(options.input_path);
  for (std::string& path : pp_result.included_files) result.files_read.push_back(std::move(path));
  if (options.stop_after == StopAfter::Preprocess) {
    result.text = preprocess::PrintTokens(tokens, sources);
    return finish();
  }
  const TargetInfo& target = TargetOf(options.target);
  parse::ParseOptions parse_options;
  parse_options.target_cases.emplace_back(target.switch_case);
  parse_options.language_version = pp_result.language_version;
  ast::Module* module = parse::ParseModule(tokens, ast_ctx, diags, parse_options);
  if (options.stop_after == StopAfter::Ast) {
    result.text = ast::DumpModule(*module);
    return finish();
  }
  if (options.stop_after == StopAfter::Parse) return finish();
  if (diags.HasErrors()) return finish();
  // The syntax tree keeps what later stages read of the tokens (their text lives in the
  // source manager): release them now rather than through lowering, the passes and the
  // writer (10^6 tokens of a 10^5-line file hold 60-130 MiB).
  ModulePart main_part;
  std::vector<ModulePart> parts;
  const bool emit_module = options.stop_after == StopAfter::Module;
  if (emit_module) {
    main_part.path = options.input_path;
    main_part.language_version = pp_result.language_version;
    main_part.files_read = result.files_read;
    main_part.tokens = std::move(tokens);
  }
  std::vector<preprocess::Token>().swap(tokens);
  // Imported modules' declarations come before the file's, each module's after those
  // of the modules it imports (modules.cpp).
  ModuleGraph& graph = p.graph;
  if (!ImportModules(sources, ast_ctx, diags, pp_options, parse_options, file, module,
                     &result.files_read, &graph, emit_module ? &parts : nullptr)) {
    return finish();
  }
  // The core library's declarations come first, as if the module began with them.
  // Its tokens were made at build time (stdlib/core_tokens_gen.cpp).
  source::FileId core = 0;
  p.core_tokens = stdlib::CoreLibraryTokens(sources, &core);
  // Its function bodies are parsed, as they are checked, when lowering first needs one.
  parse::ParseOptions core_options;
  core_options.deferred_bodies = &p.core_bodies;
  ast::Module* core_module = parse::ParseModule(p.core_tokens, ast_ctx, diags, core_options);
  if (diags.HasErrors()) SLOPE_ICE("the core library does not parse");
  module->decls = core_module->decls;
  module->decls.insert(module->decls.end(), graph.decls.begin(), graph.decls.end());
  graph.map.file_starts.emplace_back(core, static_cast<uint32_t>(graph.map.units.size()));
  graph.map.units.push_back({"core", true});
  graph.map.deferred_bodies_file = core;
  graph.map.prepare_deferred_body = [&p](const ast::FuncDecl* f) {
    auto it = p.core_bodies.find(f->body);
    if (it == p.core_bodies.end()) return;
    size_t at = it->second;
    p.core_bodies.erase(it);
    parse::ParseDeferredBody(p.core_tokens, at, f->body, p.ast_ctx, *p.diags,
                             parse::ParseOptions{});
  };
  std::sort(graph.map.file_starts.begin(), graph.map.file_starts.end());
  sema::EntryRequest entry_request;
  entry_request.names = options.entries;
  entry_request.stage = options.stage;
  const bool codegen = options.stop_after == StopAfter::Nothing;
  entry_request.require_one = codegen;
  entry_request.file = file;
  if (!sema::CheckModule(*module, ast_ctx, p.types, diags, &p.checked, &graph.map,
                         &entry_request)) {
    return finish();
  }
  if (emit_module) {
    // The module's files as preprocessed, its own first, once it checked cleanly.
    parts.insert(parts.begin(), std::move(main_part));
    std::string error;
    if (!SerializeModuleFile(parts, options.module_path, sources, diags,
                             ModuleOptionsKey(pp_options), &result.binary, &error)) {
      diags.Report(diag::DiagId::ModuleFileUnusable, source::SourceRange(), options.module_path,
                   error);
    }
    return finish();
  }

  // Which entry points to emit: those -entry names (sema checked they exist), else all.
  if (options.stop_after == StopAfter::Check) {
    // A check gives what the module offers: its entry points (the embedded API lists
    // them for a loaded module).
    for (const ast::FuncDecl* f : p.checked.entry_points) {
      result.reflection.entry_points.push_back(
          {f->name, sema::NumThreadsOf(*f), sema::WaveSizeOf(*f)});
    }
    result.reflection.user_attributes = UserAttributes(p.checked);
    result.reflection.dynamic_interfaces = DynamicInterfaces(p.checked);
    return finish();
  }

  if (codegen && (options.target == Target::SpirV || options.target == Target::SpirVAsm) &&
      !CheckGlobalCount(p.checked, diags)) {
    return finish();
  }
  finish();
  p.ready = true;
}

/// Lowers `p`'s checked module, runs the target's passes and writes its code.
void RunBackEnd(CheckedProgram& p, const CompileOptions& options, CompileResult& result) {
  diag::DiagEngine& diags = *p.diags;
  const source::SourceManager& sources = p.sources;
  const sema::CheckedModule& checked = p.checked;
  const source::FileId file = p.file;
  const TargetInfo& target = TargetOf(options.target);
  const bool codegen = options.stop_after == StopAfter::Nothing;
  const std::vector<std::string>& entries = options.entries;
  auto finish = [&] { Finish(p, result); };

  // Middle.
  // Code for entry points, and the target's passes that -dump-ir-after shows: functions
  // no entry point reaches are not lowered (the writers would drop them). -dump-ir shows
  // every function.
  const bool reachable_only = codegen || !options.dump_ir_after.empty();
  std::unique_ptr<ir::Module> ir_module =
      lower::LowerModule(checked, sources, reachable_only, options.bindings);
  // Atomics in generic code, on the types they were specialized with: those no target
  // takes are reported before the verifier (which would call them malformed) sees them.
  passes::Options check_options;
  check_options.diags = &diags;
  passes::CheckAtomics(*ir_module, check_options);
  if (diags.HasErrors()) return finish();
  ir::VerifyOrIce(*ir_module, "lowering");
  const bool scalar = options.scalar_layout || target.scalar_layout_only;
  const BufferLayout rules = scalar ? BufferLayout::Scalar : BufferLayout::Std430;
  const ir::MatrixLayout matrices =
      options.column_major ? ir::MatrixLayout::ColumnMajor : ir::MatrixLayout::RowMajor;
  result.reflection = Reflect(*ir_module, entries, rules, matrices);
  result.reflection.user_attributes = UserAttributes(checked);
  result.reflection.dynamic_interfaces = DynamicInterfaces(checked);
  if (options.stop_after == StopAfter::Ir && options.dump_ir_after.empty()) {
    result.text = ir::PrintModule(*ir_module);
    return finish();
  }

  // Specialization constants stay such for SPIR-V and GLSL (set at pipeline creation);
  // every other target compiles their defaults in.
  if (options.target != Target::SpirV && options.target != Target::SpirVAsm &&
      options.target != Target::Glsl) {
    BindSpecConstantDefaults(*ir_module);
  }

  // The target's passes.
  const std::vector<std::string_view>& pipeline = target.pass_names();
  if (!options.dump_ir_after.empty() &&
      std::find(pipeline.begin(), pipeline.end(), options.dump_ir_after) == pipeline.end()) {
    std::string names;
    for (std::string_view name : pipeline) names += (names.empty() ? "" : ", ") + std::string(name);
    diags.Report(diag::DiagId::IrUnknownPass, source::SourceRange(), options.dump_ir_after, names);
    return finish();
  }
  bool dumped = false;
  target.run_passes(
      *ir_module,
      [&](std::string_view pass, const ir::Module& m) {
        if (!dumped && pass == options.dump_ir_after) {
          result.text = ir::PrintModule(m);
          dumped = true;
        }
      },
      &diags, options.verify_each_pass);
  if (!codegen || diags.HasErrors()) return finish();

  // The target's writer.
  if (checked.entry_points.empty()) {
    diags.Report(diag::DiagId::NoEntryPoints, source::SourceRange(source::SourceLoc{file, 0}),
                 "no function has [numthreads] or [shader(\"compute\")]");
    return finish();
  }
  EmitRequest request{*ir_module, options,  checked.entry_points.size(), rules, matrices,
                      sources,    file,     diags,                       result};
  request.release_module = [&ir_module] { ir_module.reset(); };
  target.emit(request);
  finish();
}
}  // namespace

CompileResult Compile(const CompileOptions& options) {
  // On a stack sized for the parser's limits, whatever stack the caller runs on.
  CompileResult result;
  base::RunWithStack(base::kCompileStackBytes, [&] {
    base::IceLocationScope ice(options.input_path);
    auto program = std::make_unique<CheckedProgram>();
    RunFrontEnd(*program, options);
    result = std::move(program->front);
    if (program->ready) RunBackEnd(*program, options, result);
    if (options.keep_state != nullptr) options.keep_state->push_back(std::move(program));
  });
  return result;
}

std::shared_ptr<CheckedProgram> CheckProgram(const CompileOptions& options) {
  auto program = std::make_shared<CheckedProgram>();
  CompileOptions front = options;
  front.diagnostics = &program->front_records;
  base::RunWithStack(base::kCompileStackBytes, [&] {
    base::IceLocationScope ice(options.input_path);
    RunFrontEnd(*program, front);
  });
  return program;
}

CompileResult CompileChecked(CheckedProgram& program, const CompileOptions& options) {
  SLOPE_ASSERT(options.diagnostics != nullptr);
  std::lock_guard<std::mutex> lock(program.mutex);
  CompileResult result = program.front;
  options.diagnostics->insert(options.diagnostics->end(), program.front_records.begin(),
                              program.front_records.end());
  if (!program.ready) return result;
  program.diags->Restart(options.diagnostics);
  base::RunWithStack(base::kCompileStackBytes, [&] {
    base::IceLocationScope ice(options.input_path);
    RunBackEnd(program, options, result);
  });
  result.warning_count += program.front.warning_count;
  return result;
}

}  // namespace slope::driver
