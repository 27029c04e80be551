#pragma once
// The Parser class: private to parse/. Token handling and recovery are in parser.cpp,
// declarations in parse_decl.cpp, types and generics in parse_type.cpp, statements in
// parse_stmt.cpp, expressions in parse_expr.cpp.

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "compiler/ast/ast.h"
#include "compiler/diag/diag.h"
#include "compiler/parse/parser.h"
#include "compiler/preprocess/lexer.h"

namespace slope::parse {

/// Moves types declared inside structs out beside them (parse/hoist_nested.cpp).
void HoistNestedTypes(ast::AstContext& ctx, ast::Module& module);
/// Reads `static const` members through static methods (parse/static_consts.cpp).
void RewriteStaticConstRequirements(ast::AstContext& ctx, ast::Module& module);


using preprocess::Token;
using preprocess::TokenKind;

/// Where a declaration appears: decides which declaration forms are allowed.
enum class DeclContext : uint8_t { TopLevel, Struct, Interface, Extension, Namespace };

class Parser {
 public:
  Parser(const std::vector<Token>& tokens, ast::AstContext& ctx, diag::DiagEngine& diags,
         const ParseOptions& options)
      : tokens_(tokens), ctx_(ctx), diags_(diags), options_(options) {}

  ast::Module* ParseModule();
  /// Parses the block whose '{' is at `at` (ParseDeferredBody).
  ast::BlockStmt* ParseBlockAt(size_t at) {
    pos_ = at;
    return ParseBlock();
  }

 private:
  // ---- parser.cpp: tokens, errors, recovery, attributes, modifiers.
  /// The current token: the second half of a split '>>' when one is pending.
  const Token& Cur() const { return has_split_ ? split_ : tokens_[pos_]; }
  const Token& Peek(size_t ahead) const {
    if (has_split_) {
      if (ahead == 0) return split_;
      --ahead;
    }
    size_t i = pos_ + ahead;
    return i < tokens_.size() ? tokens_[i] : tokens_.back();
  }
  bool At(TokenKind kind) const { return Cur().kind == kind; }
  bool AtIdent(std::string_view s) const { return Cur().IsIdent(s); }
  /// At a keyword that Slang keeps for its own core library (`__magic_type`,
  /// `__intrinsic_asm`, `__target_intrinsic`, ...): reports that it is internal (E2012).
  bool RejectInternalKeyword();
  const Token& Advance();
  bool Consume(TokenKind kind);
  bool ConsumeIdent(std::string_view s);
  /// Consumes a token of `kind` or reports what was expected.
  bool Expect(TokenKind kind);
  /// Consumes a '>' closing generic arguments, splitting a '>>' token when needed.
  bool ExpectClosingAngle();
  std::string Describe(const Token& t) const;
  source::SourceLoc PrevEnd() const;
  source::SourceRange From(source::SourceLoc begin) const { return {begin, PrevEnd()}; }

  template <typename... Args>
  void Error(diag::DiagId id, source::SourceRange range, const Args&... args) {
    if (panic_) return;
    diags_.Report(id, range, args...);
    panic_ = true;
  }
  void SyncToStatementEnd();
  /// Reports (once per module) a chain of more than kMaxBranchChain branches.
  void ReportBranchChain();
  void SyncToDeclarationEnd();

  /// Counts nesting; false (after one diagnostic) when the limit is passed.
  class DepthGuard {
   public:
    explicit DepthGuard(Parser& p) : p_(p) { ++p_.depth_; }
    ~DepthGuard() { --p_.depth_; }
    DepthGuard(const DepthGuard&) = delete;
    DepthGuard& operator=(const DepthGuard&) = delete;
    bool Ok();

   private:
    Parser& p_;
  };

  std::vector<ast::Attribute> ParseAttributes();
  bool ParseAttribute(std::vector<ast::Attribute>& out);
  /// True when the current identifier is a declaration modifier keyword.
  bool AtModifier() const;
  uint32_t ParseModifiers();

