#pragma once
// Semantic types. Types are interned by a TypeContext: two equal types are the same
// pointer, so comparing types is comparing pointers.

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

namespace slope::ast {
struct AggregateDecl;
struct AssociatedTypeDecl;
struct Decl;
struct FuncDecl;
struct GenericParamDecl;
struct VarDecl;
struct EnumDecl;
struct EnumCaseDecl;
}  // namespace slope::ast

namespace slope::sema {

class Type;

/// A substitution of generic parameters (GenericParam types) by other types.
using Subst = std::map<const Type*, const Type*>;

/// What sema knows of a user-defined struct: its fields in declaration order (each
/// VarDecl's `type` is set once the struct is checked), its constructors and methods.
/// A generic struct's members are typed in terms of `params`; the type `S<float>` is
/// the struct applied to arguments, and its members are found by substitution.
struct StructInfo {
  ast::AggregateDecl* decl = nullptr;
  std::string name;
  std::vector<const Type*> params;      ///< generic parameters (GenericParam types)
  std::vector<const Type*> bases;       ///< declared conformances (Interface types)
  std::vector<ast::VarDecl*> fields;
  std::vector<ast::FuncDecl*> inits;    ///< `__init` constructors
  std::vector<ast::FuncDecl*> methods;  ///< instance and static methods, in source order
  std::vector<ast::Decl*> type_members; ///< `typealias` members (associated type witnesses)
  std::vector<ast::VarDecl*> constants; ///< `static const` members
  const Type* self = nullptr;           ///< the struct applied to its own parameters
  bool checked = false;                 ///< field types resolved
  /// `struct D : B`: fields[0] is the inherited struct B, named kBaseFieldName; D's own
  /// fields follow. Members not found in D are looked up in B (sema/check_inherit.cpp).
  bool has_base = false;
  /// For a differentiable struct whose Differential is another struct: per field, the
  /// index of the Differential's field holding its derivative, or -1 (`no_diff`, or a
  /// type without derivative). Empty otherwise.
  std::vector<int> derivative_members;

