// Default implementations written in an interface (`interface IFoo { int twice() {
// return foo() * 2; } }`): the method stays a requirement, and its body moves to an
// extension of the interface made here, whose methods already serve as defaults for
// every conforming type that does not implement the requirement itself.

#include "compiler/sema/checker.h"

namespace slope::sema {

using diag::DiagId;

void Checker::SplitDefaultImplementations(std::vector<ast::Decl*>& decls) {
  for (size_t i = 0; i < decls.size(); ++i) {
    ast::Decl* decl = decls[i];
    if (decl->kind == ast::DeclKind::Namespace) {
      SplitDefaultImplementations(static_cast<ast::AggregateDecl*>(decl)->members);
      continue;
    }
    if (decl->kind != ast::DeclKind::Interface) continue;
    auto* iface = static_cast<ast::AggregateDecl*>(decl);
    ast::AggregateDecl* ext = nullptr;
    for (ast::Decl* member : iface->members) {
      if (member->kind != ast::DeclKind::Func) continue;
      auto* req = static_cast<ast::FuncDecl*>(member);
      if (req->body == nullptr || req->func_kind != ast::FuncKind::Plain) continue;
      if (!iface->generic_params.empty()) {
        diags_.Report(DiagId::UnsupportedConstruct, req->name_range,
                      "default implementations in generic interfaces", "are");
        req->body = nullptr;
        continue;
      }
      if (ext == nullptr) {
        ext = ctx_.New<ast::AggregateDecl>(ast::DeclKind::Extension, iface->name,
                                           iface->name_range);
        ext->target = ctx_.New<ast::TypeExpr>();
        ext->target->name = iface->name;
        ext->target->range = iface->name_range;
      }
      // The default: the same header with parameters of its own, and the body.
      auto* impl = ctx_.New<ast::FuncDecl>(*req);
      impl->params.clear();
      for (ast::VarDecl* p : req->params) impl->params.push_back(ctx_.New<ast::VarDecl>(*p));
      req->body = nullptr;
      ext->members.push_back(impl);
    }
    if (ext != nullptr) decls.insert(decls.begin() + static_cast<std::ptrdiff_t>(++i), ext);
  }
}

}  // namespace slope::sema
