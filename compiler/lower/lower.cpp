#include "compiler/lower/lower.h"

#include <map>
#include <set>

#include "compiler/base/ice.h"
#include "compiler/lower/lowerer.h"

#include <algorithm>

namespace slope::lower {

using ir::Op;
using ir::Value;

std::unique_ptr<ir::Module> Lowerer::Run(const sema::CheckedModule& checked) {
  DeclareGlobals(checked.buffers);
  std::set<const ast::FuncDecl*> entries(checked.entry_points.begin(), checked.entry_points.end());
  for (ast::FuncDecl* decl : checked.functions) {
    // Overloads share a source name; the IR name tells them apart.
    std::string base = FunctionName(decl);
    std::string name = base;
    for (int n = 1; std::any_of(module_->functions.begin(), module_->functions.end(),
                                [&](const ir::Function* f) { return f->Name() == name; });
         ++n) {
      name = base + "." + std::to_string(n);
    }
    ir::Function* f = module_->AddFunction(name, LowerType(decl->result_type));
    f->is_entry = entries.count(decl) != 0;
    functions_[decl] = f;
  }
  for (ast::FuncDecl* decl : checked.functions) LowerFunction(decl, functions_[decl]);
  return std::move(module_);
}

const ir::Type* Lowerer::LowerType(const sema::Type* t) {
  auto it = type_cache_.find(t);
  if (it != type_cache_.end()) return it->second;
  ir::TypeTable& types = module_->Types();
  const ir::Type* result = nullptr;
  switch (t->Kind()) {
    case sema::TypeKind::Void: result = types.Void(); break;
    case sema::TypeKind::Bool: result = types.Bool(); break;
    case sema::TypeKind::Int: result = types.Int(32, true); break;
    case sema::TypeKind::UInt: result = types.Int(32, false); break;
    case sema::TypeKind::Float: result = types.Float(32); break;
    case sema::TypeKind::Vector: result = types.Vector(LowerType(t->Element()), t->Count()); break;
    case sema::TypeKind::Buffer: result = types.Buffer(LowerType(t->Element()), t->IsWritable()); break;
    case sema::TypeKind::Struct: result = LowerStructType(t); break;
    case sema::TypeKind::Error: SLOPE_ICE("error type reached lowering");
  }
  type_cache_[t] = result;
  return result;
}

namespace {
bool IntArg(const ast::Attribute& a, size_t i, uint32_t* out) {
  if (i >= a.args.size() || a.args[i]->kind != ast::ExprKind::IntLiteral) return false;
  *out = static_cast<uint32_t>(static_cast<const ast::IntLiteralExpr*>(a.args[i])->value);
  return true;
}
}  // namespace

void Lowerer::DeclareGlobals(const std::vector<ast::VarDecl*>& buffers) {
  // Explicit [[vk::binding(b, s)]] first; the rest take the next free binding of set 0.
  std::set<std::pair<uint32_t, uint32_t>> used;
  for (ast::VarDecl* var : buffers) {
    ir::Global* g = module_->AddGlobal(LowerType(var->type), var->name);
    globals_[var] = g;
    if (const ast::Attribute* a = var->FindAttribute("vk::binding")) {
      IntArg(*a, 0, &g->binding);
      IntArg(*a, 1, &g->set);
      used.insert({g->set, g->binding});
    }
  }
  uint32_t next = 0;
  for (ast::VarDecl* var : buffers) {
    if (var->FindAttribute("vk::binding") != nullptr) continue;
    while (used.count({0, next}) != 0) ++next;
    globals_[var]->binding = next;
    used.insert({0, next});
  }
}

void Lowerer::LowerFunction(ast::FuncDecl* decl, ir::Function* f) {
  base::IceLocationScope ice(sources_.Describe(decl->name_range.begin));
  ice_ = &ice;
  func_ = f;
  decl_ = decl;
  locals_.clear();
  Place(NewBlock());
  Loc(decl->name_range);
  if (f->is_entry) f->entry.numthreads = sema::NumThreadsOf(*decl);
  bool is_init = decl->func_kind == ast::FuncKind::Init;
  if (decl->this_param != nullptr && !is_init) {
    // A [mutating] method receives a pointer to its object; others a copy.
    const ir::Type* self = LowerType(decl->this_param->type);
    if (decl->is_mutating) {
      const ir::Type* ptr = module_->Types().Pointer(ir::AddressSpace::Function, self);
      ir::Param* p = module_->AddParam(ptr, nullptr);
      f->params.push_back(p);
      locals_[decl->this_param] = p;
    } else {
      ir::Param* p = module_->AddParam(self, nullptr);
      f->params.push_back(p);
      Value* slot = b_.Var(f, self);
      b_.Store(slot, p);
      locals_[decl->this_param] = slot;
    }
  }
  for (ast::VarDecl* param : decl->params) {
    ir::Param* p = module_->AddParam(LowerType(param->type), nullptr);
    f->params.push_back(p);
    if (f->is_entry) f->entry.param_semantics.push_back(param->semantic);
    // Parameters are mutable locals in HLSL.
    Value* slot = b_.Var(f, p->GetType());
    b_.Store(slot, p);
    locals_[param] = slot;
  }
  if (is_init) {
    // `__init` builds its object in a local that starts at the default value.
    Value* slot = b_.Var(f, f->ResultType());
    b_.Store(slot, DefaultValue(decl->owner));
    locals_[decl->this_param] = slot;
  }
  LowerStmt(decl->body);
  if (!b_.IsTerminated()) {
    Loc(source::SourceRange(decl->body->range.end));
    if (is_init) {
      b_.Return(b_.Load(locals_.at(decl->this_param)));
    } else if (f->ResultType()->IsVoid()) {
      b_.Return();
    } else {
      b_.Return(Zero(f->ResultType()));  // sema warned: control reaches the end
    }
  }
  RemoveDeadBlocks(f);
  func_ = nullptr;
  decl_ = nullptr;
  ice_ = nullptr;
}

void Lowerer::RemoveDeadBlocks(ir::Function* f) {
  // Reachable through real edges.
  std::set<ir::Block*> reachable;
  std::vector<ir::Block*> work{f->blocks.front()};
  while (!work.empty()) {
    ir::Block* b = work.back();
    work.pop_back();
    if (!reachable.insert(b).second) continue;
    ir::Inst* t = b->Terminator();
    SLOPE_ASSERT(t != nullptr);
    size_t edges = t->GetOp() == Op::If ? 2 : t->GetOp() == Op::Loop ? 1 : t->targets.size();
    for (size_t i = 0; i < edges; ++i) work.push_back(t->targets[i]);
  }
  // Merge and continue blocks named by reachable headers must exist even when no path
  // reaches them; such a block is reduced to what SPIR-V requires of it.
  std::set<ir::Block*> kept = reachable;
  for (ir::Block* b : f->blocks) {
    if (reachable.count(b) == 0) continue;
    ir::Inst* t = b->Terminator();
    if (t->GetOp() == Op::If || t->GetOp() == Op::Loop) {
      ir::Block* merge = t->targets[t->GetOp() == Op::If ? 2 : 1];
      if (reachable.count(merge) == 0 && kept.insert(merge).second) {
        merge->insts.clear();
        b_.SetInsertBlock(merge);
        b_.Unreachable();
      }
    }
    if (t->GetOp() == Op::Loop) {
      ir::Block* cont = t->targets[2];
      if (reachable.count(cont) == 0 && kept.insert(cont).second) {
        cont->insts.clear();
        b_.SetInsertBlock(cont);
        b_.Br(b);
      }
    }
  }
  std::vector<ir::Block*> blocks;
  for (ir::Block* b : f->blocks) {
    if (kept.count(b) != 0) blocks.push_back(b);
  }
  f->blocks = std::move(blocks);
}

// ---------------------------------------------------------------------------------------
// Statements

void Lowerer::StartDeadBlock() { Place(NewBlock()); }

void Lowerer::LowerStmt(const ast::Stmt* stmt) {
  if (stmt == nullptr) return;
  Loc(stmt->range);
  if (ice_ != nullptr) ice_->Update(sources_.Describe(stmt->range.begin));
  switch (stmt->kind) {
    case ast::StmtKind::Block:
      for (const ast::Stmt* s : static_cast<const ast::BlockStmt*>(stmt)->stmts) LowerStmt(s);
      return;
    case ast::StmtKind::Decl:
      for (const ast::VarDecl* v : static_cast<const ast::DeclStmt*>(stmt)->vars) LowerLocal(v);
      return;
    case ast::StmtKind::Expr: {
      const ast::Expr* e = static_cast<const ast::ExprStmt*>(stmt)->expr;
      // A bare buffer name has no value to compute and no side effect.
      if (!e->type->IsBuffer()) LowerExpr(e);
      return;
    }
    case ast::StmtKind::If:
      LowerIf(static_cast<const ast::IfStmt*>(stmt));
      return;
    case ast::StmtKind::For: {
      auto* s = static_cast<const ast::ForStmt*>(stmt);
      LowerLoop(s->init, s->cond, s->step, s->body, true);
      return;
    }
    case ast::StmtKind::While: {
      auto* s = static_cast<const ast::WhileStmt*>(stmt);
      LowerLoop(nullptr, s->cond, nullptr, s->body, true);
      return;
    }
    case ast::StmtKind::DoWhile: {
      auto* s = static_cast<const ast::DoWhileStmt*>(stmt);
      LowerLoop(nullptr, s->cond, nullptr, s->body, false);
      return;
    }
    case ast::StmtKind::Return: {
      auto* s = static_cast<const ast::ReturnStmt*>(stmt);
      if (decl_->func_kind == ast::FuncKind::Init) {
        b_.Return(b_.Load(locals_.at(decl_->this_param)));
      } else if (s->value != nullptr) {
        Value* v = LowerExpr(s->value);
        Loc(stmt->range);
        b_.Return(v);
      } else {
        b_.Return();
      }
      StartDeadBlock();
      return;
    }
    case ast::StmtKind::Break:
      b_.Br(loops_.back().break_target);
      StartDeadBlock();
      return;
    case ast::StmtKind::Continue:
      b_.Br(loops_.back().continue_target);
      StartDeadBlock();
      return;
    case ast::StmtKind::Empty:
      return;
    case ast::StmtKind::Switch:
    case ast::StmtKind::Case:
      SLOPE_ICE("statement kind rejected by sema reached lowering");
  }
}

void Lowerer::LowerLocal(const ast::VarDecl* var) {
  const ir::Type* type = LowerType(var->type);
  Value* slot = b_.Var(func_, type);
  locals_[var] = slot;
  // Locals without an initializer start at zero so that results never depend on
  // whatever a target leaves in uninitialised memory.
  Value* init = var->init != nullptr   ? LowerExpr(var->init)
                : var->type->IsStruct() ? DefaultValue(var->type)
                                        : Zero(type);
  b_.Store(slot, init);
}

void Lowerer::LowerIf(const ast::IfStmt* s) {
  Value* cond = LowerExpr(s->cond);
  ir::Block* then_block = NewBlock();
  ir::Block* else_block = s->else_stmt != nullptr ? NewBlock() : nullptr;
  ir::Block* merge = NewBlock();
  Loc(s->range);
  b_.If(cond, then_block, else_block != nullptr ? else_block : merge, merge);
  Place(then_block);
  LowerStmt(s->then_stmt);
  if (!b_.IsTerminated()) b_.Br(merge);
  if (else_block != nullptr) {
    Place(else_block);
    LowerStmt(s->else_stmt);
    if (!b_.IsTerminated()) b_.Br(merge);
  }
  Place(merge);
}

void Lowerer::LowerLoop(const ast::Stmt* init, const ast::Expr* cond, const ast::Expr* step,
                        const ast::Stmt* body, bool test_first) {
  if (init != nullptr) LowerStmt(init);
  ir::Block* header = NewBlock();
  ir::Block* first = NewBlock();  // condition (test_first) or body
  ir::Block* cont = NewBlock();
  ir::Block* exit = NewBlock();
  b_.Br(header);
  Place(header);
  b_.Loop(first, exit, cont);
  Place(first);
  if (test_first && cond != nullptr) {
    Value* c = LowerExpr(cond);
    ir::Block* body_block = NewBlock();
    b_.CondBr(c, body_block, exit);
    Place(body_block);
  }
  loops_.push_back({exit, cont});
  LowerStmt(body);
  loops_.pop_back();
  if (!b_.IsTerminated()) b_.Br(cont);
  Place(cont);
  if (step != nullptr) LowerExpr(step);
  if (!test_first) {
    Value* c = LowerExpr(cond);
    b_.CondBr(c, header, exit);
  } else {
    b_.Br(header);
  }
  Place(exit);
}

std::unique_ptr<ir::Module> LowerModule(const sema::CheckedModule& checked,
                                        const source::SourceManager& sources) {
  return Lowerer(sources).Run(checked);
}

}  // namespace slope::lower