  /// The index of field `name`, or -1.
  int FieldIndex(const std::string& field_name) const;
};

/// The field of a struct that holds the struct it inherits from; no source names it.
inline constexpr const char* kBaseFieldName = "$base";

/// A generic parameter `T : IFoo` (or the `This` of an interface, or the hidden
/// parameter that stands for the concrete type behind an interface-typed parameter).
struct GenericParamInfo {
  ast::GenericParamDecl* decl = nullptr;  ///< null for `This`
  std::string name;
  std::vector<const Type*> constraints;   ///< Interface types it conforms to
  /// `where optional T : IFoo`: interfaces it may conform to. Code uses one only inside
  /// `if (T is IFoo)` or `if (let v = t as IFoo)`, whose branch then sees it among
  /// `constraints`; the branch is compiled only for specializations that conform.
  std::vector<const Type*> optional_constraints;
  /// `where T.Assoc : IFoo`: an associated type of the parameter and an interface.
  std::vector<std::pair<const ast::AssociatedTypeDecl*, const Type*>> assoc_constraints;
  /// `where T.Assoc == float`: T.Assoc is that type wherever T is in scope (AssocOf).
  std::map<const ast::AssociatedTypeDecl*, const Type*> assoc_equalities;
  const Type* value_type = nullptr;       ///< `let N : int`: the value's type (int or uint)
  bool is_pack = false;                   ///< `each T`: a pack of types
  /// `T = float`, `let N : int = 4`: the argument when none is given or inferred; it
  /// may mention earlier parameters of the same list.
  const Type* default_arg = nullptr;
};

/// An interface: its requirements, in terms of its generic parameters and `This`.
struct InterfaceInfo {
  ast::AggregateDecl* decl = nullptr;
  std::string name;
  std::vector<const Type*> params;               ///< generic parameters
  std::vector<const Type*> bases;                ///< inherited interfaces
  std::vector<ast::FuncDecl*> methods;           ///< method requirements
  std::vector<ast::AssociatedTypeDecl*> assocs;  ///< associated type requirements
  std::map<const ast::AssociatedTypeDecl*, std::vector<const Type*>> assoc_constraints;
  const Type* this_type = nullptr;               ///< `This`, a GenericParam
  /// Operators generic code may use on a conforming type: 'a' arithmetic, 'c'
  /// comparison, 'i' integer bit operations, 'f' floating-point built-ins, 'l' logic.
  std::string capabilities;
  /// `[anyValueSize(N)]`: the bytes of payload an interface-typed value stored in memory
  /// holds; -1 when the interface has none.
  int64_t any_value_size = -1;
  /// With anyValueSize: the program's non-generic types that conform, in declaration
  /// order; a type's conformance id (the id a stored value names it by) is its index.
  std::vector<const Type*> dynamic_types;
  std::vector<uint32_t> dynamic_payload_bytes;  ///< per dynamic type, the bytes it takes
};

/// An extension: methods and conformances added to every type matching `target`.
struct ExtensionInfo {
  ast::AggregateDecl* decl = nullptr;
  std::vector<const Type*> params;       ///< the extension's own generic parameters
  const Type* target = nullptr;          ///< a pattern over `params`
  std::vector<const Type*> bases;        ///< conformances added
  std::vector<ast::FuncDecl*> methods;   ///< includes `__init`s
  std::vector<ast::Decl*> type_members;  ///< `typealias` members
};

/// An enum: its cases and their values (set once sema has evaluated them).
struct EnumInfo {
  ast::EnumDecl* decl = nullptr;
  std::string name;                     ///< as written in messages ("geo::Mode")
  bool is_class = false;                ///< `enum class`: cases only by qualified name
  std::vector<ast::EnumCaseDecl*> cases;
  std::vector<int64_t> values;          ///< one per case, in the underlying type
  bool evaluated = false;
  bool evaluating = false;

