#pragma once
// The abstract syntax tree. The parser builds it; semantic checking fills in the
// `type`, `decl` and conversion fields; lowering reads it. Nodes live in an AstContext
// arena and are referred to by plain pointers that stay valid as long as the context.

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <new>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "compiler/source/source_manager.h"

namespace slope::sema {
class Type;
}

namespace slope::ast {

using source::SourceLoc;
using source::SourceRange;

struct Expr;
struct Decl;
struct FuncDecl;
struct VarDecl;
struct BlockStmt;

/// An attribute: `[name(args)]` or `[[name(args)]]`; `name` may contain "::".
struct Attribute {
  std::string name;
  std::vector<Expr*> args;
  SourceRange range;
};

/// A type as written: `float`, `float3`, `vector<float, 3>`, `RWStructuredBuffer<uint>`,
/// `geo::Ray`, `float[4][2]`. A qualified name keeps its path joined with "::".
struct TypeExpr {
  std::string name;
  std::vector<Expr*> array_dims;     ///< `T[N][M]` outermost first; null entry for `T[]`
  std::vector<TypeExpr*> type_args;  ///< generic arguments that are types
  std::vector<Expr*> value_args;     ///< generic arguments that are values (vector<T, N>)
  uint32_t pointer_depth = 0;        ///< `T*` is 1, `T**` 2: pointers to the type named
  /// Variadic generics: `expand P` (kExpand: type_args[0] is the pattern P, which names
  /// type packs as `each T`) or `each T` (kEach: this names the pack T).
  enum PackForm : uint8_t { kNoPack, kExpand, kEach };
  PackForm pack = kNoPack;
  /// `some IFoo` (kSome) or `dyn IFoo` (kDyn), Slang 2025's spellings of an interface
  /// type used statically or dynamically: the interface type, which must be one.
  enum Existential : uint8_t { kPlain, kSome, kDyn };
  Existential existential = kPlain;
  SourceRange range;
  const sema::Type* resolved = nullptr;  ///< filled by sema
};

// ---------------------------------------------------------------------------------------
// Expressions

#define SLOPE_AST_EXPR_KINDS(X) \
  X(IntLiteral)                 \
  X(FloatLiteral)               \
  X(BoolLiteral)                \
  X(StringLiteral)              \
  X(Name)                       \
  X(Member)                     \
  X(Index)                      \
  X(Call)                       \
  X(Unary)                      \
  X(Binary)                     \
  X(Assign)                     \
  X(Conditional)                \
  X(Cast)                       \
  X(ImplicitCast)               \
  X(InitList)                   \
  X(Diff)                       \
  X(NoDiff)                     \
  X(TypeTest)                   \
  X(Lambda)                     \
  X(Pack)                       \
  X(SpirvAsm)

enum class ExprKind : uint8_t {
#define X(name) name,
  SLOPE_AST_EXPR_KINDS(X)
#undef X
};

/// Operators of unary, binary and compound-assignment expressions.
enum class OpKind : uint8_t {
  Add,
  Sub,
  Mul,
  Div,
  Rem,
  BitAnd,
  BitOr,
  BitXor,
  Shl,
  Shr,
  LogicalAnd,
  LogicalOr,
  Eq,
  Ne,
  Lt,
  Le,
  Gt,
  Ge,
  Neg,
  Plus,
  Not,
  BitNot,
  PreInc,
  PreDec,
  PostInc,
  PostDec,
  Deref,   ///< unary `*p`
  AddrOf,  ///< unary `&x`
  Assign,  ///< plain `=` in AssignExpr
  Comma,   ///< `a, b` (a BinaryExpr): `a` for its effects, then `b`'s value
};

/// The source spelling of an operator: "+", "&&", "++", ...
const char* OpSpelling(OpKind op);

struct Expr {
  ExprKind kind;
  SourceRange range;
  /// Height of the tree below and including this node (1 for a leaf), as the parser built
  /// it: bounded by parse::kMaxExprHeight so that every recursive walk is bounded too.
  uint32_t height = 1;
  const sema::Type* type = nullptr;  ///< filled by sema
  explicit Expr(ExprKind k, SourceRange r) : kind(k), range(r) {}
};

struct IntLiteralExpr : Expr {
  uint64_t value = 0;
  bool is_unsigned = false;
  uint32_t width = 32;  ///< 64 with an `l`/`ll` suffix
  bool is_nullptr = false;  ///< `nullptr` (sema: a pointer of the type it converts to)
  IntLiteralExpr(SourceRange r, uint64_t v, bool u)
      : Expr(ExprKind::IntLiteral, r), value(v), is_unsigned(u) {}
};

struct FloatLiteralExpr : Expr {
  double value = 0;
  uint32_t width = 32;  ///< 16 with an `h` suffix, 64 with `l` or `lf`
  FloatLiteralExpr(SourceRange r, double v) : Expr(ExprKind::FloatLiteral, r), value(v) {}
};

struct BoolLiteralExpr : Expr {
  bool value = false;
  BoolLiteralExpr(SourceRange r, bool v) : Expr(ExprKind::BoolLiteral, r), value(v) {}
};

/// A string literal; `value` has the quotes removed and escapes resolved.
struct StringLiteralExpr : Expr {
  std::string value;
  StringLiteralExpr(SourceRange r, std::string v) : Expr(ExprKind::StringLiteral, r), value(std::move(v)) {}
};

/// A reference to a variable, function or type by name, possibly with explicit generic
/// arguments (`twice<float>`).
struct NameExpr : Expr {
  std::string name;
  std::vector<TypeExpr*> generic_args;
  std::vector<Expr*> generic_values;  ///< value arguments: `vector<float, 3>`
  Decl* decl = nullptr;  ///< filled by sema
  NameExpr(SourceRange r, std::string n) : Expr(ExprKind::Name, r), name(std::move(n)) {}
};

/// `base.member`; for vectors sema turns it into a swizzle.
struct MemberExpr : Expr {
  Expr* base;
  std::string member;
  SourceRange member_range;
  bool is_static = false;                ///< written `T::member`
  std::vector<TypeExpr*> generic_args;   ///< `x.get<float>`
  std::vector<Expr*> generic_values;     ///< value arguments: `m.scaled<3>`
  std::vector<uint32_t> swizzle;  ///< filled by sema for vector swizzles
  int field_index = -1;           ///< sema: the struct field accessed, or -1
  MemberExpr(SourceRange r, Expr* b, std::string m, SourceRange mr)
      : Expr(ExprKind::Member, r), base(b), member(std::move(m)), member_range(mr) {}
};

struct IndexExpr : Expr {
  Expr* base;
  Expr* index;
  /// `a[i, j]`: the indices after the first (only a `__subscript` takes several).
  std::vector<Expr*> more_indices;
  IndexExpr(SourceRange r, Expr* b, Expr* i) : Expr(ExprKind::Index, r), base(b), index(i) {}
};

/// A call of a function, a built-in or a type constructor (`float3(x)`).
/// A method of a buffer that sema resolves itself (sema/check_resources.cpp).
enum class BufferMethod : uint8_t {
  None,
  Load,            ///< byte address: Load/Load2..4/Load<T>(offset)
  Store,           ///< byte address: Store/Store2..4/Store<T>(offset, value)
  Atomic,          ///< byte address: Interlocked*(offset, values..., [out original])
  ByteSize,        ///< byte address: GetDimensions(out uint bytes)
  CountAndStride,  ///< structured: GetDimensions(out uint count, out uint stride)
  Append,          ///< AppendStructuredBuffer: Append(value) at its counter, incremented
  Consume,         ///< ConsumeStructuredBuffer: Consume(), the value below its counter
  Texture,         ///< texture: Load/Sample*/Gather*; buffer_imm the ir::TextureOp,
                   ///< for Gather* the component in its bits 8..15, and kTextureNoLod
                   ///< for Sample (no level argument: level 0)
  TextureDims,     ///< texture: GetDimensions([mip,] out w[, h[, d/layers]][, out levels]);
                   ///< buffer_imm bit 0: a mip argument comes first, bit 1: levels last
};

/// A flag of CallExpr::buffer_imm for BufferMethod::Texture (see there).
inline constexpr uint32_t kTextureNoLod = 1u << 16;

struct CallExpr : Expr {
  Expr* callee;
  std::vector<Expr*> args;
  FuncDecl* func = nullptr;                 ///< sema: the user function called
  const sema::Type* constructed = nullptr;  ///< sema: the type a constructor call builds
  Expr* receiver = nullptr;                 ///< sema: the object of an instance method call
  /// sema: for `T.f()` / `S<int>.f()`, the type named (its methods are looked up in it).
  const sema::Type* static_owner = nullptr;
  /// sema: for an interface requirement, the interface (as seen by the caller) it
  /// belongs to; lowering finds the implementation once the receiver type is known.
  const sema::Type* via_interface = nullptr;
  /// sema: the callee's own generic arguments, in the order of its generic parameters
  /// (they may mention the caller's generic parameters).
  std::vector<const sema::Type*> generic_args;
  /// sema: for an `out`/`inout` argument that is a property or subscript read (its
  /// getter's call), at the argument's index: the setter's call that stores the value
  /// back after the call; its last argument is the getter's call, standing for that value.
  /// Empty when no argument needs one.
  std::vector<CallExpr*> writebacks;
  /// sema: a call of the built-in `printf`; args[0] is its format (a string literal).
  bool is_printf = false;
  /// `try f()`: the call may throw; `try_range` is the `try` keyword.
  bool is_try = false;
  SourceRange try_range;
  /// sema: a buffer method; `receiver` is the buffer, `value_type` what Load/Store move,
  /// `buffer_imm` the atomic operation (ir::AtomicOp) or the structured stride in bytes.
  BufferMethod buffer_method = BufferMethod::None;
  const sema::Type* value_type = nullptr;
  uint32_t buffer_imm = 0;
  CallExpr(SourceRange r, Expr* c, std::vector<Expr*> a)
      : Expr(ExprKind::Call, r), callee(c), args(std::move(a)) {}
};

struct UnaryExpr : Expr {
  OpKind op;
  Expr* operand;
  UnaryExpr(SourceRange r, OpKind o, Expr* e) : Expr(ExprKind::Unary, r), op(o), operand(e) {}
};

struct BinaryExpr : Expr {
  OpKind op;
  Expr* lhs;
  Expr* rhs;
  SourceRange op_range;
  BinaryExpr(SourceRange r, OpKind o, Expr* l, Expr* rh, SourceRange orng)
      : Expr(ExprKind::Binary, r), op(o), lhs(l), rhs(rh), op_range(orng) {}
};

/// `lhs = rhs` (op == Assign) or a compound assignment `lhs op= rhs`.
struct AssignExpr : Expr {
  OpKind op;
  Expr* lhs;
  Expr* rhs;
  const sema::Type* op_type = nullptr;  ///< sema: type the compound operator works in
  /// sema: for a property or subscript target (`lhs` is then its getter's call), the
  /// setter's call; its index arguments are the getter's and its last argument is `lhs`,
  /// standing for the value stored.
  CallExpr* setter = nullptr;
  /// sema: for `a op= b` through a user-defined `operator op`, its call; the first
  /// operand (`lhs` or the getter's call) stands for the value read once from `lhs`.
  CallExpr* op_call = nullptr;
  bool yields_old = false;  ///< sema: a rewritten `x++` / `x--`: the value before the update
  AssignExpr(SourceRange r, OpKind o, Expr* l, Expr* rh)
      : Expr(ExprKind::Assign, r), op(o), lhs(l), rhs(rh) {}
};

struct ConditionalExpr : Expr {
  Expr* cond;
  Expr* then_expr;
  Expr* else_expr;
  ConditionalExpr(SourceRange r, Expr* c, Expr* t, Expr* e)
      : Expr(ExprKind::Conditional, r), cond(c), then_expr(t), else_expr(e) {}
};

/// `(T)expr` as written.
struct CastExpr : Expr {
  TypeExpr* target;
  Expr* operand;
  CastExpr(SourceRange r, TypeExpr* t, Expr* e) : Expr(ExprKind::Cast, r), target(t), operand(e) {}
};

/// `{a, b, c}`.
struct InitListExpr : Expr {
  std::vector<Expr*> elements;
  explicit InitListExpr(SourceRange r) : Expr(ExprKind::InitList, r) {}
};

enum class ParamDirection : uint8_t;

/// `fwd_diff(f)` / `bwd_diff(f)` (also spelled `__fwd_diff`, `__bwd_diff`).
struct DiffExpr : Expr {
  bool backward;
  Expr* operand;
  /// sema, for `fwd_diff`: the parameter and result types of the function it denotes
  /// (the pair types of AUTODIFF.md, one level per nested `fwd_diff`).
  std::vector<const sema::Type*> param_types;
  const sema::Type* result_type = nullptr;
  /// sema: the direction of each parameter in `param_types`.
  std::vector<ParamDirection> param_directions;
  /// sema: the function differentiated (innermost, for nested operators).
  const FuncDecl* func = nullptr;
  /// sema, innermost operator only: how `func` is instantiated, as for a call of it:
  /// its own generic arguments, the object of `obj.method` (passed as `this`, carrying no
  /// derivative), the type of `S.method`, and the interface of a requirement.
  std::vector<const sema::Type*> generic_args;
  Expr* receiver = nullptr;
  const sema::Type* static_owner = nullptr;
  const sema::Type* via_interface = nullptr;
  /// sema: `S.method` of an instance method: `this` is the first parameter (a
  /// DifferentialPair unless [NoDiffThis]; `inout` for a [mutating] method).
  /// `bwd_diff(obj.method)` (with `receiver`) records the same type, `this` first, which
  /// the call's arguments leave out: lowering passes the receiver there.
  bool explicit_this = false;
  /// sema, on every operator of a nested chain over `obj.method` that has a `bwd_diff`
  /// (`fwd_diff(bwd_diff(obj.m))`): each level's `param_types` start with `this`, as
  /// for `S.method`, and the call's arguments leave it out: lowering passes the
  /// receiver there with zero derivatives at every level (the object is a constant).
  bool receiver_first = false;
  /// sema, `bwd_diff(obj.method)` where `obj` has a generic parameter's type that is not
  /// known to be differentiable: DifferentialPair over that type, and IDifferentiable.
  /// Lowering pairs `this` when the type the parameter stands for conforms, as
  /// `bwd_diff(S.method)` does.
  const sema::Type* this_pair = nullptr;
  const sema::Type* differentiable = nullptr;
  /// sema, `bwd_diff(f)` of `no_diff R f(...)`: R.Differential, the gradient of the
  /// result the call leaves out (lowering passes zero there).
  const sema::Type* dropped_result_diff = nullptr;
  DiffExpr(SourceRange r, bool bwd, Expr* e) : Expr(ExprKind::Diff, r), backward(bwd), operand(e) {}
};

/// `no_diff expr`: a call whose result carries no derivative.
struct NoDiffExpr : Expr {
  Expr* operand;
  NoDiffExpr(SourceRange r, Expr* e) : Expr(ExprKind::NoDiff, r), operand(e) {}
};

/// `value is T` (a bool) and `value as T` (an `Optional<T>`) on a value of interface type;
/// `U is T` on a type (`T is half` in generic code) is a bool known once U is specialized.
struct TypeTestExpr : Expr {
  Expr* operand;
  TypeExpr* target;
  bool is_cast;  ///< `as`
  const sema::Type* target_type = nullptr;   ///< sema: T
  const sema::Type* operand_type = nullptr;  ///< sema: U when the operand names a type
  TypeTestExpr(SourceRange r, Expr* e, TypeExpr* t, bool cast)
      : Expr(ExprKind::TypeTest, r), operand(e), target(t), is_cast(cast) {}
};

/// `(int x) => x * k` and `(int2 s) => { ...; return ...; }`. The parser wraps an
/// expression body in a block holding one `return`. Sema replaces the lambda by the
/// construction of a synthesized struct (`sema/check_lambda.cpp`), so later stages never
/// see this node.
struct LambdaExpr : Expr {
  std::vector<VarDecl*> params;
  BlockStmt* body = nullptr;
  bool expression_body = false;  ///< written `=> expr`
  SourceRange arrow;             ///< the `=>`
  LambdaExpr(SourceRange r) : Expr(ExprKind::Lambda, r) {}
};

/// Variadic generics (sema/check_pack.cpp). `expand e` (kExpand): the pack of values `e`
/// gives once per element of the packs it names with `each`; `each v` (kEach): one
/// element of the value pack `v` (a parameter of type `expand each T`); kGroup: the
/// arguments sema gathers for a variadic parameter (`f(1, 2.0)` passes the pack
/// `(1, 2.0)`); `countof(T)` / `countof(v)` (kCount): the number of elements, an `int`.
/// The other compile-time questions about a type take the same form: `sizeof(T)`
/// (kSizeOf) and `alignof(T)` (kAlignOf), of a type or of a value's type, an `int`
/// (sema/check_sizeof.cpp).
struct PackExpr : Expr {
  /// kValueOf: a generic value expression known once specialized (`a.getCount()` of a
  /// `float a[N * 2]`), made by sema.
  enum Form : uint8_t { kExpand, kEach, kGroup, kCount, kSizeOf, kAlignOf, kValueOf };
  Form form;
  Expr* operand = nullptr;         ///< kExpand, kEach, kCount (the pack named); kSizeOf,
                                   ///< kAlignOf: a value or a type's name
  TypeExpr* type_arg = nullptr;    ///< kSizeOf, kAlignOf: a type the parser read as one
  std::vector<Expr*> elements;     ///< kGroup
  const sema::Type* pack = nullptr;  ///< sema: kEach, kCount: the type of the pack;
                                     ///< kSizeOf, kAlignOf: the type asked about;
                                     ///< kValueOf: the value (a sema IntExpr)
  PackExpr(SourceRange r, Form f, Expr* e) : Expr(ExprKind::Pack, r), form(f), operand(e) {}
};

/// One operand of an instruction of a `spirv_asm` block.
struct SpirvAsmOperand {
  enum class Kind : uint8_t {
    Value,    ///< `$x` or `$(expr)`: a Slang value
    Type,     ///< `$$T`: a Slang type
    Local,    ///< `%name`: an id of the block
    Result,   ///< `result`: the block's value
    Int,      ///< an integer literal
    String,   ///< a string literal
    Name,     ///< an enumerant by name (`Device`)
    Builtin,  ///< `builtin(Name:type)` (not supported yet)
    Address,  ///< `&lvalue` (not supported yet)
  };
  Kind kind = Kind::Int;
  SourceRange range;
  Expr* value = nullptr;     ///< Value, Address
  TypeExpr* type = nullptr;  ///< Type
  std::string text;          ///< Local, String, Name
  uint64_t number = 0;       ///< Int
};

/// One instruction of a `spirv_asm` block: `[def : $$T =] OpName operands...`.
struct SpirvAsmInst {
  SourceRange range;
  SourceRange opcode_range;
  std::string opcode;
  bool has_def = false;
  SpirvAsmOperand def;                    ///< Local or Result, when has_def
  TypeExpr* def_type = nullptr;           ///< the type after `:`, or null
  std::vector<SpirvAsmOperand> operands;  ///< as written
  /// sema: the operands in the grammar's order, the result type and id first when the
  /// instruction has them (from the `def : $$T =` form or as written).
  std::vector<SpirvAsmOperand> checked;
};

/// `spirv_asm { inst; inst; ... }`: inline SPIR-V; its type is that of the instruction
/// defining `result`, else void.
struct SpirvAsmExpr : Expr {
  std::vector<SpirvAsmInst> insts;
  /// sema: every instruction only computes a value and the block has one (it may be
  /// removed when unused).
  bool pure = false;
  explicit SpirvAsmExpr(SourceRange r) : Expr(ExprKind::SpirvAsm, r) {}
};

/// A conversion sema inserted; `type` is the target type.
struct ImplicitCastExpr : Expr {
  Expr* operand;
  ImplicitCastExpr(SourceRange r, Expr* e) : Expr(ExprKind::ImplicitCast, r), operand(e) {}
};

// ---------------------------------------------------------------------------------------
// Statements

#define SLOPE_AST_STMT_KINDS(X) \
  X(Block)                      \
  X(Decl)                       \
  X(Expr)                       \
  X(If)                         \
  X(For)                        \
  X(While)                      \
  X(DoWhile)                    \
  X(Return)                     \
  X(Break)                      \
  X(Continue)                   \
  X(Empty)                      \
  X(Switch)                     \
  X(Case)                       \
  X(Throw)                      \
  X(DoCatch)                    \
  X(Defer)

enum class StmtKind : uint8_t {
#define X(name) name,
  SLOPE_AST_STMT_KINDS(X)
#undef X
};

struct Stmt {
  StmtKind kind;
  SourceRange range;
  std::vector<Attribute> attributes;  ///< loop attributes such as [unroll]
  Stmt(StmtKind k, SourceRange r) : kind(k), range(r) {}
};

struct BlockStmt : Stmt {
  std::vector<Stmt*> stmts;
  explicit BlockStmt(SourceRange r) : Stmt(StmtKind::Block, r) {}
};

/// One or more local variable declarations (`float a = 1, b;`).
struct DeclStmt : Stmt {
  std::vector<VarDecl*> vars;
  explicit DeclStmt(SourceRange r) : Stmt(StmtKind::Decl, r) {}
};

struct ExprStmt : Stmt {
  Expr* expr;
  ExprStmt(SourceRange r, Expr* e) : Stmt(StmtKind::Expr, r), expr(e) {}
};

struct IfStmt : Stmt {
  Expr* cond;
  Stmt* then_stmt;
  Stmt* else_stmt;  ///< may be null
  IfStmt(SourceRange r, Expr* c, Stmt* t, Stmt* e)
      : Stmt(StmtKind::If, r), cond(c), then_stmt(t), else_stmt(e) {}
};

struct ForStmt : Stmt {
  Stmt* init;  ///< may be null
  Expr* cond;  ///< may be null (loops forever)
  Expr* step;  ///< may be null
  Stmt* body;
  bool step_throws = false;  ///< the step holds a `try` (sema sets it)
  ForStmt(SourceRange r, Stmt* i, Expr* c, Expr* s, Stmt* b)
      : Stmt(StmtKind::For, r), init(i), cond(c), step(s), body(b) {}
};

struct WhileStmt : Stmt {
  Expr* cond;
  Stmt* body;
  WhileStmt(SourceRange r, Expr* c, Stmt* b) : Stmt(StmtKind::While, r), cond(c), body(b) {}
};

struct DoWhileStmt : Stmt {
  Stmt* body;
  Expr* cond;
  bool cond_throws = false;  ///< the condition holds a `try` (sema sets it)
  DoWhileStmt(SourceRange r, Stmt* b, Expr* c) : Stmt(StmtKind::DoWhile, r), body(b), cond(c) {}
};

struct ReturnStmt : Stmt {
  Expr* value;  ///< may be null
  ReturnStmt(SourceRange r, Expr* v) : Stmt(StmtKind::Return, r), value(v) {}
};

struct BreakStmt : Stmt {
  explicit BreakStmt(SourceRange r) : Stmt(StmtKind::Break, r) {}
};
struct ContinueStmt : Stmt {
  explicit ContinueStmt(SourceRange r) : Stmt(StmtKind::Continue, r) {}
};
struct EmptyStmt : Stmt {
  explicit EmptyStmt(SourceRange r) : Stmt(StmtKind::Empty, r) {}
};

/// `switch (value) { ... }`; the body holds CaseStmt labels among its statements.
struct SwitchStmt : Stmt {
  Expr* value;
  BlockStmt* body;
  SwitchStmt(SourceRange r, Expr* v, BlockStmt* b) : Stmt(StmtKind::Switch, r), value(v), body(b) {}
};

/// `case value:` or `default:` (value null) inside a switch body.
struct CaseStmt : Stmt {
  Expr* value;
  CaseStmt(SourceRange r, Expr* v) : Stmt(StmtKind::Case, r), value(v) {}
};

/// `throw MyError.Failure;`: leaves for the nearest `catch` of the value's type, else
/// out of the function (which must be declared `throws` that type).
struct ThrowStmt : Stmt {
  Expr* value;
  ThrowStmt(SourceRange r, Expr* v) : Stmt(StmtKind::Throw, r), value(v) {}
};

/// One `catch (err : MyError) { ... }` clause of a DoCatchStmt; `var` is `err`.
struct CatchClause {
  VarDecl* var = nullptr;
  Stmt* body = nullptr;
  SourceRange range;
};

/// `do { ... } catch (e : E1) { ... } catch (e : E2) { ... }`: errors of a clause's type
/// thrown in the body (by `throw` or an uncaught `try`) run that clause.
struct DoCatchStmt : Stmt {
  Stmt* body;
  std::vector<CatchClause> clauses;
  DoCatchStmt(SourceRange r, Stmt* b) : Stmt(StmtKind::DoCatch, r), body(b) {}
};

/// `defer stmt;`: `body` runs when the enclosing block is left, on every path out of it,
/// after the statements that follow (deferred bodies in reverse order).
struct DeferStmt : Stmt {
  Stmt* body;
  DeferStmt(SourceRange r, Stmt* b) : Stmt(StmtKind::Defer, r), body(b) {}
};

// ---------------------------------------------------------------------------------------
// Declarations

#define SLOPE_AST_DECL_KINDS(X) \
  X(Var)                        \
  X(Func)                       \
  X(Struct)                     \
  X(Interface)                  \
  X(Extension)                  \
  X(Enum)                       \
  X(EnumCase)                   \
  X(TypeAlias)                  \
  X(Namespace)                  \
  X(Import)                     \
  X(Using)                      \
  X(AssociatedType)             \
  X(GenericParam)               \
  X(Property)                   \
  X(Subscript)                  \
  X(BufferBlock)

enum class DeclKind : uint8_t {
#define X(name) name,
  SLOPE_AST_DECL_KINDS(X)
#undef X
};

/// Declaration modifiers, as written.
enum Modifier : uint32_t {
  kModStatic = 1u << 0,
  kModConst = 1u << 1,
  kModUniform = 1u << 2,
  kModIn = 1u << 3,
  kModOut = 1u << 4,
  kModInOut = 1u << 5,
  kModGroupShared = 1u << 6,
  kModNoDiff = 1u << 7,
  kModPublic = 1u << 8,
  kModInternal = 1u << 9,
  kModPrivate = 1u << 10,
  kModExtern = 1u << 11,
  kModInline = 1u << 12,
  kModOverride = 1u << 13,
  kModNoInterpolation = 1u << 14,
  kModPrecise = 1u << 15,
  kModRowMajor = 1u << 16,
  kModColumnMajor = 1u << 17,
  kModExport = 1u << 18,
};

/// The keyword of a modifier bit ("static", ...); joined with spaces for a set.
std::string ModifierSpelling(uint32_t modifiers);

struct GenericParamDecl;

struct Decl {
  std::string name;
  SourceRange name_range;
  std::vector<Attribute> attributes;
  uint32_t modifiers = 0;  ///< Modifier bits
  /// Inside a `__file_decl { ... }` block: one more than the offset of its keyword in the
  /// declaration's file (blocks of one file differ); 0 outside any.
  uint32_t file_block = 0;
  /// Last: a derived declaration's one-byte fields fill the padding after it.
  DeclKind kind;
  Decl(DeclKind k, std::string n, SourceRange r) : name(std::move(n)), name_range(r), kind(k) {}

