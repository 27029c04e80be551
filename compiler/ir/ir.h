#pragma once
// The Slope IR: a module of interned types and constants, global resources and
// functions in SSA form over basic blocks with block parameters. Control flow is
// structured: `if`, `loop` and `switch` terminators name their merge (and continue)
// blocks.
// Instruction kinds are declared once in insts.def.

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "compiler/source/source_manager.h"

namespace slope::ir {

// ---------------------------------------------------------------------------------------
// Types

enum class TypeKind : uint8_t {
  Void, Bool, Int, Float, Vector, Pointer, Buffer, Struct, Array, Matrix, Texture, Sampler
};

/// The shape of a texture: its coordinate has 1, 2 or 3 components (a cube's is a 3D
/// direction), plus the layer of an arrayed texture. kBuffer is a typed buffer
/// (`Buffer<T>`, `RWBuffer<T>`: a texel buffer): one integer coordinate, no mip levels,
/// no sampling; its operations are fetch (level 0), read, write and size.
enum class TextureDim : uint8_t { k1D = 1, k2D = 2, k3D = 3, kCube = 4, kBuffer = 5 };
/// Components of a texel coordinate of a texture of `dim`, before the layer (a cube's
/// direction has 3).
inline uint32_t TextureAxes(TextureDim dim) {
  return dim == TextureDim::kCube ? 3 : dim == TextureDim::kBuffer ? 1 : static_cast<uint32_t>(dim);
}

/// The texel format of a storage texture (`[format("rgba32f")]`), as SPIR-V names them;
/// Unknown for sampled textures. ImageFormatName gives the spelling.
enum class ImageFormat : uint8_t {
  Unknown, Rgba32f, Rgba16f, Rg32f, Rg16f, R32f, R16f, Rgba8, Rgba8Snorm, Rg8, R8,
  Rgba32i, Rgba16i, Rgba8i, Rg32i, R32i, Rgba32ui, Rgba16ui, Rgba8ui, Rg32ui, R32ui
};
/// "rgba32f", "r32ui", ... ("unknown" for Unknown).
const char* ImageFormatName(ImageFormat format);
/// The format spelled `name` (as `[format]` and `[[vk::image_format]]` take it), or false.
bool FindImageFormat(std::string_view name, ImageFormat* out);
/// Components of a texel of `format` (0 for Unknown).
uint32_t ImageFormatComponents(ImageFormat format);

/// The operation of a `texture` instruction, its imms[0]. Operand 0 is the texture (a
/// global once legalize-resources ran); coordinates carry the array layer last. The
/// operations are the ones CUDA's texture and surface objects also have, so a later CUDA
/// mapping is one call each (tex*Dlod, tex*DGrad, tex2Dgather, surf*Dread/write).
enum class TextureOp : uint8_t {
  Fetch,        ///< {tex, int coord, int lod}: a texel of a sampled texture, no filtering
  Read,         ///< {tex, int coord}: a texel of a storage texture
  Write,        ///< {tex, int coord, value}: stores a texel of a storage texture; no result
  SampleLevel,  ///< {tex, sampler, float coord, float lod}
  SampleGrad,   ///< {tex, sampler, float coord, ddx, ddy}
  Gather,       ///< {tex, sampler, float coord}; imms[1]: the component (0..3); a 4-vector
  SampleCmpLevelZero,  ///< {tex, comparison sampler, float coord, float reference}: a float
  Size,         ///< {tex} or {tex, lod} (sampled): uint or uint vector, layers last
  Levels,       ///< {tex}: the uint count of mip levels
  /// {tex, int coord, value} or, for CompareExchange, {tex, coord, comparator, value}:
  /// imms[1] is the ir::AtomicOp done in place on the 32-bit integer texel of a storage
  /// typed buffer (RWBuffer<int>, RWBuffer<uint>); the result is the texel before.
  Atomic,
};
/// "fetch", "read", "write", "sample_level", "sample_grad", "gather", "sample_cmp_lz",
/// "size", "levels", "atomic".
const char* TextureOpName(TextureOp op);
bool FindTextureOp(std::string_view name, TextureOp* out);

/// Where a pointer points. Workgroup memory (HLSL `groupshared`) is shared by the
/// invocations of one workgroup; its globals are pointers into it. Uniform (a uniform
/// buffer: `cbuffer`, `ConstantBuffer<T>`) and PushConstant (uniform entry-point
/// parameters) memory is read-only; its globals are pointers to a struct. Device pointers
/// (`ptr<device, T>`, the language's `T*`) are 64-bit addresses into device memory: values
/// that may be stored anywhere, moved by `ptr_offset` and converted by `ptr_cast`.
enum class AddressSpace : uint8_t {
  Function, StorageBuffer, Workgroup, Uniform, PushConstant, Private, Device
};
/// "function", "storage", "workgroup", "uniform", "push_constant", "private", "device": the
/// space as the text form writes it.
const char* AddressSpaceName(AddressSpace space);

/// How a matrix is laid out in buffer memory: each HLSL row contiguous (RowMajor) or
/// each column; Default takes the compile's `-matrix-layout-*` choice.
enum class MatrixLayout : uint8_t { Default, RowMajor, ColumnMajor };

class Type {
 public:
  TypeKind Kind() const { return kind_; }
  uint32_t Width() const { return width_; }        ///< bits, for Int and Float
  bool IsSigned() const { return is_signed_; }     ///< for Int
  /// Vector element, Pointer pointee, Buffer element; a Matrix's row (a vector).
  const Type* Element() const { return element_; }
  uint32_t Count() const { return count_; }        ///< Vector length, Matrix rows; 1 otherwise
  AddressSpace Space() const { return space_; }    ///< for Pointer
  bool IsWritable() const { return writable_; }    ///< for Buffer; a storage texture
  /// For Texture: its shape and whether it is arrayed; Element() is its texel type (a
  /// 32-bit scalar or vector). For Sampler: IsComparison().
  TextureDim Dim() const { return static_cast<TextureDim>(count_); }
  bool IsArrayed() const { return arrayed_; }
  /// For Texture: a combined texture and sampler (`Sampler2D<T>`), one binding that
  /// samples without a separate sampler operand.
  bool IsCombined() const { return kind_ == TypeKind::Texture && is_signed_; }
  /// For Sampler: SamplerComparisonState. For a combined Texture: a shadow one
  /// (`Sampler2DShadow`), whose sampler compares with a reference.
  bool IsComparison() const { return kind_ == TypeKind::Texture ? width_ != 0 : writable_; }
  /// For Struct: its name, member types and member names (in declaration order).
  const std::string& StructName() const { return struct_name_; }
  const std::vector<const Type*>& Members() const { return members_; }
  const std::vector<std::string>& MemberNames() const { return member_names_; }
  /// For Struct: the layout of matrix member `index` (a `row_major` / `column_major`
  /// field); Default when the field has none.
  MatrixLayout MemberMatrixLayout(size_t index) const {
    return index < member_layouts_.size() ? member_layouts_[index] : MatrixLayout::Default;
  }

