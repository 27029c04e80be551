// `printf(format, values...)` in kernels: the format is a string literal whose
// conversions (as the Vulkan debug-printf layer reads them) match the values' types.
// A `%s` takes a string literal, written into the format here (with its width and
// precision applied), so every target prints a format without strings.

#include <algorithm>
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
  bool is_string = false;   ///< s: a string literal, written into the format
  size_t begin = 0;         ///< where `text` starts in the format
  bool left = false;        ///< the '-' flag: pad on the right
  size_t width = 0;         ///< the minimum width, 0 for none
  int precision = -1;       ///< the precision, -1 for none
};

/// Splits `format` into its conversions; on a malformed one, sets `*why` and returns false.
bool ParseFormat(const std::string& format, std::vector<Conversion>* out, std::string* why) {
  for (size_t i = 0; i < format.size(); ++i) {
    if (format[i] != '%') continue;
    size_t start = i++;
    if (i < format.size() && format[i] == '%') continue;  // "%%": a literal '%'
    Conversion c;
    c.begin = start;
    while (i < format.size() && std::string_view("-+ #0").find(format[i]) != std::string::npos) {
      c.left = c.left || format[i] == '-';
      ++i;
    }
    while (i < format.size() && format[i] >= '0' && format[i] <= '9') {
      c.width = std::min<size_t>(c.width * 10 + (format[i++] - '0'), 4096);
    }
    if (i < format.size() && format[i] == '.') {
      ++i;
      c.precision = 0;
      while (i < format.size() && format[i] >= '0' && format[i] <= '9') {
        c.precision = std::min(c.precision * 10 + (format[i++] - '0'), 4096);
      }
    }
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
      if (c.components != 1) {
        *why = "'" + c.text + "': strings have no vectors";
        return false;
      }
      c.is_string = true;
      out->push_back(std::move(c));
      continue;
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

/// `text` as a %s conversion `c` prints it, with every '%' doubled for the format.
std::string FormatString(const Conversion& c, std::string text) {
  if (c.precision >= 0 && text.size() > static_cast<size_t>(c.precision)) text.resize(c.precision);
  if (text.size() < c.width) {
    std::string pad(c.width - text.size(), ' ');
    text = c.left ? text + pad : pad + text;
  }
  std::string out;
  for (char ch : text) {
    if (ch == '%') out += '%';
    out += ch;
  }
  return out;
}

/// Writes each %s's string literal into the format (a new literal), leaving the values.
void WriteStringsIntoFormat(ast::AstContext& ctx, ast::CallExpr* call,
                            const std::vector<Conversion>& conversions) {
  const auto* literal = static_cast<const ast::StringLiteralExpr*>(call->args[0]);
  bool any = false;
  for (const Conversion& c : conversions) any = any || c.is_string;
  if (!any) return;
  std::string format;
  std::vector<ast::Expr*> args{nullptr};
  size_t copied = 0;
  for (size_t i = 0; i < conversions.size(); ++i) {
    const Conversion& c = conversions[i];
    if (!c.is_string) {
      args.push_back(call->args[i + 1]);
      continue;
    }
    format += literal->value.substr(copied, c.begin - copied);
    format += FormatString(c, static_cast<const ast::StringLiteralExpr*>(call->args[i + 1])->value);
    copied = c.begin + c.text.size();
  }
  format += literal->value.substr(copied);
  args[0] = ctx.New<ast::StringLiteralExpr>(literal->range, std::move(format));
  call->args = std::move(args);
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
    if (call->args[i]->kind == ast::ExprKind::StringLiteral) continue;  // for a %s
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
  // Strings first: a %s takes a string literal, and a literal fits no other conversion.
  for (size_t i = 0; i < conversions.size(); ++i) {
    const Conversion& c = conversions[i];
    ast::Expr* arg = call->args[i + 1];
    bool is_literal = arg->kind == ast::ExprKind::StringLiteral;
    if (c.is_string && !is_literal) {
      diags_.Report(DiagId::PrintfArgType, arg->range, i + 1, arg->type->Name(), c.text,
                    "a string literal (a string held in a variable has no value in a kernel)");
      ok = false;
    } else if (!c.is_string && is_literal) {
      diags_.Report(DiagId::PrintfArgType, arg->range, i + 1, "String", c.text,
                    c.is_float ? "a float, half or double" : "an integer (up to 32 bits)");
      ok = false;
    }
  }
  if (!ok) return call;
  for (size_t i = 0; i < conversions.size(); ++i) {
    const Conversion& c = conversions[i];
    if (c.is_string) continue;
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
  WriteStringsIntoFormat(ctx_, call, conversions);
  call->is_printf = true;
  call->type = types_.Void();
  return call;
}

}  // namespace slope::sema
