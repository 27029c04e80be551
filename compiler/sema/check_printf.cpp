// `printf(format, values...)` in kernels: the format is a string literal whose
// conversions (as the Vulkan debug-printf layer reads them) match the values' types.

#include <string>

#include "compiler/sema/checker.h"

namespace slope::sema {

using diag::DiagId;

namespace {

/// One conversion of a format: `%[flags][width][.precision][vN]specifier`.
struct Conversion {
  std::string text;         ///< as written, from '%' to the specifier
  uint32_t components = 1;  ///< N of `vN`, else 1
  bool is_float = false;    ///< a e f g (either case), else d i o u x X
};

/// Splits `format` into its conversions; on a malformed one, sets `*why` and returns false.
bool ParseFormat(const std::string& format, std::vector<Conversion>* out, std::string* why) {
  for (size_t i = 0; i < format.size(); ++i) {
    if (format[i] != '%') continue;
    size_t start = i++;
    if (i < format.size() && format[i] == '%') continue;  // "%%": a literal '%'
    while (i < format.size() && std::string_view("-+ #0").find(format[i]) != std::string::npos) ++i;
    while (i < format.size() && format[i] >= '0' && format[i] <= '9') ++i;
    if (i < format.size() && format[i] == '.') {
      ++i;
      while (i < format.size() && format[i] >= '0' && format[i] <= '9') ++i;
    }
    Conversion c;
    if (i < format.size() && format[i] == 'v') {
      ++i;
      if (i >= format.size() || format[i] < '2' || format[i] > '4') {
        *why = "'" + format.substr(start, i + 1 - start) + "' needs a vector size from 2 to 4";
        return false;
      }
      c.components = static_cast<uint32_t>(format[i++] - '0');
    }
    if (i >= format.size()) {
      *why = "'" + format.substr(start) + "' at the end of the format has no conversion letter";
      return false;
    }
    char spec = format[i];
    c.text = format.substr(start, i + 1 - start);
    if (spec == 's') {
      *why = "'" + c.text + "': kernels have no strings to print";
      return false;
    }
    if (spec == 'l' || spec == 'h') {
      *why = "'" + c.text + "': length modifiers are not supported (values are 32-bit)";
      return false;
    }
    if (std::string_view("aAeEfFgG").find(spec) != std::string::npos) {
      c.is_float = true;
    } else if (spec == 'c') {
      *why = "'" + c.text + "': debug printf has no characters (print the code with %d)";
      return false;
    } else if (std::string_view("diouxX").find(spec) == std::string::npos) {
      *why = "'" + c.text + "' is not a conversion (expected one of d i o u x X a e f g)";
      return false;
    }
    out->push_back(std::move(c));
  }
  return true;
}

}  // namespace

ast::Expr* Checker::CheckPrintf(ast::CallExpr* call) {
  call->type = types_.Error();
  if (call->args.empty() || call->args[0]->kind != ast::ExprKind::StringLiteral) {
    for (ast::Expr*& arg : call->args) {
      if (arg->kind != ast::ExprKind::StringLiteral) arg = CheckExpr(arg);
    }
    diags_.Report(DiagId::PrintfFormatNotLiteral,
                  call->args.empty() ? call->range : call->args[0]->range);
    return call;
  }
  const auto* literal = static_cast<const ast::StringLiteralExpr*>(call->args[0]);
  bool ok = true;
  for (size_t i = 1; i < call->args.size(); ++i) {
    if (call->args[i]->kind == ast::ExprKind::StringLiteral) {
      diags_.Report(DiagId::PrintfBadFormat, call->args[i]->range,
                    "only the first argument is a string; kernels have no strings to print");
      ok = false;
      continue;
    }
    call->args[i] = CheckExpr(call->args[i]);
    ok = ok && !call->args[i]->type->IsError();
  }
  if (!ok) return call;
  std::vector<Conversion> conversions;
  std::string why;
  if (!ParseFormat(literal->value, &conversions, &why)) {
    diags_.Report(DiagId::PrintfBadFormat, literal->range, why);
    return call;
  }
  if (conversions.size() != call->args.size() - 1) {
    diags_.Report(DiagId::PrintfBadFormat, call->range,
                  "the format has " + std::to_string(conversions.size()) + " conversion(s) but " +
                      std::to_string(call->args.size() - 1) + " value(s) were given");
    return call;
  }
  for (size_t i = 0; i < conversions.size(); ++i) {
    const Conversion& c = conversions[i];
    ast::Expr* arg = call->args[i + 1];
    const Type* t = arg->type;
    const Type* s = t->ScalarType();
    bool shape = c.components == 1 ? t->IsScalar() : t->IsVector() && t->Count() == c.components;
    bool kind = c.is_float ? s->Kind() == TypeKind::Float
                           : (s->Kind() == TypeKind::Int || s->Kind() == TypeKind::UInt) &&
                                 s->Width() <= 32;
    if (t->IsEnum()) {
      shape = c.components == 1;
      kind = !c.is_float;
    }
    if (!shape || !kind) {
      std::string what = c.is_float ? "float, half or double" : "integer (up to 32 bits)";
      what = c.components == 1 ? (c.is_float ? "a " : "an ") + what + " scalar"
                               : "a " + std::to_string(c.components) + "-component " + what +
                                     " vector";
      diags_.Report(DiagId::PrintfArgType, arg->range, i + 1, t->Name(), c.text, what);
      ok = false;
    }
  }
  if (!ok) return call;
  call->is_printf = true;
  call->type = types_.Void();
  return call;
}

}  // namespace slope::sema
