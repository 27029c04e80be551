#include "compiler/driver/targets.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <set>

#include "compiler/base/ice.h"
#include "compiler/targets/cuda/writer.h"
#include "compiler/targets/glsl/writer.h"
#include "compiler/targets/layout/layout.h"
#include "compiler/targets/llvm/plugin_loader.h"
#include "compiler/targets/spirv/limits.h"
#include "compiler/targets/spirv/optimize.h"
#include "compiler/targets/spirv/raise.h"
#include "compiler/targets/spirv/validate.h"
#include "compiler/targets/spirv/writer.h"

namespace slope::driver {

bool ValidateOutput(const std::vector<uint32_t>& words, diag::DiagEngine& diags,
                    bool scalar_layout);

namespace {

void RunRaise(ir::Module& module, const AfterPass& after_pass, diag::DiagEngine* diags,
              bool verify_each) {
  targets::spirv::Raise(module, after_pass, diags, verify_each);
}

bool RejectBareMatrixPointers(EmitRequest& r);

/// Drops the functions that no entry point reaches through calls: after differentiation
/// and inlining these are the primals of derivatives and the like, which the SPIRV-Tools
/// validator and optimizer would otherwise read (and the optimizer remove) for nothing.
void DropUnreachableFunctions(ir::Module& module) {
  std::set<const ir::Function*> reached;
  std::vector<const ir::Function*> work;
  for (const ir::Function* f : module.functions) {
    if (f->is_entry && reached.insert(f).second) work.push_back(f);
  }
  while (!work.empty()) {
    const ir::Function* f = work.back();
    work.pop_back();
    for (const ir::Block* b : f->blocks) {
      for (const ir::Inst* inst : b->insts) {
        if (inst->GetOp() == ir::Op::Call && reached.insert(inst->callee).second) {
          work.push_back(inst->callee);
        }
      }
    }
  }
  if (reached.size() == module.functions.size()) return;
  std::erase_if(module.functions, [&](const ir::Function* f) { return reached.count(f) == 0; });
  for (ir::Function* f : module.functions) {
    for (ir::Function** named : f->autodiff.Links()) {
      if (reached.count(*named) == 0) *named = nullptr;
    }
  }
}

void EmitSpirv(EmitRequest& r) {
  const CompileOptions& options = r.options;
  targets::spirv::WriterOptions writer_options;
  writer_options.entry_points = options.entries;
  writer_options.layout = r.layout;
  writer_options.matrix_layout = r.matrices;
  writer_options.entry_names_main = !options.use_entrypoint_name;
  if (options.debug_info) {
    writer_options.debug_sources = &r.sources;
    writer_options.debug_file = r.file;
  }
  // What SPIR-V cannot express is an error at its source, not an invalid module.
  if (!targets::spirv::CheckSpecWorkgroupSizes(r.module, options.entries, r.diags) ||
      !targets::spirv::CheckLimits(r.module, r.diags) || !RejectBareMatrixPointers(r)) {
    return;
  }
  DropUnreachableFunctions(r.module);
  std::vector<uint32_t>& words = r.result.spirv;
  words = targets::spirv::WriteSpirv(r.module, writer_options);
  // The IR is not read past here: SPIRV-Tools' copies of the module take its memory.
  if (r.release_module) r.release_module();
  if (options.optimization_level == 0) {
    if (options.validate_spirv && !ValidateOutput(words, r.diags, options.scalar_layout)) return;
  } else {
    // The validator runs once, on what is written out: validating the writer's module
    // as well would double the time of the slowest step for a large module. The
    // optimizer's input is checked only when its output is refused (or it fails), to
    // say whose bug it is: an invalid input is the writer's.
    auto level = static_cast<targets::spirv::OptLevel>(std::min(options.optimization_level, 3u));
    std::vector<uint32_t> written = words;
    std::string message;
    bool optimized = targets::spirv::OptimizeSpirv(&words, level, options.scalar_layout, &message);
    bool valid = optimized && (!options.validate_spirv ||
                               targets::spirv::ValidateSpirv(words, &message, options.scalar_layout));
    if (!valid) {
      if (!ValidateOutput(written, r.diags, options.scalar_layout)) return;
      if (!optimized) SLOPE_ICE("the SPIR-V optimizer failed on a valid module: " + message);
      // A valid module the optimizer made invalid: reported as any invalid output is.
      r.diags.Report(diag::DiagId::SpirvValidationFailed, source::SourceRange(), message);
      return;
    }
  }
  if (options.target == Target::SpirVAsm) targets::spirv::DisassembleSpirv(words, &r.result.text);
}

/// Targets that have no textures yet (cuda, ptx): a module with a texture or sampler gets an error
/// at each one's declaration. True when there is none.
bool RejectTextures(EmitRequest& r, const char* target) {
  bool ok = true;
  for (const ir::Global* g : r.module.globals) {
    const ir::Type* t = g->GetType();
    if (!t->IsTexture() && !t->IsSampler()) continue;
    bool typed = t->IsTexelBuffer();
    const char* what = t->IsSampler()    ? "sampler"
                       : typed           ? (t->IsWritable() ? "RW typed buffer" : "typed buffer")
                       : t->IsWritable() ? "RW texture"
                                         : "texture";
    const char* kinds = t->IsSampler() ? "samplers"
                        : typed        ? "typed buffers (Buffer<T>, RWBuffer<T>)"
                                       : "textures";
    r.diags.Report(diag::DiagId::TextureTargetUnsupported, source::SourceRange(g->loc, g->loc),
                   what, g->Name(), kinds, target);
    ok = false;
  }
  return ok;
}

/// Inline SPIR-V on a target that is not SPIR-V: an error at each `spirv_asm` block the
/// entry points reach (one in a `__target_switch` case for another target never is).
/// True when there is none.
bool RejectSpirvAsm(EmitRequest& r, const char* target) {
  bool ok = true;
  for (const ir::Function* f : r.module.functions) {
    for (const ir::Block* b : f->blocks) {
      for (const ir::Inst* inst : b->insts) {
        if (inst->GetOp() != ir::Op::SpirvAsm && inst->GetOp() != ir::Op::SpirvAsmValue) continue;
        r.diags.Report(diag::DiagId::SpirvAsmTarget, source::SourceRange(inst->loc, inst->loc),
                       target);
        ok = false;
      }
    }
  }
  return ok;
}

/// Calls `report` with each function and its first instruction that `refused` holds
/// for. True when there is none.
bool RejectInsts(EmitRequest& r, const std::function<bool(const ir::Inst*)>& refused,
                 const std::function<void(const ir::Function&, const ir::Inst&)>& report) {
  bool ok = true;
  for (const ir::Function* f : r.module.functions) {
    for (const ir::Block* b : f->blocks) {
      auto it = std::find_if(b->insts.begin(), b->insts.end(), refused);
      if (it == b->insts.end()) continue;
      report(*f, **it);
      ok = false;
      break;
    }
  }
  return ok;
}

/// The device pointer `t` is (or an array or local pointer holds), else null.
const ir::Type* DevicePointerIn(const ir::Type* t) {
  while (t->IsArray() || (t->IsPointer() && !t->IsDevicePointer())) t = t->Element();
  return t->IsDevicePointer() ? t : nullptr;
}

/// Whether device memory of type `t` (under pointers, structs and arrays) holds a
/// matrix whose struct member says its own layout, other than the compile's `layout`.
bool HoldsOwnLayoutMatrix(const ir::Type* t, ir::MatrixLayout layout,
                          std::set<const ir::Type*>* seen) {
  while (t->IsArray() || t->IsPointer()) t = t->Element();
  if (!t->IsStruct() || !seen->insert(t).second) return false;
  bool column = layout == ir::MatrixLayout::ColumnMajor;
  for (size_t i = 0; i < t->Members().size(); ++i) {
    const ir::Type* inner = t->Members()[i];
    while (inner->IsArray()) inner = inner->Element();
    ir::MatrixLayout own = targets::MatrixLayoutOf(t->MemberMatrixLayout(i), layout);
    if (inner->IsMatrix() && (own == ir::MatrixLayout::ColumnMajor) != column) return true;
    if (HoldsOwnLayoutMatrix(t->Members()[i], layout, seen)) return true;
  }
  return false;
}

/// glsl and cuda under -matrix-layout-column-major: matrices in device memory are laid
/// out column by column (glsl's buffer_reference blocks, cuda's cmat), and a row of one
/// (or an element of a row) reached through a device pointer is printed as a place of the
/// matrix in each use (the writers' AlwaysFolds). A row is not contiguous: a use that
/// needs its pointer as a value (a call argument, a stored pointer, a cast, arithmetic, a
/// block argument; the source cannot write one, but the IR can) is an error at the first
/// one in each function, and so is a pointer to a struct holding a matrix member whose
/// own row_major / column_major differs from the compile's (the writers lay every matrix
/// in device memory out in the compile's layout). True when there is none.
bool RejectColumnRowPointers(EmitRequest& r, const char* target) {
  ir::MatrixLayout layout = r.matrices;
  std::function<bool(const ir::Value*)> row = [&](const ir::Value* v) {
    if (v->VKind() != ir::ValueKind::Inst) return false;
    const auto* inst = static_cast<const ir::Inst*>(v);
    if (inst->GetOp() != ir::Op::ElementPtr || !inst->GetType()->IsDevicePointer()) return false;
    const ir::Value* base = inst->operands[0];
    return base->GetType()->Element()->IsMatrix() || row(base);
  };
  auto own_layout = [&](const ir::Type* t) {
    const ir::Type* ptr = DevicePointerIn(t);
    std::set<const ir::Type*> seen;
    return ptr != nullptr && HoldsOwnLayoutMatrix(ptr->Element(), layout, &seen);
  };
  bool mixed = false;
  auto refused = [&](const ir::Inst* inst) {
    bool uses = own_layout(inst->GetType());
    for (const ir::Value* v : inst->operands) uses = uses || own_layout(v->GetType());
    if (uses) {
      mixed = true;
      return true;
    }
    mixed = false;
    if (layout != ir::MatrixLayout::ColumnMajor) return false;
    ir::Op op = inst->GetOp();
    for (size_t i = 0; i < inst->operands.size(); ++i) {
      if (!row(inst->operands[i])) continue;
      bool place = i == 0 && (op == ir::Op::Load || op == ir::Op::Store ||
                              op == ir::Op::ElementPtr || op == ir::Op::Atomic);
      if (!place) return true;
    }
    return false;
  };
  return RejectInsts(r, refused, [&](const ir::Function& f, const ir::Inst& inst) {
    source::SourceRange at(inst.loc, inst.loc);
    if (mixed && layout != ir::MatrixLayout::ColumnMajor) {
      // Under the row-major default: a member's own `column_major`.
      r.diags.Report(diag::DiagId::PointerTargetUnsupported, at, f.Name(), target);
      return;
    }
    if (mixed) {
      r.diags.Report(diag::DiagId::UnsupportedConstruct, at,
                     "on the " + std::string(target) +
                         " target, pointers to a struct holding a matrix member whose own "
                         "row_major / column_major differs from the compile's matrix layout "
                         "(-matrix-layout-row-major / -matrix-layout-column-major)",
                     "are");
      return;
    }
    r.diags.Report(diag::DiagId::UnsupportedConstruct, at,
                   "on the " + std::string(target) +
                       " target with column-major matrices, pointers to a row of a matrix (or "
                       "an element of one) used as values (a row is not contiguous in memory; "
                       "read or write the row or element where it is indexed)",
                   "are");
  });
}

/// GLSL has no explicit-level comparison of a cube array (samplerCubeArrayShadow takes
/// neither textureGrad nor textureLod without GL_EXT_texture_shadow_lod, which glslang
/// may lack), and a compute kernel has no implicit level: an error at the first such
/// comparison in each function. True when there is none.
bool RejectCubeArrayComparisons(EmitRequest& r) {
  auto refused = [](const ir::Inst* inst) {
    if (inst->GetOp() != ir::Op::Texture || inst->imms.empty() ||
        static_cast<ir::TextureOp>(inst->imms[0]) != ir::TextureOp::SampleCmpLevelZero) {
      return false;
    }
    const ir::Type* t = inst->operands[0]->GetType();
    return t->Dim() == ir::TextureDim::kCube && t->IsArrayed();
  };
  return RejectInsts(r, refused, [&](const ir::Function&, const ir::Inst& inst) {
    r.diags.Report(diag::DiagId::UnsupportedConstruct, source::SourceRange(inst.loc, inst.loc),
                   "on the glsl target, comparisons of a cube array texture "
                   "('SampleCmp', 'SampleCmpLevelZero': GLSL has no explicit-level lookup of a "
                   "samplerCubeArrayShadow)",
                   "are");
  });
}

/// SPIR-V declares a matrix's layout (its stride, row or column order) on the struct
/// member that holds it. A PhysicalStorageBuffer pointer to a matrix (or to an array of
/// them) reached from a struct pointer by member and element steps is an access chain
/// that keeps the member's layout; one that comes from anywhere else (a parameter, a
/// pointer value loaded or stored, a cast, pointer arithmetic) would read memory in no
/// declared layout: an error, as for RejectColumnRowPointers.
bool RejectBareMatrixPointers(EmitRequest& r) {
  auto bare = [](const ir::Type* t) {
    if (!t->IsDevicePointer()) return false;
    const ir::Type* pointee = t->Element();
    while (pointee->IsArray()) pointee = pointee->Element();
    return pointee->IsMatrix();
  };
  std::function<bool(const ir::Value*)> from_member = [&](const ir::Value* v) {
    if (v->VKind() != ir::ValueKind::Inst) return false;
    const auto* inst = static_cast<const ir::Inst*>(v);
    if (inst->GetOp() == ir::Op::MemberPtr) return true;
    return inst->GetOp() == ir::Op::ElementPtr && from_member(inst->operands.at(0));
  };
  auto refused = [&](const ir::Inst* inst) {
    if (bare(inst->GetType()) && !from_member(inst)) return true;
    for (const ir::Value* v : inst->operands) {
      if (v->VKind() == ir::ValueKind::Param && bare(v->GetType())) return true;
    }
    return false;
  };
  return RejectInsts(r, refused, [&](const ir::Function&, const ir::Inst& inst) {
    r.diags.Report(diag::DiagId::UnsupportedConstruct, source::SourceRange(inst.loc, inst.loc),
                   "on the spirv target, pointers to a matrix that is not a struct member or "
                   "to an array of matrices (SPIR-V declares a matrix's memory layout only on "
                   "the struct member holding it; point at a struct that holds the matrix)",
                   "are");
  });
}

/// One entry point (the one -entry names, or the module's only one) as GLSL 450.
void EmitGlsl(EmitRequest& r) {
  const CompileOptions& options = r.options;
  size_t chosen = options.entries.empty() ? r.entry_count : options.entries.size();
  if (chosen > 1) {
    r.diags.Report(diag::DiagId::GlslOneEntryPoint, source::SourceRange(), std::to_string(chosen));
    return;
  }
  if (!RejectSpirvAsm(r, "glsl") || !RejectColumnRowPointers(r, "glsl") ||
      !RejectCubeArrayComparisons(r)) {
    return;
  }
  targets::glsl::WriterOptions glsl_options;
  if (!options.entries.empty()) glsl_options.entry_point = options.entries.front();
  glsl_options.layout = r.layout;
  glsl_options.matrix_layout = r.matrices;
  std::string field = targets::glsl::FindUnsupportedMatrixField(r.module, glsl_options);
  if (!field.empty()) {
    r.diags.Report(diag::DiagId::GlslMatrixFieldLayout, source::SourceRange(), field);
    return;
  }
  r.result.text = targets::glsl::WriteGlsl(r.module, glsl_options);
}

/// [WaveSize(n)] on an entry point of a target whose waves have a fixed width: CUDA's
/// warps are 32 threads; the CPU runtime's waves are `n` invocations for n up to 32 (its
/// ballots are 32 bits). An error at each entry point that names another size. True when
/// there is none.
bool RejectWaveSizes(EmitRequest& r, const char* target, bool up_to_32) {
  bool ok = true;
  for (const ir::Function* f : r.module.functions) {
    uint32_t n = f->is_entry ? f->entry.wave_size : 0;
    if (n == 0 || n == 32 || (up_to_32 && n < 32)) continue;
    const std::vector<std::string>& chosen = r.options.entries;
    if (!chosen.empty() && std::find(chosen.begin(), chosen.end(), f->Name()) == chosen.end()) {
      continue;
    }
    ok = false;
    source::SourceRange at(f->entry.wave_size_loc, f->entry.wave_size_loc);
    r.diags.Report(diag::DiagId::WaveSizeTargetUnsupported, at, std::to_string(n), f->Name(),
                   target, up_to_32 ? "at most 32 lanes" : "32 lanes (warps)");
  }
  return ok;
}

/// Every chosen entry point as an `extern "C" __global__` kernel of CUDA C++.
void EmitCuda(EmitRequest& r) {
  if (!RejectSpirvAsm(r, "cuda") || !RejectTextures(r, "cuda") ||
      !RejectColumnRowPointers(r, "cuda") || !RejectWaveSizes(r, "cuda", false)) {
    return;
  }
  targets::cuda::WriterOptions cuda_options;
  cuda_options.entry_points = r.options.entries;
  cuda_options.matrix_layout = r.matrices;
  for (const BindingInfo& b : r.result.reflection.bindings) {
    bool storage = b.kind == ResourceKind::StructuredBuffer || b.kind == ResourceKind::RWStructuredBuffer;
    cuda_options.bindings.push_back(
        {b.name, b.kind == ResourceKind::PushConstant ? b.entry_point : std::string(), storage});
  }
  r.result.text = targets::cuda::WriteCuda(r.module, cuda_options);
}

/// The LLVM targets, through the plugin (opened here on first use).
void EmitLlvm(EmitRequest& r) {
  namespace tl = targets::llvm;
  static const char* const kNames[] = {"ptx", "host", "object", "llvm-ir"};
  Target target_kind = r.options.target;
  const char* name = target_kind == Target::Ptx      ? kNames[0]
                     : target_kind == Target::Object ? kNames[2]
                     : target_kind == Target::LlvmIr ? kNames[3]
                                                     : kNames[1];
  // The host targets call the CPU runtime's slope_cpu_texture (cpu_abi.h); PTX has no
  // texture or surface objects yet.
  if (!RejectSpirvAsm(r, name)) return;
  if (target_kind == Target::Ptx && !RejectTextures(r, name)) return;
  if (!RejectWaveSizes(r, name, target_kind != Target::Ptx)) return;
  std::string why;
  const tl::Api* api = tl::LoadLlvmPlugin(&why);
  if (api == nullptr) {
    r.diags.Report(diag::DiagId::LlvmTargetUnavailable, source::SourceRange(), why);
    return;
  }
  tl::EmitOptions options;
  Target target = r.options.target;
  options.output = target == Target::Ptx      ? tl::Output::Ptx
                   : target == Target::Object ? tl::Output::Object
                   : target == Target::LlvmIr ? tl::Output::LlvmIr
                                              : tl::Output::Bitcode;
  options.entry_points = r.options.entries;
  options.matrices = r.matrices;
  options.optimization_level = std::min(r.options.optimization_level == 1 ? 2u : r.options.optimization_level, 3u);
  options.gpu_arch = r.options.gpu_arch;
  for (const BindingInfo& b : r.result.reflection.bindings) {
    tl::Binding binding;
    binding.name = b.name;
    binding.push_constant = b.kind == ResourceKind::PushConstant;
    binding.entry_point = binding.push_constant ? b.entry_point : std::string();
    binding.storage = b.kind == ResourceKind::StructuredBuffer || b.kind == ResourceKind::RWStructuredBuffer;
    options.bindings.push_back(binding);
  }
  if (target == Target::Ptx) {
    for (const char* env : {"CUDA_HOME", "CUDA_PATH"}) {
      const char* root = std::getenv(env);
      if (root != nullptr && *root != '\0' && options.libdevice_path.empty()) {
        std::string path = std::string(root) + "/nvvm/libdevice/libdevice.10.bc";
        if (std::filesystem::exists(path)) options.libdevice_path = path;
      }
    }
    for (const char* path : {"/usr/local/cuda/nvvm/libdevice/libdevice.10.bc",
                             "/usr/lib/nvidia-cuda-toolkit/libdevice/libdevice.10.bc"}) {
      if (options.libdevice_path.empty() && std::filesystem::exists(path)) options.libdevice_path = path;
    }
  }
  std::string out;
  std::vector<tl::EmitError> errors;
  if (!api->emit(r.module, options, &out, &errors)) {
    for (const tl::EmitError& e : errors) {
      r.diags.Report(diag::DiagId::LlvmTargetError, source::SourceRange(e.loc, e.loc), e.message);
    }
    return;
  }
  if (target == Target::Host || target == Target::Object) {
    r.result.binary = std::move(out);
  } else {
    r.result.text = std::move(out);
  }
}

const std::vector<TargetInfo>& Targets() {
  // CUDA runs the SPIR-V pass list too: resources traced to their globals, locals in
  // SSA form, structured control flow, which the C-like writers need.
  static const std::vector<TargetInfo> kTargets = {
      {Target::SpirV, "spirv", OutputKind::Words, targets::spirv::RaisePassNames, RunRaise,
       EmitSpirv, "spirv"},
      {Target::SpirVAsm, "spirv-asm", OutputKind::Text, targets::spirv::RaisePassNames, RunRaise,
       EmitSpirv, "spirv"},
      {Target::Glsl, "glsl", OutputKind::Text, targets::spirv::RaisePassNames, RunRaise,
       EmitGlsl, "glsl"},
      {Target::Cuda, "cuda", OutputKind::Text, targets::spirv::RaisePassNames, RunRaise, EmitCuda, "cuda",
       /*scalar_layout_only=*/true},
      // The LLVM targets take the CUDA target's layout: C's, which is the scalar one.
      {Target::Ptx, "ptx", OutputKind::Text, targets::spirv::RaisePassNames, RunRaise, EmitLlvm,
       "cuda", /*scalar_layout_only=*/true},
      {Target::Host, "host", OutputKind::Binary, targets::spirv::RaisePassNames, RunRaise,
       EmitLlvm, "cpp", /*scalar_layout_only=*/true},
      {Target::Object, "object", OutputKind::Binary, targets::spirv::RaisePassNames, RunRaise,
       EmitLlvm, "cpp", /*scalar_layout_only=*/true},
      {Target::LlvmIr, "llvm-ir", OutputKind::Text, targets::spirv::RaisePassNames, RunRaise,
       EmitLlvm, "cpp", /*scalar_layout_only=*/true},
  };
  return kTargets;
}

}  // namespace

const TargetInfo& TargetOf(Target target) {
  for (const TargetInfo& t : Targets()) {
    if (t.target == target) return t;
  }
  SLOPE_ICE("a target without an entry in the target table");
}

}  // namespace slope::driver
