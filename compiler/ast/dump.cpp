#include "compiler/ast/dump.h"

#include <charconv>

namespace slope::ast {
namespace {

std::string Join(const std::vector<std::string>& parts, const char* sep) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i != 0) out += sep;
    out += parts[i];
  }
  return out;
}

std::string FormatDouble(double v) {
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof(buf), v);
  std::string s(buf, r.ptr);
  if (s.find_first_of(".eni") == std::string::npos) s += ".0";
  return s;
}

std::string Quote(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string DumpAttributes(const std::vector<Attribute>& attrs) {
  std::string out;
  for (const Attribute& a : attrs) {
    out += " [" + a.name;
    if (!a.args.empty()) {
      std::vector<std::string> args;
      for (const Expr* e : a.args) args.push_back(DumpExpr(e));
      out += "(" + Join(args, ", ") + ")";
    }
    out += "]";
  }
  return out;
}

std::string DumpGenericParams(const std::vector<GenericParamDecl*>& params) {
  if (params.empty()) return "";
  std::vector<std::string> parts;
  for (const GenericParamDecl* p : params) {
    std::string s = (p->is_value ? "let " : p->is_pack ? "each " : "") + p->name;
    if (p->constraint != nullptr) s += " : " + DumpType(p->constraint);
    if (p->default_type != nullptr) s += " = " + DumpType(p->default_type);
    if (p->default_value != nullptr) s += " = " + DumpExpr(p->default_value);
    parts.push_back(s);
  }
  return "<" + Join(parts, ", ") + ">";
}

std::string DumpTypeList(const std::vector<TypeExpr*>& types) {
  std::vector<std::string> parts;
  for (const TypeExpr* t : types) parts.push_back(DumpType(t));
  return Join(parts, ", ");
}

std::string Mods(uint32_t modifiers) {
  std::string s = ModifierSpelling(modifiers);
  return s.empty() ? s : s + " ";
}

std::string DumpVar(const VarDecl* v) {
  std::string s = Mods(v->modifiers);
  s += v->type_expr != nullptr ? DumpType(v->type_expr) + " " : (v->is_let ? "let " : "var ");
  s += v->name;
  if (!v->semantic.empty()) {
    s += " : " + v->semantic;
    if (!v->semantic_args.empty()) s += "(" + Join(v->semantic_args, ", ") + ")";
  }
  if (v->init != nullptr) s += " = " + DumpExpr(v->init);
  return s + DumpAttributes(v->attributes);
}

std::string DumpParams(const std::vector<VarDecl*>& params) {
  std::vector<std::string> parts;
  for (const VarDecl* p : params) parts.push_back(DumpVar(p));
  return "(" + Join(parts, ", ") + ")";
}

class Dumper {
 public:
  std::string out;

  void Line(int depth, const std::string& text) {
    out.append(static_cast<size_t>(depth) * 2, ' ');
    out += text;
    out += '\n';
  }

  void Decl(int depth, const ast::Decl* d);
  void Stmt(int depth, const ast::Stmt* s);
  void Func(int depth, const FuncDecl* f);
  void Members(int depth, const std::vector<ast::Decl*>& members) {
    for (const ast::Decl* m : members) Decl(depth, m);
  }
};

void Dumper::Func(int depth, const FuncDecl* f) {
  std::string head;
  switch (f->func_kind) {
    case FuncKind::Plain: head = "Func "; break;
    case FuncKind::Init: head = "Init "; break;
    case FuncKind::Operator: head = "Operator "; break;
    case FuncKind::Getter: head = "Get"; break;
    case FuncKind::Setter: head = "Set"; break;
  }
  if (f->func_kind == FuncKind::Getter || f->func_kind == FuncKind::Setter) {
    if (!f->params.empty()) head += DumpParams(f->params);
  } else {
    head += Mods(f->modifiers);
    if (f->return_type != nullptr) head += DumpType(f->return_type) + " ";
    head += f->name + DumpGenericParams(f->generic_params) + DumpParams(f->params);
    if (!f->return_semantic.empty()) head += " : " + f->return_semantic;
  }
  if (f->body == nullptr) head += " (no body)";
  Line(depth, head + DumpAttributes(f->attributes));
  if (f->body != nullptr) Stmt(depth + 1, f->body);
}

void Dumper::Decl(int depth, const ast::Decl* d) {
  switch (d->kind) {
    case DeclKind::Var:
      Line(depth, "Var " + DumpVar(static_cast<const VarDecl*>(d)));
      return;
    case DeclKind::Func:
      Func(depth, static_cast<const FuncDecl*>(d));
      return;
    case DeclKind::Struct:
    case DeclKind::Interface:
    case DeclKind::Extension:
    case DeclKind::Namespace:
    case DeclKind::BufferBlock: {
      auto* a = static_cast<const AggregateDecl*>(d);
      static constexpr const char* kNames[] = {"Struct", "Interface", "Extension", "Namespace",
                                               "CBuffer"};
      size_t index = d->kind == DeclKind::Struct      ? 0
                     : d->kind == DeclKind::Interface ? 1
                     : d->kind == DeclKind::Extension ? 2
                     : d->kind == DeclKind::Namespace ? 3
                                                      : 4;
      std::string head = std::string(kNames[index]) + " " + Mods(a->modifiers);
      head += d->kind == DeclKind::Extension ? DumpType(a->target) : a->name;
      if (d->kind == DeclKind::Extension && !a->generic_params.empty()) {
        head = std::string(kNames[index]) + DumpGenericParams(a->generic_params) + " " +
               Mods(a->modifiers) + DumpType(a->target);
      } else {
        head += DumpGenericParams(a->generic_params);
      }
      if (!a->bases.empty()) head += " : " + DumpTypeList(a->bases);
      if (!a->register_args.empty()) head += " : register(" + Join(a->register_args, ", ") + ")";
      Line(depth, head + DumpAttributes(a->attributes));
      Members(depth + 1, a->members);
      return;
    }
    case DeclKind::Enum: {
      auto* e = static_cast<const EnumDecl*>(d);
      std::string head = std::string("Enum ") + (e->is_class ? "class " : "") + e->name;
      if (e->underlying != nullptr) head += " : " + DumpType(e->underlying);
      Line(depth, head + DumpAttributes(e->attributes));
      for (const EnumCaseDecl* c : e->cases) {
        Line(depth + 1, "Case " + c->name + (c->value != nullptr ? " = " + DumpExpr(c->value) : ""));
      }
      return;
    }
    case DeclKind::EnumCase:
      Line(depth, "Case " + d->name);
      return;
    case DeclKind::TypeAlias: {
      auto* t = static_cast<const TypeAliasDecl*>(d);
      Line(depth, "TypeAlias " + t->name + DumpGenericParams(t->generic_params) + " = " +
                      DumpType(t->target));
      return;
    }
    case DeclKind::Import:
      Line(depth, "Import " + d->name);
      return;
    case DeclKind::Using:
      Line(depth, "Using " + d->name);
      return;
    case DeclKind::AssociatedType: {
      auto* a = static_cast<const AssociatedTypeDecl*>(d);
      Line(depth, "AssociatedType " + a->name +
                      (a->constraints.empty() ? "" : " : " + DumpTypeList(a->constraints)));
      return;
    }
    case DeclKind::GenericParam:
      Line(depth, "GenericParam " + d->name);
      return;
    case DeclKind::Property: {
      auto* p = static_cast<const PropertyDecl*>(d);
      Line(depth, "Property " + Mods(p->modifiers) + DumpType(p->type) + " " + p->name +
                      DumpAttributes(p->attributes));
      for (const FuncDecl* a : p->accessors) Func(depth + 1, a);
      return;
    }
    case DeclKind::Subscript: {
      auto* s = static_cast<const SubscriptDecl*>(d);
      Line(depth, "Subscript" + DumpParams(s->params) + " -> " + DumpType(s->result) +
                      DumpAttributes(s->attributes));
      for (const FuncDecl* a : s->accessors) Func(depth + 1, a);
      return;
    }
  }
}

void Dumper::Stmt(int depth, const ast::Stmt* s) {
  if (s == nullptr) return;
  std::string attrs = DumpAttributes(s->attributes);
  switch (s->kind) {
    case StmtKind::Block:
      Line(depth, "Block" + attrs);
      for (const ast::Stmt* c : static_cast<const BlockStmt*>(s)->stmts) Stmt(depth + 1, c);
      return;
    case StmtKind::Decl:
      for (const VarDecl* v : static_cast<const DeclStmt*>(s)->vars) Line(depth, "Local " + DumpVar(v));
      return;
    case StmtKind::Expr:
      Line(depth, "Expr " + DumpExpr(static_cast<const ExprStmt*>(s)->expr) + attrs);
      return;
    case StmtKind::If: {
      auto* i = static_cast<const IfStmt*>(s);
      Line(depth, "If " + DumpExpr(i->cond) + attrs);
      Stmt(depth + 1, i->then_stmt);
      if (i->else_stmt != nullptr) {
        Line(depth, "Else");
        Stmt(depth + 1, i->else_stmt);
      }
      return;
    }
    case StmtKind::For: {
      auto* f = static_cast<const ForStmt*>(s);
      Line(depth, "For" + attrs);
      if (f->init != nullptr) {
        Line(depth + 1, "Init");
        Stmt(depth + 2, f->init);
      }
      if (f->cond != nullptr) Line(depth + 1, "Cond " + DumpExpr(f->cond));
      if (f->step != nullptr) Line(depth + 1, "Step " + DumpExpr(f->step));
      Stmt(depth + 1, f->body);
      return;
    }
    case StmtKind::While: {
      auto* w = static_cast<const WhileStmt*>(s);
      Line(depth, "While " + DumpExpr(w->cond) + attrs);
      Stmt(depth + 1, w->body);
      return;
    }
    case StmtKind::DoWhile: {
      auto* w = static_cast<const DoWhileStmt*>(s);
      Line(depth, "DoWhile " + DumpExpr(w->cond) + attrs);
      Stmt(depth + 1, w->body);
      return;
    }
    case StmtKind::Return: {
      auto* r = static_cast<const ReturnStmt*>(s);
      Line(depth, r->value != nullptr ? "Return " + DumpExpr(r->value) : "Return");
      return;
    }
    case StmtKind::Break: Line(depth, "Break"); return;
    case StmtKind::Continue: Line(depth, "Continue"); return;
    case StmtKind::Empty: Line(depth, "Empty"); return;
    case StmtKind::Switch: {
      auto* w = static_cast<const SwitchStmt*>(s);
      Line(depth, "Switch " + DumpExpr(w->value) + attrs);
      Stmt(depth + 1, w->body);
      return;
    }
    case StmtKind::Case: {
      auto* c = static_cast<const CaseStmt*>(s);
      Line(depth, c->value != nullptr ? "Case " + DumpExpr(c->value) : "Default");
      return;
    }
    case StmtKind::Throw:
      Line(depth, "Throw " + DumpExpr(static_cast<const ThrowStmt*>(s)->value));
      return;
    case StmtKind::DoCatch: {
      auto* d = static_cast<const DoCatchStmt*>(s);
      Line(depth, "Do" + attrs);
      Stmt(depth + 1, d->body);
      for (const CatchClause& c : d->clauses) {
        Line(depth, "Catch " + DumpVar(c.var));
        Stmt(depth + 1, c.body);
      }
      return;
    }
    case StmtKind::Defer:
      Line(depth, "Defer");
      Stmt(depth + 1, static_cast<const DeferStmt*>(s)->body);
      return;
  }
}

}  // namespace