  /// The attribute called `attr_name`, or nullptr.
  const Attribute* FindAttribute(std::string_view attr_name) const {
    for (const Attribute& a : attributes) {
      if (a.name == attr_name) return &a;
    }
    return nullptr;
  }
};

/// How a variable was introduced.
enum class VarRole : uint8_t { Local, Param, Global, Field };

/// Parameter direction.
enum class ParamDirection : uint8_t { In, Out, InOut };

/// Where uniform data lives, for a variable that reads it.
enum class UniformKind : uint8_t {
  None,
  CBufferMember,   ///< a member of `cbuffer NAME { ... }`: `uniform_block` holds it
  ConstantBuffer,  ///< `ConstantBuffer<T> p;`: the variable is the whole block
  EntryParam,      ///< a `uniform` entry-point parameter: a push-constant block member
  /// A global struct holding buffers (`TensorView<T> t;`): each buffer field is bound on
  /// its own, the other fields go to a uniform buffer, all in descriptor set 0.
  ResourceStruct,
  /// `ParameterBlock<T> b;`: like ResourceStruct, in a descriptor set of its own.
  ParameterBlock,
};

/// A local, a parameter or a global (resources, constants).
// The small fields come together: a source may declare 10^5 fields and variables.
struct VarDecl : Decl {
  VarRole role;
  bool is_let = false;     ///< immutable after initialization
  bool is_const = false;   ///< `const` or `static const`
  bool is_static = false;
  bool is_uniform = false;
  ParamDirection direction = ParamDirection::In;
  UniformKind uniform_kind = UniformKind::None;  ///< sema: set for uniform data (read-only)
  /// `uint a : 4;` in a struct: the field's width in bits (the parser makes it a
  /// property over a hidden field; parse/bit_fields.cpp), else -1.
  int32_t bit_width = -1;
  uint32_t uniform_index = 0;     ///< sema: member index in its cbuffer or push-constant block
  TypeExpr* type_expr = nullptr;  ///< null for `var x = ...` / `let x = ...`
  Expr* init = nullptr;
  std::string semantic;     ///< `: SV_DispatchThreadID`, or "register" / "packoffset"
  std::vector<std::string> semantic_args;  ///< `register(u0, space1)` -> {"u0", "space1"}
  SourceRange semantic_range;
  const sema::Type* type = nullptr;               ///< filled by sema
  struct AggregateDecl* uniform_block = nullptr;  ///< sema: the cbuffer of a CBufferMember
  /// sema: the SpecId of a specialization constant (`[vk::constant_id(N)]`,
  /// `[SpecializationConstant]`); -1 for every other variable.
  int64_t spec_id = -1;
  VarDecl(VarRole role_in, std::string n, SourceRange r)
      : Decl(DeclKind::Var, std::move(n), r), role(role_in) {}
};

/// `T`, `T : IFoo` or `let N : int` in a generic parameter list.
struct GenericParamDecl : Decl {
  bool is_value = false;          ///< `let N : int`
  bool is_pack = false;           ///< `each T`: a pack of any number of types
  TypeExpr* constraint = nullptr; ///< the interface (type params) or the value's type
  /// Further interfaces the parameter conforms to: `T : IA & IB`, `where T : IC`.
  std::vector<TypeExpr*> more_constraints;
  /// `where optional T : IFoo`: interfaces the parameter may conform to.
  std::vector<TypeExpr*> optional_constraints;
  TypeExpr* default_type = nullptr;
  Expr* default_value = nullptr;
  /// `where T.Assoc : IFoo`: an associated type of the parameter and an interface it
  /// must conform to.
  struct MemberConstraint {
    std::string member;   ///< "Assoc"
    TypeExpr* subject;    ///< `T.Assoc` as written
    TypeExpr* constraint;
  };
  std::vector<MemberConstraint> member_constraints;
  /// `where T.Assoc == float`: an associated type of the parameter and the type it is.
  struct MemberEquality {
    std::string member;  ///< "Assoc"
    TypeExpr* subject;   ///< `T.Assoc` as written
    TypeExpr* type;
  };
  std::vector<MemberEquality> member_equalities;
  const sema::Type* type = nullptr;  ///< sema: the parameter as a type
  GenericParamDecl(std::string n, SourceRange r) : Decl(DeclKind::GenericParam, std::move(n), r) {}
};

/// `where T : IA & IB` after a declaration's header; sema moves each constraint to the
/// generic parameter (or associated type) it names.
struct WhereClause {
  TypeExpr* subject = nullptr;
  std::vector<TypeExpr*> constraints;
  TypeExpr* equals = nullptr;  ///< `where T.Assoc == float`: the type (no constraints)
  /// `where optional T : IFoo`: T need not conform; code uses the conformance only
  /// inside `if (T is IFoo)` / `if (let v = t as IFoo)`. The range is the keyword's.
  bool optional = false;
  SourceRange optional_range;
};

/// `T.maxValue` reads a `static const` member required by an interface through the static
/// method `maxValue$get` that the parser adds for it (parse/static_consts.cpp).
inline constexpr std::string_view kStaticConstGetterSuffix = "$get";

/// What kind of function a FuncDecl is.
enum class FuncKind : uint8_t { Plain, Init, Operator, Getter, Setter };

struct FuncDecl : Decl {
  FuncKind func_kind = FuncKind::Plain;
  std::vector<GenericParamDecl*> generic_params;
  TypeExpr* return_type = nullptr;
  std::vector<VarDecl*> params;
  BlockStmt* body = nullptr;  ///< null for a declaration without body
  std::string return_semantic;  ///< `float4 f() : SV_Target`
  TypeExpr* throws_type_expr = nullptr;     ///< `int f() throws MyError`, or null
  const sema::Type* throws_type = nullptr;  ///< sema: the error type it throws, or null
  std::vector<WhereClause> where_clauses;
  const sema::Type* result_type = nullptr;  ///< filled by sema
  const sema::Type* owner = nullptr;  ///< sema: the struct of a method or `__init`
  VarDecl* this_param = nullptr;      ///< sema: a method's or `__init`'s implicit `this`
  bool is_mutating = false;           ///< sema: `[mutating]` (or `__init`): `this` is assignable
  /// sema: the struct, interface or extension declaring a method, or null.
  struct AggregateDecl* parent = nullptr;
  /// sema: every generic parameter the function depends on: those of its struct or
  /// extension first, then its own (including one per interface-typed parameter).
  std::vector<const sema::Type*> generic_context;
  size_t own_generic_begin = 0;  ///< sema: index of the first own parameter above
  /// sema: for `[__intrinsic_op("name")]`, the ir::Intrinsic it stands for; else -1.
  /// With `intrinsic_inst` set, the operation of that instruction instead.
  int intrinsic_op = -1;
  /// sema: for `[__intrinsic_op("atomic_add")]`, `("barrier_...")`, `("wave_...")`: the
  /// ir::Op (atomic, barrier or wave) whose operation `intrinsic_op` names; else -1.
  int intrinsic_inst = -1;
  /// sema: the custom forward derivative, from `[ForwardDerivative(g)]` here or
  /// `[ForwardDerivativeOf(this)]` on `g`.
  const FuncDecl* fwd_derivative = nullptr;
  /// sema: the custom backward derivative, from `[BackwardDerivative(g)]` here or
  /// `[BackwardDerivativeOf(this)]` on `g`.
  const FuncDecl* bwd_derivative = nullptr;
  /// sema: from `[PrimalSubstitute(g)]` here or `[PrimalSubstituteOf(this)]` on `g`: the
  /// function differentiated code calls instead of this one (same type).
  const FuncDecl* primal_substitute = nullptr;
  /// sema: per dimension, the specialization constant `[numthreads(kX, ...)]` names (its
  /// default is the attribute's literal from then on), or null.
  std::array<const VarDecl*, 3> numthreads_spec{};
  FuncDecl(std::string n, SourceRange r) : Decl(DeclKind::Func, std::move(n), r) {}
};

/// struct, interface, extension, namespace and cbuffer share this shape: a name (or a
/// target type), generic parameters, base types / conformances and members.
struct AggregateDecl : Decl {
  bool has_bit_fields = false;  ///< a struct whose bit fields the parser made properties
  std::vector<GenericParamDecl*> generic_params;
  TypeExpr* target = nullptr;          ///< extension: the type extended
  std::vector<TypeExpr*> bases;        ///< `: IFoo, IBar`
  std::vector<Decl*> members;
  std::vector<std::string> register_args;  ///< cbuffer `: register(b0)`
  std::vector<WhereClause> where_clauses;
  AggregateDecl(DeclKind k, std::string n, SourceRange r) : Decl(k, std::move(n), r) {}
};

struct EnumCaseDecl : Decl {
  Expr* value = nullptr;
  EnumCaseDecl(std::string n, SourceRange r) : Decl(DeclKind::EnumCase, std::move(n), r) {}
};

struct EnumDecl : Decl {
  bool is_class = false;
  TypeExpr* underlying = nullptr;
  std::vector<EnumCaseDecl*> cases;
  EnumDecl(std::string n, SourceRange r) : Decl(DeclKind::Enum, std::move(n), r) {}
};

/// `typealias A = B;`, `typedef B A;`
struct TypeAliasDecl : Decl {
  std::vector<GenericParamDecl*> generic_params;
  TypeExpr* target = nullptr;
  /// A link-time type, `struct X : IFoo = Y;` (with `export`, or `extern` for a
  /// default): the interfaces the target must conform to.
  std::vector<TypeExpr*> conformances;
  TypeAliasDecl(std::string n, SourceRange r) : Decl(DeclKind::TypeAlias, std::move(n), r) {}
};

/// `import a.b;` (`name` is "a.b").
/// Also the other declarations about modules, which sema never sees:
/// `__include helpers;` / `__include "helpers.slang";` (a file of the same module),
/// `module name;` and `implementing name;` (the module a file is, or is part of).
struct ImportDecl : Decl {
  enum class Form : uint8_t { Import, Include, Module, Implementing };
  Form form = Form::Import;
  ImportDecl(std::string n, SourceRange r) : Decl(DeclKind::Import, std::move(n), r) {}
};

/// `using namespace a.b;` or `using a::b;` (`name` is "a::b"): the members of that
/// namespace become visible where the declaration stands (file or namespace scope).
struct UsingDecl : Decl {
  UsingDecl(std::string n, SourceRange r) : Decl(DeclKind::Using, std::move(n), r) {}
};

/// `associatedtype T : IFoo;` inside an interface.
struct AssociatedTypeDecl : Decl {
  std::vector<TypeExpr*> constraints;
  std::vector<WhereClause> where_clauses;
  AssociatedTypeDecl(std::string n, SourceRange r) : Decl(DeclKind::AssociatedType, std::move(n), r) {}
};

/// `property float x { get; set; }`, also `property x : float { get {...} }`.
struct PropertyDecl : Decl {
  TypeExpr* type = nullptr;
  std::vector<FuncDecl*> accessors;  ///< FuncKind::Getter / Setter
  PropertyDecl(std::string n, SourceRange r) : Decl(DeclKind::Property, std::move(n), r) {}
};

/// `__subscript(int i) -> T { get; set; }` or with a body.
struct SubscriptDecl : Decl {
  std::vector<VarDecl*> params;
  TypeExpr* result = nullptr;
  std::vector<FuncDecl*> accessors;
  SubscriptDecl(SourceRange r) : Decl(DeclKind::Subscript, "__subscript", r) {}
};

/// One parsed file.
struct Module {
  std::vector<Decl*> decls;
  /// The Slang language version the file was read as (`#language`, slopec -std): 2018
  /// (legacy), 2025, 2026 or 2027 (202c).
  int language_version = 2018;
};

/// Owns every node of one compile session. Nodes are placed in large chunks (one
/// allocation per 64 KiB instead of one per node) and destroyed together, in reverse
/// order of creation, when the context dies.
class AstContext {
 public:
  AstContext() = default;
  AstContext(const AstContext&) = delete;
  AstContext& operator=(const AstContext&) = delete;
  ~AstContext() {
    for (auto it = destructors_.rbegin(); it != destructors_.rend(); ++it) it->destroy(it->node);
  }