  bool IsVoid() const { return kind_ == TypeKind::Void; }
  bool IsBool() const { return kind_ == TypeKind::Bool; }
  bool IsInt() const { return kind_ == TypeKind::Int; }
  bool IsFloat() const { return kind_ == TypeKind::Float; }
  bool IsVector() const { return kind_ == TypeKind::Vector; }
  bool IsPointer() const { return kind_ == TypeKind::Pointer; }
  /// A pointer into device memory (`ptr<device, T>`): a value of 64 bits.
  bool IsDevicePointer() const { return IsPointer() && space_ == AddressSpace::Device; }
  bool IsBuffer() const { return kind_ == TypeKind::Buffer; }
  /// Texture2D<T> (sampled) or RWTexture2D<T> (IsWritable: a storage texture), ...
  bool IsTexture() const { return kind_ == TypeKind::Texture; }
  /// A typed buffer (`Buffer<T>`, `RWBuffer<T>`): a Texture of Dim() kBuffer.
  bool IsTexelBuffer() const { return IsTexture() && Dim() == TextureDim::kBuffer; }
  /// SamplerState, or SamplerComparisonState (IsComparison).
  bool IsSampler() const { return kind_ == TypeKind::Sampler; }
  /// A buffer, texture or sampler: a handle bound through a descriptor, which SPIR-V
  /// needs traced to its global.
  bool IsResource() const { return IsBuffer() || IsTexture() || IsSampler(); }
  bool IsStruct() const { return kind_ == TypeKind::Struct; }
  /// A fixed-size array: Count() elements of Element().
  bool IsArray() const { return kind_ == TypeKind::Array; }
  /// A matrix of Count() rows, each a vector Element() of Cols() scalars; its composite
  /// elements (extract, insert, element_ptr) are the rows.
  bool IsMatrix() const { return kind_ == TypeKind::Matrix; }
  /// Columns of a matrix (its row vector's length).
  uint32_t Cols() const { return IsMatrix() ? element_->Count() : 1; }
  bool IsScalar() const { return IsBool() || IsInt() || IsFloat(); }
  /// The scalar of a scalar, vector or matrix type.
  const Type* Scalar() const {
    return IsVector() ? element_ : IsMatrix() ? element_->Element() : this;
  }