std::string DumpType(const TypeExpr* type) {
  if (type == nullptr) return "<none>";
  if (type->pack == TypeExpr::kExpand) return "expand " + DumpType(type->type_args[0]);
  std::string s = (type->pack == TypeExpr::kEach ? "each " : "") + type->name;
  if (!type->type_args.empty() || !type->value_args.empty()) {
    std::vector<std::string> args;
    for (const TypeExpr* t : type->type_args) args.push_back(DumpType(t));
    for (const Expr* e : type->value_args) args.push_back(DumpExpr(e));
    s += "<" + Join(args, ", ") + ">";
  }
  for (const Expr* dim : type->array_dims) s += dim != nullptr ? "[" + DumpExpr(dim) + "]" : "[]";
  return s;
}

std::string DumpExpr(const Expr* e) {
  if (e == nullptr) return "<none>";
  switch (e->kind) {
    case ExprKind::IntLiteral: {
      auto* lit = static_cast<const IntLiteralExpr*>(e);
      return std::to_string(lit->value) + (lit->is_unsigned ? "u" : "");
    }
    case ExprKind::FloatLiteral:
      return FormatDouble(static_cast<const FloatLiteralExpr*>(e)->value);
    case ExprKind::BoolLiteral:
      return static_cast<const BoolLiteralExpr*>(e)->value ? "true" : "false";
    case ExprKind::StringLiteral:
      return Quote(static_cast<const StringLiteralExpr*>(e)->value);
    case ExprKind::Name: {
      auto* n = static_cast<const NameExpr*>(e);
      if (n->generic_args.empty() && n->generic_values.empty()) return n->name;
      std::vector<std::string> args;
      for (const TypeExpr* t : n->generic_args) args.push_back(DumpType(t));
      for (const Expr* v : n->generic_values) args.push_back(DumpExpr(v));
      return n->name + "<" + Join(args, ", ") + ">";
    }
    case ExprKind::Member: {
      auto* m = static_cast<const MemberExpr*>(e);
      return DumpExpr(m->base) + (m->is_static ? "::" : ".") + m->member +
             (m->generic_args.empty() ? "" : "<" + DumpTypeList(m->generic_args) + ">");
    }
    case ExprKind::Index: {
      auto* i = static_cast<const IndexExpr*>(e);
      std::string indices = DumpExpr(i->index);
      for (const Expr* more : i->more_indices) indices += ", " + DumpExpr(more);
      return DumpExpr(i->base) + "[" + indices + "]";
    }
    case ExprKind::Call: {
      auto* c = static_cast<const CallExpr*>(e);
      std::vector<std::string> args;
      for (const Expr* a : c->args) args.push_back(DumpExpr(a));
      return DumpExpr(c->callee) + "(" + Join(args, ", ") + ")";
    }
    case ExprKind::Unary: {
      auto* u = static_cast<const UnaryExpr*>(e);
      bool post = u->op == OpKind::PostInc || u->op == OpKind::PostDec;
      return post ? "(" + DumpExpr(u->operand) + OpSpelling(u->op) + ")"
                  : "(" + std::string(OpSpelling(u->op)) + DumpExpr(u->operand) + ")";
    }
    case ExprKind::Binary: {
      auto* b = static_cast<const BinaryExpr*>(e);
      return "(" + DumpExpr(b->lhs) + " " + OpSpelling(b->op) + " " + DumpExpr(b->rhs) + ")";
    }
    case ExprKind::Assign: {
      auto* a = static_cast<const AssignExpr*>(e);
      std::string op = a->op == OpKind::Assign ? "=" : std::string(OpSpelling(a->op)) + "=";
      return "(" + DumpExpr(a->lhs) + " " + op + " " + DumpExpr(a->rhs) + ")";
    }
    case ExprKind::Conditional: {
      auto* c = static_cast<const ConditionalExpr*>(e);
      return "(" + DumpExpr(c->cond) + " ? " + DumpExpr(c->then_expr) + " : " +
             DumpExpr(c->else_expr) + ")";
    }
    case ExprKind::Cast: {
      auto* c = static_cast<const CastExpr*>(e);
      return "((" + DumpType(c->target) + ")" + DumpExpr(c->operand) + ")";
    }
    case ExprKind::ImplicitCast:
      return "implicit(" + DumpExpr(static_cast<const ImplicitCastExpr*>(e)->operand) + ")";
    case ExprKind::InitList: {
      std::vector<std::string> parts;
      for (const Expr* x : static_cast<const InitListExpr*>(e)->elements) parts.push_back(DumpExpr(x));
      return "{" + Join(parts, ", ") + "}";
    }
    case ExprKind::Diff: {
      auto* d = static_cast<const DiffExpr*>(e);
      return std::string(d->backward ? "bwd_diff(" : "fwd_diff(") + DumpExpr(d->operand) + ")";
    }
    case ExprKind::NoDiff:
      return "(no_diff " + DumpExpr(static_cast<const NoDiffExpr*>(e)->operand) + ")";
    case ExprKind::Pack: {
      auto* p = static_cast<const PackExpr*>(e);
      static const char* const kForms[] = {"expand ", "each ",    "pack ",   "countof ",
                                           "sizeof ", "alignof ", "valueof "};
      if (p->form == PackExpr::kValueOf) return "(valueof)";
      if (p->form == PackExpr::kGroup) {
        std::vector<std::string> parts;
        for (const Expr* x : p->elements) parts.push_back(DumpExpr(x));
        return "(pack " + Join(parts, ", ") + ")";
      }
      std::string operand = p->operand != nullptr ? DumpExpr(p->operand) : DumpType(p->type_arg);
      return "(" + std::string(kForms[p->form]) + operand + ")";
    }
    case ExprKind::Lambda: {
      auto* l = static_cast<const LambdaExpr*>(e);
      std::vector<std::string> parts;
      for (const VarDecl* p : l->params) parts.push_back(DumpType(p->type_expr) + " " + p->name);
      std::string body = "{...}";  // a block body is not shown
      if (l->expression_body) {
        body = DumpExpr(static_cast<const ReturnStmt*>(l->body->stmts[0])->value);
      }
      return "(lambda (" + Join(parts, ", ") + ") => " + body + ")";
    }
    case ExprKind::TypeTest: {
      auto* t = static_cast<const TypeTestExpr*>(e);
      return "(" + DumpExpr(t->operand) + (t->is_cast ? " as " : " is ") + DumpType(t->target) + ")";
    }
    case ExprKind::SpirvAsm: {
      auto operand = [](const SpirvAsmOperand& op) -> std::string {
        switch (op.kind) {
          case SpirvAsmOperand::Kind::Value:
            return "$(" + DumpExpr(op.value) + ")";
          case SpirvAsmOperand::Kind::Type:
            return "$$" + DumpType(op.type);
          case SpirvAsmOperand::Kind::Local:
            return "%" + op.text;
          case SpirvAsmOperand::Kind::Result:
            return "result";
          case SpirvAsmOperand::Kind::Int:
            return std::to_string(op.number);
          case SpirvAsmOperand::Kind::String:
            return "\"" + op.text + "\"";
          case SpirvAsmOperand::Kind::Name:
            return op.text;
          case SpirvAsmOperand::Kind::Builtin:
            return "builtin(...)";
          case SpirvAsmOperand::Kind::Address:
            return "&" + DumpExpr(op.value);
        }
        return "?";
      };
      std::vector<std::string> insts;
      for (const SpirvAsmInst& inst : static_cast<const SpirvAsmExpr*>(e)->insts) {
        std::string s;
        if (inst.has_def) {
          s += operand(inst.def);
          if (inst.def_type != nullptr) s += " : $$" + DumpType(inst.def_type);
          s += " = ";
        }
        s += inst.opcode;
        for (const SpirvAsmOperand& op : inst.operands) s += " " + operand(op);
        insts.push_back(s);
      }
      return "(spirv_asm " + Join(insts, "; ") + ")";
    }
  }
  return "?";
}

std::string DumpModule(const Module& module) {
  Dumper d;
  d.Line(0, "Module");
  d.Members(1, module.decls);
  return d.out;
}

}  // namespace slope::ast
