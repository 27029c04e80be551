// Lowering of what differentiation needs: `fwd_diff(f)(args)` becomes a call of a
// function the forward-mode pass (compiler/autodiff/forward) writes; functions carry
// whether they are [Differentiable] and their custom derivative; `detach`/`no_diff`
// cut the derivative with a call the pass does not differentiate.

#include "compiler/lower/lowerer.h"

namespace slope::lower {

void Lowerer::MarkDifferentiable(const ast::FuncDecl* decl, ir::Function* f) {
  for (const char* name : {"Differentiable", "ForwardDifferentiable", "BackwardDifferentiable"}) {
    if (decl->FindAttribute(name) != nullptr) f->differentiable = true;
  }
  if (decl->fwd_derivative != nullptr) f->custom_fwd = Instance(decl->fwd_derivative, {});
}

Value* Lowerer::LowerFwdDiffCall(const ast::CallExpr* call) {
  ir::Function* target = FwdDiffFunction(static_cast<const ast::DiffExpr*>(call->callee));
  std::vector<OutArg> outs;
  std::vector<Value*> args = LowerArgs(call, &outs);
  Loc(call->range);
  Value* result = b_.Call(target, std::move(args));
  CopyBack(outs);
  return result;
}

ir::Function* Lowerer::FwdDiffFunction(const ast::DiffExpr* diff) {
  ir::Function* primal = diff->operand->kind == ast::ExprKind::Diff
                             ? FwdDiffFunction(static_cast<const ast::DiffExpr*>(diff->operand))
                             : Instance(diff->func, {});
  auto it = fwd_functions_.find(primal);
  if (it != fwd_functions_.end()) return it->second;
  ir::Function* f =
      module_->AddFunction(UniqueFunctionName(primal->Name() + ".fwd"), LowerType(diff->result_type));
  for (size_t i = 0; i < diff->param_types.size(); ++i) {
    const ir::Type* t = LowerType(diff->param_types[i]);
    if (diff->func->params[i]->direction != ast::ParamDirection::In) {
      t = module_->Types().Pointer(ir::AddressSpace::Function, t);
    }
    f->params.push_back(module_->AddParam(t, nullptr));
  }
  f->fwd_diff_of = primal;
  fwd_functions_.emplace(primal, f);
  return f;
}

Value* Lowerer::Detach(Value* v) {
  const ir::Type* t = v->GetType();
  if (t->IsVoid()) return v;
  auto [it, inserted] = detach_functions_.emplace(t, nullptr);
  if (inserted) {
    ir::Function* identity = module_->AddFunction(UniqueFunctionName("detach"), t);
    ir::Param* p = module_->AddParam(t, nullptr);
    identity->params.push_back(p);
    ir::Builder b(*module_);
    identity->blocks.push_back(module_->AddBlock(identity));
    b.SetInsertBlock(identity->blocks.front());
    b.Return(p);
    it->second = identity;
  }
  return b_.Call(it->second, {v});
}

}  // namespace slope::lower