  // ---- parse_decl.cpp
  /// Consumes an identifier, or reports "expected <what>" and returns null.
  const Token* ExpectName(const char* what);
  void ParseDeclInto(std::vector<ast::Decl*>& out, DeclContext context);
  ast::Decl* ParseAggregate(ast::DeclKind kind, std::vector<ast::GenericParamDecl*> generics);
  /// `uint a : 4; uint b : 12;` in a struct: hidden fields of the declared type hold
  /// consecutive bit fields (a new one when the type changes or the bits run out), and
  /// each bit field becomes a property that shifts and masks (bit_fields.cpp).
  void DesugarBitFields(ast::AggregateDecl* decl);
  ast::PropertyDecl* BitFieldProperty(ast::VarDecl* field, const std::string& backing,
                                      uint32_t offset, uint32_t bits, bool is_signed);
  ast::Decl* ParseExtension(std::vector<ast::GenericParamDecl*> generics);
  ast::Decl* ParseEnum();
  ast::Decl* ParseTypeAlias();
  ast::Decl* ParseTypedef();
  ast::Decl* ParseNamespace();
  ast::Decl* ParseImport(ast::ImportDecl::Form form);
  ast::Decl* ParseUsing();
  ast::Decl* ParseAssociatedType();
  ast::Decl* ParseBufferBlock();
  ast::Decl* ParseProperty();
  ast::Decl* ParseSubscript();
  ast::FuncDecl* ParseInit();
  void ParseAccessors(std::vector<ast::FuncDecl*>& out);
  bool ParseMembers(std::vector<ast::Decl*>& members, DeclContext context);
  ast::FuncDecl* ParseFunctionRest(ast::FuncDecl* func);
  bool ParseParams(std::vector<ast::VarDecl*>& params);
  ast::VarDecl* ParseParam();
  void ParseSemantic(ast::VarDecl* var);
  void ParseVarDeclsRest(std::vector<ast::Decl*>& out, ast::TypeExpr* type, const Token& first_name,
                         const std::vector<ast::Attribute>& attrs, uint32_t modifiers,
                         ast::VarRole role);
  void ParseArraySuffix(ast::TypeExpr*& type);

  // ---- parse_type.cpp
  ast::TypeExpr* ParseType();
  std::vector<ast::GenericParamDecl*> ParseGenericParams();
  /// `IA & IB & ...` after a ':' of a constraint: the first into `first`, the rest
  /// appended to `more`.
  void ParseConstraintList(ast::TypeExpr*& first, std::vector<ast::TypeExpr*>& more);
  /// Any `where T : IA & IB, U : IC where ...` clauses at the cursor.
  void ParseWhereClauses(std::vector<ast::WhereClause>& out);
  bool ParseGenericArgs(std::vector<ast::TypeExpr*>& types, std::vector<ast::Expr*>* values);
  /// Scans (without consuming or reporting) a type starting at token `at`; returns the
  /// index just past it, or 0 when no type starts there.
  size_t ScanType(size_t at) const;
  /// Scans generic arguments `<...>` starting at token `at` (a '<'); index past the
  /// closing '>', or 0.
  size_t ScanGenericArgs(size_t at) const;
  /// True when the tokens here start a variable declaration (`Type name`).
  bool LooksLikeTypedDecl() const;

  // ---- parse_stmt.cpp
  ast::Stmt* ParseStmt();
  ast::BlockStmt* ParseBlock();
  ast::Stmt* ParseVarDeclStmt(bool keyword_form);
  ast::Stmt* ParseIf();
  ast::Stmt* ParseFor();
  ast::Stmt* ParseWhile();
  ast::Stmt* ParseDoWhile();
  ast::Stmt* ParseSwitch();

  // ---- parse_expr.cpp
  ast::Expr* ParseExpr();
  ast::Expr* ParseAssignment();
  ast::Expr* ParseConditional();
  ast::Expr* ParseBinary(int min_prec);
  ast::Expr* ParseUnary();
  /// At '(' before a name: true when the parentheses hold a type and make a cast.
  bool LooksLikeCast() const;
  /// At `sizeof(` or `alignof(`: whether the parentheses hold a type no expression
  /// could be (a built-in type name, generic arguments, a pointer).
  bool LooksLikeSizeOfType() const;
  ast::Expr* ParsePostfix(ast::Expr* base);
  ast::Expr* ParsePrimary();
  /// `(T a, U b) => expr` or `(T a) => { ... }`, at its `(` (AtLambda holds).
  ast::Expr* ParseLambda();
  /// The operand of `fwd_diff(...)` / `bwd_diff(...)`: an expression, or a generic
  /// function's name with its arguments (`f<float3>`).
  ast::Expr* ParseDiffOperand();
  ast::Expr* ParseInitList();
  ast::Expr* ParseCallArgs(ast::Expr* callee, source::SourceLoc begin);
  ast::Expr* ErrorExpr(source::SourceRange range);
  /// Sets `node`'s height from its operands'; past kMaxExprHeight reports (once per
  /// statement) at `where` and returns an error expression, a leaf, in its place.
  ast::Expr* Grow(ast::Expr* node, std::initializer_list<const ast::Expr*> operands,
                  source::SourceRange where);
  /// Sets `node`'s height to one above `below`, with Grow's limit.
  ast::Expr* SetHeight(ast::Expr* node, uint32_t below, source::SourceRange where);