  template <typename T, typename... Args>
  T* New(Args&&... args) {
    static_assert(alignof(T) <= alignof(std::max_align_t));
    void* memory = Allocate(sizeof(T), alignof(T));
    T* node = new (memory) T(std::forward<Args>(args)...);
    if constexpr (!std::is_trivially_destructible_v<T>) {
      destructors_.push_back({node, [](void* p) { static_cast<T*>(p)->~T(); }});
    }
    return node;
  }

 private:
  static constexpr size_t kChunkSize = 64 * 1024;

  void* Allocate(size_t size, size_t align) {
    size_t offset = (used_ + align - 1) & ~(align - 1);
    if (chunks_.empty() || offset + size > chunk_capacity_) {
      chunk_capacity_ = std::max(kChunkSize, size);
      chunks_.push_back(std::make_unique_for_overwrite<std::max_align_t[]>(
          (chunk_capacity_ + sizeof(std::max_align_t) - 1) / sizeof(std::max_align_t)));
      offset = 0;
    }
    used_ = offset + size;
    return reinterpret_cast<char*>(chunks_.back().get()) + offset;
  }

  struct Destructor {
    void* node;
    void (*destroy)(void*);
  };
  std::vector<std::unique_ptr<std::max_align_t[]>> chunks_;
  size_t chunk_capacity_ = 0;
  size_t used_ = 0;
  /// A deque: a module of 10^6 nodes grows it without copying it or holding twice its
  /// size while it grows.
  std::deque<Destructor> destructors_;
};

}  // namespace slope::ast