  /// Text form: "f32", "u32", "vec<f32, 3>", "mat<f32, 2, 3>" (2 rows, 3 columns),
  /// "ptr<function, i32>", "rwbuffer<f32>", "struct<S>", "texture2d<vec<f32, 4>>",
  /// "rwtexture2d_array<f32>", "texturecube<f32>", "sampled2d_shadow<f32>", "sampler",
  /// "sampler_cmp", "texturebuffer<f32>" (a typed buffer), "rwtexturebuffer<u32>".
  std::string Name() const;

 private:
  friend class TypeTable;
  Type() = default;
  TypeKind kind_ = TypeKind::Void;
  uint32_t width_ = 0;
  bool is_signed_ = false;
  const Type* element_ = nullptr;
  uint32_t count_ = 1;
  AddressSpace space_ = AddressSpace::Function;
  bool writable_ = false;
  bool arrayed_ = false;
  std::string struct_name_;
  std::vector<const Type*> members_;
  std::vector<std::string> member_names_;
  std::vector<MatrixLayout> member_layouts_;
};

/// Hash-conses types: equal types are the same pointer.
class TypeTable {
 public:
  const Type* Void();
  const Type* Bool();
  const Type* Int(uint32_t width, bool is_signed);
  const Type* Float(uint32_t width);
  const Type* Vector(const Type* element, uint32_t count);
  const Type* Pointer(AddressSpace space, const Type* pointee);
  const Type* Buffer(const Type* element, bool writable);
  /// A texture of texels `element`; `writable`: a storage texture.
  const Type* Texture(const Type* element, TextureDim dim, bool arrayed, bool writable,
                      bool combined = false, bool comparison = false);
  const Type* Sampler(bool comparison);
  /// `array<element, count>`.
  const Type* Array(const Type* element, uint32_t count);
  /// `mat<scalar, rows, cols>`: rows and cols from 2 to 4.
  const Type* Matrix(const Type* scalar, uint32_t rows, uint32_t cols);
  /// The struct named `name`, made on first use. Structs are nominal: a second request
  /// with the same name returns the first type (its members must be the same).
  const Type* Struct(const std::string& name, std::vector<const Type*> members,
                     std::vector<std::string> member_names);
  /// Sets the members of a struct made with none, whose members become known only
  /// later (an existential's tagged union grows as lowering meets conforming types);
  /// then moves it after its members in Structs().
  void DefineStruct(const Type* s, std::vector<const Type*> members,
                    std::vector<std::string> member_names);
  /// Sets the matrix layouts of a struct's members (one per member).
  void SetMemberMatrixLayouts(const Type* s, std::vector<MatrixLayout> layouts);
  /// The struct named `name`, or null.
  const Type* FindStruct(const std::string& name) const;
  /// Where struct `s` is declared in the source (lowering records it; unset for the
  /// structs lowering and passes make).
  void SetStructLoc(const Type* s, source::SourceLoc loc) { struct_locs_[s] = loc; }
  source::SourceLoc StructLoc(const Type* s) const {
    auto it = struct_locs_.find(s);
    return it == struct_locs_.end() ? source::SourceLoc() : it->second;
  }
  /// Every struct type, in creation order (members before the structs holding them).
  const std::vector<const Type*>& Structs() const { return struct_order_; }
  /// A scalar, vector or matrix type with the scalar replaced.
  const Type* WithScalar(const Type* shape_of, const Type* scalar);
  /// How the derivative of struct `s` is stored when not in the struct the members'
  /// differentials make (a `Differential` written by hand, or `no_diff` fields left
  /// out): in `differential`, member i's derivative in its member `members[i]` (-1: none).
  struct DifferentialLayout {
    const Type* differential = nullptr;
    std::vector<int> members;
  };
  void SetDifferential(const Type* s, DifferentialLayout layout) {
    differentials_[s] = std::move(layout);
  }
  /// The layout SetDifferential gave `s`, or null.
  const DifferentialLayout* FindDifferential(const Type* s) const {
    auto it = differentials_.find(s);
    return it == differentials_.end() ? nullptr : &it->second;
  }

