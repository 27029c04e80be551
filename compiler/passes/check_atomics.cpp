// check-atomics: reports each atomic operation on a type no target takes. Sema checks
// the atomics it sees with concrete types; one in generic code (`InterlockedAdd(b[i], v)`
// with `v : T`) is checked here, once specialization has made the type concrete, at the
// call's position (E3414, as sema words it). The IR is left as it was. The driver runs
// it right after lowering and stops when it reports, so the verifier (which calls such
// an atomic malformed) never sees one.

#include <string>

#include "compiler/passes/passes.h"

namespace slope::passes {

namespace {

/// The type as a program spells it.
std::string SourceTypeName(const ir::Type* t) {
  if (t->IsBool()) return "bool";
  if (t->IsFloat()) return t->Width() == 16 ? "half" : t->Width() == 64 ? "double" : "float";
  if (t->IsInt()) {
    bool is_signed = t->IsSigned();
    if (t->Width() == 32) return is_signed ? "int" : "uint";
    return std::string(is_signed ? "int" : "uint") + std::to_string(t->Width()) + "_t";
  }
  if (t->IsVector()) return "vector<" + SourceTypeName(t->Element()) + ", " + std::to_string(t->Count()) + ">";
  return t->Name();
}

const char* InterlockedName(ir::AtomicOp op) {
  switch (op) {
    case ir::AtomicOp::Add: return "InterlockedAdd";
    case ir::AtomicOp::And: return "InterlockedAnd";
    case ir::AtomicOp::Or: return "InterlockedOr";
    case ir::AtomicOp::Xor: return "InterlockedXor";
    case ir::AtomicOp::Min: return "InterlockedMin";
    case ir::AtomicOp::Max: return "InterlockedMax";
    case ir::AtomicOp::Exchange: return "InterlockedExchange";
    case ir::AtomicOp::CompareExchange: return "InterlockedCompareExchange";
  }
  return "an atomic operation";
}

}  // namespace

Result CheckAtomics(ir::Module& module, const Options& options) {
  for (const ir::Function* f : module.functions) {
    for (const ir::Block* b : f->blocks) {
      for (const ir::Inst* inst : b->insts) {
        if (inst->GetOp() != ir::Op::Atomic || inst->imms.empty()) continue;
        auto which = static_cast<ir::AtomicOp>(inst->imms[0]);
        const ir::Type* t = inst->GetType();
        bool wide_int = t->IsInt() && (t->Width() == 32 || t->Width() == 64);
        bool f32_add = which == ir::AtomicOp::Add && t->IsFloat() && t->Width() == 32;
        if (wide_int || f32_add) continue;
        ReportError(options, diag::DiagId::SyncOpType, inst->loc, InterlockedName(which),
                    SourceTypeName(t),
                    which == ir::AtomicOp::Add ? "'int', 'uint', 'int64_t', 'uint64_t' or 'float'"
                                               : "'int', 'uint', 'int64_t' or 'uint64_t'");
      }
    }
  }
  return {};
}

}  // namespace slope::passes