  /// The index of case `case_name`, or -1.
  int CaseIndex(const std::string& case_name) const;
};

/// The operators of a generic value expression (TypeKind::IntExpr).
enum class IntOp : uint8_t {
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
  // One operand:
  Neg,
  BitNot,
  Not,
  Convert,  ///< a conversion of the operand to Element()
  // Three operands:
  Select,  ///< `c ? a : b`
};

enum class TypeKind : uint8_t {
  Error,  ///< the type of an expression that already produced an error
  Void,
  Bool,
  Int,           ///< signed integer of Width() bits (8, 16, 32 or 64)
  UInt,          ///< unsigned integer of Width() bits (8, 16, 32 or 64)
  Float,         ///< IEEE floating point of Width() bits (16, 32 or 64)
  Vector,        ///< 2..4 elements of a scalar type
  Buffer,        ///< StructuredBuffer<T> / RWStructuredBuffer<T>
  Struct,        ///< a user-defined struct; Info() describes it, Args() its generic arguments
  GenericParam,  ///< a generic parameter; Generic() describes it
  Interface,     ///< an interface applied to Args(); Iface() describes it
  AssocType,     ///< Base().Assoc(): an associated type of a type not yet known
  IntValue,      ///< a generic value argument: the integer Value()
  /// A generic value expression known once its parameters are (`N * 2`, `M > 4 ? M : 4`):
  /// IntOperator() applied to Args() (IntValues, value parameters or other IntExprs),
  /// computed in the integer type Element(). It is always dependent: once every operand
  /// is an IntValue, TypeContext::IntExpr computes the IntValue instead.
  IntExpr,
  Enum,     ///< a user-defined enum; Enumeration() describes it, Element() is its
            ///< underlying integer type
  Array,    ///< `T[N]`: Count() elements of Element()
  Matrix,   ///< `floatRxC`: Rows() rows (Count()) of Cols() elements of scalar Element()
  Texture,  ///< `Texture2D<T>`, `RWTexture2DArray<T>`, ...: texels Element(),
            ///< TextureDim() and IsTextureArray(); IsWritable() for RW textures;
            ///< also the typed buffers `Buffer<T>` and `RWBuffer<T>` (IsTypedBuffer)
  Sampler,  ///< SamplerState, or SamplerComparisonState (IsComparisonSampler())
  Pointer,  ///< `T*` / `Ptr<T>`: an address in device memory of an Element()
  /// Variadic generics: a pack of types. Concrete, `(int, float)`: Args() are the
  /// elements. Abstract, `expand P`: PackPattern() is P, a type naming the pack
  /// parameters Args() (`each T` is T itself inside P); it becomes concrete once they are.
  Pack,
  /// The type of an initializer list passed as a call argument before overload
  /// resolution gives it the parameter's type (`f({1, 2})`); no value has it after sema.
  InitList,
};

class Type {
 public:
  TypeKind Kind() const { return kind_; }
  /// Vector or buffer element type; null otherwise.
  const Type* Element() const { return element_; }
  /// Number of vector elements (1 for scalars).
  uint32_t Count() const { return count_; }
  /// For buffers: RWStructuredBuffer.
  bool IsWritable() const { return writable_; }
  /// Bits of an Int, UInt or Float scalar (32 for `int`, 16 for `half`); 0 otherwise
  /// (a matrix keeps its column count there: use Cols()).
  uint32_t Width() const { return IsMatrix() || IsTexture() ? 0 : width_; }
  /// For textures: 1, 2, 3 (the coordinate's components), 4 for a cube (a 3D direction),
  /// or kTypedBufferDim for a typed buffer.
  uint32_t TextureDim() const { return IsTexture() ? width_ >> 1 : 0; }
  /// `Buffer<T>` / `RWBuffer<T>`: a texture of one axis without mip levels, whose texels
  /// are the elements of a buffer (a texel buffer).
  bool IsTypedBuffer() const { return TextureDim() == kTypedBufferDim; }
  static constexpr uint32_t kTypedBufferDim = 5;
  /// For textures: an array of layers (`Texture2DArray`), the layer last in coordinates.
  bool IsTextureArray() const { return IsTexture() && (width_ & 1) != 0; }
  /// For textures: a combined texture and sampler (`Sampler2D<T>`), sampled without a
  /// SamplerState argument.
  bool IsCombinedSampler() const { return IsTexture() && count_ >= 2; }
  /// For textures: a combined texture and comparison sampler (`Sampler2DShadow`), of
  /// float depth values, sampled only by comparison with a reference.
  bool IsShadowSampler() const { return IsTexture() && count_ == 3; }
  /// For samplers: SamplerComparisonState.
  bool IsComparisonSampler() const { return kind_ == TypeKind::Sampler && writable_; }