 private:
  using Key =
      std::tuple<TypeKind, uint32_t, bool, const Type*, uint32_t, AddressSpace, bool, bool>;
  const Type* Get(const Key& key);
  std::map<Key, std::unique_ptr<Type>> types_;
  std::map<std::string, std::unique_ptr<Type>> structs_;
  std::vector<const Type*> struct_order_;
  std::map<const Type*, DifferentialLayout> differentials_;
  std::map<const Type*, source::SourceLoc> struct_locs_;
};

// ---------------------------------------------------------------------------------------
// Values

enum class Op : uint16_t {
#define INST(name, mnemonic, flags, rule, transpose) name,
#include "compiler/ir/insts.def"
#undef INST
};

enum class Intrinsic : uint16_t {
#define INTRINSIC(name, mnemonic, arity, sig, rule, transpose) name,
#include "compiler/ir/intrinsics.def"
#undef INTRINSIC
};
/// The number of intrinsics.
inline constexpr uint32_t kIntrinsicCount = 0
#define INTRINSIC(name, mnemonic, arity, sig, rule, transpose) +1
#include "compiler/ir/intrinsics.def"
#undef INTRINSIC
    ;
/// Which operand and result types an intrinsic takes (intrinsics.def describes each).
enum class IntrinsicSig : uint8_t {
  FloatSame, NumSame, IntSame, FloatScalar, FloatBool, NumInt, IntUInt, Refract, Bits,
  F32ToF16, F16ToF32, MatMul, Transpose, Determinant
};

/// The operation of an `atomic` instruction, its imms[0] (sync_ops.def).
enum class AtomicOp : uint8_t {
#define ATOMIC(name, mnemonic, values) name,
#include "compiler/ir/sync_ops.def"
#undef ATOMIC
};
/// The barrier of a `barrier` instruction, its imms[0] (sync_ops.def).
enum class BarrierKind : uint8_t {
#define BARRIER(name, mnemonic, memory, sync) name,
#include "compiler/ir/sync_ops.def"
#undef BARRIER
};
/// The operation of a `wave` instruction, its imms[0] (sync_ops.def).
enum class WaveOp : uint8_t {
#define WAVE(name, mnemonic, arity, sig, rule, transpose) name,
#include "compiler/ir/sync_ops.def"
#undef WAVE
};
/// Which memory a barrier orders.
enum class BarrierMemory : uint8_t { Group, Device, All };
/// Which operand and result types a wave operation takes (sync_ops.def describes each).
enum class WaveSig : uint8_t { None, NumSame, IntSame, Bool, Equal, CountBits, Ballot, ReadAt };
/// How forward mode differentiates a wave operation (sync_ops.def).
enum class WaveDiff : uint8_t { Linear, Zero, None };
/// How reverse mode transposes a Linear wave operation (sync_ops.def).
enum class WaveTranspose : uint8_t { Broadcast, SuffixSum, ToFirst, Scatter, None };
struct AtomicInfo {
  const char* mnemonic;
  uint32_t values;  ///< operands after the pointer
};
struct BarrierInfo {
  const char* mnemonic;
  BarrierMemory memory;
  bool sync;
};
struct WaveInfo {
  const char* mnemonic;
  uint32_t arity;
  WaveSig sig;
  WaveDiff diff;
  WaveTranspose transpose;
};
inline constexpr uint32_t kAtomicOpCount = 0
#define ATOMIC(name, mnemonic, values) +1
#include "compiler/ir/sync_ops.def"
#undef ATOMIC
    ;
inline constexpr uint32_t kBarrierKindCount = 0
#define BARRIER(name, mnemonic, memory, sync) +1
#include "compiler/ir/sync_ops.def"
#undef BARRIER
    ;
inline constexpr uint32_t kWaveOpCount = 0
#define WAVE(name, mnemonic, arity, sig, rule, transpose) +1
#include "compiler/ir/sync_ops.def"
#undef WAVE
    ;
const AtomicInfo& GetAtomicInfo(AtomicOp op);
const BarrierInfo& GetBarrierInfo(BarrierKind kind);
const WaveInfo& GetWaveInfo(WaveOp op);
/// The operation of `atomic`, `barrier` or `wave` (`op`) whose mnemonic is `mnemonic`,
/// as the instruction's imms[0]; false when there is none.
bool FindSyncOp(Op op, std::string_view mnemonic, uint32_t* out);
/// The mnemonic of operation `imm` of `atomic`, `barrier` or `wave` (`op`);
/// "<invalid>" when there is no such operation.
const char* SyncOpMnemonic(Op op, uint32_t imm);

/// A string as immediates (the format of `printf`): its length in bytes, then its bytes
/// four to a word, first byte lowest.
std::vector<uint32_t> PackString(std::string_view text);
/// The string PackString made of `imms`; false when they are not one.
bool UnpackString(const std::vector<uint32_t>& imms, std::string* text);

/// The unrolling hint of a `loop` terminator, its imms[0] when present (printed after the
/// continue block: `loop ^1, merge ^3, continue ^2 force_unroll`). imms[1], when
/// present, is the bound `[MaxIters(n)]` gives the loop's trip count (printed
/// `max_iters(n)` after the hint).
enum class LoopControl : uint32_t { None = 0, Unroll = 1, ForceUnroll = 2 };
/// "unroll", "force_unroll" (empty for None).
const char* LoopControlName(uint32_t control);

/// Static facts about an instruction kind.
struct OpInfo {
  const char* mnemonic;
  bool is_terminator;
  bool has_side_effects;
  bool reads_memory;
};
const OpInfo& GetOpInfo(Op op);
/// Facts about an intrinsic.
struct IntrinsicInfo {
  const char* mnemonic;
  uint32_t arity;
  IntrinsicSig sig;
};
const IntrinsicInfo& GetIntrinsicInfo(Intrinsic intrinsic);
/// The intrinsic called `mnemonic`, or false.
bool FindIntrinsic(std::string_view mnemonic, Intrinsic* out);

enum class ValueKind : uint8_t { Constant, Param, Inst, Global };

class Block;
class Function;

class Value {
 public:
  virtual ~Value() = default;
  ValueKind VKind() const { return vkind_; }
  const Type* GetType() const { return type_; }

