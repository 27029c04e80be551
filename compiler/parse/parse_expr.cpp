// Expressions: precedence climbing over C's operators, postfix forms, primaries.

#include <algorithm>
#include <unordered_set>

#include "compiler/parse/parser_impl.h"

namespace slope::parse {

using diag::DiagId;

namespace {

/// Built-in type names: `(float)x` is a cast when the parentheses hold one of these.
bool IsBuiltinTypeName(std::string_view name) {
  static const std::unordered_set<std::string_view> kNames = {
      "bool", "int", "uint", "float", "half", "double", "int2", "int3", "int4", "uint2",
      "uint3", "uint4", "float2", "float3", "float4", "bool2", "bool3", "bool4", "half2",
      "half3", "half4", "double2", "double3", "double4", "vector", "matrix", "int8_t",
      "int16_t", "int32_t", "int64_t", "uint8_t", "uint16_t", "uint32_t", "uint64_t",
      "float16_t", "float32_t", "float64_t", "float2x2", "float3x3", "float4x4", "float2x3",
      "float2x4", "float3x2", "float3x4", "float4x2", "float4x3"};
  if (kNames.count(name) != 0) return true;
  // The matrix forms of the scalar names: `(int3x3)m`, `(half2x4)m`.
  if (name.size() > 3 && name[name.size() - 2] == 'x' && name.back() >= '1' &&
      name.back() <= '4') {
    std::string_view head = name.substr(0, name.size() - 2);
    return head.back() >= '1' && head.back() <= '4' &&
           kNames.count(head.substr(0, head.size() - 1)) != 0;
  }
  return false;
}

/// Binary operator precedence (higher binds tighter); 0 = not a binary operator.
/// `is` and `as` bind as the relational operators do.
constexpr int kTypeTestPrecedence = 7;

int Precedence(TokenKind kind, ast::OpKind* op) {
  switch (kind) {
    case TokenKind::PipePipe: *op = ast::OpKind::LogicalOr; return 1;
    case TokenKind::AmpAmp: *op = ast::OpKind::LogicalAnd; return 2;
    case TokenKind::Pipe: *op = ast::OpKind::BitOr; return 3;
    case TokenKind::Caret: *op = ast::OpKind::BitXor; return 4;
    case TokenKind::Amp: *op = ast::OpKind::BitAnd; return 5;
    case TokenKind::EqualEqual: *op = ast::OpKind::Eq; return 6;
    case TokenKind::BangEqual: *op = ast::OpKind::Ne; return 6;
    case TokenKind::Less: *op = ast::OpKind::Lt; return 7;
    case TokenKind::Greater: *op = ast::OpKind::Gt; return 7;
    case TokenKind::LessEqual: *op = ast::OpKind::Le; return 7;
    case TokenKind::GreaterEqual: *op = ast::OpKind::Ge; return 7;
    case TokenKind::LessLess: *op = ast::OpKind::Shl; return 8;
    case TokenKind::GreaterGreater: *op = ast::OpKind::Shr; return 8;
    case TokenKind::Plus: *op = ast::OpKind::Add; return 9;
    case TokenKind::Minus: *op = ast::OpKind::Sub; return 9;
    case TokenKind::Star: *op = ast::OpKind::Mul; return 10;
    case TokenKind::Slash: *op = ast::OpKind::Div; return 10;
    case TokenKind::Percent: *op = ast::OpKind::Rem; return 10;
    default: return 0;
  }
}

}  // namespace

ast::Expr* Parser::ErrorExpr(source::SourceRange range) {
  // A literal stands in for what could not be parsed, so later stages see a tree.
  return ctx_.New<ast::IntLiteralExpr>(range, 0, false);
}

ast::Expr* Parser::Grow(ast::Expr* node, std::initializer_list<const ast::Expr*> operands,
                        source::SourceRange where) {
  uint32_t below = 0;
  for (const ast::Expr* e : operands) {
    if (e != nullptr && e->height > below) below = e->height;
  }
  return SetHeight(node, below, where);
}

ast::Expr* Parser::SetHeight(ast::Expr* node, uint32_t below, source::SourceRange where) {
  node->height = below + 1;
  if (node->height <= kMaxExprHeight) return node;
  Error(DiagId::ExpressionTooLong, where, kMaxExprHeight);
  return ErrorExpr(node->range);
}

ast::Expr* Parser::ParseExpr() {
  // `a, b, c`: the comma operator, left to right, read as a chain (not nesting).
  source::SourceLoc begin = Cur().loc;
  ast::Expr* e = ParseAssignment();
  while (!panic_ && At(TokenKind::Comma)) {
    source::SourceRange op_range = Advance().Range();
    ast::Expr* rhs = ParseAssignment();
    auto* comma = ctx_.New<ast::BinaryExpr>(From(begin), ast::OpKind::Comma, e, rhs, op_range);
    e = Grow(comma, {e, rhs}, op_range);
  }
  return e;
}

ast::Expr* Parser::ParseAssignment() {
  DepthGuard guard(*this);
  if (!guard.Ok()) return ErrorExpr(Cur().Range());
  source::SourceLoc begin = Cur().loc;
  ast::Expr* lhs = ParseConditional();
  ast::OpKind op;
  switch (Cur().kind) {
    case TokenKind::Equal: op = ast::OpKind::Assign; break;
    case TokenKind::PlusEqual: op = ast::OpKind::Add; break;
    case TokenKind::MinusEqual: op = ast::OpKind::Sub; break;
    case TokenKind::StarEqual: op = ast::OpKind::Mul; break;
    case TokenKind::SlashEqual: op = ast::OpKind::Div; break;
    case TokenKind::PercentEqual: op = ast::OpKind::Rem; break;
    case TokenKind::AmpEqual: op = ast::OpKind::BitAnd; break;
    case TokenKind::PipeEqual: op = ast::OpKind::BitOr; break;
    case TokenKind::CaretEqual: op = ast::OpKind::BitXor; break;
    case TokenKind::LessLessEqual: op = ast::OpKind::Shl; break;
    case TokenKind::GreaterGreaterEqual: op = ast::OpKind::Shr; break;
    default: return lhs;
  }
  source::SourceRange op_range = Advance().Range();
  ast::Expr* rhs = At(TokenKind::LBrace) ? ParseInitList() : ParseAssignment();
  return Grow(ctx_.New<ast::AssignExpr>(From(begin), op, lhs, rhs), {lhs, rhs}, op_range);
}

ast::Expr* Parser::ParseConditional() {
  // `c1 ? x1 : c2 ? x2 : ... : y` is a chain, not nesting: the arms are read in a loop
  // and the right-leaning tree is built afterwards, from the last arm back.
  struct Arm {
    source::SourceLoc begin;
    ast::Expr* cond;
    ast::Expr* then_expr;
    source::SourceRange question;
  };
  std::vector<Arm> arms;
  source::SourceLoc begin = Cur().loc;
  ast::Expr* cond = ParseBinary(1);
  ast::Expr* else_expr = cond;
  int outer_depth = branch_depth_;
  while (At(TokenKind::Question)) {
    // Past the limit the rest of the chain is still read, but dropped.
    if (++branch_depth_ > kMaxBranchChain) ReportBranchChain();
    source::SourceRange question = Advance().Range();
    ast::Expr* then_expr = ParseAssignment();
    if (branch_depth_ <= kMaxBranchChain) arms.push_back({begin, cond, then_expr, question});
    if (!Expect(TokenKind::Colon)) {
      else_expr = ErrorExpr(Cur().Range());
      break;
    }
    begin = Cur().loc;
    else_expr = cond = ParseBinary(1);
  }
  branch_depth_ = outer_depth;
  for (size_t i = arms.size(); i-- > 0;) {
    const Arm& arm = arms[i];
    auto* node = ctx_.New<ast::ConditionalExpr>(From(arm.begin), arm.cond, arm.then_expr, else_expr);
    else_expr = Grow(node, {arm.cond, arm.then_expr, else_expr}, arm.question);
  }
  return else_expr;
}

ast::Expr* Parser::ParseBinary(int min_prec) {
  source::SourceLoc begin = Cur().loc;
  ast::Expr* lhs = ParseUnary();
  // After an error (an operand that could not be read, a chain past kMaxExprHeight) the
  // statement is skipped to its end: the rest of a chain of 10^6 operators is not built.
  while (!panic_) {
    if ((AtIdent("is") || AtIdent("as")) && kTypeTestPrecedence >= min_prec) {
      // `value is T`, `value as T`: a type on the right, at the relational operators' level.
      bool cast = AtIdent("as");
      source::SourceRange op_range = Advance().Range();
      ast::TypeExpr* type = ParseType();
      if (type == nullptr) return lhs;
      lhs = Grow(ctx_.New<ast::TypeTestExpr>(From(begin), lhs, type, cast), {lhs}, op_range);
      continue;
    }
    ast::OpKind op{};
    int prec = Precedence(Cur().kind, &op);
    if (prec == 0 || prec < min_prec) return lhs;
    source::SourceRange op_range = Cur().Range();
    Advance();
    DepthGuard guard(*this);
    if (!guard.Ok()) return lhs;
    ast::Expr* rhs = ParseBinary(prec + 1);  // left associative
    lhs = Grow(ctx_.New<ast::BinaryExpr>(From(begin), op, lhs, rhs, op_range), {lhs, rhs}, op_range);
  }
  return lhs;
}

bool Parser::LooksLikeSizeOfType() const {
  size_t end = ScanType(pos_ + 2);
  bool generic = false;
  for (size_t i = pos_ + 2; i < end; ++i) generic = generic || tokens_[i].Is(TokenKind::Less);
  bool pointer = false;
  while (end != 0 && end < tokens_.size() && tokens_[end].Is(TokenKind::Star)) {
    ++end;
    pointer = true;
  }
  if (end == 0 || end >= tokens_.size() || !tokens_[end].Is(TokenKind::RParen)) return false;
  return IsBuiltinTypeName(Peek(2).text) || generic || pointer;
}

bool Parser::LooksLikeCast() const {
  size_t end = ScanType(pos_ + 1);
  // `(T*)x`: a cast to a pointer type (`(a*)` is no expression).
  bool pointer = false;
  while (end != 0 && end < tokens_.size() && tokens_[end].Is(TokenKind::Star)) {
    ++end;
    pointer = true;
  }
  if (end == 0 || end >= tokens_.size() || !tokens_[end].Is(TokenKind::RParen)) return false;
  if (IsBuiltinTypeName(Peek(1).text) || pointer) return true;
  const Token& next = tokens_[end + 1];
  switch (next.kind) {
    case TokenKind::IntLiteral:
    case TokenKind::FloatLiteral:
    case TokenKind::LParen:
    case TokenKind::Bang:
    case TokenKind::Tilde:
      return true;
    case TokenKind::Identifier:
      // `(a) is T` and `(a) as T` test a value.
      return next.text != "is" && next.text != "as";
    default:
      return false;
  }
}

ast::Expr* Parser::ParseUnary() {
  // Prefix operators and casts are a chain (`- - x`, `!!x`, `(int)(float)x`): read them
  // in a loop, then apply them from the innermost out.
  struct Prefix {
    source::SourceLoc begin;
    source::SourceRange op_range;
    enum { kOp, kNoDiff, kCast, kEach } form;
    ast::OpKind op;
    ast::TypeExpr* type;
  };
  std::vector<Prefix> prefixes;
  auto apply = [&](ast::Expr* operand) {
    for (size_t i = prefixes.size(); i-- > 0;) {
      const Prefix& p = prefixes[i];
      ast::Expr* node = nullptr;
      switch (p.form) {
        case Prefix::kOp: node = ctx_.New<ast::UnaryExpr>(From(p.begin), p.op, operand); break;
        case Prefix::kNoDiff: node = ctx_.New<ast::NoDiffExpr>(From(p.begin), operand); break;
        case Prefix::kCast: node = ctx_.New<ast::CastExpr>(From(p.begin), p.type, operand); break;
        case Prefix::kEach:
          node = ctx_.New<ast::PackExpr>(From(p.begin), ast::PackExpr::kEach, operand);
          break;
      }
      operand = Grow(node, {operand}, p.op_range);
    }
    return operand;
  };
  while (true) {
    source::SourceLoc begin = Cur().loc;
    source::SourceRange op_range = Cur().Range();
    ast::OpKind op;
    bool is_op = true;
    switch (Cur().kind) {
      case TokenKind::Minus: op = ast::OpKind::Neg; break;
      case TokenKind::Plus: op = ast::OpKind::Plus; break;
      case TokenKind::Bang: op = ast::OpKind::Not; break;
      case TokenKind::Tilde: op = ast::OpKind::BitNot; break;
      case TokenKind::PlusPlus: op = ast::OpKind::PreInc; break;
      case TokenKind::MinusMinus: op = ast::OpKind::PreDec; break;
      case TokenKind::Star: op = ast::OpKind::Deref; break;
      case TokenKind::Amp: op = ast::OpKind::AddrOf; break;
      default: is_op = false; break;
    }
    if (is_op) {
      Advance();
      prefixes.push_back({begin, op_range, Prefix::kOp, op, nullptr});
      continue;
    }
    if (AtIdent("try") && (Peek(1).Is(TokenKind::Identifier) || Peek(1).Is(TokenKind::LParen))) {
      // `try f(x)`: a call that may throw; the operand must be a call.
      Advance();
      ast::Expr* operand = ParseUnary();
      if (operand != nullptr && operand->kind == ast::ExprKind::Call) {
        auto* call = static_cast<ast::CallExpr*>(operand);
        call->is_try = true;
        call->try_range = op_range;
      } else if (operand != nullptr) {
        Error(DiagId::TryNotCall, op_range);
      }
      return apply(operand);
    }
    if (AtIdent("no_diff")) {
      Advance();
      prefixes.push_back({begin, op_range, Prefix::kNoDiff, {}, nullptr});
      continue;
    }
    // Variadic generics: `each v` is one element of the value pack v; `expand e` covers
    // the whole assignment expression after it (`expand sum += each v`).
    if ((AtIdent("each") || AtIdent("expand")) &&
        (Peek(1).Is(TokenKind::Identifier) || Peek(1).Is(TokenKind::LParen))) {
      if (Advance().text == "each") {
        prefixes.push_back({begin, op_range, Prefix::kEach, {}, nullptr});
        continue;
      }
      ast::Expr* pattern = ParseAssignment();
      ast::Expr* node = ctx_.New<ast::PackExpr>(From(begin), ast::PackExpr::kExpand, pattern);
      return apply(Grow(node, {pattern}, op_range));
    }
    // A cast `(T)x`: the parentheses hold a built-in type name, or any type followed
    // by something that starts an operand and cannot continue an expression (a name, a
    // literal, '(', '!', '~'), as in `(T)x` and `(T)(a * b)` on a generic parameter.
    if (At(TokenKind::LParen) && Peek(1).Is(TokenKind::Identifier) && LooksLikeCast()) {
      Advance();
      ast::TypeExpr* type = ParseType();
      if (type == nullptr || !Expect(TokenKind::RParen)) return ErrorExpr(From(begin));
      prefixes.push_back({begin, From(begin), Prefix::kCast, {}, type});
      continue;
    }
    break;
  }
  return apply(ParsePostfix(ParsePrimary()));
}

ast::Expr* Parser::ParseCallArgs(ast::Expr* callee, source::SourceLoc begin) {
  Advance();  // '('
  std::vector<ast::Expr*> args;
  if (!At(TokenKind::RParen)) {
    do {
      if (At(TokenKind::RParen)) break;  // a trailing comma
      args.push_back(At(TokenKind::LBrace) ? ParseInitList() : ParseAssignment());
    } while (Consume(TokenKind::Comma) && !panic_);
  }
  Expect(TokenKind::RParen);
  uint32_t below = callee->height;
  for (const ast::Expr* a : args) below = std::max(below, a->height);
  auto* call = ctx_.New<ast::CallExpr>(From(begin), callee, std::move(args));
  return SetHeight(call, below, From(begin));
}

ast::Expr* Parser::ParsePostfix(ast::Expr* base) {
  source::SourceLoc begin = base->range.begin;
  while (true) {
    DepthGuard guard(*this);
    if (!guard.Ok()) return base;
    if (At(TokenKind::Dot) || At(TokenKind::ColonColon) || At(TokenKind::Arrow)) {
      // `p->f` is `p.f`: sema reads a member through a pointer either way, as Slang does.
      bool is_static = At(TokenKind::ColonColon);
      Advance();
      if (!At(TokenKind::Identifier)) {
        Error(DiagId::ExpectedToken, Cur().Range(), "a member name", Describe(Cur()));
        return base;
      }
      const Token& member = Advance();
      std::string member_name(member.text);
      source::SourceRange member_range = member.Range();
      if (member_name == "operator" && At(TokenKind::LParen) && pos_ + 2 < tokens_.size() &&
          tokens_[pos_ + 1].Is(TokenKind::RParen) && tokens_[pos_ + 2].Is(TokenKind::LParen)) {
        // `f.operator()(x)`: the call operator named explicitly.
        Advance();
        member_range = source::SourceRange(member_range.begin, Advance().Range().end);
        member_name = "operator()";
      }
      auto* m = ctx_.New<ast::MemberExpr>(From(begin), base, member_name, member_range);
      m->is_static = is_static;
      if (At(TokenKind::Less)) {
        size_t end = ScanGenericArgs(pos_);
        // `obj.f<float>(x)`; `fwd_diff(obj.f<float>)` closes the list at the operator's ')'.
        if (end != 0 && end < tokens_.size() &&
            (tokens_[end].Is(TokenKind::LParen) ||
             (in_diff_operand_ && tokens_[end].Is(TokenKind::RParen)))) {
          ParseGenericArgs(m->generic_args, &m->generic_values);
          m->range = From(begin);
        }
      }
      base = Grow(m, {base}, member_range);
    } else if (At(TokenKind::LBracket)) {
      Advance();
      ast::Expr* index = ParseAssignment();
      std::vector<ast::Expr*> more;
      while (!panic_ && Consume(TokenKind::Comma)) more.push_back(ParseAssignment());
      Expect(TokenKind::RBracket);
      auto* indexed = ctx_.New<ast::IndexExpr>(From(begin), base, index);
      uint32_t below = std::max(base->height, index->height);
      for (const ast::Expr* e : more) below = std::max(below, e->height);
      indexed->more_indices = std::move(more);
      base = SetHeight(indexed, below, From(begin));
    } else if (At(TokenKind::LParen)) {
      base = ParseCallArgs(base, begin);
    } else if (At(TokenKind::PlusPlus) || At(TokenKind::MinusMinus)) {
      ast::OpKind op = At(TokenKind::PlusPlus) ? ast::OpKind::PostInc : ast::OpKind::PostDec;
      source::SourceRange op_range = Advance().Range();
      base = Grow(ctx_.New<ast::UnaryExpr>(From(begin), op, base), {base}, op_range);
    } else {
      return base;
    }
    if (panic_) return base;
  }
}

ast::Expr* Parser::ParseInitList() {
  source::SourceLoc begin = Advance().loc;  // '{'
  auto* list = ctx_.New<ast::InitListExpr>(Cur().Range());
  while (!At(TokenKind::RBrace) && !At(TokenKind::EndOfFile)) {
    DepthGuard guard(*this);
    if (!guard.Ok()) return list;
    list->elements.push_back(At(TokenKind::LBrace) ? ParseInitList() : ParseAssignment());
    if (panic_ || !Consume(TokenKind::Comma)) break;  // a trailing comma is allowed
  }
  Expect(TokenKind::RBrace);
  list->range = From(begin);
  uint32_t below = 0;
  for (const ast::Expr* e : list->elements) below = std::max(below, e->height);
  return SetHeight(list, below, list->range);
}

ast::Expr* Parser::ParsePrimary() {
  if (ast::Expr* rejected = ParseUnsupportedPrimary()) return rejected;
  const Token& tok = Cur();
  if (tok.Is(TokenKind::ColonColon) && Peek(1).Is(TokenKind::Identifier)) {
    // `::f()`, `::ns::T`: a name looked up in the global scope only.
    source::SourceLoc begin = Advance().loc;
    ast::Expr* inner = ParsePrimary();
    if (inner->kind == ast::ExprKind::Name) {
      auto* name = static_cast<ast::NameExpr*>(inner);
      name->name = "::" + name->name;
      name->range = From(begin);
    }
    return inner;
  }
  switch (tok.kind) {
    case TokenKind::IntLiteral: {
      Advance();
      bool is_unsigned = tok.literal_type == preprocess::LiteralType::UInt ||
                         tok.literal_type == preprocess::LiteralType::UInt64;
      auto* lit = ctx_.New<ast::IntLiteralExpr>(tok.Range(), tok.int_value, is_unsigned);
      bool wide = tok.literal_type == preprocess::LiteralType::Int64 ||
                  tok.literal_type == preprocess::LiteralType::UInt64;
      lit->width = wide ? 64 : 32;
      return lit;
    }
    case TokenKind::FloatLiteral: {
      Advance();
      auto* lit = ctx_.New<ast::FloatLiteralExpr>(tok.Range(), tok.float_value);
      lit->width = tok.literal_type == preprocess::LiteralType::Half     ? 16
                   : tok.literal_type == preprocess::LiteralType::Double ? 64
                                                                         : 32;
      return lit;
    }
    case TokenKind::StringLiteral: {
      Advance();
      std::string value;
      std::string_view t = tok.text;
      for (size_t i = 1; i + 1 < t.size(); ++i) {
        if (t[i] == '\\' && i + 2 < t.size()) {
          char e = t[++i];
          value += e == 'n' ? '\n' : e == 't' ? '\t' : e;
        } else {
          value += t[i];
        }
      }
      return ctx_.New<ast::StringLiteralExpr>(tok.Range(), std::move(value));
    }
    case TokenKind::Identifier: {
      source::SourceLoc begin = tok.loc;
      if (tok.text == "true" || tok.text == "false") {
        Advance();
        return ctx_.New<ast::BoolLiteralExpr>(tok.Range(), tok.text == "true");
      }
      bool fwd = tok.text == "fwd_diff" || tok.text == "__fwd_diff";
      bool bwd = tok.text == "bwd_diff" || tok.text == "__bwd_diff";
      if ((fwd || bwd) && Peek(1).Is(TokenKind::LParen)) {
        Advance();
        Advance();
        ast::Expr* operand = ParseDiffOperand();
        Expect(TokenKind::RParen);
        return Grow(ctx_.New<ast::DiffExpr>(From(begin), bwd, operand), {operand}, From(begin));
      }
      if ((tok.text == "sizeof" || tok.text == "alignof") && Peek(1).Is(TokenKind::LParen) &&
          LooksLikeSizeOfType()) {
        // `sizeof(vector<float, 3>)`, `alignof(float[4])`, `sizeof(int*)`: a type that is
        // no expression. One name (`sizeof(T)`, `sizeof(x)`) is told apart by sema.
        auto form = tok.text == "sizeof" ? ast::PackExpr::kSizeOf : ast::PackExpr::kAlignOf;
        Advance();
        Advance();
        ast::TypeExpr* type = ParseType();
        if (type == nullptr || !Expect(TokenKind::RParen)) return ErrorExpr(From(begin));
        auto* query = ctx_.New<ast::PackExpr>(From(begin), form, nullptr);
        query->type_arg = type;
        return query;
      }
      Advance();
      auto* name = ctx_.New<ast::NameExpr>(tok.Range(), std::string(tok.text));
      // `f<float>(x)`, `Foo<T>::bar`: generic arguments when a type-like list is closed
      // by '>' and followed by '(', '::' or '.'; otherwise '<' is a comparison.
      if (At(TokenKind::Less)) {
        size_t end = ScanGenericArgs(pos_);
        // `countof(Tuple<int, float>)`: a type closed by the operator's ')'.
        bool countof_type =
            end != 0 && end < tokens_.size() && tokens_[end].Is(TokenKind::RParen) && pos_ >= 3 &&
            tokens_[pos_ - 2].Is(TokenKind::LParen) && tokens_[pos_ - 3].text == "countof";
        if (end != 0 && end < tokens_.size() &&
            (tokens_[end].Is(TokenKind::LParen) || tokens_[end].Is(TokenKind::ColonColon) ||
             tokens_[end].Is(TokenKind::Dot) || countof_type)) {
          ParseGenericArgs(name->generic_args, &name->generic_values);
          name->range = From(begin);
        }
      }
      return name;
    }
    case TokenKind::LParen: {
      source::SourceLoc begin = Advance().loc;
      if (options_.language_version >= 2026) {
        // Slang 2026: `(a, b)` is makeTuple(a, b); `(a)` stays a parenthesized a.
        ast::Expr* first = ParseAssignment();
        if (panic_ || !At(TokenKind::Comma)) {
          Expect(TokenKind::RParen);
          first->range = From(begin);
          return first;
        }
        std::vector<ast::Expr*> items{first};
        while (!panic_ && Consume(TokenKind::Comma)) items.push_back(ParseAssignment());
        Expect(TokenKind::RParen);
        uint32_t below = 0;
        for (const ast::Expr* e : items) below = std::max(below, e->height);
        auto* callee = ctx_.New<ast::NameExpr>(From(begin), "makeTuple");
        auto* tuple = ctx_.New<ast::CallExpr>(From(begin), callee, std::move(items));
        return SetHeight(tuple, below, From(begin));
      }
      ast::Expr* inner = ParseExpr();
      Expect(TokenKind::RParen);
      inner->range = From(begin);
      return inner;
    }
    case TokenKind::LBrace:
      return ParseInitList();
    default:
      Error(DiagId::ExpectedExpression, tok.Range(), Describe(tok));
      return ErrorExpr(tok.Range());
  }
}

ast::Expr* Parser::ParseDiffOperand() {
  // `fwd_diff(f<float3>)`: generic arguments closed right before the operator's ')',
  // which elsewhere would leave '<' a comparison.
  const Token& tok = Peek(0);
  if (tok.Is(TokenKind::Identifier) && Peek(1).Is(TokenKind::Less)) {
    size_t end = ScanGenericArgs(pos_ + 1);
    if (end != 0 && end < tokens_.size() && tokens_[end].Is(TokenKind::RParen)) {
      source::SourceLoc begin = tok.loc;
      auto* name = ctx_.New<ast::NameExpr>(tok.Range(), std::string(tok.text));
      Advance();
      ParseGenericArgs(name->generic_args, &name->generic_values);
      name->range = From(begin);
      return name;
    }
  }
  bool saved = in_diff_operand_;
  in_diff_operand_ = true;
  ast::Expr* operand = ParseExpr();
  in_diff_operand_ = saved;
  return operand;
}

}  // namespace slope::parse

namespace slope::parse {

ast::Expr* Parser::ParseLambda() {
  DepthGuard guard(*this);
  source::SourceLoc begin = Cur().loc;
  auto* lambda = ctx_.New<ast::LambdaExpr>(Cur().Range());
  if (!ParseParams(lambda->params)) return ErrorExpr(From(begin));
  // `(x) => ...`: the name was read as a type and the parameter has no name; sema takes
  // its type from where the lambda is passed (a parameter `F : IFunc<R, P...>`).
  source::SourceLoc arrow = Cur().loc;
  Advance();  // '='
  Advance();  // '>'
  lambda->arrow = From(arrow);
  if (At(TokenKind::LBrace)) {
    lambda->body = ParseBlock();
    lambda->height = 1;
  } else {
    ast::Expr* value = ParseAssignment();
    lambda->body = ctx_.New<ast::BlockStmt>(value->range);
    lambda->body->stmts.push_back(ctx_.New<ast::ReturnStmt>(value->range, value));
    lambda->expression_body = true;
    lambda->height = value->height + 1;
  }
  lambda->range = From(begin);
  return lambda;
}

}  // namespace slope::parse