  bool IsError() const { return kind_ == TypeKind::Error; }
  bool IsVoid() const { return kind_ == TypeKind::Void; }
  bool IsScalar() const {
    return kind_ == TypeKind::Bool || kind_ == TypeKind::Int || kind_ == TypeKind::UInt ||
           kind_ == TypeKind::Float;
  }
  bool IsVector() const { return kind_ == TypeKind::Vector; }
  bool IsBuffer() const { return kind_ == TypeKind::Buffer; }
  /// ByteAddressBuffer / RWByteAddressBuffer: a buffer of `uint` words addressed in bytes
  /// through its methods (Load, Store, Interlocked*), never indexed.
  bool IsByteAddressBuffer() const { return kind_ == TypeKind::Buffer && count_ == 0; }
  /// `AppendStructuredBuffer<T>` / `ConsumeStructuredBuffer<T>`: a writable buffer of T
  /// with a hidden counter, used through Append / Consume only.
  bool IsAppendBuffer() const { return kind_ == TypeKind::Buffer && count_ == 2; }
  bool IsConsumeBuffer() const { return kind_ == TypeKind::Buffer && count_ == 3; }
  bool IsCounterBuffer() const { return kind_ == TypeKind::Buffer && count_ >= 2; }
  bool IsTexture() const { return kind_ == TypeKind::Texture; }
  bool IsSampler() const { return kind_ == TypeKind::Sampler; }
  /// A buffer, texture or sampler: bound through a descriptor, never held in memory.
  bool IsResource() const { return IsBuffer() || IsTexture() || IsSampler(); }
  bool IsStruct() const { return kind_ == TypeKind::Struct; }
  /// `T*` (`Ptr<T>`): a 64-bit address of a T in device (global) memory.
  bool IsPointer() const { return kind_ == TypeKind::Pointer; }
  /// A pack of types (variadic generics): concrete when PackPattern() is null.
  bool IsPack() const { return kind_ == TypeKind::Pack; }
  /// `expand P`: the pattern P; null for a concrete pack.
  const Type* PackPattern() const { return IsPack() ? element_ : nullptr; }
  /// `each T`: a generic parameter standing for a pack of types.
  bool IsPackParam() const;
  bool IsEnum() const { return kind_ == TypeKind::Enum; }
  bool IsArray() const { return kind_ == TypeKind::Array; }
  bool IsMatrix() const { return kind_ == TypeKind::Matrix; }
  /// Matrix rows (m[i] is row i, a Cols()-vector); 1 otherwise.
  uint32_t Rows() const { return IsMatrix() ? count_ : 1; }
  /// Matrix columns; 1 otherwise.
  uint32_t Cols() const { return IsMatrix() ? width_ : 1; }
  /// Scalar components: 1 for a scalar, the length of a vector, rows * columns of a
  /// matrix.
  uint32_t Components() const { return IsMatrix() ? count_ * width_ : count_; }
  /// A dependent matrix (`matrix<T, R, C>` with a generic parameter): its R and C, each a
  /// value parameter or an IntValue; null otherwise.
  const Type* RowsParam() const { return IsMatrix() && !args_.empty() ? args_[0] : nullptr; }
  const Type* ColsParam() const { return IsMatrix() && !args_.empty() ? args_[1] : nullptr; }
  /// For enums: the declaration's facts; null otherwise.
  EnumInfo* Enumeration() const { return enum_; }
  bool IsGenericParam() const { return kind_ == TypeKind::GenericParam; }
  bool IsInterface() const { return kind_ == TypeKind::Interface; }
  /// For structs: the declaration's facts; null otherwise.
  StructInfo* Info() const { return info_; }
  GenericParamInfo* Generic() const { return generic_; }
  InterfaceInfo* Iface() const { return iface_; }
  /// For AssocType: the associated type and the type it belongs to.
  const ast::AssociatedTypeDecl* Assoc() const { return assoc_; }
  const Type* Base() const { return element_; }
  /// Generic arguments of a struct or interface.
  const std::vector<const Type*>& Args() const { return args_; }
  /// IntValue: the integer.
  int64_t Value() const { return value_; }
  /// IntExpr: its operator.
  IntOp IntOperator() const { return static_cast<IntOp>(count_); }
  /// IntExpr: the operations it holds, shared operands counted at each use; 1 otherwise.
  int64_t IntExprSize() const { return kind_ == TypeKind::IntExpr ? value_ : 1; }
  /// A generic value argument: an IntValue, a value parameter or an IntExpr.
  bool IsIntValueLike() const {
    return kind_ == TypeKind::IntValue || kind_ == TypeKind::IntExpr ||
           (kind_ == TypeKind::GenericParam && generic_->value_type != nullptr);
  }
  /// Array whose length is a generic value parameter or expression (an IntExpr): that
  /// length; null otherwise.
  /// Dependent vector (`vector<T, N>`): its N, a value parameter or an IntValue.
  const Type* LengthParam() const {
    return (kind_ == TypeKind::Array || kind_ == TypeKind::Vector) && !args_.empty() ? args_[0]
                                                                                     : nullptr;
  }
  /// Whether the type mentions a generic parameter (it is known only once specialized).
  bool IsDependent() const { return dependent_; }
  /// Scalar, vector or matrix: the types arithmetic works on.
  bool IsNumericLike() const { return IsScalar() || IsVector() || IsMatrix(); }
  /// The scalar type of a scalar, vector or matrix.
  const Type* ScalarType() const { return IsVector() || IsMatrix() ? element_ : this; }