 protected:
  Value(ValueKind k, const Type* t) : vkind_(k), type_(t) {}

 private:
  ValueKind vkind_;
  const Type* type_;
};

/// A scalar constant. `bits` holds the value: integers zero-extended to 64 bits, floats
/// as the bits of a double, bools as 0/1. Interned by the Module.
class Constant : public Value {
 public:
  Constant(const Type* t, uint64_t bits) : Value(ValueKind::Constant, t), bits_(bits) {}
  uint64_t Bits() const { return bits_; }
  double AsDouble() const;
  int64_t AsSigned() const;

 private:
  uint64_t bits_;
};

/// A block parameter, or a function parameter (then `block` is null).
class Param : public Value {
 public:
  Param(const Type* t, Block* block) : Value(ValueKind::Param, t), block_(block) {}
  Block* GetBlock() const { return block_; }

 private:
  Block* block_;
};

/// A global: a buffer bound through a descriptor set (of type `buffer<T>` /
/// `rwbuffer<T>`), or a variable in workgroup memory (HLSL `groupshared`), whose value is
/// a `ptr<workgroup, T>` to it and which has no set or binding.
class Global : public Value {
 public:
  Global(const Type* t, std::string name) : Value(ValueKind::Global, t), name_(std::move(name)) {}
  const std::string& Name() const { return name_; }
  /// A `groupshared` variable: the global is a pointer into workgroup memory.
  bool IsWorkgroup() const {
    return GetType()->IsPointer() && GetType()->Space() == AddressSpace::Workgroup;
  }
  /// A `static` global: a pointer into the invocation's private memory; no binding.
  bool IsPrivate() const {
    return GetType()->IsPointer() && GetType()->Space() == AddressSpace::Private;
  }
  /// A uniform buffer: a pointer to a struct in Uniform memory, bound like a buffer.
  bool IsUniform() const {
    return GetType()->IsPointer() && GetType()->Space() == AddressSpace::Uniform;
  }
  /// A push-constant block: a pointer to a struct in PushConstant memory; no binding.
  bool IsPushConstant() const {
    return GetType()->IsPointer() && GetType()->Space() == AddressSpace::PushConstant;
  }
  uint32_t set = 0;
  uint32_t binding = 0;
  /// A storage texture's texel format (`[format("rgba32f")]`, else inferred from its
  /// texel type); Unknown for every other global.
  ImageFormat image_format = ImageFormat::Unknown;
  /// Where the variable is declared in the source (unset for globals passes make).
  source::SourceLoc loc;
  /// A specialization constant: a global of scalar type (not a pointer) read as a value,
  /// `spec_default` unless the pipeline is created with another value for SpecId
  /// `spec_id`. Such globals live in Module::spec_constants, never in Module::globals.
  const Constant* spec_default = nullptr;
  uint32_t spec_id = 0;
  bool IsSpecConstant() const { return spec_default != nullptr; }

