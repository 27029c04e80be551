#include "compiler/targets/ctext/module.h"

#include <algorithm>

#include "compiler/ir/type_walk.h"
#include "compiler/targets/ctext/text_writer.h"

namespace slope::targets::ctext {

std::vector<const ir::Function*> Reachable(const ir::Module& module,
                                           const std::vector<const ir::Function*>& roots) {
  std::set<const ir::Function*> seen(roots.begin(), roots.end());
  std::vector<const ir::Function*> work = roots;
  while (!work.empty()) {
    const ir::Function* f = work.back();
    work.pop_back();
    for (const ir::Block* b : f->blocks) {
      for (const ir::Inst* inst : b->insts) {
        if (inst->GetOp() == ir::Op::Call && seen.insert(inst->callee).second) {
          work.push_back(inst->callee);
        }
      }
    }
  }
  std::vector<const ir::Function*> out;
  for (const ir::Function* f : module.functions) {
    if (seen.count(f) != 0) out.push_back(f);
  }
  return out;
}

std::set<const ir::Global*> UsedGlobals(const std::vector<const ir::Function*>& functions) {
  std::set<const ir::Global*> used;
  for (const ir::Function* f : functions) {
    for (const ir::Block* b : f->blocks) {
      for (const ir::Inst* inst : b->insts) {
        for (const ir::Value* v : inst->operands) {
          if (v->VKind() == ir::ValueKind::Global) used.insert(static_cast<const ir::Global*>(v));
        }
      }
    }
  }
  return used;
}

bool HoldsBuffer(const ir::Type* root) {
  return ir::FoldType<bool>(root, [](const ir::Type* t, const auto& recurse) {
    while (t->IsArray()) t = t->Element();
    if (t->IsResource()) return true;
    if (!t->IsStruct()) return false;
    return std::any_of(t->Members().begin(), t->Members().end(), recurse);
  });
}

ModuleNames::ModuleNames(const ir::Module& module, std::vector<std::string_view> reserved_words,
                         std::vector<std::string_view> reserved_prefixes,
                         const std::function<std::string(const ir::Function&)>& function_name)
    : names_(reserved_words, reserved_prefixes) {
  for (const ir::Type* s : module.Types().Structs()) {
    struct_names_[s] = names_.Make(s->StructName());
    std::vector<std::string>& members = member_names_[s];
    NameTable member_table(reserved_words, reserved_prefixes);
    for (const std::string& m : s->MemberNames()) members.push_back(member_table.Make(m));
    if (members.empty()) members.push_back(member_table.Make("unused"));
  }
  for (const ir::Global* g : module.globals) global_names_[g] = names_.Make(g->Name());
  for (const ir::Global* g : module.spec_constants) global_names_[g] = names_.Make(g->Name());
  for (const ir::Function* f : module.functions) {
    std::string chosen = function_name ? function_name(*f) : std::string();
    if (!chosen.empty()) {
      names_.Take(chosen);
      function_names_[f] = chosen;
    } else {
      function_names_[f] = names_.Make(f->Name());
    }
  }
}

std::string WriteStructs(const ir::Module& module, const ModuleNames& names,
                         const std::function<std::string(const ir::Type* s, size_t i)>& member,
                         const std::string& indent) {
  TextWriter out;
  for (const ir::Type* s : module.Types().Structs()) {
    if (HoldsBuffer(s)) continue;
    out.Open(indent + "struct " + names.StructName(s));
    if (s->Members().empty()) out.Line("int " + names.MemberName(s, 0) + ";");
    for (size_t i = 0; i < s->Members().size(); ++i) out.Line(member(s, i));
    out.Close("};");
  }
  return out.Text();
}

}  // namespace slope::targets::ctext