  /// How the type is written in source: "float3", "RWStructuredBuffer<uint>".
  std::string Name() const;

 private:
  friend class TypeContext;
  Type(TypeKind kind, const Type* element, uint32_t count, bool writable, uint32_t width = 0)
      : element_(element), count_(count), width_(width), kind_(kind), writable_(writable) {}

  // Largest first, with no padding between: a module may make 10^5 types or more.
  StructInfo* info_ = nullptr;
  EnumInfo* enum_ = nullptr;
  GenericParamInfo* generic_ = nullptr;
  InterfaceInfo* iface_ = nullptr;
  const ast::AssociatedTypeDecl* assoc_ = nullptr;
  const Type* element_;
  int64_t value_ = 0;
  std::vector<const Type*> args_;
  uint32_t count_;
  uint32_t width_;
  TypeKind kind_;
  bool writable_;
  bool dependent_ = false;
};

/// The core library's `Atomic<T>`: a struct whose only field is `__value` (names that
/// start with two underscores are the implementation's). Lowered as T itself; its
/// operators are rewritten to atomic calls on that field.
bool IsCoreAtomic(const Type* t);

/// Interns every type of a compile session.
class TypeContext {
 public:
  /// The core library's IDifferentiable, once sema has declared it: fixed arrays of a
  /// type that conforms to it conform too, with `Differential` the element's, per element.
  void SetDifferentiableInterface(const Type* iface) { differentiable_ = iface; }
  /// The core library's IDefaultInitializable: as Slang's initialization rules say, the
  /// built-in numbers, vectors and matrices conform, a sized array when its element does,
  /// and a struct with an `__init()` or whose fields all have a default value.
  void SetDefaultInitializableInterface(const Type* iface) { default_initializable_ = iface; }
  /// The core library's IDifferentiablePtrType and `DifferentialPtrPair<P>` (lowering
  /// marks the parameters of those types that derivatives take as pairs).
  void SetDifferentiablePtr(const Type* iface, const Type* pair) {
    differentiable_ptr_ = iface;
    ptr_pair_ = pair;
  }
  /// `DifferentialPtrPair<t>` when `t` conforms to IDifferentiablePtrType, else null.
  const Type* PtrPairOf(const Type* t);
  /// The core library's `__EnumType`, which every enum type conforms to.
  void SetEnumInterface(const Type* iface) { enum_interface_ = iface; }
  bool DefaultInitializable(const Type* t);
  TypeContext();