 private:
  std::string name_;
};

/// One instruction. Operands are values; terminators also name target blocks.
///  br:      targets {dest}, operands = block arguments
///  cond_br: operands {cond}, targets {true, false}
///  if:      operands {cond}, targets {then, else, merge}
///  loop:    targets {body, merge, continue}; imms {LoopControl}, {LoopControl, max
///           iterations} or none
///  switch:  operands {selector, case values...} (constants of the selector's integer
///           type, all different), targets {default, one per case value..., merge}
///  ret:     operands {} or {value}
class Inst : public Value {
 public:
  Inst(Op op, const Type* t) : Value(ValueKind::Inst, t), op_(op) {}
  Op GetOp() const { return op_; }
  bool IsTerminator() const { return GetOpInfo(op_).is_terminator; }

  std::vector<Value*> operands;
  std::vector<Block*> targets;
  std::vector<uint32_t> imms;  ///< extract/insert indices, shuffle lanes, intrinsic id
  Function* callee = nullptr;  ///< for call
  Block* block = nullptr;      ///< the block holding this instruction
  source::SourceLoc loc;       ///< where in the source it came from

 private:
  Op op_;
};

class Block {
 public:
  explicit Block(Function* f) : function_(f) {}
  Function* GetFunction() const { return function_; }
  std::vector<Param*> params;
  std::vector<Inst*> insts;
  /// The terminator, or null while the block is still open.
  Inst* Terminator() const {
    return !insts.empty() && insts.back()->IsTerminator() ? insts.back() : nullptr;
  }

