#pragma once
// The Checker: private to sema/. Declarations and statements are in check.cpp,
// expressions in check_expr.cpp, calls and constructors in check_call.cpp, conversion
// rules in conversions.cpp.

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "compiler/ast/ast.h"
#include "compiler/diag/diag.h"
#include "compiler/sema/check.h"
#include "compiler/sema/int_arith.h"
#include "compiler/sema/types.h"

namespace slope::sema {

/// The type of a function as `fwd_diff` sees it: parameters (with directions) and result.
struct FwdSignature {
  std::vector<const Type*> params;
  std::vector<ast::ParamDirection> directions;
  const Type* result = nullptr;
  /// "DifferentialPair<float> (DifferentialPair<float>, inout float)".
  std::string Describe() const;
};

/// Cost of an implicit conversion; kNoConversion when there is none.
inline constexpr int kNoConversion = 1 << 20;
/// The name of the method `f(args)` calls on a value `f`.
inline constexpr const char* kCallOperator = "operator()";
/// The most parameters an `IFunc<R, P...>` takes (the core library declares each arity).
inline constexpr size_t kMaxFuncArity = 6;
/// The least cost of a conversion that loses range or precision (it warns).
inline constexpr int kNarrowingCost = 60;
/// The cost of packing a concrete value into an interface-typed (existential) value:
/// more than any numeric conversion, so exact overloads win.
inline constexpr int kExistentialCost = 500;

/// The keyword of a statement after which control does not continue: "break",
/// "continue" or "return" (for unreachable-code warnings).
const char* JumpKeyword(const ast::Stmt* stmt);

/// How a receiver that cannot be modified is named in messages: "'p'", "'this' in a
/// non-mutating method" or "this expression".
std::string DescribeReceiver(const ast::Expr* e);

/// "float, int3": the types of checked arguments, for messages.
std::string ArgTypeList(const std::vector<ast::Expr*>& args);
/// "float f(int, float3)": a checked function's signature, for candidate notes.
std::string Signature(const ast::FuncDecl* f);
/// Whether calls of `f` may carry derivatives: it is marked [Differentiable] (or
/// [ForwardDifferentiable], [BackwardDifferentiable], [TreatAsDifferentiable]) or has a
/// custom derivative.
bool IsDifferentiableFunction(const ast::FuncDecl* f);

/// `no_diff R f(...)`: the result of `f` carries no derivative (`fwd_diff(f)` returns a
/// plain R, `bwd_diff(f)` takes no gradient of it).
inline bool HasNoDiffResult(const ast::FuncDecl* f) {
  return (f->modifiers & ast::kModNoDiff) != 0;
}
/// `<T : IFloat, let N : int> ` for a function with generic parameters (its own and its
/// type's), "" otherwise: how derivative mismatches show a generic type.
std::string GenericHeader(const ast::FuncDecl* f);
/// `bwd_diff(fwd_diff(name))`: the operators of `chain` (the outermost first) applied
/// to `name`, as diagnostics show them.
std::string DiffChainName(const std::vector<ast::DiffExpr*>& chain, const std::string& name);

class Checker {
 public:
  Checker(ast::AstContext& ctx, TypeContext& types, diag::DiagEngine& diags)
      : ctx_(ctx), types_(types), diags_(diags) {}

  bool Run(ast::Module& module, CheckedModule* out);

  // conversions.cpp
  /// The cost of converting `from` to `to` implicitly (0 = identical).
  int ConversionCost(const Type* from, const Type* to) const;
  /// ConversionCost, element by element between concrete packs of one length.
  int PackConversionCost(const Type* from, const Type* to) const;
  /// The cost of passing the initializer list `list` for a parameter of type `to`
  /// (kNoConversion when the list cannot initialize one).
  int InitListCost(const ast::InitListExpr* list, const Type* to) const;
  /// Wraps `expr` in an ImplicitCastExpr to `to` (reporting when impossible).
  ast::Expr* Coerce(ast::Expr* expr, const Type* to);
  /// `c.get()` of a `Conditional<T, b>` value `c` (checked): its `Optional<T>`.
  ast::Expr* ConditionalGet(ast::Expr* expr);
  /// Converts explicitly (casts, constructors): lossy conversions without a warning.
  ast::Expr* ExplicitConvert(ast::Expr* expr, const Type* to);
  /// Converts to bool for a condition.
  ast::Expr* CoerceToBool(ast::Expr* expr);
  /// The common type of two arithmetic operands, or null.
  const Type* CommonType(const Type* a, const Type* b);
  /// Whether `a` and `b` are scalars, vectors and matrices of concrete scalar types, one
  /// at least sized by generic parameters (`vector<float, N>`, `matrix<float, R, C>`):
  /// they take the operators of concrete ones, the result keeping the generic shape.
  static bool LengthGeneric(const Type* a, const Type* b);
  /// Whether `a` and `b` are vectors of one generic length or matrices of one generic
  /// shape.
  static bool SameGenericShape(const Type* a, const Type* b);

  // check_expr.cpp
  ast::Expr* CheckExpr(ast::Expr* expr);
  /// Checks that `expr` (already checked) can be assigned to; reports if not.
  bool CheckAssignable(ast::Expr* expr);

  // check_call.cpp
  ast::Expr* CheckCall(ast::CallExpr* call);
  ast::Expr* CheckCallArgsAndCallee(ast::CallExpr* call);

  // check_struct.cpp
  /// Creates the types of the module's structs and sorts their members (before globals).
  void DeclareStructs(const std::vector<ast::Decl*>& decls);
  /// Resolves field types and reports structs that contain themselves.
  void ResolveStructFields();
  /// Checks field defaults and the signatures of methods and constructors.
  void CheckStructMembers();
  /// Checks method and constructor bodies; appends them to `out->functions`.
  void CheckStructBodies(CheckedModule* out);
  /// `S s;`: a call of S's `__init()` when it has one, else null (the field defaults).
  ast::Expr* DefaultConstruction(ast::VarDecl* var);
  ast::Expr* GenericDefaultConstruction(ast::VarDecl* var);
  /// The call of `type`'s `__init()` (all parameters defaulted), or null without one.
  ast::Expr* DefaultConstructionOf(const Type* type, source::SourceRange range);
  /// Whether buffers may hold `type`: numbers and vectors, and structs of them.
  bool IsBufferElement(const Type* type) const;
  /// True when `type` is a buffer or a struct or array holding one (transitively).
  bool ContainsResource(const Type* type) const;
  /// The struct type declared by `decl`, or null.
  const Type* StructTypeOf(const ast::Decl* decl) const;
  /// `S(args)`: an `__init` overload or the member-wise construction.
  ast::Expr* CheckStructConstructor(ast::CallExpr* call, const Type* type);
  /// `S s = {a, b}` for a struct with `__init`s, `T t = {a, b}` for a type parameter
  /// with an initializer requirement: the constructor call; else null.
  ast::Expr* InitListAsConstructor(ast::InitListExpr* list, const Type* target);
  /// `base.member(args)` and `S.member(args)` / `S::member(args)`.
  ast::Expr* CheckMethodCall(ast::CallExpr* call, ast::MemberExpr* callee);
  /// A call of method `name` of the current struct written without `this.`.
  ast::Expr* CheckImplicitMethodCall(ast::CallExpr* call, ast::NameExpr* name);
  /// `base.field` on a struct value.
  ast::Expr* CheckStructMember(ast::MemberExpr* expr);
  /// A field of the current struct named without `this.`: rewritten to `this.field`.
  ast::Expr* CheckImplicitField(ast::NameExpr* expr);
  /// Whether `expr` (checked) names storage a mutating method may modify; no report.
  bool IsAssignableQuietly(const ast::Expr* expr) const;
  /// The checked overload of `candidates` best matching `args` (null: none; reports
  /// nothing); `*ambiguous` is set when several match equally well.
  ast::FuncDecl* PickOverload(const std::vector<ast::FuncDecl*>& candidates,
                              const std::vector<ast::Expr*>& args, bool* ambiguous);
  /// The struct whose method or `__init` is being checked, or null.
  const Type* CurrentStruct() const {
    return current_function_ != nullptr && current_function_->owner != nullptr &&
                   current_function_->owner->IsStruct()
               ? current_function_->owner
               : nullptr;
  }
  /// The type whose method is being checked (a struct, an extended type or `This`), or null.
  const Type* CurrentOwner() const {
    return current_function_ != nullptr ? current_function_->owner : nullptr;
  }
  /// `receiver.name(args)` or, without a receiver, `Owner.name(args)` on type `owner`.
  /// The type `T.Differential` / `S.Inner` names when `e` is such a path from a type, or
  /// null when it does not start at a type.
  const Type* TypeMemberPath(const ast::Expr* e);
  /// An unchecked copy of a path of names (`t`, `a.b.c`), or null for other expressions.
  ast::Expr* ClonePath(const ast::Expr* e);
  /// `t._0_2`: a tuple of the elements named, read from `path_copies` (copies of the
  /// path to t, one per element; empty when t is not such a path).
  ast::Expr* CheckTupleSwizzle(ast::MemberExpr* expr, const std::vector<ast::Expr*>& path_copies);
  ast::Expr* CheckMethodCallOn(ast::CallExpr* call, const Type* owner, ast::Expr* receiver,
                               const std::string& name, source::SourceRange name_range,
                               const std::vector<ast::TypeExpr*>& generic_args,
                               std::vector<ast::Expr*>* generic_values = nullptr);
  /// Resolves explicit generic arguments written at a call: the types, then the values
  /// (checked in place; null when there are none).
  bool ResolveExplicitArgs(const std::vector<ast::TypeExpr*>& args,
                           std::vector<ast::Expr*>* values, std::vector<const Type*>* out);