  const Type* Error() const { return error_; }
  /// The type of a call argument `{...}` until overload resolution picks its type.
  const Type* InitList() const { return init_list_; }
  const Type* Void() const { return void_; }
  const Type* Bool() const { return bool_; }
  const Type* Int() const { return int_; }
  const Type* UInt() const { return uint_; }
  const Type* Float() const { return float_; }
  const Type* Half() const { return half_; }
  const Type* Double() const { return double_; }
  /// The Int, UInt or Float scalar of `width` bits (an integer width of 8, 16, 32 or 64;
  /// a float width of 16, 32 or 64).
  const Type* Scalar(TypeKind kind, uint32_t width);
  /// vector<element, count>; count 1 gives the scalar itself.
  const Type* Vector(const Type* element, uint32_t count);
  const Type* Buffer(const Type* element, bool writable);
  /// ByteAddressBuffer (writable: RWByteAddressBuffer); its element is `uint`.
  const Type* ByteAddressBuffer(bool writable);
  /// `AppendStructuredBuffer<T>` (or, with `consume`, `ConsumeStructuredBuffer<T>`).
  const Type* CounterBuffer(const Type* element, bool consume);
  /// A texture of texels `element` (a 32-bit scalar or vector): `dim` 1, 2, 3 or 4 (cube).
  const Type* Texture(const Type* element, uint32_t dim, bool arrayed, bool writable,
                      bool combined = false, bool shadow = false);
  /// SamplerState, or SamplerComparisonState.
  const Type* Sampler(bool comparison);
  /// `pointee*`: a pointer into device memory (`void*` is the type of `nullptr`).
  const Type* Pointer(const Type* pointee);
  /// The concrete pack `(elements...)`.
  const Type* TypePack(const std::vector<const Type*>& elements);
  /// `expand pattern`, over the pack parameters `captures` that `pattern` names.
  const Type* ExpandPack(const Type* pattern, const std::vector<const Type*>& captures);
  /// A new struct declaration described by `info` (structs are nominal: one type per
  /// declaration and argument list); returns the struct applied to its own parameters.
  const Type* Struct(std::unique_ptr<StructInfo> info);
  /// A new enum type described by `info`, represented as `underlying`.
  const Type* Enum(std::unique_ptr<EnumInfo> info, const Type* underlying);
  /// `element[count]`.
  const Type* Array(const Type* element, uint32_t count);
  /// Struct `info` applied to `args`.
  const Type* StructOf(StructInfo* info, const std::vector<const Type*>& args);
  /// A new generic parameter.
  const Type* GenericParam(std::unique_ptr<GenericParamInfo> info);
  /// A new interface declaration; returns the interface applied to its own parameters.
  InterfaceInfo* NewInterface(std::unique_ptr<InterfaceInfo> info);
  const Type* InterfaceOf(InterfaceInfo* info, const std::vector<const Type*>& args);
  /// A generic value argument.
  const Type* IntValue(int64_t value);
  /// The generic value expression `op` over `operands`, in the integer (or bool) type
  /// `type`: an IntValue when every operand is one (a division by zero or a shift out of
  /// range gives 0), else an IntExpr.
  const Type* IntExpr(IntOp op, const Type* type, const std::vector<const Type*>& operands);
  /// `T[N]` where N is a generic value parameter (a GenericParam type) or an IntExpr.
  const Type* ArrayOfParam(const Type* element, const Type* length);
  /// `vector<T, N>` where T or N is a generic parameter (N an IntValue or a value
  /// parameter): a Vector whose Element() is T and whose LengthParam() is N.
  const Type* DependentVector(const Type* element, const Type* length);
  /// `matrix<element, rows, cols>`: element a scalar, rows and cols from 1 to 4 (sema
  /// reports the 1xN and Nx1 shapes, which have no target form).
  const Type* Matrix(const Type* element, uint32_t rows, uint32_t cols);
  /// `matrix<T, R, C>` where T, R or C is a generic parameter (R and C IntValues or value
  /// parameters).
  const Type* DependentMatrix(const Type* element, const Type* rows, const Type* cols);
  /// The row type of matrix `m` (a vector, dependent when `m` is).
  const Type* RowOf(const Type* m);
  /// `base.Assoc` where `base` is not known yet.
  /// A generic parameter constrained to IFloat is its own `Differential` (every
  /// floating-point type is), so `T.Differential` is `T` there.
  const Type* AssocOf(const Type* base, const ast::AssociatedTypeDecl* assoc);
  ExtensionInfo* NewExtension(std::unique_ptr<ExtensionInfo> info);
  const std::vector<std::unique_ptr<ExtensionInfo>>& Extensions() const { return extensions_; }

