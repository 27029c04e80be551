// Declarations: functions, variables, structs, interfaces, extensions, enums, type
// aliases, namespaces, imports, associated types, properties, subscripts, constructors.

#include "compiler/parse/parser_impl.h"

namespace slope::parse {

using diag::DiagId;

const Token* Parser::ExpectName(const char* what) {
  if (At(TokenKind::Identifier)) return &Advance();
  Error(DiagId::ExpectedToken, Cur().Range(), what, Describe(Cur()));
  return nullptr;
}

bool Parser::RejectInternalKeyword() {
  // Slang's core library declares its built-in types and target code with these; Slope's
  // core library needs none of them, and a program cannot use them in either compiler.
  static constexpr std::string_view kInternal[] = {
      "__magic_type",     "__intrinsic_type", "__intrinsic_asm",         "__target_intrinsic",
      "__builtin",        "__builtin_type",   "__attributeTarget",       "__specialized_for_target",
      "__glsl_extension", "__glsl_version",   "__spirv_version",         "__cuda_sm_version",
      "__requiresNVAPI",  "__prefix",         "__postfix",               "__implicit_conversion"};
  if (!At(TokenKind::Identifier)) return false;
  for (std::string_view keyword : kInternal) {
    if (Cur().text != keyword) continue;
    Error(DiagId::InternalKeyword, Cur().Range(), keyword);
    return true;
  }
  return false;
}

void Parser::ParseDeclInto(std::vector<ast::Decl*>& out, DeclContext context) {
  std::vector<ast::Attribute> attrs = ParseAttributes();
  if (panic_) return;
  if (Consume(TokenKind::Semicolon)) return;
  uint32_t mods = ParseModifiers();
  if (RejectInternalKeyword()) return;
  // `__generic<T : I>` puts generic parameters in front of the declaration it opens.
  std::vector<ast::GenericParamDecl*> generics;
  if (AtIdent("__generic") && Peek(1).Is(TokenKind::Less)) {
    Advance();
    generics = ParseGenericParams();
    if (panic_) return;
    mods |= ParseModifiers();
  }
  auto finish = [&](ast::Decl* d) {
    if (d == nullptr) return;
    d->file_block = file_block_;
    d->attributes = std::move(attrs);
    d->modifiers |= mods;
    out.push_back(d);
  };
  if (!At(TokenKind::Identifier)) {
    Error(DiagId::ExpectedDeclaration, Cur().Range(), Describe(Cur()));
    return;
  }
  std::string_view kw = Cur().text;
  if (kw == "static_assert" && Peek(1).Is(TokenKind::LParen) && context != DeclContext::Interface) {
    // `static_assert(cond, "message");` outside functions: a hidden `static const bool`
    // whose initializer is the check (sema evaluates it where it is declared).
    source::SourceLoc begin = Cur().loc;
    ast::Expr* check = ParseExpr();
    Expect(TokenKind::Semicolon);
    if (check == nullptr) return;
    std::string name = "$static_assert." + std::to_string(begin.file) + "." +
                       std::to_string(begin.offset);
    auto* var = ctx_.New<ast::VarDecl>(ast::VarRole::Global, name, From(begin));
    var->type_expr = ctx_.New<ast::TypeExpr>();
    var->type_expr->name = "bool";
    var->type_expr->range = check->range;
    var->init = check;
    var->is_static = true;
    var->is_const = true;
    mods |= ast::kModStatic | ast::kModConst;
    return finish(var);
  }
  if ((kw == "__ignored_block" || kw == "__transparent_block" || kw == "__file_decl") &&
      Peek(1).Is(TokenKind::LBrace)) {
    return ParseScopingBlock(out, context, !attrs.empty() || mods != 0 || !generics.empty());
  }
  if (kw == "struct" || kw == "class") return finish(ParseAggregate(ast::DeclKind::Struct, generics));
  if (kw == "interface") return finish(ParseAggregate(ast::DeclKind::Interface, generics));
  if (kw == "extension") return finish(ParseExtension(generics));
  if (kw == "enum") return finish(ParseEnum());
  if (kw == "typealias") return finish(ParseTypeAlias());
  if (kw == "typedef") return finish(ParseTypedef());
  if (kw == "namespace") return finish(ParseNamespace());
  if (kw == "import" || kw == "__import") return finish(ParseImport(ast::ImportDecl::Form::Import));
  if (kw == "__exported" && Peek(1).Is(TokenKind::Identifier) &&
      (Peek(1).text == "import" || Peek(1).text == "__import")) {
    // `__exported import m;`: every module's declarations reach every importer already.
    Advance();
    return finish(ParseImport(ast::ImportDecl::Form::Import));
  }
  if (kw == "__include") return finish(ParseImport(ast::ImportDecl::Form::Include));
  if (context == DeclContext::TopLevel && (kw == "module" || kw == "implementing") &&
      (Peek(1).Is(TokenKind::Identifier) || Peek(1).Is(TokenKind::StringLiteral)) &&
      (Peek(2).Is(TokenKind::Semicolon) || Peek(2).Is(TokenKind::Dot))) {
    return finish(ParseImport(kw == "module" ? ast::ImportDecl::Form::Module
                                             : ast::ImportDecl::Form::Implementing));
  }
  if (kw == "using") return finish(ParseUsing());
  if (kw == "associatedtype") return finish(ParseAssociatedType());
  if (kw == "cbuffer") return finish(ParseBufferBlock());
  if (kw == "property") return finish(ParseProperty());
  if (kw == "__subscript") return finish(ParseSubscript());
  if (kw == "__init") {
    ast::FuncDecl* init = ParseInit();
    if (init != nullptr) init->generic_params = std::move(generics);
    return finish(init);
  }

  ast::TypeExpr* type = ParseType();
  if (type == nullptr) return;
  if (AtIdent("operator")) {
    // `T operator+(T a, T b)`: the operator's spelling is the function's name.
    source::SourceLoc begin = Advance().loc;
    if (At(TokenKind::Identifier) || At(TokenKind::EndOfFile) || At(TokenKind::Semicolon)) {
      Error(DiagId::ExpectedToken, Cur().Range(), "an operator", Describe(Cur()));
      return;
    }
    std::string op(Advance().text);
    if (op == "(" || op == "[") {
      // operator() and operator[]
      if (!Expect(op == "(" ? TokenKind::RParen : TokenKind::RBracket)) return;
      op += op == "(" ? ")" : "]";
    }
    auto* func = ctx_.New<ast::FuncDecl>("operator" + op, From(begin));
    // A member `operator()` is an ordinary method named "operator()": interfaces require
    // it (IFunc) and `f(x)` on a value calls it; elsewhere it stays an operator, which
    // sema reports as not overloadable.
    bool member_call = op == "()" && context != DeclContext::TopLevel &&
                       context != DeclContext::Namespace;
    func->func_kind = member_call ? ast::FuncKind::Plain : ast::FuncKind::Operator;
    func->return_type = type;
    func->generic_params = std::move(generics);
    return finish(ParseFunctionRest(func));
  }
  if (!At(TokenKind::Identifier)) {
    Error(DiagId::ExpectedToken, Cur().Range(), "a name", Describe(Cur()));
    return;
  }
  const Token& name = Advance();
  if (At(TokenKind::Less) || At(TokenKind::LParen)) {
    std::string func_name(name.text);
    // A member `__call` (the spelling of IFunc's requirement in Slang's proposal) is the
    // member `operator()`.
    if (func_name == "__call" && context != DeclContext::TopLevel &&
        context != DeclContext::Namespace) {
      func_name = "operator()";
    }
    auto* func = ctx_.New<ast::FuncDecl>(func_name, name.Range());
    func->return_type = type;
    func->generic_params = std::move(generics);
    if (At(TokenKind::Less)) {
      std::vector<ast::GenericParamDecl*> more = ParseGenericParams();
      func->generic_params.insert(func->generic_params.end(), more.begin(), more.end());
      if (panic_) return;
    }
    return finish(ParseFunctionRest(func));
  }
  ast::VarRole role = context == DeclContext::TopLevel || context == DeclContext::Namespace
                          ? ast::VarRole::Global
                          : ast::VarRole::Field;
  ParseVarDeclsRest(out, type, name, attrs, mods, role);
  Expect(TokenKind::Semicolon);
}

void Parser::ParseArraySuffix(ast::TypeExpr*& type) {
  if (!At(TokenKind::LBracket)) return;
  // `float a[4][2]`: the dimensions belong to this variable's type only.
  auto* copy = ctx_.New<ast::TypeExpr>(*type);
  while (At(TokenKind::LBracket)) {
    Advance();
    copy->array_dims.push_back(At(TokenKind::RBracket) ? nullptr : ParseAssignment());
    if (!Expect(TokenKind::RBracket)) break;
  }
  copy->range = From(type->range.begin);
  type = copy;
}

void Parser::ParseVarDeclsRest(std::vector<ast::Decl*>& out, ast::TypeExpr* type,
                               const Token& first_name, const std::vector<ast::Attribute>& attrs,
                               uint32_t modifiers, ast::VarRole role) {
  const Token* name = &first_name;
  while (true) {
    auto* var = ctx_.New<ast::VarDecl>(role, std::string(name->text), name->Range());
    var->type_expr = type;
    ParseArraySuffix(var->type_expr);
    var->attributes = attrs;
    var->modifiers = modifiers;
    var->is_static = (modifiers & ast::kModStatic) != 0;
    var->is_const = (modifiers & ast::kModConst) != 0;
    var->is_uniform = (modifiers & ast::kModUniform) != 0;
    if (At(TokenKind::Colon) && role == ast::VarRole::Field && Peek(1).Is(TokenKind::IntLiteral)) {
      Advance();  // `uint a : 4;`: a bit field (DesugarBitFields)
      const Token& width = Advance();
      var->bit_width = static_cast<int32_t>(std::min<uint64_t>(width.int_value, 1u << 20));
      var->semantic_range = width.Range();
    } else if (At(TokenKind::Colon)) {
      ParseSemantic(var);
    }
    if (Consume(TokenKind::Equal)) {
      var->init = At(TokenKind::LBrace) ? ParseInitList() : ParseAssignment();
    }
    out.push_back(var);
    if (!Consume(TokenKind::Comma)) return;
    if (!At(TokenKind::Identifier)) {
      Error(DiagId::ExpectedToken, Cur().Range(), "a name", Describe(Cur()));
      return;
    }
    name = &Advance();
  }
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
  if (var->semantic == "register" || var->semantic == "packoffset") {
    // register(u0, space1): kept as written in `semantic_args`.
    if (!Expect(TokenKind::LParen)) return;
    while (!At(TokenKind::RParen) && !At(TokenKind::EndOfFile) && !At(TokenKind::Semicolon)) {
      if (Consume(TokenKind::Comma)) continue;
      var->semantic_args.push_back(std::string(Advance().text));
    }
    Expect(TokenKind::RParen);
    var->semantic_range = From(sem.loc);
  }
}

bool Parser::ParseParams(std::vector<ast::VarDecl*>& params) {
  if (!Expect(TokenKind::LParen)) return false;
  if (!At(TokenKind::RParen)) {
    do {
      if (At(TokenKind::RParen)) break;  // a trailing comma
      ast::VarDecl* param = ParseParam();
      if (param == nullptr) return false;
      params.push_back(param);
    } while (Consume(TokenKind::Comma));
  }
  return Expect(TokenKind::RParen);
}

ast::FuncDecl* Parser::ParseFunctionRest(ast::FuncDecl* func) {
  if (!ParseParams(func->params)) return func;
  if (AtIdent("throws") && Peek(1).Is(TokenKind::Identifier)) {
    // `int f() throws MyError`: the error type its `throw`s and uncaught `try`s carry.
    Advance();
    func->throws_type_expr = ParseType();
  }
  if (At(TokenKind::Colon)) {
    // A return semantic (`: SV_Target`): kept for graphics stages.
    Advance();
    if (At(TokenKind::Identifier)) func->return_semantic = std::string(Advance().text);
  }
  ParseWhereClauses(func->where_clauses);
  if (Consume(TokenKind::Semicolon)) return func;
  if (!At(TokenKind::LBrace)) {
    Error(DiagId::ExpectedToken, Cur().Range(), "'{' or ';'", Describe(Cur()));
    return func;
  }
  if (++functions_ > kMaxFunctions) {
    Error(DiagId::TooManyFunctions, func->name_range, kMaxFunctions);
    pos_ = tokens_.size() - 1;  // the end of the file: nothing after it is read
    has_split_ = false;
    return func;
  }
  if (options_.deferred_bodies != nullptr) {
    // Left for ParseDeferredBody: an empty block over the braces.
    source::SourceLoc begin = Cur().loc;
    size_t at = pos_;
    func->body = ctx_.New<ast::BlockStmt>(Cur().Range());
    SkipBraced();
    func->body->range = From(begin);
    (*options_.deferred_bodies)[func->body] = at;
    return func;
  }
  func->body = ParseBlock();
  return func;
}

ast::VarDecl* Parser::ParseParam() {
  std::vector<ast::Attribute> attrs = ParseAttributes();
  uint32_t mods = ParseModifiers();
  ast::TypeExpr* type = ParseType();
  if (type == nullptr) return nullptr;
  ast::VarDecl* param = nullptr;
  if (At(TokenKind::Comma) || At(TokenKind::RParen)) {
    // An unnamed parameter (`float f(float, int n);`): declared, never read.
    param = ctx_.New<ast::VarDecl>(ast::VarRole::Param, std::string(), type->range);
  } else {
    const Token* name_ptr = ExpectName("a parameter name");
    if (name_ptr == nullptr) return nullptr;
    param = ctx_.New<ast::VarDecl>(ast::VarRole::Param, std::string(name_ptr->text),
                                   name_ptr->Range());
  }
  param->type_expr = type;
  ParseArraySuffix(param->type_expr);
  param->attributes = std::move(attrs);
  param->modifiers = mods;
  // `in out T x` (two keywords, as HLSL allows) is `inout`.
  bool in_and_out = (mods & ast::kModIn) != 0 && (mods & ast::kModOut) != 0;
  param->direction = (mods & ast::kModInOut) != 0 || in_and_out ? ast::ParamDirection::InOut
                     : (mods & ast::kModOut) != 0               ? ast::ParamDirection::Out
                                                                : ast::ParamDirection::In;
  param->is_uniform = (mods & ast::kModUniform) != 0;
  param->is_const = (mods & ast::kModConst) != 0;
  if (At(TokenKind::Colon)) ParseSemantic(param);
  if (Consume(TokenKind::Equal)) param->init = ParseAssignment();
  return param;
}

bool Parser::ParseMembers(std::vector<ast::Decl*>& members, DeclContext context) {
  if (!Expect(TokenKind::LBrace)) return false;
  while (!At(TokenKind::RBrace) && !At(TokenKind::EndOfFile) && !diags_.LimitReached()) {
    size_t before = pos_;
    DepthGuard guard(*this);
    if (!guard.Ok()) return false;
    ParseDeclInto(members, context);
    if (panic_) SyncToDeclarationEnd();
    if (pos_ == before) Advance();
  }
  return Expect(TokenKind::RBrace);
}

void Parser::ParseScopingBlock(std::vector<ast::Decl*>& out, DeclContext context, bool decorated) {
  const Token& keyword = Advance();
  if (decorated) diags_.Report(DiagId::ScopingBlockModifiers, keyword.Range(), keyword.text);
  if (keyword.text == "__ignored_block") {
    // Skipped unread, like a comment; its braces must balance.
    int depth = 0;
    do {
      if (At(TokenKind::LBrace)) ++depth;
      if (At(TokenKind::RBrace)) --depth;
      Advance();
    } while (depth > 0 && !At(TokenKind::EndOfFile));
    if (depth > 0) Error(DiagId::ExpectedToken, Cur().Range(), "'}'", Describe(Cur()));
    return;
  }
  if (keyword.text == "__transparent_block") {
    ParseMembers(out, context);
    return;
  }
  if (context != DeclContext::TopLevel || file_block_ != 0) {
    const char* where = file_block_ != 0                    ? "another '__file_decl'"
                        : context == DeclContext::Namespace ? "a namespace"
                                                            : "a type";
    diags_.Report(DiagId::FileDeclNotAtFileScope, keyword.Range(), where);
    SkipBraced();
    return;
  }
  file_block_ = keyword.loc.offset + 1;
  ParseMembers(out, context);
  file_block_ = 0;
}

ast::Decl* Parser::ParseAggregate(ast::DeclKind kind, std::vector<ast::GenericParamDecl*> generics) {
  Advance();  // struct / class / interface
  const Token* name_ptr = ExpectName("a name");
  if (name_ptr == nullptr) return nullptr;
  const Token& name = *name_ptr;
  auto* decl = ctx_.New<ast::AggregateDecl>(kind, std::string(name.text), name.Range());
  decl->generic_params = std::move(generics);
  if (At(TokenKind::Less)) {
    std::vector<ast::GenericParamDecl*> more = ParseGenericParams();
    decl->generic_params.insert(decl->generic_params.end(), more.begin(), more.end());
  }
  if (Consume(TokenKind::Colon)) {
    do {
      ast::TypeExpr* base = ParseType();
      if (base == nullptr) return decl;
      decl->bases.push_back(base);
    } while (Consume(TokenKind::Comma));
  }
  ParseWhereClauses(decl->where_clauses);
  if (kind == ast::DeclKind::Struct && Consume(TokenKind::Equal)) {
    // `export struct X : IFoo = Y;`: a link-time type, X standing for Y.
    auto* alias = ctx_.New<ast::TypeAliasDecl>(decl->name, decl->name_range);
    alias->generic_params = std::move(decl->generic_params);
    alias->conformances = std::move(decl->bases);
    alias->target = ParseType();
    Expect(TokenKind::Semicolon);
    return alias;
  }
  if (Consume(TokenKind::Semicolon)) return decl;  // forward declaration
  ParseMembers(decl->members, kind == ast::DeclKind::Interface ? DeclContext::Interface
                                                               : DeclContext::Struct);
  Consume(TokenKind::Semicolon);
  DesugarBitFields(decl);
  return decl;
}

ast::Decl* Parser::ParseExtension(std::vector<ast::GenericParamDecl*> generics) {
  source::SourceLoc begin = Advance().loc;  // extension
  if (At(TokenKind::Less)) {
    std::vector<ast::GenericParamDecl*> more = ParseGenericParams();
    generics.insert(generics.end(), more.begin(), more.end());
  }
  ast::TypeExpr* target = ParseType();
  if (target == nullptr) return nullptr;
  auto* decl = ctx_.New<ast::AggregateDecl>(ast::DeclKind::Extension, target->name, From(begin));
  decl->generic_params = std::move(generics);
  decl->target = target;
  if (Consume(TokenKind::Colon)) {
    do {
      ast::TypeExpr* base = ParseType();
      if (base == nullptr) return decl;
      decl->bases.push_back(base);
    } while (Consume(TokenKind::Comma));
  }
  ParseWhereClauses(decl->where_clauses);
  ParseMembers(decl->members, DeclContext::Extension);
  Consume(TokenKind::Semicolon);
  return decl;
}

ast::Decl* Parser::ParseEnum() {
  Advance();  // enum
  bool is_class = ConsumeIdent("class") || ConsumeIdent("struct");
  const Token* name_ptr = ExpectName("a name");
  if (name_ptr == nullptr) return nullptr;
  const Token& name = *name_ptr;
  auto* decl = ctx_.New<ast::EnumDecl>(std::string(name.text), name.Range());
  decl->is_class = is_class;
  if (Consume(TokenKind::Colon)) decl->underlying = ParseType();
  if (!Expect(TokenKind::LBrace)) return decl;
  while (!At(TokenKind::RBrace) && !At(TokenKind::EndOfFile)) {
    if (!At(TokenKind::Identifier)) {
      Error(DiagId::ExpectedToken, Cur().Range(), "an enumerator name", Describe(Cur()));
      return decl;
    }
    const Token& case_name = Advance();
    auto* c = ctx_.New<ast::EnumCaseDecl>(std::string(case_name.text), case_name.Range());
    if (Consume(TokenKind::Equal)) c->value = ParseAssignment();
    decl->cases.push_back(c);
    if (!Consume(TokenKind::Comma)) break;
  }
  Expect(TokenKind::RBrace);
  Consume(TokenKind::Semicolon);
  return decl;
}

ast::Decl* Parser::ParseTypeAlias() {
  Advance();  // typealias
  const Token* name_ptr = ExpectName("a name");
  if (name_ptr == nullptr) return nullptr;
  const Token& name = *name_ptr;
  auto* decl = ctx_.New<ast::TypeAliasDecl>(std::string(name.text), name.Range());
  if (At(TokenKind::Less)) decl->generic_params = ParseGenericParams();
  if (!Expect(TokenKind::Equal)) return decl;
  decl->target = ParseType();
  Expect(TokenKind::Semicolon);
  return decl;
}

ast::Decl* Parser::ParseTypedef() {
  Advance();  // typedef
  ast::TypeExpr* target = ParseType();
  if (target == nullptr) return nullptr;
  const Token* name_ptr = ExpectName("a name");
  if (name_ptr == nullptr) return nullptr;
  const Token& name = *name_ptr;
  auto* decl = ctx_.New<ast::TypeAliasDecl>(std::string(name.text), name.Range());
  decl->target = target;
  ParseArraySuffix(decl->target);
  Expect(TokenKind::Semicolon);
  return decl;
}

ast::Decl* Parser::ParseNamespace() {
  Advance();  // namespace
  if (!At(TokenKind::Identifier)) {
    Error(DiagId::ExpectedToken, Cur().Range(), "a name", Describe(Cur()));
    return nullptr;
  }
  // `namespace a.b { ... }` (or `a::b`) is `namespace a { namespace b { ... } }`.
  source::SourceLoc begin = Cur().loc;
  auto* outer = ctx_.New<ast::AggregateDecl>(ast::DeclKind::Namespace, std::string(Cur().text),
                                             Cur().Range());
  Advance();
  ast::AggregateDecl* decl = outer;
  while ((At(TokenKind::Dot) || At(TokenKind::ColonColon)) && Peek(1).Is(TokenKind::Identifier)) {
    Advance();
    auto* inner = ctx_.New<ast::AggregateDecl>(ast::DeclKind::Namespace, std::string(Cur().text),
                                               Cur().Range());
    Advance();
    decl->members.push_back(inner);
    decl = inner;
  }
  if (decl == outer) outer->name_range = From(begin);
  ParseMembers(decl->members, DeclContext::Namespace);
  return outer;
}

ast::Decl* Parser::ParseImport(ast::ImportDecl::Form form) {
  Advance();  // import, __include, module, implementing
  if (!At(TokenKind::Identifier) && !At(TokenKind::StringLiteral)) {
    Error(DiagId::ExpectedToken, Cur().Range(), "a module name", Describe(Cur()));
    return nullptr;
  }
  source::SourceLoc begin = Cur().loc;
  std::string name(Advance().text);
  while (At(TokenKind::Dot) && Peek(1).Is(TokenKind::Identifier)) {
    Advance();
    name += "." + std::string(Advance().text);
  }
  auto* decl = ctx_.New<ast::ImportDecl>(name, From(begin));
  decl->form = form;
  Expect(TokenKind::Semicolon);
  return decl;
}

ast::Decl* Parser::ParseUsing() {
  Advance();  // using
  if (AtIdent("namespace")) Advance();
  if (!At(TokenKind::Identifier)) {
    Error(DiagId::ExpectedToken, Cur().Range(), "a namespace name", Describe(Cur()));
    return nullptr;
  }
  source::SourceLoc begin = Cur().loc;
  std::string name(Advance().text);
  while ((At(TokenKind::Dot) || At(TokenKind::ColonColon)) && Peek(1).Is(TokenKind::Identifier)) {
    Advance();
    name += "::" + std::string(Advance().text);
  }
  auto* decl = ctx_.New<ast::UsingDecl>(name, From(begin));
  Expect(TokenKind::Semicolon);
  return decl;
}

ast::Decl* Parser::ParseAssociatedType() {
  Advance();  // associatedtype
  const Token* name_ptr = ExpectName("a name");
  if (name_ptr == nullptr) return nullptr;
  const Token& name = *name_ptr;
  auto* decl = ctx_.New<ast::AssociatedTypeDecl>(std::string(name.text), name.Range());
  if (Consume(TokenKind::Colon)) {
    do {
      ast::TypeExpr* c = ParseType();
      if (c == nullptr) return decl;
      decl->constraints.push_back(c);
    } while (Consume(TokenKind::Comma) || Consume(TokenKind::Amp));
  }
  ParseWhereClauses(decl->where_clauses);
  Expect(TokenKind::Semicolon);
  return decl;
}

ast::Decl* Parser::ParseBufferBlock() {
  Advance();  // cbuffer
  const Token* name_ptr = ExpectName("a name");
  if (name_ptr == nullptr) return nullptr;
  const Token& name = *name_ptr;
  auto* decl = ctx_.New<ast::AggregateDecl>(ast::DeclKind::BufferBlock, std::string(name.text),
                                            name.Range());
  if (At(TokenKind::Colon)) {
    // `: register(b0)`: parsed into a throwaway variable's semantic.
    ast::VarDecl scratch(ast::VarRole::Global, "", name.Range());
    ParseSemantic(&scratch);
    decl->register_args = scratch.semantic_args;
  }
  ParseMembers(decl->members, DeclContext::Struct);
  Consume(TokenKind::Semicolon);
  DesugarBitFields(decl);  // reports any: a cbuffer's members are not a struct's fields
  return decl;
}

void Parser::ParseAccessors(std::vector<ast::FuncDecl*>& out) {
  if (!Expect(TokenKind::LBrace)) return;
  while (!At(TokenKind::RBrace) && !At(TokenKind::EndOfFile)) {
    std::vector<ast::Attribute> attrs = ParseAttributes();
    if (!AtIdent("get") && !AtIdent("set") && !AtIdent("ref")) {
      Error(DiagId::ExpectedToken, Cur().Range(), "'get', 'set' or 'ref'", Describe(Cur()));
      return;
    }
    const Token& kw = Advance();
    auto* acc = ctx_.New<ast::FuncDecl>(std::string(kw.text), kw.Range());
    acc->func_kind = kw.text == "set" ? ast::FuncKind::Setter : ast::FuncKind::Getter;
    acc->attributes = std::move(attrs);
    if (At(TokenKind::LParen)) ParseParams(acc->params);
    if (At(TokenKind::LBrace)) {
      acc->body = ParseBlock();
    } else {
      Expect(TokenKind::Semicolon);
    }
    out.push_back(acc);
    if (panic_) return;
  }
  Expect(TokenKind::RBrace);
}

ast::Decl* Parser::ParseProperty() {
  Advance();  // property
  ast::TypeExpr* type = nullptr;
  // `property float x` or `property x : float`
  if (!(At(TokenKind::Identifier) && Peek(1).Is(TokenKind::Colon))) {
    type = ParseType();
    if (type == nullptr) return nullptr;
  }
  const Token* name_ptr = ExpectName("a property name");
  if (name_ptr == nullptr) return nullptr;
  const Token& name = *name_ptr;
  auto* decl = ctx_.New<ast::PropertyDecl>(std::string(name.text), name.Range());
  if (type == nullptr) {
    if (!Expect(TokenKind::Colon)) return decl;
    type = ParseType();
  }
  decl->type = type;
  if (Consume(TokenKind::Semicolon)) return decl;
  ParseAccessors(decl->accessors);
  return decl;
}

ast::Decl* Parser::ParseSubscript() {
  const Token& kw = Advance();  // __subscript
  auto* decl = ctx_.New<ast::SubscriptDecl>(kw.Range());
  if (!ParseParams(decl->params)) return decl;
  if (!Expect(TokenKind::Arrow)) return decl;
  decl->result = ParseType();
  if (decl->result == nullptr || Consume(TokenKind::Semicolon)) return decl;
  if (At(TokenKind::LBrace) && (Peek(1).IsIdent("get") || Peek(1).IsIdent("set") ||
                                Peek(1).IsIdent("ref") || Peek(1).Is(TokenKind::LBracket) ||
                                Peek(1).Is(TokenKind::RBrace))) {
    ParseAccessors(decl->accessors);
  } else {
    // A body without accessors is the getter.
    auto* get = ctx_.New<ast::FuncDecl>("get", kw.Range());
    get->func_kind = ast::FuncKind::Getter;
    get->body = ParseBlock();
    decl->accessors.push_back(get);
  }
  return decl;
}

ast::FuncDecl* Parser::ParseInit() {
  const Token& kw = Advance();  // __init
  auto* func = ctx_.New<ast::FuncDecl>("__init", kw.Range());
  func->func_kind = ast::FuncKind::Init;
  return ParseFunctionRest(func);
}

}  // namespace slope::parse