  // check_generic.cpp
  /// A function that a call may resolve to, with the bindings of the generic parameters
  /// of its struct, extension or interface as seen from the call site.
  struct Candidate {
    ast::FuncDecl* func;
    Subst context;
    const Type* via_interface = nullptr;  ///< set for interface requirements
  };
  /// Creates the types of interfaces and the generic parameters of structs (pass 1).
  void DeclareInterfaces(const std::vector<ast::Decl*>& decls);
  /// Moves the constraints of `where` clauses onto the generic parameters (and
  /// associated types) they name, in `decls` and their members (sema/check_where.cpp).
  void AttachWhereClauses(const std::vector<ast::Decl*>& decls,
                          const std::vector<ast::GenericParamDecl*>& outer);
  /// Moves the bodies of interface methods (default implementations) to an extension of
  /// the interface added after it (sema/check_interface_defaults.cpp).
  void SplitDefaultImplementations(std::vector<ast::Decl*>& decls);
  /// Removes core-library declarations marked `[__yield_to_user]` (`Array<T, N>`) that
  /// a module declares a name for itself, so that its own declaration is used.
  void DropShadowedCoreDecls(std::vector<ast::Decl*>& decls);
  /// A generic argument written as an enum case (`Mode.Add`, `geo::Mode::Add`): its
  /// value; null when `te` names no enum case.
  const Type* EnumCaseArg(ast::TypeExpr* te);
  /// Resolves constraints, inheritance lists, requirement signatures and extensions
  /// (pass 2, once every type name is declared).
  void ResolveGenericHeaders(const std::vector<ast::Decl*>& decls);
  /// Checks that each struct and extension implements the interfaces it declares.
  void CheckConformances();
  /// `struct X : IFoo = Y;`: Y conforms to IFoo (E3644).
  void CheckLinkTypeConformances();
  // Interface-typed values (check_existential.cpp).
  /// `IFoo x = init;`: x takes the concrete type of `init`; `IFoo x;` is existential.
  void CheckInterfaceLocal(ast::VarDecl* var);
  /// Reports a value that cannot be packed into the existential type `iface`.
  void CheckExistentialPayload(const ast::Expr* expr, const Type* iface);
  /// Reports a call of requirement `req` through a value of interface type `iface` that
  /// cannot be dispatched at run time; false then.
  bool CheckDispatchable(const ast::CallExpr* call, const ast::FuncDecl* req, const Type* iface);
  // Interface-typed values in memory (check_dynamic.cpp).
  /// `[anyValueSize(N)]` on an interface declaration.
  void ReadAnyValueSize(const ast::AggregateDecl* decl, InterfaceInfo* info);
  /// The 32-bit words a value of `t` takes in a payload, or -1 (with `why`).
  int64_t PayloadWords(const Type* t, std::string* why);
  /// Each interface with anyValueSize: its conforming types (their conformance ids), and
  /// those too large for the payload or not storable as words (E3750, E3752).
  void CheckDynamicConformances(const std::vector<ast::Decl*>& decls);
  /// `StructuredBuffer<IFoo>`: a buffer of stored interface values (E3751 without size).
  const Type* CheckInterfaceElement(const ast::TypeExpr* te, const Type* element);
  /// `createDynamicObject<IFoo>(id, data)` (E3753).
  void CheckDynamicObject(const ast::CallExpr* call);
  /// A generic parameter bound to the interface type `iface` (an existential argument):
  /// every requirement must be dispatchable and there may be no associated types.
  bool CheckExistentialArgument(const ast::CallExpr* call, const Type* iface);
  /// Checks the bodies of `methods`, appending them to `out->functions`; false once the
  /// error limit is reached.
  bool CheckMethodBodies(const std::vector<ast::FuncDecl*>& methods, CheckedModule* out);
  /// Resolves `te`, which must name an interface: the interface type, or null after a
  /// report (or when `te` is in error).
  const Type* ResolveInterface(ast::TypeExpr* te);
  /// Checks the bodies of extension methods; appends them to `out->functions`.
  void CheckExtensionBodies(CheckedModule* out);
  /// Generic parameter types for `params` (constraints are resolved later); type packs
  /// are E3650 unless `owner_kind` is null (a function's).
  std::vector<const Type*> MakeGenericParams(const std::vector<ast::GenericParamDecl*>& params,
                                            const char* owner_kind = nullptr);
  /// Resolves the constraints of generic parameters made by MakeGenericParams.
  void ResolveConstraints(const std::vector<const Type*>& params);
  /// Methods named `name` that a value (or, with `statics`, the type) `t` offers.
  std::vector<Candidate> FindMethods(const Type* t, const std::string& name);
  /// Picks among `candidates` for `call` (arguments checked), inferring generic arguments;
  /// reports when none or several fit. Fills call->func, generic_args, type.
  bool ResolveCall(ast::CallExpr* call, const std::vector<Candidate>& candidates,
                   const std::string& name, const std::vector<const Type*>& explicit_args);
  /// `Name<args>` applied: checks arity and constraints.
  const Type* ApplyGeneric(ast::TypeExpr* te, ast::Decl* decl);
  /// Checks the constraints of `params` bound by `bindings`; reports at `range`.
  bool CheckConstraints(const std::vector<const Type*>& params, const Subst& bindings,
                        const std::string& owner, source::SourceRange range, bool report);
  /// The constraints of generic parameter `p` on `bound` (one element of a pack).
  bool CheckConstraintsOf(const Type* p, const Type* bound, const Subst& bindings,
                          const std::string& owner, source::SourceRange range, bool report);
  /// A user-declared type named by `te` without generic arguments (struct, interface,
  /// generic parameter, `This`, associated type, `T.Assoc`); null when the name is not
  /// a type (reports nothing then), the error type after a report.
  const Type* ResolveUserTypeName(ast::TypeExpr* te);
  /// A member type `base.name` (associated type or type alias).
  const Type* MemberType(const Type* base, const std::string& name, source::SourceRange range);
  /// `S<float>.Differential`, `Outer<T>::Inner`: a member type of a generic type applied
  /// to the arguments written; null when the name has no such form.
  const Type* ResolveGenericMemberType(ast::TypeExpr* te);
  /// A generic value argument: an IntValue, or a value parameter; reports otherwise.
  const Type* GenericValueArg(ast::Expr* e);
  /// Binary operators on values of generic type: the result type, or null.
  const Type* GenericOperatorResult(ast::OpKind op, const Type* a, const Type* b);

  // check_diff.cpp: differentiability.
  /// The core library's IDifferentiable, or null when it is not declared.
  const Type* DifferentiableInterface();
  /// Whether values of `t` can carry derivatives: float scalars and vectors, arrays of
  /// differentiable elements, and types conforming to IDifferentiable.
  bool IsDifferentiableType(const Type* t);
  /// The core library's IDifferentiablePtrType, or null when it is not declared.
  const Type* DifferentiablePtrInterface();
  /// Whether `t` is a location derivatives flow through: a struct (or generic
  /// parameter) conforming to IDifferentiablePtrType.
  bool IsDifferentiablePtrType(const Type* t);
  /// `DifferentialPtrPair<t>`, or null when the core library has none.
  const Type* DifferentialPtrPairOf(const Type* t);
  /// A constructor of a differentiable type taking a differentiable parameter is
  /// differentiated through its body, as if marked [Differentiable] (check_diff.cpp).
  void MarkConstructorDifferentiable(ast::FuncDecl* init);
  /// Whether the requirements of `iface` that `self` does not implement are synthesized
  /// (a struct's conformance to IDifferentiable), so that none is reported missing.
  bool IsSynthesizedConformance(const Type* self, const Type* iface);
  /// `no_diff f(x)`: the call's type; the operand must be a call.
  ast::Expr* CheckNoDiff(ast::NoDiffExpr* expr);
  // Struct inheritance (sema/check_inherit.cpp).
  /// `struct D : B` with B a struct: B becomes D's first field; true when `base` names a
  /// struct (reported when it cannot be inherited), false for anything else.
  bool ResolveInheritedStruct(StructInfo* info, ast::TypeExpr* base);
  /// The struct `s` inherits from, or null.
  const Type* BaseStructOf(const Type* s) const;
  /// `receiver.$base` checked: the inherited part of a struct value.
  ast::Expr* BasePart(ast::Expr* receiver);
  /// Whether `s` or a struct it inherits from has a field (or a method) called `name`.
  bool InheritsField(const Type* s, const std::string& name);
  bool InheritsMethod(const Type* s, const std::string& name);
  /// Whether a method `name` of `owner` takes `args` arguments (defaults counted).
  bool MethodTakes(const Type* owner, const std::string& name, size_t args);
  /// `{a, b, c}` for `struct D : B { float c; }` with B's two fields: `{{a, b}, c}`.
  void GroupBaseInitializers(ast::InitListExpr* list, const Type* target);
  /// The associated type called `name` of the interfaces `constraints` (and those they
  /// inherit), or null (sema/check_generic.cpp).
  /// `where A.Assoc == b`: records that the associated type `a` is `b` (check_generic.cpp).
  void EquateAssoc(const Type* a, const Type* b, source::SourceRange range);
  const ast::AssociatedTypeDecl* FindAssociatedType(const std::vector<const Type*>& constraints,
                                                    const std::string& name);
  /// `T(x)` / `T.Value(x)` for a generic type `type`: a conversion when it is arithmetic.
  ast::Expr* CheckGenericConversion(ast::CallExpr* call, const Type* type, const std::string& shown);
  /// `value is T` / `value as T` (sema/check_type_test.cpp).
  ast::Expr* CheckTypeTest(ast::TypeTestExpr* expr);