 private:
  Function* function_;
};

/// Compute-stage entry point facts.
struct EntryInfo {
  std::array<uint32_t, 3> numthreads{1, 1, 1};
  /// Per dimension, the int or uint specialization constant (in Module::spec_constants)
  /// whose value is the workgroup size there, or null; `numthreads` holds its default.
  std::array<const Global*, 3> numthreads_spec{};
  /// [WaveSize(n)]: the subgroup size the kernel needs; 0 when it names none.
  uint32_t wave_size = 0;
  source::SourceLoc wave_size_loc;           ///< where the attribute is written
  std::vector<std::string> param_semantics;  ///< one per function parameter
};

/// What differentiation knows of a function, in one place: the attributes that steer
/// it and the functions that stand for its derivatives. Lowering and the IR parser set
/// it; compiler/autodiff reads it (and writes it on the functions it makes); the
/// printer writes it as the function's `differentiable`, `custom_fwd(@g)`, ... flags.
struct AutodiffInfo {
  /// `[Differentiable]`: calls of it in code being differentiated are differentiated;
  /// calls of other functions carry no derivative.
  bool differentiable = false;
  /// `[PreferRecompute]`: where a backward derivative's reverse sweep needs the result
  /// of a call of it, the call is made again instead of keeping the result.
  bool prefer_recompute = false;
  /// Derivatives through calls of it are zero by intent: `detach`'s identity and
  /// `[TreatAsDifferentiable]` functions. Any other call without a derivative that a
  /// derivative would flow through is a compile error, never a silent zero.
  bool zero_derivative = false;
  /// `no_diff R f(...)`: the result carries no derivative; `fwd_diff(f)` returns it
  /// unpaired (its body returns detached values, so callers see a zero derivative).
  bool no_diff_result = false;
  /// `fwd_diff(f)` in DifferentialPair form: the forward-mode pass (autodiff/forward)
  /// generates the body; until then the function has no blocks.
  Function* fwd_diff_of = nullptr;
  /// `[ForwardDerivative(g)]`: `g`, in DifferentialPair form, stands for this function's
  /// forward derivative wherever one is needed.
  Function* custom_fwd = nullptr;
  /// `no_diff` parameters (and `this` of a [NoDiffThis] method), by index: their
  /// derivatives are not followed into the function (a JVP reads them as zero).
  std::vector<uint32_t> no_diff_params;
  /// Parameters of a type conforming to IDifferentiablePtrType (locations; not
  /// `no_diff`), by index, each with its `DifferentialPtrPair` type: derivatives take the
  /// pair in the parameter's place, as an input in both modes (autodiff/ptr_params.cpp).
  std::vector<std::pair<uint32_t, const Type*>> ptr_params;
  /// For a function with `ptr_params`: its copy taking the pairs, once the autodiff
  /// passes made it; on that copy, the function it was made from.
  Function* ptr_lifted = nullptr;
  Function* ptr_lifted_from = nullptr;
  /// `[PrimalSubstitute(g)]`: `g` (same type) replaces this function in derivatives:
  /// a JVP calls g's JVP, and `fwd_diff` of this function is `fwd_diff(g)`.
  Function* primal_substitute = nullptr;
  /// `bwd_diff(f)` in DifferentialPair form: the reverse-mode pass (autodiff/reverse)
  /// generates the body; until then the function has no blocks.
  Function* bwd_diff_of = nullptr;
  /// `[BackwardDerivative(g)]`: `g`, with the type of `bwd_diff(this)`, stands for this
  /// function's backward derivative wherever one is needed.
  Function* custom_bwd = nullptr;

