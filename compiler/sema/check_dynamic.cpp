// Interface-typed values in memory. `[anyValueSize(N)] interface IFoo` gives a value of
// IFoo a stored form: a conformance id naming its concrete type and a payload of N bytes
// holding the value as 32-bit words. `StructuredBuffer<IFoo>` holds such values, and
// `createDynamicObject<IFoo>(id, data)` makes one from an id and the words of `data`.
// The ids number the program's non-generic conforming types in declaration order.

#include "compiler/sema/checker.h"

namespace slope::sema {

using diag::DiagId;

void Checker::ReadAnyValueSize(const ast::AggregateDecl* decl, InterfaceInfo* info) {
  const ast::Attribute* a = decl->FindAttribute("anyValueSize");
  if (a == nullptr) return;
  // Read while interfaces are declared, before any expression is checked: a literal.
  uint64_t n = 0;
  if (a->args.size() == 1 && a->args[0]->kind == ast::ExprKind::IntLiteral) {
    n = static_cast<const ast::IntLiteralExpr*>(a->args[0])->value;
  }
  if (n == 0 || n > 65536) {
    diags_.Report(DiagId::InvalidAttributeArgs, a->range, a->name,
                  "one integer literal from 1 to 65536 (the payload's size in bytes)");
    return;
  }
  info->any_value_size = static_cast<int64_t>(n);
}

int64_t Checker::PayloadWords(const Type* t, std::string* why) {
  if (t->IsEnum()) return PayloadWords(t->Element(), why);
  if (t->IsArray()) {
    int64_t n = PayloadWords(t->Element(), why);
    return n < 0 ? -1 : n * t->Count();
  }
  if (t->IsStruct() && !t->IsDependent()) {
    int64_t n = 0;
    for (size_t i = 0; i < t->Info()->fields.size(); ++i) {
      int64_t f = PayloadWords(types_.FieldType(t, i), why);
      if (f < 0) return -1;
      n += f;
    }
    return n;
  }
  if ((t->IsScalar() || t->IsVector()) && !t->IsDependent()) {
    const Type* s = t->ScalarType();
    if (s->Kind() == TypeKind::Bool || s->Width() == 32) return t->Count();
    if (s->Width() == 64) return 2 * int64_t{t->Count()};
  }
  *why = "'" + t->Name() +
         "' is not made of bool or of 32- or 64-bit int, uint or float scalars and vectors "
         "(each takes one 32-bit word of the payload, a 64-bit one two)";
  return -1;
}

void Checker::CheckDynamicConformances(const std::vector<ast::Decl*>& decls) {
  for (const ast::Decl* decl : decls) {
    auto it = interfaces_.find(decl);
    if (it == interfaces_.end() || it->second->any_value_size < 0) continue;
    InterfaceInfo* info = it->second;
    const Type* iface = types_.InterfaceOf(info, {});
    if (!info->params.empty()) continue;
    for (const Type* st : struct_list_) {
      if (st->IsError() || !st->Info()->params.empty() || !types_.Conforms(st, iface)) continue;
      std::string why;
      int64_t words = PayloadWords(st, &why);
      const ast::AggregateDecl* sd = st->Info()->decl;
      if (words < 0) {
        diags_.Report(DiagId::PayloadTypeUnsupported, sd->name_range, st->Name(), info->name, why);
        continue;
      }
      if (words * 4 > info->any_value_size) {
        diags_.Report(DiagId::AnyValueTooLarge, sd->name_range, st->Name(), words * 4,
                      info->any_value_size, info->any_value_size, info->name);
        continue;
      }
      info->dynamic_types.push_back(st);
      info->dynamic_payload_bytes.push_back(static_cast<uint32_t>(words * 4));
    }
    if (checked_out_ != nullptr) checked_out_->dynamic_interfaces.push_back(info);
  }
}

const Type* Checker::CheckInterfaceElement(const ast::TypeExpr* te, const Type* element) {
  if (te->name != "StructuredBuffer" && te->name != "RWStructuredBuffer") {
    diags_.Report(DiagId::UnsupportedBufferElement, te->type_args[0]->range, element->Name());
    return types_.Error();
  }
  if (element->Iface()->any_value_size < 0 || !element->Args().empty()) {
    diags_.Report(DiagId::InterfaceElementNeedsSize, te->type_args[0]->range, element->Name());
    return types_.Error();
  }
  return types_.Buffer(element, te->name == "RWStructuredBuffer");
}

void Checker::CheckDynamicObject(const ast::CallExpr* call) {
  const Type* target = call->type;
  const Type* data = call->args.size() == 2 ? call->args[1]->type : nullptr;
  if (target->IsError() || data == nullptr || data->IsError()) return;
  auto report = [&](const std::string& why) {
    diags_.Report(DiagId::DynamicObjectArgs, call->range, target->Name(), why);
  };
  if (target->IsDependent() || data->IsDependent()) {
    report("a generic type is not supported; name the interface and the payload's type");
  } else if (!target->IsInterface()) {
    report("'" + target->Name() + "' is not an interface type");
  } else if (target->Iface()->any_value_size < 0 || !target->Args().empty()) {
    report("interface '" + target->Name() +
           "' has no [anyValueSize(N)], so its values have no stored form");
  } else {
    std::string why;
    int64_t words = PayloadWords(data, &why);
    if (words < 0) {
      report("the payload cannot be stored as words: " + why);
    } else if (words * 4 > target->Iface()->any_value_size) {
      report("the payload takes " + std::to_string(words * 4) + " bytes, more than the " +
             std::to_string(target->Iface()->any_value_size) + " of [anyValueSize]");
    }
  }
}

}  // namespace slope::sema