  // check_optional.cpp: `where optional T : IFoo`.
  /// Whether generic parameter `param` declares (optionally or not) a conformance that
  /// gives `iface`.
  bool DeclaresConformance(const Type* param, const Type* iface);
  /// `T is IFoo`, `t is IFoo` or `t as IFoo` of an interface `target`: E3743 unless the
  /// tested type is concrete or a parameter declaring the conformance; false then.
  bool CheckConformanceTest(ast::TypeTestExpr* expr, const Type* tested, const Type* target);
  /// For an `if` whose (checked) condition tests a generic parameter's conformance to an
  /// interface, `if (T is IFoo)` or the `if (let v = t as IFoo)` that the parser wrote
  /// out (whose condition becomes `T is IFoo`): the parameter and the interface; nulls
  /// otherwise.
  std::pair<const Type*, const Type*> ConformanceGuard(ast::IfStmt* s);
  /// While checking a guarded branch: `param` conforms to `iface` (pushed on its
  /// constraints, popped by RevokeConformance).
  void GrantConformance(const Type* param, const Type* iface);
  void RevokeConformance(const Type* param);
  /// E3742 when `owner` is a generic parameter with an optional conformance for which
  /// `offers` holds (the interface has the member used); `what` names the use. True then.
  bool ReportOptionalUse(const Type* owner, const std::string& what,
                         const std::function<bool(const Type*)>& offers, source::SourceRange range);
  // Lambdas and functional values (sema/check_lambda.cpp).
  /// `(params) => body`: a synthesized struct with the captured variables as fields and
  /// an `operator()`, conforming to `IFunc<R, P...>`; returns the struct's construction
  /// from the captured values.
  ast::Expr* CheckLambda(ast::LambdaExpr* lambda);
  /// Inside a lambda, a local or parameter of an enclosing function named `expr`
  /// becomes a field of the lambda (captured by value): returns `this.name` checked, or
  /// null when `decl` is not such a variable.
  ast::Expr* CaptureName(ast::NameExpr* expr, ast::Decl* decl);
  /// Makes `var` (found outside the innermost lambda) one of its fields.
  ast::Expr* CaptureVariable(ast::NameExpr* expr, ast::VarDecl* var);
  /// `f(args)` on a value: a call of its `operator()`.
  ast::Expr* CheckFunctorCall(ast::CallExpr* call);
  /// `IFunc<R, P...>` / `IMutatingFunc<R, P...>` name the core library's interface of
  /// that arity (`__IFunc1` for one parameter); rewrites `te` when it names one.
  bool MapFuncInterface(ast::TypeExpr* te);
  /// Whether `expr` (through fields and indices) is a variable a lambda captured;
  /// reports that captures are immutable when it is.
  bool ReportCaptureAssign(const ast::Expr* expr);
  /// `float f(float);` declares the `f` defined elsewhere in the module: its attributes,
  /// modifiers and default arguments join the definition's.
  void MergeDeclaration(ast::FuncDecl* declaration, ast::FuncDecl* definition);
  /// Drops each `extern static const` that another declaration of the compile defines
  /// (an `export static const`), so that uses find the definition.
  void LinkExternConstants(std::vector<ast::Decl*>* decls);
  /// `(S)0` for a struct S: its empty initializer list; null for any other cast.
  ast::Expr* ZeroCastAsInitList(ast::CastExpr* cast);
  /// `(T)x` on a type parameter or struct, or `(f)(x)` on a function: the call it
  /// means, or null for a conversion to a built-in type.
  ast::Expr* CastAsCall(ast::CastExpr* cast);
  /// `detach(x)` (arguments checked): becomes a NoDiffExpr of `x`; x must be differentiable.
  ast::Expr* CheckDetach(ast::CallExpr* call);
  /// `printf("format", values...)` (check_printf.cpp).
  ast::Expr* CheckPrintf(ast::CallExpr* call);
  /// `spirv_asm { ... }` (check_spirv_asm.cpp): values and types, the instructions
  /// against the SPIR-V grammar, the ids; its type is `result`'s, else void.
  ast::Expr* CheckSpirvAsm(ast::SpirvAsmExpr* expr);
  /// A method call on a buffer (sema/check_resources.cpp); callee->base is checked.
  ast::Expr* CheckBufferMethod(ast::CallExpr* call, ast::MemberExpr* callee);
  /// Whether Load<T>/Store<T> of a byte address buffer can move a `t`.
  bool IsByteAddressValue(const Type* t);
  /// IsByteAddressValue, or, for a dependent type in a generic function, true: the type
  /// is checked for each specialization (ByteAddressValueFits).
  bool ByteAddressValueOk(const Type* t, source::SourceRange at);
  /// An `out uint` argument of GetDimensions.
  bool CheckOutUInt(ast::Expr*& arg);
  /// `Texture2D<float4>`, `RWTexture3D<uint>`, `SamplerState`, ... (check_texture.cpp):
  /// the type, or null when `te` names no texture or sampler type.
  const Type* ResolveTextureType(ast::TypeExpr* te);
  /// A method call on a texture (check_texture.cpp); callee->base is checked.
  ast::Expr* CheckTextureMethod(ast::CallExpr* call, ast::MemberExpr* callee);
  /// `tex.GetDimensions(...)`: its overloads by argument count.
  ast::Expr* CheckTextureDims(ast::CallExpr* call, ast::MemberExpr* callee);
  /// `tex[coord]`: the index converted to the texture's integer coordinate; the texel
  /// type, or Error after a diagnostic.
  const Type* CheckTextureIndex(ast::IndexExpr* index);
  /// Checks `[format("...")]` / `[[vk::image_format("...")]]` on a texture variable.
  void CheckTextureFormat(ast::VarDecl* var);
  /// Textures, samplers, pointers and other types Slope does not support yet: reports
  /// the type (unless the program declares a type of that name) and returns true.
  bool RejectUnsupportedType(ast::TypeExpr* te);
  /// Resolves the function a `fwd_diff`/`bwd_diff` names; reports unless it is a
  /// [Differentiable] function.
  bool CheckDiffOperand(ast::DiffExpr* expr);
  /// The operand `S.method` or `obj.method` of `fwd_diff`: records the type or the
  /// receiver on `expr`; reports unless some overload is differentiable.
  /// A built-in math function `fwd_diff(f)` / `bwd_diff(f)` may name: of float values,
  /// whose derivative rule lowering applies to a function wrapping the call.
  bool IsDifferentiableIntrinsic(const ast::FuncDecl* f);
  bool CheckDiffMethodOperand(ast::DiffExpr* expr, ast::MemberExpr* member);
  /// What the innermost operator of a checked `fwd_diff` names: the overloads (methods
  /// with their context), whether a type names them (`S.method`), the name to show and
  /// the generic arguments written on it.
  struct DiffTarget {
    std::vector<Candidate> candidates;
    bool by_type = false;
    std::string name;
    source::SourceRange range;
    const std::vector<ast::TypeExpr*>* generic_args = nullptr;
    std::vector<ast::Expr*>* generic_values = nullptr;
  };
  DiffTarget DiffTargetOf(ast::DiffExpr* inner);
  /// The generic arguments of `chosen` in `fwd_diff(...)(args)` (`call`): written on the
  /// operand, else inferred from the arguments against the pair types (a
  /// DifferentialPair<T> argument binds T); reports when some cannot be bound or break
  /// their constraints.
  /// `chain` holds the operators, the outermost first (as DiffChainSignatures).
  bool BindDiffGenerics(ast::CallExpr* call, const DiffTarget& target, const Candidate& chosen,
                        const std::vector<ast::DiffExpr*>& chain, bool explicit_this, Subst* out);
  /// For each struct declaring IDifferentiable: its `Differential`. Without a
  /// `typealias Differential`, one is synthesized: the struct itself when each field
  /// is differentiable and its own differential, else a struct `S.Differential` of the
  /// differentials of the fields that are differentiable and not `no_diff` (for a
  /// generic struct, `S.Differential<T...>` over the same parameters). Fills
  /// StructInfo::derivative_members (by name, or by `[DerivativeMember(D.f)]`).
  void SynthesizeDifferentials();
  /// The differential type of `t`, or null when it carries none.
  const Type* DifferentialOf(const Type* t);
  /// Reports `witness` (of `self`'s conformance to `iface`) when `requirement` is
  /// [Differentiable] and the witness is not differentiable.
  void CheckDifferentiableWitness(const ast::FuncDecl* requirement, const ast::FuncDecl* witness,
                                  const Type* self, const Type* iface);
  // check_fwd_diff.cpp
  /// `fwd_diff(f)` as a value (not supported), and `fwd_diff(f)(args)`: typed by
  /// FwdDiffSignature, arguments coerced, each nested operator's type recorded.
  ast::Expr* CheckDiff(ast::DiffExpr* expr);
  ast::Expr* CheckDiffCall(ast::CallExpr* call);
  /// `DifferentialPair<t>`, or null when the core library has none.
  const Type* DifferentialPairOf(const Type* t);
  /// The type of `fwd_diff` applied `order` times to `f`.
  /// `bindings` (may be null) specializes it; with `explicit_this`, `this` of a method
  /// is its first parameter (`inout` when [mutating], a pair unless [NoDiffThis]).
  FwdSignature FwdDiffSignature(const ast::FuncDecl* f, size_t order, const Subst* bindings,
                                bool explicit_this);
  /// Links `[ForwardDerivative(g)]` / `[ForwardDerivativeOf(f)]` (sets fwd_derivative)
  /// after checking the derivative's type against FwdDiffSignature(primal, 1).
  void CheckCustomDerivatives(const std::vector<ast::Decl*>& decls);
  /// The overload of `target` that `call` (of the operators `chain`, outermost first)
  /// differentiates: a differentiable one taking as many arguments, converting them at
  /// the least cost; null when none is differentiable.
  const Candidate* ChooseDiffOverload(const DiffTarget& target,
                                      const std::vector<ast::DiffExpr*>& chain,
                                      const ast::CallExpr* call);
  /// The functions a custom-derivative attribute on `holder` names, all overloads (the
  /// methods of `holder`'s type first, then functions in scope; `S.f` names members of
  /// S); reports and gives none otherwise.
  std::vector<ast::FuncDecl*> AttributeFunctions(const ast::Attribute& attr,
                                                 const ast::FuncDecl* holder);
  /// Links `func` with the first of `others` (overloads the attribute named) that `link`
  /// accepts quietly; when none does, `link` reports the mismatch with the first.
  void LinkFirstMatch(const std::vector<ast::FuncDecl*>& others,
                      const std::function<bool(ast::FuncDecl* other, bool report)>& link);
  /// Each Link* below checks the pair and records it; on a mismatch it reports (with
  /// `report`) and gives false.
  bool LinkForwardDerivative(ast::FuncDecl* primal, ast::FuncDecl* derivative,
                             const ast::Attribute& attr, bool report);
  /// Whether `derivative` has the generic parameters of `primal` (kinds and constraints,
  /// in order); `*to_primal` gets the map from the derivative's parameters to the primal's.
  bool MatchGenericDerivative(const ast::FuncDecl* primal, const ast::FuncDecl* derivative,
                              Subst* to_primal);
  // check_bwd_diff.cpp
  /// The type of `bwd_diff(f)` (AUTODIFF.md): pairs for differentiable inputs, the
  /// differential of each differentiable `out` parameter, the result's differential last.
  /// `bindings` (may be null) specializes it; with `explicit_this`, `this` of a method is
  /// its first parameter (an `inout` pair unless [NoDiffThis]).
  FwdSignature BwdDiffSignature(const ast::FuncDecl* f, const Subst* bindings,
                                bool explicit_this);
  /// One operator applied to the type `sig` of its operand, whose parameters
  /// `*no_diff` marks (updated for the result): `fwd_diff` pairs each differentiable
  /// parameter and the result; `bwd_diff` as BwdDiffSignature.
  /// One level of `fwd_diff` / `bwd_diff` applied to `sig`; `no_diff_result` keeps a
  /// result declared `no_diff` unpaired (forward) and without a gradient (backward).
  FwdSignature ApplyDiffLevel(const FwdSignature& sig, std::vector<bool>* no_diff, bool backward,
                              bool no_diff_result = false);
  /// The type of each operator of `chain` (outermost first, innermost naming `f`),
  /// specialized by `bindings` (may be null), `this` first with `explicit_this`.
  std::vector<FwdSignature> DiffChainSignatures(const ast::FuncDecl* f,
                                                const std::vector<ast::DiffExpr*>& chain,
                                                const Subst* bindings, bool explicit_this);
  /// The type of `bwd_diff(obj.m)` as lowering calls it: that of `bwd_diff(S.m)` with
  /// `this` of the receiver's type first (a pair when it is differentiable).
  FwdSignature BoundThisBwdSignature(const ast::FuncDecl* f, const Type* receiver,
                                     const Subst& bindings);
  /// `bwd_diff(f)(args)` and nests of `fwd_diff`/`bwd_diff` holding one `bwd_diff`
  /// (arguments checked): typed by DiffChainSignatures, each level's type recorded.
  ast::Expr* CheckBwdDiffCall(ast::CallExpr* call);
  /// Links `[BackwardDerivative(g)]` / `[BackwardDerivativeOf(f)]` on `func` (sets
  /// bwd_derivative) after checking the derivative's type against BwdDiffSignature.
  void LinkBackwardDerivatives(ast::FuncDecl* func);
  /// One link of LinkBackwardDerivatives: generic functions and methods compared as
  /// LinkForwardDerivative compares them; reports E3390 on a mismatch.
  bool LinkBackwardDerivative(ast::FuncDecl* primal, ast::FuncDecl* derivative,
                              const ast::Attribute& attr, bool report);
  /// Links `[PrimalSubstitute(g)]` / `[PrimalSubstituteOf(f)]` (sets primal_substitute)
  /// after checking that both functions have one type.
  bool LinkPrimalSubstitute(ast::FuncDecl* primal, ast::FuncDecl* substitute,
                            const ast::Attribute& attr, bool report);
  /// For a [Differentiable] function (body checked): reports calls of non-differentiable
  /// functions and `no_diff` stores of values that carry a derivative.
  void CheckDifferentiableBody(ast::FuncDecl* func);