  /// The functions named above, for passes that replace or remove functions.
  std::array<Function**, 7> Links() {
    return {&fwd_diff_of,       &bwd_diff_of, &custom_fwd,     &custom_bwd,
            &primal_substitute, &ptr_lifted,  &ptr_lifted_from};
  }
};

class Function {
 public:
  Function(std::string name, const Type* result) : name_(std::move(name)), result_(result) {}
  const std::string& Name() const { return name_; }
  const Type* ResultType() const { return result_; }
  std::vector<Param*> params;
  std::vector<Block*> blocks;  ///< blocks[0] is the entry block
  bool is_entry = false;
  EntryInfo entry;
  /// `[ForceInline]`: the inline pass inlines every call of it, whatever its size.
  bool force_inline = false;
  /// Float arithmetic is computed exactly as written: targets must not contract a
  /// multiply and an add into a fused operation or otherwise rewrite it (SPIR-V:
  /// NoContraction). Exact double-word algorithms (expand-f64-math) depend on it.
  bool precise = false;
  /// Where the function is declared in the source (unset for functions passes make).
  source::SourceLoc loc;
  /// Autodiff attributes and derivative links.
  AutodiffInfo autodiff;

 private:
  std::string name_;
  const Type* result_;
};

/// Owns everything of one IR module.
class Module {
 public:
  TypeTable& Types() { return types_; }
  const TypeTable& Types() const { return types_; }

  const Constant* GetConstant(const Type* type, uint64_t bits);
  Value* ConstInt(const Type* type, int64_t v);
  Value* ConstFloat(const Type* type, double v);
  Value* ConstBool(bool v);

  Global* AddGlobal(const Type* type, std::string name);
  /// A specialization constant of `default_value`'s type (appended to spec_constants).
  Global* AddSpecConstant(std::string name, uint32_t id, const Constant* default_value);
  Function* AddFunction(std::string name, const Type* result);
  Block* AddBlock(Function* f);
  Param* AddParam(const Type* type, Block* block);
  Inst* NewInst(Op op, const Type* type);

  /// Frees what passes left behind: the instructions, block parameters and blocks that
  /// no function of `functions` holds any more, and the bodies of the functions no
  /// longer in `functions` (they keep their parameters, and have no blocks). Passes
  /// allocate as they go and free nothing, so without it a module's memory is every
  /// instruction ever made. Run it between passes: nothing may point to what it frees.
  void CollectGarbage();

  /// The entry points named in `names` (every one when it is empty), in module order:
  /// what a writer asked for some of them writes.
  std::vector<const Function*> EntryPoints(const std::vector<std::string>& names) const;

  std::vector<Global*> globals;
  /// Specialization constants, in declaration order, ids all different.
  std::vector<Global*> spec_constants;
  std::vector<Function*> functions;
  size_t DebugValueCount() const { return values_.size(); }
  size_t DebugBlockCount() const { return blocks_.size(); }

 private:
  TypeTable types_;
  std::map<std::pair<const Type*, uint64_t>, std::unique_ptr<Constant>> constants_;
  std::vector<std::unique_ptr<Value>> values_;
  std::vector<std::unique_ptr<Block>> blocks_;
  std::vector<std::unique_ptr<Function>> functions_;
};

}  // namespace slope::ir