  // Generics (generics.cpp).
  /// `t` with the parameters of `subst` replaced; associated types of types that become
  /// known are resolved through their conformances.
  const Type* Substitute(const Type* t, const Subst& subst);
  /// Matches `pattern` (over the parameters `params`) against `t`, extending `bindings`.
  bool Unify(const Type* pattern, const Type* t, const std::vector<const Type*>& params,
             Subst* bindings);
  /// The interfaces `t` conforms to directly or through extensions (arguments
  /// substituted), without the interfaces those inherit.
  std::vector<const Type*> DirectConformances(const Type* t, bool with_extensions = true);
  /// Whether `t` conforms to interface type `iface` (through inheritance as well).
  bool Conforms(const Type* t, const Type* iface);
  /// The substitution that describes a struct type's arguments.
  Subst StructSubst(const Type* struct_type) const;
  /// The type of field `index` of struct type `t`.
  const Type* FieldType(const Type* t, size_t index);
  /// Whether `t` is the core library's `Conditional<T, hasValue>` (any arguments).
  static bool IsCoreConditional(const Type* t);
  /// Whether field `index` of the concrete struct type `t` takes no storage: the value
  /// of a `Conditional<T, false>`, or a field whose type takes none. Lowering leaves such
  /// fields out of the struct; reads give a zero value and writes do nothing.
  bool FieldIsAbsent(const Type* t, size_t index);
  /// Whether a value of `t` takes no storage: `Conditional<T, false>`, or a struct with
  /// fields none of which takes any (an empty struct written as such takes storage).
  bool TakesNoStorage(const Type* t);
  /// `sizeof(t)` and `alignof(t)` in Slang's natural layout: a scalar aligned to its
  /// size (`bool` is 1 byte, a pointer 8), a vector, matrix or array to its element, a
  /// struct to its most aligned field, each part at the next multiple of its alignment
  /// and no padding after the last. Null when known; otherwise the part that has no
  /// layout (a resource, an interface, an unsized array, or a type still generic).
  const Type* NaturalLayout(const Type* t, int64_t* size, int64_t* align);
  /// The extensions that apply to `t`, each with the bindings of its parameters. The
  /// answer is remembered until ExtensionsChanged().
  const std::vector<std::pair<ExtensionInfo*, Subst>>& ExtensionsOf(const Type* t);
  /// Forgets remembered ExtensionsOf answers: an extension was added or its target set.
  void ExtensionsChanged() { extensions_of_.clear(); }
  /// For a concrete `t`: the type it gives for `assoc` (a typealias or nested type in
  /// the struct or an extension), or null.
  const Type* ResolveAssoc(const Type* t, const ast::AssociatedTypeDecl* assoc);
  /// The `Differential` an extension of struct `t` declares by hand, for the bindings of
  /// the first extension whose constraints `t` meets that declares one
  /// (`extension<A : IDifferentiable> S<A> : IDifferentiable { typealias Differential =
  /// S<A.Differential>; }`); null when none does.
  const Type* ExtensionDifferential(const Type* t);
  /// Whether `iface` is `target` or inherits it (arguments substituted).
  bool Inherits(const Type* iface, const Type* target);
  /// Capabilities ('a', 'c', 'i', 'f', 'l') of a dependent type through its constraints.
  std::string CapabilitiesOf(const Type* t);
  /// The generic context of method `f` (declared in a struct or extension) when called
  /// on a value or type `owner`: the bindings of the struct's or extension's parameters.
  bool MethodContext(const ast::FuncDecl* f, const Type* owner, Subst* context);
  /// The implementation of requirement `req` of interface `iface` for `self` (a method of
  /// the struct, of an extension, or a default in an extension of the interface), with
  /// its context; null when there is none. `*near` (optional) gets a method with the
  /// requirement's name but another signature.
  const ast::FuncDecl* FindWitness(const Type* self, const ast::FuncDecl* req, const Type* iface,
                                   Subst* context, const ast::FuncDecl** near = nullptr);
  /// Maps the requirements of `iface` to what they mean for `self`.
  Subst RequirementSubst(const Type* iface, const Type* self) const;
  /// Resolves a type alias member's target type (set by sema when it checks one).
  std::map<const ast::Decl*, const Type*>& AliasTypes() { return alias_types_; }
  /// Records that `assoc` is a requirement of interface `owner`.
  void SetAssocOwner(const ast::AssociatedTypeDecl* assoc, InterfaceInfo* owner) {
    assoc_owners_[assoc] = owner;
  }
  /// A scalar or vector with the scalar of `shape_of` replaced by `scalar`.
  const Type* WithScalar(const Type* shape_of, const Type* scalar);