  /// E0004 at the start of the file compiled, saying what it holds; a note per function
  /// (a few) that lacks the attributes of an entry point.
  void ReportNoEntryPoint(const std::vector<ast::Decl*>& decls, source::SourceRange file_start);
  /// What the file compiled holds where an entry point was looked for ("the file is
  /// empty", ...); its functions with a body, in file order, go to `functions`.
  std::string DescribeEntrySearch(const std::vector<ast::Decl*>& decls,
                                  std::vector<const ast::FuncDecl*>* functions) const;
  /// A note per function of `functions` (the last few) that lacks an entry point's
  /// attributes.
  void NoteFunctionsWithoutShader(diag::DiagBuilder& report,
                                  const std::vector<const ast::FuncDecl*>& functions);
  // check.cpp
  /// The type `type_expr` names; a dependent one named in a function body is recorded
  /// for CheckGenericArraySizes.
  const Type* ResolveType(ast::TypeExpr* type_expr);
  const Type* ResolveTypeExpr(ast::TypeExpr* type_expr);

  // check_intrinsic.cpp: intrinsic functions and the typing rules they need.
  /// Checks `[__intrinsic_op("name")]` on `func`: a known intrinsic, no body; sets
  /// func->intrinsic_op.
  void CheckIntrinsicAttribute(ast::FuncDecl* func);
  /// `vector<T, N>` (two generic arguments): a vector type, dependent when T or N is a
  /// generic parameter.
  const Type* ResolveVectorType(ast::TypeExpr* te);
  /// `matrix<T, R, C>` (check_matrix.cpp).
  const Type* ResolveMatrixType(ast::TypeExpr* te);
  /// Binds each own generic parameter of `f` that is the whole type of some parameters
  /// to the common type of those numeric arguments (unless already bound).
  void JoinNumericArgs(const ast::FuncDecl* f, const std::vector<const Type*>& own,
                       const ast::CallExpr* call, Subst* bindings);
  /// When `bindings` fail the constraints: binds the parameters bound to integer types
  /// to float of the same shape instead; true when that satisfies them.
  bool PromoteToFloat(const std::vector<const Type*>& own, const std::string& name,
                      const ast::CallExpr* call, Subst* bindings);
  ast::Decl* Lookup(const std::string& name) const;

  // check_decl.cpp: enums, type aliases and namespaces.
  /// Creates enum types and declares enums, type aliases, namespaces and unscoped
  /// enumerators; appends the members of namespaces to `decls` (before structs are
  /// declared), so that they are checked like top-level declarations.
  void DeclareScopedDecls(std::vector<ast::Decl*>* decls);
  /// Declares `decl` in the namespace holding it; false for a top-level declaration.
  bool DeclareInNamespace(ast::Decl* decl);
  /// Resolves type aliases and evaluates enumerator values (once struct types exist).
  void ResolveAliasesAndEnums();
  /// The type an enum, a type alias or a namespace-qualified name (`geo::Ray`) denotes;
  /// null when `te` names none of these (reports nothing then).
  const Type* ResolveScopedTypeName(ast::TypeExpr* te);
  /// The type a name used as an expression's base denotes (`T`, `This`, `int`, a
  /// non-generic struct), or null; reports nothing.
  const Type* TypeNamedBy(const ast::Expr* e);
  /// The struct or enum a path of names such as `Outer.Mode` denotes through type
  /// members (the error type after a reported error), or null.
  const Type* TypeThroughMembers(const ast::Expr* e);
  /// `E.A`, `E::A`, `geo::x` as an expression; null when the base names no enum,
  /// alias or namespace.
  ast::Expr* CheckScopedMember(ast::MemberExpr* expr);
  /// A name that refers to an enumerator, enum, alias or namespace; null otherwise.
  ast::Expr* CheckScopedName(ast::NameExpr* expr, ast::Decl* decl);
  /// Calls whose callee is an enum (`E(3)`), an alias of a type or a function or type
  /// in a namespace (`geo::f(x)`, `geo.Ray(...)`); null when the call is none of these.
  ast::Expr* CheckScopedCall(ast::CallExpr* call, ast::Decl* decl);
  /// The overloads of the function set `func` belongs to (its namespace's or the global).
  const std::vector<ast::FuncDecl*>& OverloadsOf(const ast::FuncDecl* func);
  /// The enum type declared by `decl`, or null.
  const Type* EnumTypeOf(const ast::Decl* decl) const;

