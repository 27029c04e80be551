#include "compiler/targets/spirv/limits.h"

#include <algorithm>
#include <set>
#include <string>

#include "compiler/ir/type_walk.h"

namespace slope::targets::spirv {

using diag::DiagId;
using ir::Op;

namespace {

/// Values a composite instruction builds in one piece: its operands; for a load of a
/// struct or array from buffer memory the writer builds each level member by member
/// (LoadLaidOut), so the widest level counts.
uint32_t WidestLevel(const ir::Type* root) {
  return ir::FoldType<uint32_t>(root, [](const ir::Type* t, const auto& recurse) {
    uint32_t widest = 0;
    while (t->IsArray() || t->IsStruct()) {
      if (t->IsArray()) {
        widest = std::max(widest, t->Count());
        t = t->Element();
        continue;
      }
      widest = std::max(widest, static_cast<uint32_t>(t->Members().size()));
      for (const ir::Type* m : t->Members()) widest = std::max(widest, recurse(m));
      break;
    }
    return widest;
  });
}

bool IsBufferMemory(const ir::Type* pointer) {
  return pointer->IsPointer() && (pointer->Space() == ir::AddressSpace::StorageBuffer ||
                                  pointer->Space() == ir::AddressSpace::Uniform ||
                                  pointer->Space() == ir::AddressSpace::PushConstant);
}

/// Where `f` is declared; for a function a pass made (a derivative, `f.jvp`), where it
/// is first called, or where the function it was made from is.
source::SourceLoc FunctionLoc(const ir::Module& module, const ir::Function* f) {
  if (f->loc.IsValid()) return f->loc;
  for (const ir::Function* caller : module.functions) {
    for (const ir::Block* block : caller->blocks) {
      for (const ir::Inst* inst : block->insts) {
        if (inst->GetOp() == Op::Call && inst->callee == f && inst->loc.IsValid()) {
          return inst->loc;
        }
      }
    }
  }
  for (const ir::Function* from : {f->autodiff.fwd_diff_of, f->autodiff.bwd_diff_of}) {
    if (from != nullptr && from->loc.IsValid()) return from->loc;
  }
  // Uncalled: the function whose name it extends (`f` of `f.jvp.jvp`).
  std::string name = f->Name();
  for (size_t dot = name.rfind('.'); dot != std::string::npos && dot > 0; dot = name.rfind('.')) {
    name.resize(dot);
    for (const ir::Function* g : module.functions) {
      if (g->Name() == name && g->loc.IsValid()) return g->loc;
    }
  }
  return f->loc;
}

source::SourceLoc LocOf(const ir::Module& module, const ir::Inst* inst) {
  if (inst->loc.IsValid() || inst->block == nullptr) return inst->loc;
  return FunctionLoc(module, inst->block->GetFunction());
}

}  // namespace

bool IsZeroValue(const ir::Value* v, std::unordered_map<const ir::Value*, bool>* memo) {
  if (v->VKind() == ir::ValueKind::Constant) {
    return static_cast<const ir::Constant*>(v)->Bits() == 0;
  }
  if (v->VKind() != ir::ValueKind::Inst) return false;
  const auto* inst = static_cast<const ir::Inst*>(v);
  switch (inst->GetOp()) {
    case Op::MakeArray:
    case Op::MakeStruct:
    case Op::MakeMatrix:
    case Op::MakeVector:
    case Op::Splat:
      break;
    default:
      return false;
  }
  if (auto it = memo->find(v); it != memo->end()) return it->second;
  bool zero = true;
  for (const ir::Value* operand : inst->operands) {
    if (!IsZeroValue(operand, memo)) {
      zero = false;
      break;
    }
  }
  (*memo)[v] = zero;
  return zero;
}

namespace {

/// The members a struct reaches through nested struct fields, once per path, stopping
/// at 2 * kMaxNestedMembers + 1 (the count doubles per level and would overflow).
uint64_t NestedMembers(const ir::Type* root) {
  return ir::FoldType<uint64_t>(root, [](const ir::Type* t, const auto& recurse) -> uint64_t {
    while (t->IsArray()) t = t->Element();
    if (!t->IsStruct()) return 1;
    uint64_t sum = 0;
    for (const ir::Type* m : t->Members()) sum = std::min(sum + recurse(m), kMaxNestedMembers * 2 + 1);
    return std::max<uint64_t>(sum, 1);
  });
}

}  // namespace

bool CheckSpecWorkgroupSizes(const ir::Module& module, const std::vector<std::string>& written,
                             diag::DiagEngine& diags) {
  // A workgroup size set by specialization constants is the module's WorkgroupSize
  // built-in, which overrides every entry point's LocalSize.
  std::vector<const ir::Function*> entries;
  for (const ir::Function* f : module.functions) {
    if (f->is_entry && (written.empty() ||
                        std::find(written.begin(), written.end(), f->Name()) != written.end())) {
      entries.push_back(f);
    }
  }
  bool ok = true;
  for (const ir::Function* f : entries) {
    const auto& spec = f->entry.numthreads_spec;
    if (entries.size() > 1 && (spec[0] != nullptr || spec[1] != nullptr || spec[2] != nullptr)) {
      diags.Report(DiagId::SpirvSpecWorkgroupShared, source::SourceRange(FunctionLoc(module, f)),
                   f->Name(), f->Name());
      ok = false;
    }
  }
  return ok;
}

bool CheckLimits(const ir::Module& module, diag::DiagEngine& diags) {
  uint32_t errors = diags.ErrorCount();
  for (const ir::Type* s : module.Types().Structs()) {
    if (s->Members().size() > kMaxStructMembers) {
      diags.Report(DiagId::SpirvStructTooLarge, source::SourceRange(module.Types().StructLoc(s)),
                   s->StructName(), s->Members().size(), kMaxStructMembers);
    }
  }
  // The first struct (in declaration order) whose nested members pass the limit; the
  // structs holding it pass it too and are not reported again.
  for (const ir::Type* s : module.Types().Structs()) {
    uint64_t paths = NestedMembers(s);
    if (paths <= kMaxNestedMembers) continue;
    diags.Report(DiagId::SpirvStructTooDeepWide, source::SourceRange(module.Types().StructLoc(s)),
                 s->StructName(), paths > kMaxNestedMembers * 2 ? "more than " + std::to_string(kMaxNestedMembers * 2) : std::to_string(paths),
                 kMaxNestedMembers);
    break;
  }
  // The writer declares a built-in input variable per distinct system-value semantic.
  std::set<std::string> builtins;
  for (const ir::Function* f : module.functions) {
    if (!f->is_entry) continue;
    for (const std::string& semantic : f->entry.param_semantics) builtins.insert(semantic);
  }
  uint32_t room = kMaxGlobalVariables - std::min<uint32_t>(builtins.size(), kMaxGlobalVariables);
  if (module.globals.size() > room) {
    const ir::Global* first_over = module.globals[room];
    diags.Report(DiagId::SpirvTooManyGlobals, source::SourceRange(first_over->loc),
                 first_over->Name(), module.globals.size() + builtins.size(),
                 kMaxGlobalVariables);
  }
  std::unordered_map<const ir::Value*, bool> zero_memo;
  for (const ir::Function* f : module.functions) {
    if (!f->is_entry && f->params.size() > kMaxFunctionParams) {
      diags.Report(DiagId::SpirvTooManyParams, source::SourceRange(FunctionLoc(module, f)),
                   f->Name(), f->params.size(), kMaxFunctionParams);
    }
    for (const ir::Block* block : f->blocks) {
      for (const ir::Inst* inst : block->insts) {
        switch (inst->GetOp()) {
          case Op::MakeArray:
          case Op::MakeStruct:
            // A composite of zeros is written as OpConstantNull, of any size.
            if (inst->operands.size() > kMaxCompositeValues && !IsZeroValue(inst, &zero_memo)) {
              diags.Report(DiagId::SpirvCompositeTooLarge, source::SourceRange(LocOf(module, inst)),
                           "a value of type '" + inst->GetType()->Name() + "'",
                           inst->operands.size(), kMaxCompositeValues);
            }
            break;
          case Op::Load:
            if (IsBufferMemory(inst->operands[0]->GetType()) &&
                WidestLevel(inst->GetType()) > kMaxCompositeValues) {
              diags.Report(DiagId::SpirvCompositeTooLarge, source::SourceRange(LocOf(module, inst)),
                           "loading a value of type '" + inst->GetType()->Name() +
                               "' from buffer memory",
                           WidestLevel(inst->GetType()), kMaxCompositeValues);
            }
            break;
          case Op::Printf: {
            std::string format;
            if (ir::UnpackString(inst->imms, &format) && format.size() > kMaxStringBytes) {
              diags.Report(DiagId::SpirvStringTooLong, source::SourceRange(LocOf(module, inst)),
                           format.size(), kMaxStringBytes);
            }
            break;
          }
          case Op::Switch:
            if (inst->operands.size() - 1 > kMaxSwitchCases) {
              diags.Report(DiagId::SpirvSwitchTooLarge, source::SourceRange(LocOf(module, inst)),
                           inst->operands.size() - 1, kMaxSwitchCases);
            }
            break;
          default:
            break;
        }
      }
    }
  }
  return diags.ErrorCount() == errors;
}

}  // namespace slope::targets::spirv
