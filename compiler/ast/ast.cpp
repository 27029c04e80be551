#include "compiler/ast/ast.h"

#include <utility>

namespace slope::ast {

const char* OpSpelling(OpKind op) {
  switch (op) {
    case OpKind::Add: return "+";
    case OpKind::Sub: return "-";
    case OpKind::Mul: return "*";
    case OpKind::Div: return "/";
    case OpKind::Rem: return "%";
    case OpKind::BitAnd: return "&";
    case OpKind::BitOr: return "|";
    case OpKind::BitXor: return "^";
    case OpKind::Shl: return "<<";
    case OpKind::Shr: return ">>";
    case OpKind::LogicalAnd: return "&&";
    case OpKind::LogicalOr: return "||";
    case OpKind::Eq: return "==";
    case OpKind::Ne: return "!=";
    case OpKind::Lt: return "<";
    case OpKind::Le: return "<=";
    case OpKind::Gt: return ">";
    case OpKind::Ge: return ">=";
    case OpKind::Neg: return "-";
    case OpKind::Plus: return "+";
    case OpKind::Not: return "!";
    case OpKind::BitNot: return "~";
    case OpKind::PreInc: return "++";
    case OpKind::PreDec: return "--";
    case OpKind::PostInc: return "++";
    case OpKind::PostDec: return "--";
    case OpKind::Deref: return "*";
    case OpKind::AddrOf: return "&";
    case OpKind::Assign: return "=";
    case OpKind::Comma:
      return ",";
  }
  return "?";
}

std::string ModifierSpelling(uint32_t modifiers) {
  static constexpr std::pair<Modifier, const char*> kNames[] = {
      {kModPublic, "public"},         {kModInternal, "internal"},   {kModPrivate, "private"},
      {kModExtern, "extern"},         {kModStatic, "static"},       {kModConst, "const"},
      {kModUniform, "uniform"},       {kModGroupShared, "groupshared"}, {kModInline, "inline"},
      {kModOverride, "override"},     {kModIn, "in"},               {kModOut, "out"},
      {kModInOut, "inout"},           {kModNoDiff, "no_diff"},      {kModPrecise, "precise"},
      {kModNoInterpolation, "nointerpolation"}, {kModRowMajor, "row_major"},
      {kModColumnMajor, "column_major"}, {kModExport, "export"},
  };
  std::string out;
  for (const auto& [bit, name] : kNames) {
    if ((modifiers & bit) == 0) continue;
    if (!out.empty()) out += ' ';
    out += name;
  }
  return out;
}

}  // namespace slope::ast