 private:
  const Type* Make(TypeKind kind, const Type* element, uint32_t count, bool writable,
                   uint32_t width = 0);
  /// Substitute and Unify for packs (`expand P` and `(A, B)`).
  const Type* SubstitutePack(const Type* t, const Subst& subst);
  bool UnifyPack(const Type* pattern, const Type* t, const std::vector<const Type*>& params,
                 Subst* bindings);
  /// Unify for a generic value expression `pattern` (int_exprs.cpp).
  bool UnifyIntExpr(const Type* pattern, const Type* t, const std::vector<const Type*>& params,
                    Subst* bindings);

  std::map<std::tuple<TypeKind, const Type*, uint32_t, bool, uint32_t>, std::unique_ptr<Type>>
      types_;
  /// Struct, interface and associated types by (kind, declaration facts, base, arguments).
  std::map<std::tuple<TypeKind, const void*, const Type*, std::vector<const Type*>>,
           std::unique_ptr<Type>>
      applied_;
  /// Types that are not interned by their parts (generic parameters, integer values).
  std::vector<std::unique_ptr<Type>> unique_types_;
  std::vector<std::unique_ptr<StructInfo>> struct_infos_;
  std::vector<std::unique_ptr<EnumInfo>> enum_infos_;
  std::vector<std::unique_ptr<Type>> enums_;
  std::vector<std::unique_ptr<GenericParamInfo>> generic_infos_;
  std::vector<std::unique_ptr<InterfaceInfo>> interface_infos_;
  std::vector<std::unique_ptr<ExtensionInfo>> extensions_;
  /// ExtensionsOf answers by type (node-based, so answers stay put as others are added).
  std::unordered_map<const Type*, std::vector<std::pair<ExtensionInfo*, Subst>>> extensions_of_;
  /// Times a conformance query gave up at kMaxConformanceDepth; an answer computed while
  /// this grew may be incomplete and is not remembered.
  int depth_limit_hits_ = 0;
  std::deque<std::vector<std::pair<ExtensionInfo*, Subst>>> incomplete_extensions_of_;
  /// Blanket extensions (`extension<T : IA> T : IB`) whose constraints are being
  /// checked for a type: while one is, it does not apply to that type again, so such
  /// extensions cannot justify themselves or each other in a cycle.
  std::vector<std::pair<const ExtensionInfo*, const Type*>> blanket_in_progress_;
  std::map<const ast::Decl*, const Type*> alias_types_;
  std::map<const ast::AssociatedTypeDecl*, InterfaceInfo*> assoc_owners_;
  std::map<int64_t, const Type*> int_values_;
  std::map<std::tuple<IntOp, const Type*, std::vector<const Type*>>, std::unique_ptr<Type>>
      int_exprs_;
  int conformance_depth_ = 0;
  const Type* error_;
  const Type* init_list_;
  const Type* void_;
  const Type* bool_;
  const Type* int_;
  const Type* uint_;
  const Type* float_;
  const Type* half_;
  const Type* double_;
  const Type* differentiable_ = nullptr;  ///< see SetDifferentiableInterface
  const Type* differentiable_ptr_ = nullptr;     ///< see SetDifferentiablePtr
  const Type* ptr_pair_ = nullptr;               ///< see SetDifferentiablePtr
  const Type* default_initializable_ = nullptr;  ///< see SetDefaultInitializableInterface
  const Type* enum_interface_ = nullptr;         ///< see SetEnumInterface
};

}  // namespace slope::sema
