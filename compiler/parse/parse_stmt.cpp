// Statements.

#include <algorithm>

#include "compiler/parse/parser_impl.h"

namespace slope::parse {

namespace {
/// `outer` of `outer: for ...` or of `break outer;` as the attribute `__label(outer)`,
/// which sema and lowering read.
ast::Attribute LabelAttribute(ast::AstContext& ctx, source::SourceRange range,
                              const std::string& name) {
  ast::Attribute a;
  a.name = "__label";
  a.range = range;
  a.args.push_back(ctx.New<ast::NameExpr>(range, name));
  return a;
}
}  // namespace

using diag::DiagId;

ast::BlockStmt* Parser::ParseBlock() {
  source::SourceLoc begin = Cur().loc;
  auto* block = ctx_.New<ast::BlockStmt>(Cur().Range());
  // The outermost block of a body counts the statements of the whole body; once past
  // kMaxBodyStatements it reports the statement that passed the limit and skips the rest.
  const bool body = block_depth_ == 0;
  const size_t open = pos_;
  const uint32_t errors = diags_.ErrorCount();
  if (body) {
    body_stmts_ = 0;
    body_loops_ = 0;
    body_over_ = false;
  }
  ++block_depth_;
  Expect(TokenKind::LBrace);
  while (!At(TokenKind::RBrace) && !At(TokenKind::EndOfFile) && !diags_.LimitReached()) {
    size_t before = pos_;
    ast::Stmt* stmt = ParseStmt();
    if (stmt != nullptr) block->stmts.push_back(stmt);
    if (panic_) SyncToStatementEnd();
    if (pos_ == before) Advance();
    if (body && body_over_) {
      // A body that already has an error (a chain past its limit) is skipped silently.
      panic_ = false;
      if (diags_.ErrorCount() == errors) {
        Error(body_over_diag_, body_over_at_, body_over_limit_);
      }
      panic_ = false;
      --block_depth_;
      pos_ = open;
      has_split_ = false;
      SkipBraced();
      block->range = From(begin);
      return block;
    }
  }
  --block_depth_;
  Expect(TokenKind::RBrace);
  block->range = From(begin);
  return block;
}

void Parser::PassBodyLimit(DiagId id, size_t limit) {
  if (body_over_) return;
  body_over_ = true;
  body_over_at_ = Cur().Range();
  body_over_diag_ = id;
  body_over_limit_ = limit;
}

ast::Stmt* Parser::ParseStmt() {
  DepthGuard guard(*this);
  if (!guard.Ok()) return nullptr;
  if (++body_stmts_ == kMaxBodyStatements + 1) {
    PassBodyLimit(DiagId::BodyTooManyStatements, kMaxBodyStatements);
  }
  source::SourceLoc begin = Cur().loc;
  std::vector<ast::Attribute> attrs;
  if (At(TokenKind::LBracket)) {
    attrs = ParseAttributes();
    if (panic_) return nullptr;
  }
  ast::Stmt* stmt = nullptr;
  if (At(TokenKind::Identifier) && Peek(1).Is(TokenKind::Colon) && !AtIdent("case") &&
      !AtIdent("default")) {
    // `outer: for (...)`: a label names a loop for `break outer;` / `continue outer;`
    // (the lowering's multi-level exits); sema sees it as the attribute `__label`.
    const Token& label = Advance();
    Advance();  // ':'
    if (At(TokenKind::LBracket)) {
      std::vector<ast::Attribute> more = ParseAttributes();
      if (panic_) return nullptr;
      attrs.insert(attrs.end(), more.begin(), more.end());
    }
    if (!AtIdent("for") && !AtIdent("while") && !AtIdent("do")) {
      Error(DiagId::UnsupportedConstruct, label.Range(),
            "labels on statements other than loops ('" + std::string(label.text) + "')", "are");
      return nullptr;
    }
    std::string name(label.text);
    loop_labels_.push_back(name);
    stmt = AtIdent("for") ? ParseFor() : AtIdent("while") ? ParseWhile() : ParseDoWhile();
    loop_labels_.pop_back();
    attrs.push_back(LabelAttribute(ctx_, label.Range(), name));
  } else if (At(TokenKind::LBrace)) {
    stmt = ParseBlock();
  } else if (At(TokenKind::Semicolon)) {
    stmt = ctx_.New<ast::EmptyStmt>(Advance().Range());
  } else if (AtIdent("if")) {
    stmt = ParseIf();
  } else if (AtIdent("for")) {
    stmt = ParseFor();
  } else if (AtIdent("while")) {
    stmt = ParseWhile();
  } else if (AtIdent("do")) {
    stmt = ParseDoWhile();
  } else if (AtIdent("switch")) {
    stmt = ParseSwitch();
  } else if (AtIdent("case") || AtIdent("default")) {
    bool is_default = AtIdent("default");
    Advance();
    ast::Expr* value = is_default ? nullptr : ParseConditional();
    Expect(TokenKind::Colon);
    stmt = ctx_.New<ast::CaseStmt>(From(begin), value);
  } else if (AtIdent("return")) {
    Advance();
    ast::Expr* value = At(TokenKind::Semicolon) ? nullptr : ParseExpr();
    Expect(TokenKind::Semicolon);
    stmt = ctx_.New<ast::ReturnStmt>(From(begin), value);
  } else if (AtIdent("break") || AtIdent("continue")) {
    bool is_break = AtIdent("break");
    Advance();
    if (At(TokenKind::Identifier)) {
      // `break outer;`: leaves (or continues) the enclosing loop labeled `outer`.
      const Token& label = Advance();
      std::string name(label.text);
      if (std::find(loop_labels_.begin(), loop_labels_.end(), name) == loop_labels_.end()) {
        diags_.Report(DiagId::BreakOutsideLoop, From(begin),
                      std::string(is_break ? "break " : "continue ") + name,
                      "a loop labeled '" + name + "'");
      }
      attrs.push_back(LabelAttribute(ctx_, label.Range(), name));
    }
    Expect(TokenKind::Semicolon);
    stmt = is_break ? static_cast<ast::Stmt*>(ctx_.New<ast::BreakStmt>(From(begin)))
                    : ctx_.New<ast::ContinueStmt>(From(begin));
  } else if (AtIdent("__target_switch")) {
    stmt = ParseTargetSwitch();
  } else if (RejectInternalKeyword()) {
    return nullptr;
  } else if (AtIdent("throw") && !Peek(1).Is(TokenKind::Semicolon) &&
             !Peek(1).Is(TokenKind::Equal) && !Peek(1).Is(TokenKind::LParen)) {
    // `throw MyError.Failure;`
    Advance();
    ast::Expr* value = ParseExpr();
    Expect(TokenKind::Semicolon);
    stmt = ctx_.New<ast::ThrowStmt>(From(begin), value);
  } else if (AtIdent("defer") &&
             (Peek(1).Is(TokenKind::LBrace) || Peek(1).Is(TokenKind::Identifier))) {
    // `defer stmt;`: runs when the enclosing block is left.
    Advance();
    ast::Stmt* body = ParseStmt();
    if (body == nullptr) return nullptr;
    stmt = ctx_.New<ast::DeferStmt>(From(begin), body);
  } else if (AtIdent("discard") || AtIdent("goto")) {
    Error(DiagId::UnsupportedConstruct, Cur().Range(),
          "'" + std::string(Cur().text) + "' statements", "are");
    return nullptr;
  } else if (AtIdent("var") || AtIdent("let")) {
    stmt = ParseVarDeclStmt(true);
  } else if (!(AtIdent("try") && Peek(1).Is(TokenKind::Identifier)) && LooksLikeTypedDecl()) {
    // (`try f();` is a call, not a variable `f` of type `try`.)
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
  if (keyword_form) {
    bool is_let = Advance().text == "let";
    do {
      if (!At(TokenKind::Identifier)) {
        Error(DiagId::ExpectedToken, Cur().Range(), "a variable name", Describe(Cur()));
        return decl;
      }
      const Token& name = Advance();
      auto* var = ctx_.New<ast::VarDecl>(ast::VarRole::Local, std::string(name.text), name.Range());
      var->is_let = is_let;
      if (Consume(TokenKind::Colon)) var->type_expr = ParseType();
      if (Consume(TokenKind::Equal)) {
        var->init = At(TokenKind::LBrace) ? ParseInitList() : ParseAssignment();
      }
      decl->vars.push_back(var);
    } while (Consume(TokenKind::Comma));
  } else {
    uint32_t mods = ParseModifiers();
    ast::TypeExpr* type = ParseType();
    if (type == nullptr) return nullptr;
    if (!At(TokenKind::Identifier)) {
      Error(DiagId::ExpectedToken, Cur().Range(), "a variable name", Describe(Cur()));
      return decl;
    }
    const Token& first = Advance();
    std::vector<ast::Decl*> vars;
    ParseVarDeclsRest(vars, type, first, {}, mods, ast::VarRole::Local);
    for (ast::Decl* d : vars) {
      auto* var = static_cast<ast::VarDecl*>(d);
      var->is_let = var->is_const;
      decl->vars.push_back(var);
    }
  }
  Expect(TokenKind::Semicolon);
  decl->range = From(begin);
  return decl;
}

ast::Stmt* Parser::ParseIf() {
  // `if ... else if ... else if ...` is a chain, not nesting: its branches are read in a
  // loop and the tree of IfStmts is built afterwards, from the last branch back. The
  // branches of every enclosing chain count toward kMaxBranchChain, which bounds the
  // depth of the tree that later stages walk and of the selections in SPIR-V.
  struct Branch {
    source::SourceLoc begin;
    ast::Expr* cond;
    ast::Stmt* then_stmt;
    const Token* bound = nullptr;  ///< `if (let x = optional)`: x
  };
  std::vector<Branch> branches;
  ast::Stmt* else_stmt = nullptr;
  int outer_depth = branch_depth_;
  while (true) {
    source::SourceLoc begin = Advance().loc;  // 'if'
    Expect(TokenKind::LParen);
    const Token* bound = nullptr;
    if (AtIdent("let") && Peek(1).Is(TokenKind::Identifier) && Peek(2).Is(TokenKind::Equal)) {
      Advance();  // let
      bound = &Advance();
      Advance();  // =
    }
    ast::Expr* cond = ParseExpr();
    Expect(TokenKind::RParen);
    ast::Stmt* then_stmt = ParseStmt();
    // Past the limit the rest of the chain is still read, so that parsing goes on after
    // it, but dropped.
    if (branch_depth_ <= kMaxBranchChain) branches.push_back({begin, cond, then_stmt, bound});
    if (!ConsumeIdent("else")) break;
    if (!AtIdent("if") || panic_) {
      else_stmt = ParseStmt();
      break;
    }
    if (++branch_depth_ > kMaxBranchChain) ReportBranchChain();
  }
  branch_depth_ = outer_depth;
  for (size_t i = branches.size(); i-- > 0;) {
    const Branch& b = branches[i];
    if (b.bound == nullptr) {
      else_stmt = ctx_.New<ast::IfStmt>(From(b.begin), b.cond, b.then_stmt, else_stmt);
      continue;
    }
    // `if (let x = opt) A else B` is `{ let x$opt = opt; if (x$opt.hasValue)
    // { let x = x$opt.value; A } else B }`: x exists only where the Optional holds a value.
    source::SourceRange name_range = b.bound->Range();
    std::string name(b.bound->text);
    auto local = [&](const std::string& n, ast::Expr* init) {
      auto* var = ctx_.New<ast::VarDecl>(ast::VarRole::Local, n, name_range);
      var->is_let = true;
      var->init = init;
      auto* decl = ctx_.New<ast::DeclStmt>(name_range);
      decl->vars.push_back(var);
      return decl;
    };
    std::string held = name + "$opt";
    auto member = [&](const char* m) {
      return ctx_.New<ast::MemberExpr>(name_range, ctx_.New<ast::NameExpr>(name_range, held), m,
                                       name_range);
    };
    auto* then_block = ctx_.New<ast::BlockStmt>(b.then_stmt->range);
    then_block->stmts = {local(name, member("value")), b.then_stmt};
    auto* test = ctx_.New<ast::IfStmt>(From(b.begin), member("hasValue"), then_block, else_stmt);
    auto* outer = ctx_.New<ast::BlockStmt>(From(b.begin));
    outer->stmts = {local(held, b.cond), test};
    else_stmt = outer;
  }
  return else_stmt;
}

ast::Stmt* Parser::ParseFor() {
  if (++body_loops_ == kMaxBodyLoops + 1) PassBodyLimit(DiagId::BodyTooManyLoops, kMaxBodyLoops);
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
  if (++body_loops_ == kMaxBodyLoops + 1) PassBodyLimit(DiagId::BodyTooManyLoops, kMaxBodyLoops);
  source::SourceLoc begin = Advance().loc;
  Expect(TokenKind::LParen);
  ast::Expr* cond = ParseExpr();
  Expect(TokenKind::RParen);
  ast::Stmt* body = ParseStmt();
  return ctx_.New<ast::WhileStmt>(From(begin), cond, body);
}

ast::Stmt* Parser::ParseDoWhile() {
  if (++body_loops_ == kMaxBodyLoops + 1) PassBodyLimit(DiagId::BodyTooManyLoops, kMaxBodyLoops);
  source::SourceLoc begin = Advance().loc;
  ast::Stmt* body = ParseStmt();
  if (AtIdent("catch")) {
    // `do { ... } catch (err : MyError) { ... } catch (e2 : Other) { ... }`
    auto* stmt = ctx_.New<ast::DoCatchStmt>(From(begin), body);
    while (AtIdent("catch")) {
      ast::CatchClause clause;
      source::SourceLoc at = Advance().loc;
      if (!Expect(TokenKind::LParen)) return nullptr;
      const Token* name = ExpectName("an error variable name");
      if (name == nullptr) return nullptr;
      clause.var =
          ctx_.New<ast::VarDecl>(ast::VarRole::Local, std::string(name->text), name->Range());
      clause.var->is_let = true;
      if (!Expect(TokenKind::Colon)) return nullptr;
      clause.var->type_expr = ParseType();
      if (clause.var->type_expr == nullptr || !Expect(TokenKind::RParen)) return nullptr;
      clause.range = From(at);
      clause.body = ParseStmt();
      if (clause.body == nullptr) return nullptr;
      stmt->clauses.push_back(clause);
    }
    stmt->range = From(begin);
    return stmt;
  }
  if (!ConsumeIdent("while")) {
    Error(DiagId::ExpectedToken, Cur().Range(), "'while'", Describe(Cur()));
    return nullptr;
  }
  Expect(TokenKind::LParen);
  ast::Expr* cond = ParseExpr();
  Expect(TokenKind::RParen);
  Expect(TokenKind::Semicolon);
  return ctx_.New<ast::DoWhileStmt>(From(begin), body, cond);
}

ast::Stmt* Parser::ParseSwitch() {
  source::SourceLoc begin = Advance().loc;
  Expect(TokenKind::LParen);
  ast::Expr* value = ParseExpr();
  Expect(TokenKind::RParen);
  if (!At(TokenKind::LBrace)) {
    Error(DiagId::ExpectedToken, Cur().Range(), "'{'", Describe(Cur()));
    return nullptr;
  }
  ast::BlockStmt* body = ParseBlock();
  return ctx_.New<ast::SwitchStmt>(From(begin), value, body);
}

bool IsKnownTargetCase(std::string_view name) {
  static constexpr std::string_view kCases[] = {"hlsl", "glsl", "spirv", "cuda",
                                                "cpp",  "metal", "wgsl"};
  for (std::string_view c : kCases) {
    if (c == name) return true;
  }
  return false;
}

void Parser::SkipTargetCase() {
  int depth = 0;
  while (!At(TokenKind::EndOfFile)) {
    if (depth == 0 && (At(TokenKind::RBrace) || AtIdent("case") || AtIdent("default"))) return;
    if (At(TokenKind::LBrace) || At(TokenKind::LParen) || At(TokenKind::LBracket)) ++depth;
    if (At(TokenKind::RBrace) || At(TokenKind::RParen) || At(TokenKind::RBracket)) --depth;
    Advance();
  }
}

ast::Stmt* Parser::ParseTargetSwitch() {
  source::SourceLoc begin = Cur().loc;
  source::SourceRange keyword = Advance().Range();  // __target_switch
  if (!Expect(TokenKind::LBrace)) return nullptr;
  // Which group of labels the target takes: the first of its names that a case lists,
  // else `default`.
  struct Group {
    std::vector<std::string> names;
    bool is_default = false;
    size_t start = 0;  ///< token index of its first statement
  };
  std::vector<Group> groups;
  while (!At(TokenKind::RBrace) && !At(TokenKind::EndOfFile)) {
    Group g;
    size_t before_labels = pos_;
    while (AtIdent("case") || AtIdent("default")) {
      if (AtIdent("default")) {
        Advance();
        g.is_default = true;
      } else {
        Advance();
        const Token* name = ExpectName("a target name");
        if (name == nullptr) return nullptr;
        if (IsKnownTargetCase(name->text)) {
          g.names.emplace_back(name->text);
        } else {
          diags_.Report(DiagId::UnknownTargetCase, name->Range(), name->text);
        }
      }
      if (!Expect(TokenKind::Colon)) return nullptr;
    }
    if (g.start == 0 && pos_ == before_labels) {
      Error(DiagId::ExpectedToken, Cur().Range(), "'case' or 'default'", Describe(Cur()));
      return nullptr;
    }
    g.start = pos_;
    SkipTargetCase();
    groups.push_back(std::move(g));
  }
  size_t end = pos_;
  const Group* chosen = nullptr;
  for (const std::string& target : options_.target_cases) {
    for (const Group& g : groups) {
      for (const std::string& n : g.names) {
        if (chosen == nullptr && n == target) chosen = &g;
      }
    }
  }
  for (const Group& g : groups) {
    if (chosen == nullptr && g.is_default) chosen = &g;
  }
  if (chosen == nullptr) {
    std::string target = options_.target_cases.empty() ? "(none)" : options_.target_cases[0];
    diags_.Report(DiagId::NoTargetCase, keyword, target);
    Expect(TokenKind::RBrace);
    return ctx_.New<ast::EmptyStmt>(From(begin));
  }
  // Read the chosen statements into a block; a `break` ends the case, as in a switch.
  pos_ = chosen->start;
  auto* block = ctx_.New<ast::BlockStmt>(Cur().Range());
  while (!At(TokenKind::RBrace) && !AtIdent("case") && !AtIdent("default") &&
         !At(TokenKind::EndOfFile)) {
    size_t before = pos_;
    if (AtIdent("break") && Peek(1).Is(TokenKind::Semicolon)) break;
    if (ast::Stmt* s = ParseStmt()) block->stmts.push_back(s);
    if (panic_ || pos_ == before) break;
  }
  pos_ = end;
  Expect(TokenKind::RBrace);
  block->range = From(begin);
  return block;
}

}  // namespace slope::parse