  // check_array.cpp: fixed-size arrays and initializer lists.
  /// `element` with the dimensions of `te` applied; reports sizes that are not constant.
  const Type* ApplyArrayDims(ast::TypeExpr* te, const Type* element);
  /// Checks `{...}` as a value of type `target` (an array or a struct); the list's type
  /// becomes `target`. Elements are coerced.
  ast::Expr* CheckInitList(ast::InitListExpr* list, const Type* target);
  /// HLSL brace elision: regroups a flat list's values into the nested aggregates of
  /// `slots` (the list's member types) when the list needs it.
  void ElideBraces(ast::InitListExpr* list, const std::vector<const Type*>& slots);
  /// The value, or the nested list of values from `*next` on, that fills one `slot`.
  ast::Expr* FillSlot(const Type* slot, const std::vector<ast::Expr*>& values, size_t* next);
  /// `e` checked, unless it already is (a list's values checked to regroup them).
  ast::Expr* CheckOnce(ast::Expr* e);
  /// Checks `expr` where a value of type `target` is expected (an initializer list takes
  /// its type from there) and converts it.
  ast::Expr* CheckAs(ast::Expr* expr, const Type* target);
  /// Resolves a local's `T name[] = {...}`: the outermost size from the list.
  const Type* InferArraySize(ast::VarDecl* var);
  /// Checks the `static const` globals `e` (not yet checked) names, so that constant
  /// expressions may use constants declared later (array sizes, enumerator values).
  void CheckConstantsUsedBy(const ast::Expr* e);
  // check_generic_sizes.cpp: array sizes that generic value arguments give.
  /// Checks the arrays of every generic struct and function used with concrete
  /// arguments (recorded while checking, walked once every body is checked): each size
  /// a generic value parameter gives must be 1 to the array limit (E3048), or lowering
  /// would build arrays of billions of elements.
  void CheckGenericArraySizes();
  /// `e` (checked) as a generic value: an IntValue when it is an integer constant, else
  /// a value parameter or an IntExpr over value parameters (`N * 2`, `kCap + 1` where
  /// `static const int kCap = N;`); null when it is neither (or not of an integer type).
  const Type* GenericIntValue(const ast::Expr* e, int depth = 0);
  /// GenericIntValue of `S<args>.name` of a `static const` member, read through its
  /// getter `call`.
  const Type* StaticConstValue(const ast::CallExpr* call, int depth);
  /// GenericIntValue of constant `var`'s initializer (remembered in
  /// generic_const_values_); null when it has none.
  const Type* GenericConstValue(const ast::VarDecl* var, int depth);
  std::unordered_map<const ast::VarDecl*, const Type*> generic_const_values_;
  /// While StaticConstValue reads a specialization's constant whose initializer names its
  /// parameters' constants (`T.value + 1`): the specialization's bindings, else null.
  const Subst* static_const_subst_ = nullptr;
  /// Walks `pattern` (a type in terms of generic parameters) under `subst`; reports an
  /// array whose generic size is out of range at `at`, naming `owner`. False once
  /// reported.
  bool GenericSizesFit(const Type* pattern, const Subst& subst, const std::string& owner,
                       source::SourceRange at, std::set<const Type*>* structs_seen);
  /// Records that `te` resolved to `type`: a dependent type named in a generic body.
  void RecordGenericUse(const Type* type);
  /// Records call `call` of `func` with `bindings` (its generic parameters' arguments).
  void RecordGenericCall(ast::FuncDecl* func, const Subst& bindings, source::SourceRange at);
  /// Per generic function: the dependent types its body names and the generic calls it
  /// makes with arguments in terms of its own parameters.
  struct GenericUses {
    std::vector<const Type*> types;
    std::set<const Type*> seen;
    std::vector<std::pair<ast::FuncDecl*, Subst>> calls;
    std::vector<const ast::PackExpr*> size_queries;  ///< `sizeof(T)` of a dependent type
    /// `Load<T>` and `Store<T>` of a byte address buffer with a dependent T, where written.
    std::vector<std::pair<const Type*, source::SourceRange>> byte_address_values;
  };
  std::unordered_map<const ast::FuncDecl*, GenericUses> generic_uses_;
  /// Generic structs, aliases and calls used with concrete arguments, where they are used.
  struct ConcreteType {
    const Type* pattern;  ///< with `bindings`, the type used
    Subst bindings;
    std::string name;  ///< as written
    source::SourceRange at;
  };
  std::vector<ConcreteType> concrete_types_;
  struct ConcreteCall {
    ast::FuncDecl* func;
    Subst bindings;
    source::SourceRange at;
  };
  std::vector<ConcreteCall> concrete_calls_;

  /// `a[i]` on an array: reports constant indices out of range.
  ast::Expr* CheckArrayIndex(ast::IndexExpr* expr);
  /// `a.getCount()` on an array: an int literal; null when the callee is no such call
  /// (then nothing was checked).
  ast::Expr* CheckArrayMethod(ast::CallExpr* call, ast::MemberExpr* callee);

  // check_uniform.cpp: cbuffer, ConstantBuffer<T> and uniform entry-point parameters.
  /// Reports and returns false when `type` cannot be uniform data (no buffer layout, a
  /// resource inside, or 8/16-bit scalars).
  bool CheckUniformType(const Type* type, const source::SourceRange& range);
  /// Makes the members of cbuffer `block` globals (appended to `decls`) that read it.
  void DeclareBufferBlock(ast::AggregateDecl* block, std::vector<ast::Decl*>* decls);
  /// `[[vk::push_constant]]` on a cbuffer or a ConstantBuffer<T>: the module's one
  /// push-constant block, which every entry point reads.
  void DeclarePushConstantBlock(ast::Decl* block, const ast::Attribute& attr);
  ast::Decl* push_constant_block_ = nullptr;
  /// `uniform float k;` (or `float k;`) at global scope: a member of the implicit uniform
  /// buffer `GlobalParams` that slangc also makes, bound before every other resource.
  void DeclareGlobalUniform(ast::VarDecl* var, CheckedModule* out);
  ast::AggregateDecl* global_params_ = nullptr;  ///< that buffer, once a global needs it
  /// Checks `register(LETTERn[, spaceM])` arguments of `what`; `letter` is 'b', 't' or 'u'.
  void CheckRegister(const std::vector<std::string>& args, const source::SourceRange& range,
                     char letter, const char* what);
  /// Checks a global struct holding buffers (`TensorView<float> t;`) or a
  /// `ParameterBlock<T>`: each field a buffer or uniform data; records it in `out`.
  void CheckResourceStruct(ast::VarDecl* var, bool parameter_block, CheckedModule* out);
  /// Checks the fields of such a struct (and of structs holding resources inside it, whose
  /// names get `prefix`): each a resource or uniform data; errors name `outer` (the
  /// variable's type; `type` when null).
  bool CheckResourceStructFields(const Type* type, const std::string& prefix,
                                 const source::SourceRange& range, const Type* outer = nullptr);
  /// Checks a `uniform` parameter of entry point `func` and gives it its index in the
  /// entry point's push-constant block.
  void CheckUniformEntryParam(ast::FuncDecl* func, ast::VarDecl* param);

  // check_sync.cpp: groupshared variables, atomics, barriers and wave operations.
  /// Checks a global `groupshared` variable (no initializer, a type that can live in
  /// workgroup memory) and records it in `out`.
  void CheckGroupShared(ast::VarDecl* var, CheckedModule* out);
  /// Checks a non-const `static` global (a type that can live in private memory, an
  /// initializer converting to it) and records it in `out->statics`.
  void CheckStaticGlobal(ast::VarDecl* var, CheckedModule* out);
  /// Reports `groupshared` on `var`, which is `what` ("a local variable", ...) and so
  /// not at global scope.
  void CheckGroupSharedPlacement(const ast::VarDecl* var, const char* what);
  /// Checks a resolved call of an atomic, barrier or wave function: an atomic's
  /// destination is in buffer or groupshared memory, operand types are ones SPIR-V has.
  void CheckSyncCall(ast::CallExpr* call);
  /// `a.add(v)` on an `Atomic<T>` (receiver set): the atomic of the method's intrinsic on
  /// `a`'s value in place, as CheckSyncCall checks it; only MemoryOrder.Relaxed is taken.
  ast::Expr* CheckAtomicMethod(ast::CallExpr* call);
  /// `a += v`, `a -= v`, `a &= v`, `a |= v`, `a ^= v`, `++a`, `a--` on an `Atomic<T>` `a`
  /// (`value` null for the increments): its method's atomic; null for anything else.
  ast::Expr* CheckAtomicOperator(ast::Expr* target, ast::OpKind op, ast::Expr* value,
                                 source::SourceRange range);
  /// `bit_cast<T>(x)`: numeric scalars or vectors of one size (E3627).
  void CheckBitCast(const ast::CallExpr* call);
  // check_pack.cpp: variadic generics.
  /// `expand P`: the abstract pack over the type packs P names with `each`.
  const Type* ResolveExpandType(ast::TypeExpr* te);
  /// A type expression that resolved to `resolved`: a type pack parameter T is one
  /// element inside an `expand` pattern, and `expand each T` outside one.
  const Type* PackParamUse(ast::TypeExpr* te, const Type* resolved);
  /// Where a variadic function's packs may be (E3657).
  void CheckVariadicSignature(ast::FuncDecl* func);
  /// How many trailing parameters of `f` are variadic.
  static size_t VariadicParamCount(const ast::FuncDecl* f);
  enum class PackSplit { kFits, kTooFew, kUneven, kMixed };
  /// The argument types of `call` as `f`'s parameters see them: the arguments of the
  /// variadic parameters gathered into one pack each (split evenly between them).
  PackSplit SplitPackArgs(const ast::FuncDecl* f, const ast::CallExpr* call,
                          std::vector<const Type*>* arg_types);
  void ReportPackSplit(const ast::FuncDecl* f, const ast::CallExpr* call, const std::string& name,
                       PackSplit split);
  /// Rewrites the arguments of the variadic parameters of `f` into one PackExpr each,
  /// converted to the element types of `param_types`.
  void GroupPackArgs(ast::CallExpr* call, const ast::FuncDecl* f,
                     const std::vector<const Type*>& param_types);
  /// Binds explicit generic arguments to `own`; the ones after the single parameters
  /// are split evenly between the type packs. False when they do not fit.
  bool BindExplicitPackArgs(const std::vector<const Type*>& own,
                            const std::vector<const Type*>& explicit_args, Subst* bindings);
  /// `expand e` (allowed as a variadic argument or a statement), `each v`.
  ast::Expr* CheckPackExpr(ast::PackExpr* e, bool expand_allowed);
  /// The pack parameter `operand` names, or null after E3653 (`what`: "each", "countof").
  const ast::VarDecl* PackVariable(ast::Expr* operand, const char* what);
  /// `countof(T)` / `countof(v)`.
  ast::Expr* CheckCountof(ast::CallExpr* call);
  /// `sizeof(x)` / `alignof(x)` (check_sizeof.cpp).
  ast::Expr* CheckSizeOf(ast::PackExpr* e);
  /// Whether the type `sizeof`/`alignof` asks about has a layout under `subst`; reports
  /// the specialization of `owner` when not.
  bool SizeOfFits(const ast::PackExpr* e, const Subst& subst, const std::string& owner);
  /// Whether the dependent value type `t` of a byte address buffer's Load<T> or Store<T>
  /// (written at `at`) is one the buffer moves under `subst`; reports E3810 if not.
  bool ByteAddressValueFits(const Type* t, source::SourceRange at, const Subst& subst,
                            const std::string& owner);
  /// While an `expand` pattern is checked: the type packs it names.
  std::vector<const Type*>* pack_captures_ = nullptr;
  /// While a function parameter's type is resolved: a pack type is allowed.
  bool allow_pack_type_ = false;
  /// `Tuple<A, B, ...>`: the core library's `__TupleN<A, B, ...>` (E3628 past 8).
  const Type* ResolveTupleType(ast::TypeExpr* te);
  /// `static_assert(cond[, "message"])`: E3640 when cond is false, E3641 when it is not
  /// a compile-time constant; the call becomes `true`.
  ast::Expr* CheckStaticAssert(ast::CallExpr* call);