  // Constructs rejected by name (parse_unsupported.cpp).
  /// Reports "WHAT are not supported yet" without entering panic mode.
  void Unsupported(source::SourceRange range, const std::string& what);
  /// At '{': skips past its matching '}'.
  void SkipBraced();
  /// At `__ignored_block`, `__transparent_block` or `__file_decl` before '{': skips the
  /// first; the members of the others go to `out` as if written in place, those of a
  /// `__file_decl` marked with its block (`ast::Decl::file_block`).
  void ParseScopingBlock(std::vector<ast::Decl*>& out, DeclContext context, bool decorated);
  /// `__target_switch { case spirv: ... default: ... }`: the statements of the case the
  /// compile's target takes, as a block; the other cases are skipped unread, as `#if`
  /// skips (they may use another target's constructs).
  ast::Stmt* ParseTargetSwitch();
  /// Skips the statements of one `__target_switch` case: to the next `case`/`default`
  /// label or the closing '}' at this level.
  void SkipTargetCase();
  /// At '(': whether its matching ')' comes before any ';', '{' or the end, followed by
  /// `=>`. Linear over a whole parse: the matches are found once (`paren_close_`).
  bool AtLambda() const;
  /// `spirv_asm { ... }` or a lambda: the expression; else null.
  ast::Expr* ParseUnsupportedPrimary();

  // ---- parse_spirv_asm.cpp
  /// `spirv_asm { ... }`, at `spirv_asm`.
  ast::Expr* ParseSpirvAsm();
  /// One instruction of a spirv_asm block; false after a diagnostic.
  bool ParseSpirvAsmInst(ast::SpirvAsmInst* inst);
  /// One operand of a spirv_asm instruction; false after a diagnostic.
  bool ParseSpirvAsmOperand(ast::SpirvAsmOperand* op);
  /// At `each T` / `expand T`: reports it, consumes the keyword and returns true.

  const std::vector<Token>& tokens_;
  // `A<B<C>>`: the second half of a '>>' token whose first half closed a list.
  Token split_;
  bool has_split_ = false;
  ast::AstContext& ctx_;
  diag::DiagEngine& diags_;
  const ParseOptions& options_;
  size_t pos_ = 0;
  int depth_ = 0;
  int branch_depth_ = 0;  ///< `else if` and `?:` branches open around the current token
  bool branch_reported_ = false;
  bool depth_reported_ = false;
  bool panic_ = false;
  /// The function body being parsed: how deep its blocks are open now, how many
  /// statements it has so far (kMaxBodyStatements), and where it passed the limit.
  int block_depth_ = 0;
  size_t functions_ = 0;  ///< function definitions so far (kMaxFunctions)
  size_t body_stmts_ = 0;
  size_t body_loops_ = 0;  ///< loops of the body so far (kMaxBodyLoops)
  bool body_over_ = false;
  source::SourceRange body_over_at_;
  /// The limit the body passed: E0700 (statements) or E0704 (loops), and its value.
  diag::DiagId body_over_diag_ = diag::DiagId::BodyTooManyStatements;
  size_t body_over_limit_ = 0;
  /// Marks the body as past a limit at the current token (the first limit passed wins).
  void PassBodyLimit(diag::DiagId id, size_t limit);
  /// The `ast::Decl::file_block` of declarations parsed now (0 outside `__file_decl`).
  uint32_t file_block_ = 0;
  /// Labels of the loops enclosing the current statement (`outer: for ...`), innermost
  /// last, for `break outer;` and `continue outer;`.
  std::vector<std::string> loop_labels_;
  /// Parsing the operand of `fwd_diff`/`bwd_diff`: `obj.method<float>` may end at its ')'.
  bool in_diff_operand_ = false;
  /// For each '(' token, the index of its matching ')' when no ';', '{' or end of file
  /// comes first, else kNoClose; filled on the first AtLambda (one pass over the tokens,
  /// so nested parentheses are not each rescanned to their end).
  static constexpr uint32_t kNoClose = UINT32_MAX;
  mutable std::vector<uint32_t> paren_close_;
};

}  // namespace slope::parse
