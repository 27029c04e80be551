// narrow-math: GLSL.std.450 defines its transcendental functions (sin, exp, pow, atan2,
// ...) for 16- and 32-bit floats only. On f64 values this pass computes them in f32:
// each operand is converted to f32, the function applied, and the result converted
// back, so a double program stays valid SPIR-V at float precision for those functions.
// The other intrinsics (sqrt, abs, floor, fma, dot, ...) exist for f64 and are left.

#include <algorithm>
#include <map>

#include "compiler/ir/cfg.h"
#include "compiler/passes/passes.h"

namespace slope::passes {
namespace {

using ir::Inst;
using ir::Intrinsic;
using ir::Op;

constexpr Intrinsic kFloat32Only[] = {
    Intrinsic::Exp,  Intrinsic::Log,   Intrinsic::Sin,  Intrinsic::Cos,   Intrinsic::Pow,
    Intrinsic::Exp2, Intrinsic::Log2,  Intrinsic::Log10, Intrinsic::Tan,  Intrinsic::Asin,
    Intrinsic::Acos, Intrinsic::Atan,  Intrinsic::Atan2, Intrinsic::Sinh, Intrinsic::Cosh,
    Intrinsic::Tanh};

bool NeedsNarrowing(const Inst& inst) {
  if (inst.GetOp() != Op::Intrinsic) return false;
  const ir::Type* s = inst.GetType()->Scalar();
  auto which = static_cast<Intrinsic>(inst.imms[0]);
  return s->IsFloat() && s->Width() == 64 &&
         std::find(std::begin(kFloat32Only), std::end(kFloat32Only), which) !=
             std::end(kFloat32Only);
}

class State {
 public:
  State(ir::Module& module, ir::Function& f) : module_(module), f_(f) {}
  bool Run();

 private:
  /// A `convert` of `v` to `type`, placed like `at`.
  Inst* Convert(ir::Value* v, const ir::Type* type, const Inst& at) {
    Inst* inst = module_.NewInst(Op::Convert, type);
    inst->operands = {v};
    inst->block = at.block;
    inst->loc = at.loc;
    return inst;
  }
  const ir::Type* InF32(const ir::Type* t) {
    return module_.Types().WithScalar(t, module_.Types().Float(32));
  }

  ir::Module& module_;
  ir::Function& f_;
};

bool State::Run() {
  std::map<const ir::Value*, ir::Value*> replaced;
  for (ir::Block* b : f_.blocks) {
    std::vector<Inst*> insts;
    for (Inst* inst : b->insts) {
      if (!NeedsNarrowing(*inst)) {
        insts.push_back(inst);
        continue;
      }
      Inst* narrow = module_.NewInst(Op::Intrinsic, InF32(inst->GetType()));
      narrow->imms = inst->imms;
      narrow->block = b;
      narrow->loc = inst->loc;
      for (ir::Value* operand : inst->operands) {
        insts.push_back(Convert(operand, InF32(operand->GetType()), *inst));
        narrow->operands.push_back(insts.back());
      }
      insts.push_back(narrow);
      insts.push_back(Convert(narrow, inst->GetType(), *inst));
      replaced[inst] = insts.back();
    }
    b->insts = std::move(insts);
  }
  if (replaced.empty()) return false;
  ir::ReplaceUses(f_, replaced);
  return true;
}

}  // namespace

Result NarrowMath(ir::Module& module, const Options&) {
  return ForEachFunction(module, [&](ir::Function& f) { return State(module, f).Run(); });
}

}  // namespace slope::passes