  // check_params.cpp: `out` and `inout` parameters.
  /// Checks the arguments of `out`/`inout` parameters of `f` in `call`: l-values.
  void CheckOutArguments(ast::CallExpr* call, const ast::FuncDecl* f);
  /// Records that `expr` (a checked l-value) is written, for the never-written warning.
  void NoteWritten(const ast::Expr* expr);
  /// Starts tracking the `out` parameters of `func` (before its body is checked).
  void BeginOutParams(ast::FuncDecl* func);
  /// Warns about `out` parameters of `func` its body never writes.
  void CheckOutParamsWritten(ast::FuncDecl* func);
  /// Checks the default values of `func`'s parameters (signature resolved): trailing
  /// only, `in` parameters only, converting to the parameter's type; a default of generic
  /// type must be a literal (left unchecked, see DefaultArgument).
  void CheckDefaultValues(ast::FuncDecl* func);
  /// How many leading parameters of `f` have no default value.
  static size_t RequiredParams(const ast::FuncDecl* f);
  /// The argument a call leaving out `param` passes, converted to `type` (the parameter's
  /// type as the call binds it).
  ast::Expr* DefaultArgument(ast::VarDecl* param, const Type* type);

  // check_access.cpp: visibility of declarations across imported modules.
  /// Sets the modules the checked module was merged from (null: one module).
  void SetModuleMap(const ModuleMap* modules) { modules_ = modules; }
  /// Leaves the body of `f` for CheckDeferredBody when it is declared in the file whose
  /// bodies are deferred (ModuleMap::deferred_bodies_file); false when it is checked now.
  bool DeferBody(ast::FuncDecl* f);
  /// Checks a body DeferBody left (once); false when that reported an error.
  bool CheckDeferredBody(const ast::FuncDecl* f);
  bool HasDeferredBodies() const { return !deferred_bodies_.empty(); }
  // check_lazy_signatures.cpp: the core library's free functions have their signatures
  // checked when their name is first used, not all at once.
  /// True when `f`'s signature waits for its name's first use: a free function of the
  /// file whose bodies are deferred, with no attribute but `__intrinsic_op`.
  bool DeferSignature(const ast::FuncDecl* f) const;
  /// Checks the signatures still waiting among the free functions named `name`.
  void EnsureSignatures(const std::string& name);
  /// Checks every waiting signature of a name that a function outside the deferred file
  /// also has (their redefinition check compares them).
  void EnsureSharedNames();
  bool SignaturePending(const ast::FuncDecl* f) const {
    return f->result_type == nullptr && pending_signatures_.count(f->name) != 0;
  }
  void SetEntryRequest(const EntryRequest* entries) { entry_request_ = entries; }
  /// Whether `decl` may be named at `use`: same module, a module without visibility
  /// modifiers, or `public`.
  bool IsAccessible(const ast::Decl* decl, source::SourceRange use) const;
  /// Reports (with a note at the declaration) when `decl` may not be named at `use`.
  bool CheckAccess(const ast::Decl* decl, source::SourceRange use);

  // check_accessors.cpp: properties and subscripts.
  /// Replaces the `property` and `__subscript` members of the structs, interfaces and
  /// extensions in `decls` by their accessors: methods named "x.get" / "x.set" and
  /// "__subscript.get" / "__subscript.set" (a setter is [mutating] and takes the value
  /// last), so that lookup, generics and conformance treat them like other methods.
  void ExpandAccessors(const std::vector<ast::Decl*>& decls);
  /// Reports setters whose value type is not their getter's result (signatures resolved).
  void CheckAccessorSignatures();
  /// `base.name` naming a property (base checked): its getter's call; null when the
  /// base's type has no property `name`.
  ast::Expr* CheckPropertyRead(ast::MemberExpr* expr);
  /// `base[index]` (both checked) on a type with `__subscript`: the getter's call; null
  /// for other types.
  ast::Expr* CheckSubscriptRead(ast::IndexExpr* expr);
  /// A property of the current type named alone inside a method: `this.name`; null when
  /// there is none.
  ast::Expr* CheckImplicitProperty(ast::NameExpr* expr);
  /// Whether `e` (checked) is a getter call made by CheckPropertyRead/CheckSubscriptRead.
  bool IsAccessorRead(const ast::Expr* e) const { return accessor_reads_.count(e) != 0; }
  /// `get = v` and `get op= v` where `get` is an accessor read: resolves the setter.
  ast::Expr* CheckAccessorAssign(ast::AssignExpr* expr);
  /// For getter call `get` written through (assigned, or passed to an `out`/`inout`
  /// parameter): the resolved call of its setter, spanning `range`, storing the value
  /// back (last argument: `get`); null after a report.
  ast::CallExpr* AccessorWriteback(ast::CallExpr* get, source::SourceRange range);
  /// `++`/`--` on an accessor read, as a compound assignment.
  ast::Expr* CheckAccessorIncDec(ast::UnaryExpr* expr);
  /// The call of getter `getter_name` of `owner` standing for `site` (a member or index
  /// expression); `display` names it in messages.
  ast::Expr* AccessorRead(ast::Expr* site, const Type* owner, ast::Expr* receiver,
                          std::vector<ast::Expr*> args, const std::string& getter_name,
                          const std::string& display, source::SourceRange range);

  // check_operators.cpp: user-defined operators.
  /// Checks declared `operator` functions: overloadable, parameter count, and a
  /// parameter of a user-defined or generic type.
  void CheckOperatorDecls(const std::vector<ast::Decl*>& decls);
  /// `op` on checked `args`: the call of a user-defined operator when an operand is of a
  /// struct, enum or generic type and an operator fits; null for the built-in operator.
  /// `name` is "operator+" and the like; with `report` false, nothing is reported when
  /// no user operator fits (null then).
  ast::Expr* CheckUserOperator(const std::string& name, const std::vector<ast::Expr*>& args,
                               source::SourceRange range, source::SourceRange op_range,
                               bool report);
  /// `a op= b` (both checked) on a user-defined type: `operator op=` or `a = a op b`
  /// through `operator op`; null when no user operator applies.
  ast::Expr* CheckUserCompoundAssign(ast::AssignExpr* expr);
  /// The combining step of compound assignment `expr` whose old value `current` stands
  /// for: a user operator (sets op_call) or the built-in one (sets op_type, coerces rhs).
  bool CheckCompoundStep(ast::AssignExpr* expr, ast::Expr* current);

  TypeContext& Types() { return types_; }
  diag::DiagEngine& Diags() { return diags_; }

