#include "compiler/parse/parser.h"

#include <string>
#include <unordered_set>

namespace slope::parse {
namespace {

using preprocess::Token;
using preprocess::TokenKind;
using diag::DiagId;

/// Names that start a type in statement position even before user types exist.
bool IsBuiltinTypeName(std::string_view name) {
  static const std::unordered_set<std::string_view> kNames = {
      "void", "bool", "int", "uint", "float", "half", "double",
      "int2", "int3", "int4", "uint2", "uint3", "uint4", "float2", "float3", "float4",
      "bool2", "bool3", "bool4", "half2", "half3", "half4", "double2", "double3", "double4",
      "vector", "matrix", "StructuredBuffer", "RWStructuredBuffer",
      "int8_t", "int16_t", "int32_t", "int64_t", "uint8_t", "uint16_t", "uint32_t", "uint64_t",
      "float16_t", "float32_t", "float64_t"};
  return kNames.count(name) != 0;
}

/// Declarations the language has but this version of the parser does not handle yet.
bool IsUnsupportedDeclKeyword(std::string_view name) {
  static const std::unordered_set<std::string_view> kNames = {
      "struct", "interface", "extension", "enum", "namespace", "import", "typedef",
      "typealias", "__generic", "cbuffer", "class", "__include", "module"};
  return kNames.count(name) != 0;
}

bool IsModifier(std::string_view name) {
  return name == "static" || name == "const" || name == "uniform" || name == "in" ||
         name == "out" || name == "inout";
}

class Parser {
 public:
  Parser(const std::vector<Token>& tokens, ast::AstContext& ctx, diag::DiagEngine& diags)
      : tokens_(tokens), ctx_(ctx), diags_(diags) {}

  ast::Module* ParseModule();

 private:
  // Token access.
  const Token& Cur() const { return tokens_[pos_]; }
  const Token& Peek(size_t ahead) const {
    size_t i = pos_ + ahead;
    return i < tokens_.size() ? tokens_[i] : tokens_.back();
  }
  bool At(TokenKind kind) const { return Cur().kind == kind; }
  bool AtIdent(std::string_view s) const { return Cur().IsIdent(s); }
  const Token& Advance() {
    const Token& t = tokens_[pos_];
    if (pos_ + 1 < tokens_.size()) ++pos_;
    return t;
  }
  bool Consume(TokenKind kind) {
    if (!At(kind)) return false;
    Advance();
    return true;
  }
  /// Consumes a token of `kind` or reports what was expected.
  bool Expect(TokenKind kind);
  std::string Describe(const Token& t) const;
  source::SourceLoc PrevEnd() const {
    return pos_ == 0 ? Cur().loc : tokens_[pos_ - 1].Range().end;
  }
  source::SourceRange From(source::SourceLoc begin) const { return {begin, PrevEnd()}; }

  // Error handling: after an error, errors are muted until the parser resynchronises.
  template <typename... Args>
  void Error(DiagId id, source::SourceRange range, const Args&... args) {
    if (panic_) return;
    diags_.Report(id, range, args...);
    panic_ = true;
  }
  void SyncToStatementEnd();
  void SyncToDeclarationEnd();

  /// Counts nesting; false (after one diagnostic) when the limit is passed.
  class DepthGuard {
   public:
    explicit DepthGuard(Parser& p) : p_(p) { ++p_.depth_; }
    ~DepthGuard() { --p_.depth_; }
    bool Ok() {
      if (p_.depth_ <= kMaxNestingDepth) return true;
      if (!p_.depth_reported_) {
        p_.diags_.Report(DiagId::NestingTooDeep, p_.Cur().Range(), kMaxNestingDepth);
        p_.depth_reported_ = true;
        p_.panic_ = true;
      }
      return false;
    }

   private:
    Parser& p_;
  };

  // Declarations.
  void ParseTopLevel(std::vector<ast::Decl*>& out);
  std::vector<ast::Attribute> ParseAttributes();
  bool ParseAttribute(std::vector<ast::Attribute>& out);
  ast::FuncDecl* ParseFunctionRest(ast::TypeExpr* type, const Token& name,
                                   std::vector<ast::Attribute> attrs);
  ast::VarDecl* ParseParam();
  void ParseSemantic(ast::VarDecl* var);