 private:
  void DeclareGlobal(ast::Decl* decl);
  // check_attributes.cpp
  /// Checks the arguments of the attributes in `known` (those `position` honours); of
  /// the others, accepts Slang's optimization hints, reports other attributes Slang
  /// defines as errors (ignoring them could change results) and warns about the rest.
  /// A user-defined attribute (check_user_attributes.cpp) is checked against the
  /// `target` it decorates ("main", "S.radius") as `position` names its kind.
  void CheckAttributes(const std::vector<ast::Attribute>& attrs,
                       std::initializer_list<std::string_view> known,
                       std::string_view position = "this declaration",
                       const std::string& target = "");
  /// A struct marked `[__AttributeUsage(_AttributeTargets.X)]` declares the attribute
  /// named as the struct without its `Attribute` suffix: records it and returns true
  /// (the struct is no value type); false for any other declaration.
  bool DeclareUserAttribute(ast::Decl* decl);
  /// "S.m" for a method of S, else the function's name (for reflection).
  static std::string MemberTarget(const ast::FuncDecl* f);
  /// Checks a use of a declared user attribute on a `position` (its target and its
  /// arguments against the struct's fields) and records it for reflection.
  void CheckUserAttribute(const ast::Attribute& a, std::string_view position,
                          const std::string& target);
  /// A user-defined attribute: its struct, the targets it allows (kAttr* bits) and its
  /// fields' names and types ("int", "uint", "float", "bool", "string").
  struct UserAttributeDef {
    const ast::AggregateDecl* decl = nullptr;
    uint32_t targets = 0;
    std::vector<std::pair<std::string, std::string>> fields;
  };
  std::map<std::string, UserAttributeDef> user_attributes_;
  /// The attributes of a method of a struct or an extension, and of its parameters.
  void CheckMethodAttributes(ast::FuncDecl* f);
  /// Checks the arguments of an attribute its position honours.
  void CheckAttributeArgs(const ast::Attribute& a);
  void CheckGlobalVar(ast::VarDecl* var, CheckedModule* out);
  /// A specialization constant (IsSpecConstantDecl): a global 'const' int, uint, float or
  /// bool whose initializer sema folds to a literal (check_spec_constants.cpp).
  void CheckSpecConstant(ast::VarDecl* var);
  /// A global marked `[vk::constant_id(N)]`, `[SpecializationConstant]` or
  /// `[vk::specialization_constant]`.
  static bool IsSpecConstantDecl(const ast::VarDecl* var);
  /// Gives every specialization constant among `decls` its SpecId: `[vk::constant_id(N)]`
  /// first (a repeated N is an error), then the others in declaration order, each the
  /// smallest id not taken.
  void AssignSpecConstantIds(const std::vector<ast::Decl*>& decls);
  /// `[numthreads(kX, ...)]` naming an int or uint specialization constant at `dim`:
  /// records it in `func->numthreads_spec` and puts its default in the attribute. False
  /// when `arg` names none.
  bool NumThreadsSpecConstant(ast::FuncDecl* func, size_t dim, ast::Expr*& arg);
  /// Reports the first specialization constant `e` names where `what` needs a value
  /// known at compile time; true when it reported one.
  bool ReportSpecConstantUse(const ast::Expr* e, std::string_view what);
  void CheckFunctionSignature(ast::FuncDecl* func);
  void CheckFunctionBody(ast::FuncDecl* func);
  void CheckEntryPoint(ast::FuncDecl* func);
  /// An attribute argument naming a constant (`[numthreads(kGroup, 1, 1)]`): checked and,
  /// when it is a non-negative integer constant, replaced by its literal (true).
  bool FoldAttributeConstant(ast::Expr*& arg);
  /// A name of a generic value parameter (`[MaxIters(N)]`), checked.
  bool IsGenericValueName(const ast::Expr* e);
  /// An entry point's [WaveSize(n)]: one constant, a power of two from 4 to 128.
  void CheckWaveSize(ast::FuncDecl* func);
  /// Whether `func` is an entry point: marked [shader], or named by -entry.
  bool IsEntryPoint(const ast::FuncDecl& func) const;
  /// Reports requested entry points that do not exist, and a module with none at all
  /// (naming the functions with [numthreads] and the -entry flag that compiles them).
  void CheckRequestedEntries(const std::vector<ast::Decl*>& decls, const CheckedModule& checked);
  void CheckRecursion(const std::vector<ast::FuncDecl*>& functions);
  bool CheckConstantExpr(const ast::Expr* expr);

  /// Returns true when control can reach the end of `stmt`.
  bool CheckStmt(ast::Stmt* stmt);
  bool CheckBlock(ast::BlockStmt* block);
  /// Checks a loop body in its own scope, with break/continue allowed.
  void CheckLoopBody(ast::Stmt* body);
  // check_errors.cpp
  /// `throws E` of a function's signature: E must be an enum; requirements, accessors,
  /// constructors and differentiable functions cannot throw.
  void CheckThrowsClause(ast::FuncDecl* func);
  /// After a call is resolved: a call of a throwing function needs `try` (and its error
  /// must be caught or rethrown); `try` on a call that cannot throw is a warning.
  void CheckTryCall(ast::CallExpr* call, const ast::Expr* checked);
  /// An error of type `err` leaving `at` (`what` is "'throw'" or "'try'"): a `catch` of
  /// that type encloses it (not across a `defer` body), or the function throws it.
  void CheckErrorHandled(const Type* err, source::SourceRange at, const char* what);
  bool CheckThrow(ast::ThrowStmt* s);
  bool CheckDoCatch(ast::DoCatchStmt* s);
  bool CheckDefer(ast::DeferStmt* s);
  /// A `break`, `continue` or `return` that would leave the `defer` body it is in.
  void CheckJumpFromDefer(const ast::Stmt* stmt);
  /// The `do` bodies and `defer` bodies being checked, innermost last: the error types
  /// a `do`'s clauses catch; a `defer` body stops errors, and jumps, from leaving it.
  struct ErrorScope {
    std::vector<const Type*> catches;
    bool is_defer = false;
    int loop_depth = 0;       ///< defer: the loop depth outside the body
    size_t switch_count = 0;  ///< defer: the switches open outside the body
  };
  std::vector<ErrorScope> error_scopes_;
  /// While a `for` step or a `do`-`while` condition is checked: code that runs as the
  /// loop continues, where lowering cannot leave the loop for a `catch` yet.
  /// While a `for` step or a `do`-`while` condition is checked: its loop's flag that it
  /// holds a `try` (lowering then evaluates it in the loop body; see LowerLoop).
  bool* in_loop_continue_ = nullptr;
  // check_switch.cpp
  /// Checks a switch: an integer selector, constant and distinct case values (each
  /// replaced by a literal of the selector's type), no fall-through out of a non-empty
  /// case. Returns true when control can reach the end of the switch.
  bool CheckSwitch(ast::SwitchStmt* s);
  /// The value of a checked int, uint or bool constant expression (int sign-extended,
  /// uint zero-extended), or false when it is not one.
  /// Through a constant's name it evaluates the constant's initializer once (memoized in
  /// const_values_), so constants built from constants cost linear time; a constant met
  /// again while it is being evaluated (a cycle, see CheckConstantCycles) has no value.
  bool EvaluateIntConstant(const ast::Expr* expr, int64_t* out, int depth = 0);
  /// Set by EvaluateIntConstant when an operation's exact result did not fit its type
  /// (the value wrapped); callers that care clear it first.
  bool constant_wrapped_ = false;
  /// The constants whose values wrapped so (memoized with const_values_).
  std::unordered_set<const ast::VarDecl*> wrapped_consts_;
  /// Reports every cycle of `static const` definitions that refer to themselves or to each
  /// other (E3090 naming the cycle). Iterative: a chain of any length is fine.
  void CheckConstantCycles();
  /// Integer division or remainder by a constant zero is an error; a constant shift count
  /// of at least the width (or negative) warns with the wrapped count.
  void CheckConstantOperand(const ast::BinaryExpr* expr);
  /// The `static const` globals whose initializers were checked, in order.
  std::vector<ast::VarDecl*> static_consts_;
  /// EvaluateIntConstant's memo per constant: a value, or nullopt while it is being
  /// evaluated.
  std::unordered_map<const ast::VarDecl*, std::optional<int64_t>> const_values_;
  void CheckLocalVar(ast::VarDecl* var);
  void Declare(ast::Decl* decl);
  ast::Expr* CheckConstructor(ast::CallExpr* call, const Type* type);
  // Matrices (check_matrix.cpp).
  ast::Expr* CheckMatrixConstructor(ast::CallExpr* call, const Type* type);
  /// `m._m01`, `m._12`, `m._m00_m11`: elements by row and column.
  ast::Expr* CheckMatrixElements(ast::MemberExpr* expr);
  ast::Expr* CheckMatrixIndex(ast::IndexExpr* expr);
  ast::Expr* CheckMember(ast::MemberExpr* expr);

  // check_pointer.cpp
  /// `T*` (pointer_depth > 0) or `Ptr<T>`: the pointer type; null for other types.
  const Type* ResolvePointerType(ast::TypeExpr* te);
  /// `pointee*`, or an error (reported at `range`) for resources, void, bool, interfaces.
  const Type* PointerTo(const Type* pointee, source::SourceRange range);
  /// `nullptr`: a literal of type `void*` that converts to any pointer type.
  ast::Expr* NullPointer(ast::NameExpr* expr);
  /// `*pointer` (checked): the place it points at; reports a non-pointer.
  ast::Expr* Deref(ast::Expr* pointer, source::SourceRange range);
  /// `pointer + count` or `pointer - count` (both checked).
  ast::Expr* OffsetPointer(ast::Expr* pointer, ast::Expr* count, ast::OpKind op,
                           source::SourceRange range, source::SourceRange op_range);
  /// `*p` and `&x`; null for other unary operators.
  ast::Expr* CheckPointerUnary(ast::UnaryExpr* expr);
  /// `++p`, `p--` (operand checked and a pointer).
  ast::Expr* CheckPointerIncDec(ast::UnaryExpr* expr);
  /// A binary operator with a pointer operand (both checked); null when neither is one.
  ast::Expr* CheckPointerBinary(ast::BinaryExpr* expr);
  /// `c ? p : q` with a pointer operand (operands checked): both of one pointer type,
  /// either may be `nullptr`; null when neither operand is a pointer.
  ast::Expr* CheckPointerConditional(ast::ConditionalExpr* expr);
  /// A cast to or from a pointer (operand checked); null when neither type is one.
  ast::Expr* CheckPointerCast(ast::CastExpr* cast, const Type* target);
  /// `p += i`, `p -= i` (both sides checked); false when the left side is no pointer.
  bool CheckPointerCompoundAssign(ast::AssignExpr* expr);
  ast::Expr* CheckIndex(ast::IndexExpr* expr);
  ast::Expr* CheckUnary(ast::UnaryExpr* expr);
  ast::Expr* CheckBinary(ast::BinaryExpr* expr);
  /// `o == none` / `o != none` of an Optional<T>: a test of its `hasValue`; else null.
  ast::Expr* CheckNoneComparison(ast::BinaryExpr* expr);
  ast::Expr* CheckAssign(ast::AssignExpr* expr);
  ast::Expr* CheckConditional(ast::ConditionalExpr* expr);
  ast::Expr* CheckVectorConditional(ast::ConditionalExpr* expr);
  ast::Expr* CheckName(ast::NameExpr* expr);
  const Type* ArithmeticResult(ast::OpKind op, const Type* a, const Type* b, bool* ok);