  // Types.
  ast::TypeExpr* ParseType();
  bool LooksLikeTypedDecl() const;

  // Statements.
  ast::Stmt* ParseStmt();
  ast::BlockStmt* ParseBlock();
  ast::Stmt* ParseVarDeclStmt(bool keyword_form);
  ast::Stmt* ParseIf();
  ast::Stmt* ParseFor();
  ast::Stmt* ParseWhile();
  ast::Stmt* ParseDoWhile();

  // Expressions.
  ast::Expr* ParseExpr();
  ast::Expr* ParseAssignment();
  ast::Expr* ParseConditional();
  ast::Expr* ParseBinary(int min_prec);
  ast::Expr* ParseUnary();
  ast::Expr* ParsePostfix(ast::Expr* base);
  ast::Expr* ParsePrimary();
  ast::Expr* ErrorExpr(source::SourceRange range);

  const std::vector<Token>& tokens_;
  ast::AstContext& ctx_;
  diag::DiagEngine& diags_;
  size_t pos_ = 0;
  int depth_ = 0;
  bool depth_reported_ = false;
  bool panic_ = false;
};

std::string Parser::Describe(const Token& t) const {
  switch (t.kind) {
    case TokenKind::Identifier:
    case TokenKind::IntLiteral:
    case TokenKind::FloatLiteral:
      return "'" + std::string(t.text) + "'";
    default:
      return preprocess::TokenKindSpelling(t.kind);
  }
}

bool Parser::Expect(TokenKind kind) {
  if (Consume(kind)) return true;
  // Point just after the previous token when something is missing at a line end.
  source::SourceRange where = Cur().Range();
  if (kind == TokenKind::Semicolon && pos_ > 0 && Cur().at_line_start) {
    where = source::SourceRange(PrevEnd());
  }
  Error(DiagId::ExpectedToken, where, preprocess::TokenKindSpelling(kind), Describe(Cur()));
  return false;
}

void Parser::SyncToStatementEnd() {
  // A statement that still reached its ';' or '}' needs no skipping.
  if (pos_ > 0 && (tokens_[pos_ - 1].Is(TokenKind::Semicolon) || tokens_[pos_ - 1].Is(TokenKind::RBrace))) {
    panic_ = false;
    return;
  }
  int depth = 0;
  while (!At(TokenKind::EndOfFile)) {
    if (depth == 0 && At(TokenKind::Semicolon)) {
      Advance();
      break;
    }
    if (At(TokenKind::LBrace)) ++depth;
    if (At(TokenKind::RBrace)) {
      if (depth == 0) break;  // leave the block's '}' to its owner
      if (--depth == 0) {
        Advance();
        break;
      }
    }
    Advance();
  }
  panic_ = false;
}

void Parser::SyncToDeclarationEnd() {
  int depth = 0;
  while (!At(TokenKind::EndOfFile)) {
    if (depth == 0 && At(TokenKind::Semicolon)) {
      Advance();
      break;
    }
    if (At(TokenKind::LBrace)) ++depth;
    if (At(TokenKind::RBrace)) {
      Advance();
      if (depth <= 1) break;
      --depth;
      continue;
    }
    Advance();
  }
  panic_ = false;
}

ast::Module* Parser::ParseModule() {
  auto* module = ctx_.New<ast::Module>();
  while (!At(TokenKind::EndOfFile) && !diags_.LimitReached()) {
    size_t before = pos_;
    ParseTopLevel(module->decls);
    if (panic_) SyncToDeclarationEnd();
    if (pos_ == before) Advance();  // always make progress
  }
  return module;
}

std::vector<ast::Attribute> Parser::ParseAttributes() {
  std::vector<ast::Attribute> attrs;
  while (At(TokenKind::LBracket)) {
    if (!ParseAttribute(attrs)) break;
  }
  return attrs;
}

bool Parser::ParseAttribute(std::vector<ast::Attribute>& out) {
  source::SourceLoc begin = Cur().loc;
  bool doubled = Peek(1).Is(TokenKind::LBracket);
  Advance();
  if (doubled) Advance();
  if (!At(TokenKind::Identifier)) {
    Error(DiagId::ExpectedToken, Cur().Range(), "an attribute name", Describe(Cur()));
    return false;
  }
  ast::Attribute attr;
  attr.name = std::string(Advance().text);
  while (At(TokenKind::ColonColon) && Peek(1).Is(TokenKind::Identifier)) {
    Advance();
    attr.name += "::" + std::string(Advance().text);
  }
  if (Consume(TokenKind::LParen)) {
    if (!At(TokenKind::RParen)) {
      do {
        attr.args.push_back(ParseAssignment());
      } while (Consume(TokenKind::Comma));
    }
    if (!Expect(TokenKind::RParen)) return false;
  }
  if (!Expect(TokenKind::RBracket)) return false;
  if (doubled && !Expect(TokenKind::RBracket)) return false;
  attr.range = From(begin);
  out.push_back(std::move(attr));
  return true;
}

void Parser::ParseTopLevel(std::vector<ast::Decl*>& out) {
  std::vector<ast::Attribute> attrs = ParseAttributes();
  if (panic_) return;
  if (Consume(TokenKind::Semicolon)) return;
  if (At(TokenKind::Identifier) && IsUnsupportedDeclKeyword(Cur().text)) {
    Error(DiagId::UnsupportedConstruct, Cur().Range(), "'" + std::string(Cur().text) + "' declarations",
          "are");
    return;
  }
  bool is_static = false, is_const = false, is_uniform = false;
  while (At(TokenKind::Identifier) && IsModifier(Cur().text)) {
    std::string_view m = Advance().text;
    is_static |= m == "static";
    is_const |= m == "const";
    is_uniform |= m == "uniform";
  }
  if (!At(TokenKind::Identifier)) {
    Error(DiagId::ExpectedDeclaration, Cur().Range(), Describe(Cur()));
    return;
  }
  ast::TypeExpr* type = ParseType();
  if (type == nullptr) return;
  if (!At(TokenKind::Identifier)) {
    Error(DiagId::ExpectedToken, Cur().Range(), "a name", Describe(Cur()));
    return;
  }
  const Token& name = Advance();
  if (At(TokenKind::LParen)) {
    out.push_back(ParseFunctionRest(type, name, std::move(attrs)));
    return;
  }
  // Global variable(s).
  const Token* current_name = &name;
  while (true) {
    auto* var = ctx_.New<ast::VarDecl>(ast::VarRole::Global, std::string(current_name->text),
                                       current_name->Range());
    var->type_expr = type;
    var->attributes = attrs;
    var->is_static = is_static;
    var->is_const = is_const;
    var->is_uniform = is_uniform;
    if (At(TokenKind::Colon)) ParseSemantic(var);
    if (Consume(TokenKind::Equal)) var->init = ParseAssignment();
    out.push_back(var);
    if (!Consume(TokenKind::Comma)) break;
    if (!At(TokenKind::Identifier)) {
      Error(DiagId::ExpectedToken, Cur().Range(), "a name", Describe(Cur()));
      return;
    }
    current_name = &Advance();
  }
  Expect(TokenKind::Semicolon);
}

void Parser::ParseSemantic(ast::VarDecl* var) {
  Advance();  // ':'
  if (!At(TokenKind::Identifier)) {
    Error(DiagId::ExpectedToken, Cur().Range(), "a semantic", Describe(Cur()));
    return;
  }
  const Token& sem = Advance();
  var->semantic = std::string(sem.text);
  var->semantic_range = sem.Range();
  if (var->semantic == "register" && Consume(TokenKind::LParen)) {
    // register(u0, space1): kept as written; binding comes from [[vk::binding]].
    while (!At(TokenKind::RParen) && !At(TokenKind::EndOfFile) && !At(TokenKind::Semicolon)) Advance();
    Expect(TokenKind::RParen);
    var->semantic_range = From(sem.loc);
  }
}

ast::FuncDecl* Parser::ParseFunctionRest(ast::TypeExpr* type, const Token& name,
                                         std::vector<ast::Attribute> attrs) {
  auto* func = ctx_.New<ast::FuncDecl>(std::string(name.text), name.Range());
  func->return_type = type;
  func->attributes = std::move(attrs);
  Advance();  // '('
  if (!At(TokenKind::RParen)) {
    do {
      ast::VarDecl* param = ParseParam();
      if (param == nullptr) return func;
      func->params.push_back(param);
    } while (Consume(TokenKind::Comma));
  }
  if (!Expect(TokenKind::RParen)) return func;
  if (At(TokenKind::Colon)) {
    // A return semantic: accepted and ignored for compute shaders.
    Advance();
    if (At(TokenKind::Identifier)) Advance();
  }
  if (Consume(TokenKind::Semicolon)) return func;
  if (!At(TokenKind::LBrace)) {
    Error(DiagId::ExpectedToken, Cur().Range(), "'{' or ';'", Describe(Cur()));
    return func;
  }
  func->body = ParseBlock();
  return func;
}

ast::VarDecl* Parser::ParseParam() {
  std::vector<ast::Attribute> attrs = ParseAttributes();
  ast::ParamDirection dir = ast::ParamDirection::In;
  bool is_uniform = false, is_const = false;
  while (At(TokenKind::Identifier) && IsModifier(Cur().text)) {
    std::string_view m = Advance().text;
    if (m == "out") dir = ast::ParamDirection::Out;
    if (m == "inout") dir = ast::ParamDirection::InOut;
    is_uniform |= m == "uniform";
    is_const |= m == "const";
  }
  ast::TypeExpr* type = ParseType();
  if (type == nullptr) return nullptr;
  if (!At(TokenKind::Identifier)) {
    Error(DiagId::ExpectedToken, Cur().Range(), "a parameter name", Describe(Cur()));
    return nullptr;
  }
  const Token& name = Advance();
  auto* param = ctx_.New<ast::VarDecl>(ast::VarRole::Param, std::string(name.text), name.Range());
  param->type_expr = type;
  param->attributes = std::move(attrs);
  param->direction = dir;
  param->is_uniform = is_uniform;
  param->is_const = is_const;
  if (At(TokenKind::Colon)) ParseSemantic(param);
  if (Consume(TokenKind::Equal)) param->init = ParseAssignment();
  return param;
}

ast::TypeExpr* Parser::ParseType() {
  DepthGuard guard(*this);
  if (!guard.Ok()) return nullptr;
  if (!At(TokenKind::Identifier)) {
    Error(DiagId::ExpectedType, Cur().Range(), Describe(Cur()));
    return nullptr;
  }
  const Token& name = Advance();
  auto* type = ctx_.New<ast::TypeExpr>();
  type->name = std::string(name.text);
  if (At(TokenKind::Less)) {
    Advance();
    do {
      // A generic argument is a type when it starts with a type name, else a value.
      if (At(TokenKind::Identifier) && !Peek(1).Is(TokenKind::LParen)) {
        ast::TypeExpr* arg = ParseType();
        if (arg == nullptr) return nullptr;
        type->type_args.push_back(arg);
      } else {
        type->value_args.push_back(ParseBinary(/*above relational*/ 9));
      }
    } while (Consume(TokenKind::Comma));
    if (!Expect(TokenKind::Greater)) return nullptr;
  }
  type->range = From(name.loc);
  return type;
}

bool Parser::LooksLikeTypedDecl() const {
  if (!At(TokenKind::Identifier)) return false;
  if (IsModifier(Cur().text)) return true;
  if (Peek(1).Is(TokenKind::Identifier)) return true;
  return Peek(1).Is(TokenKind::Less) && IsBuiltinTypeName(Cur().text);
}

ast::BlockStmt* Parser::ParseBlock() {
  source::SourceLoc begin = Cur().loc;
  auto* block = ctx_.New<ast::BlockStmt>(Cur().Range());
  Expect(TokenKind::LBrace);
  while (!At(TokenKind::RBrace) && !At(TokenKind::EndOfFile) && !diags_.LimitReached()) {
    size_t before = pos_;
    ast::Stmt* stmt = ParseStmt();
    if (stmt != nullptr) block->stmts.push_back(stmt);
    if (panic_) SyncToStatementEnd();
    if (pos_ == before) Advance();
  }
  Expect(TokenKind::RBrace);
  block->range = From(begin);
  return block;
}

ast::Stmt* Parser::ParseStmt() {
  DepthGuard guard(*this);
  if (!guard.Ok()) return nullptr;
  source::SourceLoc begin = Cur().loc;
  std::vector<ast::Attribute> attrs;
  if (At(TokenKind::LBracket)) {
    attrs = ParseAttributes();
    if (panic_) return nullptr;
  }
  ast::Stmt* stmt = nullptr;
  if (At(TokenKind::LBrace)) {
    stmt = ParseBlock();
  } else if (At(TokenKind::Semicolon)) {
    stmt = ctx_.New<ast::EmptyStmt>(Advance().Range());
  } else if (AtIdent("switch") || AtIdent("discard") || AtIdent("goto")) {
    Error(DiagId::UnsupportedConstruct, Cur().Range(),
          "'" + std::string(Cur().text) + "' statements", "are");
    return nullptr;
  } else if (AtIdent("if")) {
    stmt = ParseIf();
  } else if (AtIdent("for")) {
    stmt = ParseFor();
  } else if (AtIdent("while")) {
    stmt = ParseWhile();
  } else if (AtIdent("do")) {
    stmt = ParseDoWhile();
  } else if (AtIdent("return")) {
    Advance();
    ast::Expr* value = At(TokenKind::Semicolon) ? nullptr : ParseExpr();
    Expect(TokenKind::Semicolon);
    stmt = ctx_.New<ast::ReturnStmt>(From(begin), value);
  } else if (AtIdent("break") || AtIdent("continue")) {
    bool is_break = AtIdent("break");
    Advance();
    Expect(TokenKind::Semicolon);
    stmt = is_break ? static_cast<ast::Stmt*>(ctx_.New<ast::BreakStmt>(From(begin)))
                    : ctx_.New<ast::ContinueStmt>(From(begin));
  } else if (AtIdent("var") || AtIdent("let")) {
    stmt = ParseVarDeclStmt(true);
  } else if (LooksLikeTypedDecl()) {
    stmt = ParseVarDeclStmt(false);
  } else if (At(TokenKind::RBrace) || At(TokenKind::EndOfFile)) {
    Error(DiagId::ExpectedStatement, Cur().Range(), Describe(Cur()));
    return nullptr;
  } else {
    ast::Expr* e = ParseExpr();
    Expect(TokenKind::Semicolon);
    stmt = ctx_.New<ast::ExprStmt>(From(begin), e);
  }
  if (stmt != nullptr) stmt->attributes = std::move(attrs);
  return stmt;
}

ast::Stmt* Parser::ParseVarDeclStmt(bool keyword_form) {
  source::SourceLoc begin = Cur().loc;
  auto* decl = ctx_.New<ast::DeclStmt>(Cur().Range());
  bool is_let = false, is_const = false, is_static = false;
  ast::TypeExpr* type = nullptr;
  if (keyword_form) {
    is_let = Advance().text == "let";
  } else {
    while (At(TokenKind::Identifier) && IsModifier(Cur().text)) {
      std::string_view m = Advance().text;
      is_const |= m == "const";
      is_static |= m == "static";
    }
    type = ParseType();
    if (type == nullptr) return nullptr;
  }
  do {
    if (!At(TokenKind::Identifier)) {
      Error(DiagId::ExpectedToken, Cur().Range(), "a variable name", Describe(Cur()));
      return decl;
    }
    const Token& name = Advance();
    auto* var = ctx_.New<ast::VarDecl>(ast::VarRole::Local, std::string(name.text), name.Range());
    var->type_expr = type;
    var->is_let = is_let || is_const;
    var->is_const = is_const;
    var->is_static = is_static;
    if (keyword_form && Consume(TokenKind::Colon)) var->type_expr = ParseType();
    if (Consume(TokenKind::Equal)) var->init = ParseAssignment();
    decl->vars.push_back(var);
  } while (Consume(TokenKind::Comma));
  Expect(TokenKind::Semicolon);
  decl->range = From(begin);
  return decl;
}

ast::Stmt* Parser::ParseIf() {
  source::SourceLoc begin = Advance().loc;
  Expect(TokenKind::LParen);
  ast::Expr* cond = ParseExpr();
  Expect(TokenKind::RParen);
  ast::Stmt* then_stmt = ParseStmt();
  ast::Stmt* else_stmt = nullptr;
  if (AtIdent("else")) {
    Advance();
    else_stmt = ParseStmt();
  }
  return ctx_.New<ast::IfStmt>(From(begin), cond, then_stmt, else_stmt);
}

ast::Stmt* Parser::ParseFor() {
  source::SourceLoc begin = Advance().loc;
  Expect(TokenKind::LParen);
  ast::Stmt* init = nullptr;
  if (!Consume(TokenKind::Semicolon)) {
    if (AtIdent("var") || AtIdent("let")) {
      init = ParseVarDeclStmt(true);
    } else if (LooksLikeTypedDecl()) {
      init = ParseVarDeclStmt(false);
    } else {
      source::SourceLoc ib = Cur().loc;
      ast::Expr* e = ParseExpr();
      Expect(TokenKind::Semicolon);
      init = ctx_.New<ast::ExprStmt>(From(ib), e);
    }
  }
  ast::Expr* cond = At(TokenKind::Semicolon) ? nullptr : ParseExpr();
  Expect(TokenKind::Semicolon);
  ast::Expr* step = At(TokenKind::RParen) ? nullptr : ParseExpr();
  Expect(TokenKind::RParen);
  ast::Stmt* body = ParseStmt();
  return ctx_.New<ast::ForStmt>(From(begin), init, cond, step, body);
}

ast::Stmt* Parser::ParseWhile() {
  source::SourceLoc begin = Advance().loc;
  Expect(TokenKind::LParen);
  ast::Expr* cond = ParseExpr();
  Expect(TokenKind::RParen);
  ast::Stmt* body = ParseStmt();
  return ctx_.New<ast::WhileStmt>(From(begin), cond, body);
}

ast::Stmt* Parser::ParseDoWhile() {
  source::SourceLoc begin = Advance().loc;
  ast::Stmt* body = ParseStmt();
  if (!AtIdent("while")) {
    Error(DiagId::ExpectedToken, Cur().Range(), "'while'", Describe(Cur()));
    return nullptr;
  }
  Advance();
  Expect(TokenKind::LParen);
  ast::Expr* cond = ParseExpr();
  Expect(TokenKind::RParen);
  Expect(TokenKind::Semicolon);
  return ctx_.New<ast::DoWhileStmt>(From(begin), body, cond);
}

// ---------------------------------------------------------------------------------------
// Expressions

ast::Expr* Parser::ErrorExpr(source::SourceRange range) {
  // A literal stands in for what could not be parsed, so later stages see a tree.
  return ctx_.New<ast::IntLiteralExpr>(range, 0, false);
}

ast::Expr* Parser::ParseExpr() {
  // The comma operator is not part of the committed subset: one assignment expression.
  return ParseAssignment();
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
  Advance();
  ast::Expr* rhs = ParseAssignment();  // right associative
  return ctx_.New<ast::AssignExpr>(From(begin), op, lhs, rhs);
}

ast::Expr* Parser::ParseConditional() {
  source::SourceLoc begin = Cur().loc;
  ast::Expr* cond = ParseBinary(1);
  if (!Consume(TokenKind::Question)) return cond;
  ast::Expr* then_expr = ParseAssignment();
  Expect(TokenKind::Colon);
  ast::Expr* else_expr = ParseConditional();
  return ctx_.New<ast::ConditionalExpr>(From(begin), cond, then_expr, else_expr);
}

namespace {
/// Binary operator precedence (higher binds tighter); 0 = not a binary operator.
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

ast::Expr* Parser::ParseBinary(int min_prec) {
  source::SourceLoc begin = Cur().loc;
  ast::Expr* lhs = ParseUnary();
  while (true) {
    ast::OpKind op{};
    int prec = Precedence(Cur().kind, &op);
    if (prec == 0 || prec < min_prec) return lhs;
    source::SourceRange op_range = Cur().Range();
    Advance();
    DepthGuard guard(*this);
    if (!guard.Ok()) return lhs;
    ast::Expr* rhs = ParseBinary(prec + 1);  // left associative
    lhs = ctx_.New<ast::BinaryExpr>(From(begin), op, lhs, rhs, op_range);
  }
}

ast::Expr* Parser::ParseUnary() {
  DepthGuard guard(*this);
  if (!guard.Ok()) return ErrorExpr(Cur().Range());
  source::SourceLoc begin = Cur().loc;
  ast::OpKind op;
  switch (Cur().kind) {
    case TokenKind::Minus: op = ast::OpKind::Neg; break;
    case TokenKind::Plus: op = ast::OpKind::Plus; break;
    case TokenKind::Bang: op = ast::OpKind::Not; break;
    case TokenKind::Tilde: op = ast::OpKind::BitNot; break;
    case TokenKind::PlusPlus: op = ast::OpKind::PreInc; break;
    case TokenKind::MinusMinus: op = ast::OpKind::PreDec; break;
    case TokenKind::LParen:
      // A cast `(T)x` when the parentheses hold a built-in type name.
      if (Peek(1).Is(TokenKind::Identifier) && IsBuiltinTypeName(Peek(1).text) &&
          (Peek(2).Is(TokenKind::RParen) || Peek(2).Is(TokenKind::Less))) {
        Advance();
        ast::TypeExpr* type = ParseType();
        if (type == nullptr || !Expect(TokenKind::RParen)) return ErrorExpr(From(begin));
        ast::Expr* operand = ParseUnary();
        return ctx_.New<ast::CastExpr>(From(begin), type, operand);
      }
      return ParsePostfix(ParsePrimary());
    default:
      return ParsePostfix(ParsePrimary());
  }
  Advance();
  ast::Expr* operand = ParseUnary();
  return ctx_.New<ast::UnaryExpr>(From(begin), op, operand);
}

ast::Expr* Parser::ParsePostfix(ast::Expr* base) {
  source::SourceLoc begin = base->range.begin;
  while (true) {
    if (At(TokenKind::Dot)) {
      Advance();
      if (!At(TokenKind::Identifier)) {
        Error(DiagId::ExpectedToken, Cur().Range(), "a member name", Describe(Cur()));
        return base;
      }
      const Token& member = Advance();
      base = ctx_.New<ast::MemberExpr>(From(begin), base, std::string(member.text), member.Range());
    } else if (At(TokenKind::LBracket)) {
      Advance();
      ast::Expr* index = ParseExpr();
      Expect(TokenKind::RBracket);
      base = ctx_.New<ast::IndexExpr>(From(begin), base, index);
    } else if (At(TokenKind::LParen)) {
      Advance();
      std::vector<ast::Expr*> args;
      if (!At(TokenKind::RParen)) {
        do {
          args.push_back(ParseAssignment());
        } while (Consume(TokenKind::Comma) && !panic_);
      }
      Expect(TokenKind::RParen);
      base = ctx_.New<ast::CallExpr>(From(begin), base, std::move(args));
    } else if (At(TokenKind::PlusPlus) || At(TokenKind::MinusMinus)) {
      ast::OpKind op = At(TokenKind::PlusPlus) ? ast::OpKind::PostInc : ast::OpKind::PostDec;
      Advance();
      base = ctx_.New<ast::UnaryExpr>(From(begin), op, base);
    } else {
      return base;
    }
    if (panic_) return base;
  }
}

ast::Expr* Parser::ParsePrimary() {
  const Token& tok = Cur();
  switch (tok.kind) {
    case TokenKind::IntLiteral: {
      Advance();
      bool is_unsigned = tok.literal_type == preprocess::LiteralType::UInt ||
                         tok.literal_type == preprocess::LiteralType::UInt64;
      return ctx_.New<ast::IntLiteralExpr>(tok.Range(), tok.int_value, is_unsigned);
    }
    case TokenKind::FloatLiteral:
      Advance();
      return ctx_.New<ast::FloatLiteralExpr>(tok.Range(), tok.float_value);
    case TokenKind::Identifier: {
      Advance();
      if (tok.text == "true" || tok.text == "false") {
        return ctx_.New<ast::BoolLiteralExpr>(tok.Range(), tok.text == "true");
      }
      auto* name = ctx_.New<ast::NameExpr>(tok.Range(), std::string(tok.text));
      // `vector<float, 3>(...)` style constructor: fold generic arguments into a type name.
      return name;
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
    case TokenKind::LParen: {
      source::SourceLoc begin = Advance().loc;
      ast::Expr* inner = ParseExpr();
      Expect(TokenKind::RParen);
      inner->range = From(begin);
      return inner;
    }
    default:
      Error(DiagId::ExpectedExpression, tok.Range(), Describe(tok));
      return ErrorExpr(tok.Range());
  }
}

}  // namespace

ast::Module* ParseModule(const std::vector<Token>& tokens, ast::AstContext& ctx,
                         diag::DiagEngine& diags) {
  return Parser(tokens, ctx, diags).ParseModule();
}

}  // namespace slope::parse