  friend class ScopeGuard;
  ast::AstContext& ctx_;
  TypeContext& types_;
  diag::DiagEngine& diags_;

  std::vector<std::unordered_map<std::string, ast::Decl*>> scopes_;
  std::map<std::string, std::vector<ast::FuncDecl*>> functions_;
  ast::FuncDecl* current_function_ = nullptr;
  int loop_depth_ = 0;
  /// The switches being checked, innermost last: the loop depth at each one (a `break`
  /// at that depth leaves the switch) and whether a `break` left it.
  struct SwitchScope {
    int loop_depth;
    bool broken;
  };
  std::vector<SwitchScope> switches_;
  std::map<ast::FuncDecl*, std::vector<std::pair<ast::FuncDecl*, source::SourceRange>>> calls_;
  const EntryRequest* entry_request_ = nullptr;  ///< -entry/-stage; null: [shader] only
  std::unordered_set<const ast::FuncDecl*> deferred_bodies_;
  /// Names of free functions with signatures DeferSignature left unchecked.
  std::unordered_set<std::string> pending_signatures_;
  const ModuleMap* modules_ = nullptr;  ///< where declarations came from; null: one module
  /// Accessors: each getter's setter (if any), what the pair is called in messages.
  std::map<const ast::FuncDecl*, ast::FuncDecl*> setter_of_;
  struct AccessorPair {
    ast::FuncDecl* getter;
    ast::FuncDecl* setter;
    std::string what;  ///< "property 'x'" / "'__subscript'"
  };
  std::vector<AccessorPair> accessor_pairs_;
  std::set<const ast::Expr*> accessor_reads_;  ///< getter calls standing for an accessor
  std::map<const ast::Decl*, const Type*> struct_types_;  ///< struct declaration -> its type
  std::vector<const Type*> struct_list_;                   ///< in source order

  /// What a declaration's members see: its generic parameters, `This` and member types.
  struct DeclContext {
    std::vector<const Type*> params;
    const Type* this_type = nullptr;
    std::vector<ast::Decl*> names;  ///< associated types and type aliases in scope
  };
  friend class ContextScope;
  std::map<const ast::Decl*, DeclContext> contexts_;
  std::map<const ast::Decl*, const Type*> generic_param_types_;  ///< GenericParamDecl -> type
  std::map<const ast::Decl*, InterfaceInfo*> interfaces_;
  std::vector<InterfaceInfo*> interface_list_;
  std::vector<ExtensionInfo*> extension_list_;
  const Type* idifferentiable_ = nullptr;  ///< cached by DifferentiableInterface()
  const Type* idifferentiable_ptr_ = nullptr;  ///< cached by DifferentiablePtrInterface()
  const Type* this_type_ = nullptr;  ///< `This` where it is in scope
  bool headers_resolved_ = false;    ///< constraints of generic types can be checked

  /// A namespace: its members by name and its function overload sets.
  struct NamespaceInfo {
    std::string path;  ///< "geo::inner"
    NamespaceInfo* parent = nullptr;
    ast::Decl* first = nullptr;  ///< the first declaration (namespaces may be reopened)
    std::unordered_map<std::string, ast::Decl*> members;
    std::map<std::string, std::vector<ast::FuncDecl*>> functions;
    std::vector<const NamespaceInfo*> used;  ///< `using` inside it, in order
  };
  /// The namespaces `using` at file scope names.
  std::vector<const NamespaceInfo*> global_used_;
  /// `using` declarations and the namespace holding each (null: file scope).
  std::vector<std::pair<ast::Decl*, NamespaceInfo*>> using_list_;
  /// Resolves the namespaces named by `using` declarations (once all are declared).
  void ResolveUsings();
  /// `name` among the members of the namespaces in `used`; when several declare it,
  /// the first two are recorded in `ambiguity_`.
  ast::Decl* LookupInUsed(const std::vector<const NamespaceInfo*>& used,
                          const std::string& name) const;
  /// Set by the last Lookup when it found `name` in two namespaces made visible by
  /// `using` (empty name otherwise).
  struct Ambiguity {
    std::string name;
    const NamespaceInfo* first_ns = nullptr;
    ast::Decl* first = nullptr;
    const NamespaceInfo* second_ns = nullptr;
    ast::Decl* second = nullptr;
  };
  mutable Ambiguity ambiguity_;
 public:
  /// Reports when the last Lookup of `name` was ambiguous between used namespaces.
  bool ReportAmbiguousLookup(const std::string& name, source::SourceRange range);
 private:
  friend class NamespaceScope;
  /// The namespace whose declaration is being checked; lookups see its members (and its
  /// parents') before the global scope.
  const NamespaceInfo* current_ns_ = nullptr;
  std::vector<std::unique_ptr<NamespaceInfo>> namespace_list_;
  /// The namespace declaring the struct or enum `t`; null for a global or built-in type.
  const NamespaceInfo* TypeNamespace(const Type* t) const;
  std::map<const ast::Decl*, NamespaceInfo*> namespaces_;  ///< namespace decl -> info
  std::map<const ast::Decl*, NamespaceInfo*> decl_ns_;     ///< member decl -> its namespace
  std::map<const ast::Decl*, const Type*> enum_types_;     ///< enum decl -> its type
  std::map<const ast::Decl*, const Type*> case_enums_;     ///< enumerator -> its enum
  std::vector<ast::Decl*> alias_list_;                     ///< type aliases, in order
  std::vector<const Type*> enum_list_;                     ///< enums, in order
  /// Core-library declarations marked `[__yield_to_user]` that no user declaration hid.
  std::map<std::string, ast::Decl*> core_yielding_;
  /// While a global's type is resolved: a one-dimensional array of buffers is allowed.
  bool buffer_arrays_ok_ = false;
  std::map<const ast::Decl*, int> alias_state_;            ///< 1 resolving, 2 done
  /// `out` parameters of the function being checked and whether they were written.
  std::map<const ast::VarDecl*, bool> out_written_;
  /// A lambda whose body is being checked (innermost last): the scopes from
  /// `scope_base` on are its own; names found below are captured.
  struct LambdaScope {
    size_t scope_base = 0;
    const Type* type = nullptr;
    ast::FuncDecl* method = nullptr;
    ast::FuncDecl* enclosing = nullptr;     ///< the function the lambda is written in
    std::vector<ast::VarDecl*> captured;    ///< outer variables, one per field
  };
  std::vector<LambdaScope> lambdas_;
  /// For the lambda argument being checked: the parameter types the callee's
  /// `IFunc<R, P...>` constraint gives its untyped parameters (`(x) => x + 1`).
  std::vector<const Type*> lambda_param_hint_;
  /// The parameter types a call's callee expects of the lambda argument `index`
  /// through an `IFunc`-like constraint; empty when it does not say.
  /// `apply(myCondition, x)` where the callee takes an `IFunc<R, P...>` there: a lambda
  /// `(p0, ...) => myCondition(p0, ...)` that calls the function; else `arg` itself.
  ast::Expr* FunctionAsLambda(ast::CallExpr* call, size_t index, ast::Expr* arg);
  std::vector<const Type*> LambdaParamHint(ast::CallExpr* call, size_t index, size_t arity);
  /// `this.x` expressions standing for a captured `x`, and the variable captured.
  std::map<const ast::Expr*, const ast::VarDecl*> capture_refs_;
  std::map<std::string, int> lambda_names_;  ///< lambdas per synthesized name
  CheckedModule* checked_out_ = nullptr;  ///< where lambda methods are listed
  /// Looks `name` up in the current namespace and its parents.
  ast::Decl* LookupInNamespaces(const std::string& name) const;
  /// Resolves type alias `decl` (on demand, so that aliases may refer to later ones).
  const Type* ResolveAlias(ast::TypeAliasDecl* decl);
  /// Evaluates the values of enum `type`'s cases (on demand).
  void EvaluateEnum(const Type* type);
  /// The namespace an expression such as `geo` or `geo::inner` names, or null.
  NamespaceInfo* NamespaceOf(const ast::Expr* e);
  /// A literal of enum type for case `index` of `type`.
  ast::Expr* EnumCaseValue(const Type* type, int index, source::SourceRange range);
};

/// Makes the namespace holding `decl` current for its lifetime (a no-op for a
/// declaration outside namespaces).
class NamespaceScope {
 public:
  NamespaceScope(Checker& c, const ast::Decl* decl);
  ~NamespaceScope();
  NamespaceScope(const NamespaceScope&) = delete;
  NamespaceScope& operator=(const NamespaceScope&) = delete;

 private:
  Checker& c_;
  const Checker::NamespaceInfo* saved_;
};

/// Makes the generic parameters, `This` and member types of a declaration visible for
/// its lifetime (a no-op for a declaration without context).
class ContextScope {
 public:
  ContextScope(Checker& c, const ast::Decl* decl);
  ~ContextScope();
  ContextScope(const ContextScope&) = delete;
  ContextScope& operator=(const ContextScope&) = delete;

 private:
  Checker& c_;
  const Type* saved_this_;
};

}  // namespace slope::sema
