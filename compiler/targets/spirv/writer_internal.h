#pragma once
// The SPIR-V writer's class, shared by its files: writer.cpp (types, constants, globals,
// functions and instructions) and textures.cpp (image and sampler types, texture
// globals and the texture instruction).

#include <spirv/unified1/GLSL.std.450.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <spirv/unified1/spirv.hpp11>
#include <string>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

#include "compiler/base/half.h"
#include "compiler/base/ice.h"
#include "compiler/ir/cfg.h"
#include "compiler/targets/spirv/block_merge.h"
#include "compiler/targets/spirv/debug_info.h"
#include "compiler/targets/spirv/else_chains.h"
#include "compiler/targets/spirv/limits.h"
#include "compiler/targets/spirv/select_arms.h"
#include "compiler/targets/spirv/writer.h"

namespace slope::targets::spirv {

using ir::Op;
using SpvOp = spv::Op;


/// A sequence of instructions of one module section.
class Section {
 public:
  void Emit(SpvOp op, std::initializer_list<uint32_t> operands) {
    Emit(op, std::vector<uint32_t>(operands));
  }
  void Emit(SpvOp op, const std::vector<uint32_t>& operands) {
    // CheckLimits rejected every instruction that would not fit before writing began.
    if (operands.size() + 1 > kMaxInstructionWords) {
      SLOPE_ICE("a SPIR-V instruction of " + std::to_string(operands.size() + 1) +
                " words, more than its 16-bit word count can say");
    }
    words_.push_back(static_cast<uint32_t>(operands.size() + 1) << 16 | static_cast<uint32_t>(op));
    words_.insert(words_.end(), operands.begin(), operands.end());
  }
  const std::vector<uint32_t>& Words() const { return words_; }
  /// Appends whole instructions (header words included).
  void Append(const std::vector<uint32_t>& words) {
    words_.insert(words_.end(), words.begin(), words.end());
  }

 private:
  std::vector<uint32_t> words_;
};

/// Packs a string as SPIR-V literal words (nul-terminated, zero padded).
inline std::vector<uint32_t> StringWords(const std::string& s) {
  std::vector<uint32_t> words((s.size() + 4) / 4, 0);
  std::memcpy(words.data(), s.data(), s.size());
  return words;
}

/// A debug name (OpName, OpMemberName) as literal words, cut at a UTF-8 character
/// boundary when it would not fit in OpMemberName's word count: names do not change what
/// the module computes, so a longer one is shortened rather than rejected.
inline std::vector<uint32_t> NameWords(const std::string& s) {
  constexpr size_t kMaxBytes = (kMaxInstructionWords - 3) * 4 - 1;  // the nul ends it
  if (s.size() <= kMaxBytes) return StringWords(s);
  size_t cut = kMaxBytes;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
  return StringWords(s.substr(0, cut));
}

inline std::vector<uint32_t> Concat(std::vector<uint32_t> a, const std::vector<uint32_t>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

class Writer {
 public:
  Writer(ir::Module& module, const WriterOptions& options)
      : module_(module), options_(options) {}
  std::vector<uint32_t> Run();

 private:
  uint32_t NewId() { return next_id_++; }
  void Require(spv::Capability capability) { capabilities_used_.insert(capability); }
  /// Requires the storage capabilities for the 8- and 16-bit scalars `t` holds.
  void RequireStorageWidths(const ir::Type* t);
  /// The literal words of scalar constant `bits` of type `t` (integers as two's
  /// complement bits, floats as the bits of a double), low-order word first.
  std::vector<uint32_t> LiteralWords(const ir::Type* t, uint64_t bits);
  uint32_t TypeId(const ir::Type* t);
  /// The type of `t` as buffer memory laid out by `rules` holds it: structs with Offset
  /// decorations, arrays with ArrayStride.
  uint32_t LayoutTypeId(const ir::Type* t, BufferLayout rules);
  /// A struct type; with `rules`, the laid-out form.
  uint32_t StructTypeId(const ir::Type* t, std::optional<BufferLayout> rules);
  /// An array type; the laid-out form has an ArrayStride decoration.
  uint32_t ArrayTypeId(const ir::Type* t, std::optional<BufferLayout> rules);
  /// The layout rules of memory in storage class `sc` (storage buffers: the compile's
  /// rules; uniform buffers: std140 unless scalar; push constants: std430 unless scalar).
  BufferLayout RulesOf(spv::StorageClass sc) const;
  uint32_t IndexConst(uint32_t index);
  /// The memory operands of a load or store of a `t` through a pointer of class `sc`
  /// (PhysicalStorageBuffer: Aligned with the layout's alignment; otherwise none).
  std::vector<uint32_t> MemoryOperands(spv::StorageClass sc, const ir::Type* t);
  /// A load or store of a `t` through a pointer of class `sc` to laid-out memory (buffer
  /// memory, or device memory through a PhysicalStorageBuffer pointer). Whole structs and
  /// arrays go member by member (element by element), since the laid-out type differs
  /// from the one values have; each scalar, vector or matrix access carries
  /// MemoryOperands. The load's value gets id `result` (a new one when 0).
  uint32_t LoadLaidOut(uint32_t ptr, const ir::Type* t, spv::StorageClass sc, uint32_t result);
  void StoreLaidOut(uint32_t ptr, const ir::Type* t, uint32_t value, spv::StorageClass sc);
  uint32_t PointerTypeId(spv::StorageClass sc, const ir::Type* pointee);
  // Device pointers (pointers.cpp): PhysicalStorageBuffer pointers to std430 laid-out
  // types, declared ahead with OpTypeForwardPointer (a struct may point at itself), with
  // the pointee's ArrayStride for OpPtrAccessChain; every access through one is Aligned
  // (MemoryOperands).
  uint32_t DevicePointerTypeId(const ir::Type* pointee);
  /// The StorageBuffer pointer type of a structured buffer's variable (a Block struct
  /// holding a runtime array of the laid-out element), one per element type and access.
  uint32_t StorageBufferPointerTypeId(const ir::Type* buffer);
  /// The alignment an access of a `t` through a device pointer may assume.
  uint32_t DeviceAlign(const ir::Type* t);
  /// `ptr_offset` (OpPtrAccessChain) and `ptr_cast` (OpConvertPtrToU, OpConvertUToPtr,
  /// OpBitcast).
  void WritePtrOffset(const ir::Inst& inst);
  void WritePtrCast(const ir::Inst& inst);
  /// Decorates `id` (a variable, or a parameter when `param`) holding device pointers
  /// with AliasedPointer (Aliased), as the validator requires.
  void DecorateDevicePointerHolder(uint32_t id, const ir::Type* held, bool param);
  /// Whether a device pointer type was written: the module then uses the
  /// PhysicalStorageBuffer64 addressing model.
  bool uses_device_pointers_ = false;
  uint32_t ConstantId(const ir::Constant* c);
  uint32_t ScalarConst(const ir::Type* t, double f, int64_t i);
  uint32_t SplatConst(const ir::Type* t, uint32_t scalar_id);
  uint32_t FunctionTypeId(uint32_t result, const std::vector<uint32_t>& params);
  uint32_t BuiltinVar(const std::string& semantic);
  uint32_t ValueId(const ir::Value* v);
  void DeclareGlobal(const ir::Global* g);
  void WriteFunction(const ir::Function& f);
  /// [numthreads] naming specialization constants: the WorkgroupSize built-in, a
  /// OpSpecConstantComposite of them (workgroup_size.cpp).
  void DeclareSpecWorkgroupSize(const ir::Function& entry);
  /// -g: imports the debug-info instruction set and writes the compilation unit.
  void StartDebugInfo();
  void WriteInst(const ir::Inst& inst);
  /// Writes `start`'s instructions from `first` on, and with them the arms and merge
  /// blocks of the diamonds `selects_` converts after it, up to a terminator that stays.
  void WriteStraightLine(const ir::Block* start, size_t first);
  /// The OpSelects of converted `header`'s merge parameters.
  void WriteSelects(const ir::Block& header);
  /// The branch of a header of flattened `else if` chain `index` (else_chains.h); the
  /// first header also opens the chain's loop.
  void WriteChainBranch(const ir::Block& header, size_t index);
  /// Writes a vector, struct, array or matrix built only of constants as an
  /// OpConstantComposite (what SPIRV-Tools' constant propagation would make of it).
  /// False, writing nothing, for one that is not.
  bool WriteConstantComposite(const ir::Inst& inst);
  /// The OpLoopMerge of a `loop` terminator.
  void WriteLoopMerge(const ir::Inst& loop);
  /// The dispatch block of flattened chain `index` whose arms leave for foreign targets
  /// (else_chains.h): the loop's merge, taking the branch each arm meant.
  void WriteChainDispatch(size_t index);
  /// The id of an OpUndef of type `t`, for a phi's edge that passes no value.
  uint32_t UndefId(const ir::Type* t);
  /// The function being written: its diamonds written as OpSelect, its flattened
  /// chains, and each chain's loop header, first selection and continue block labels.
  SelectPlan selects_;
  MergePlan merges_;
  /// Instructions written as OpConstantComposite.
  std::unordered_set<const ir::Value*> composite_consts_;
  /// Each OpConstantComposite written: type and constituents, then its id.
  std::map<std::vector<uint32_t>, uint32_t> composite_ids_;
  ChainPlan chains_;
  struct ChainIds {
    uint32_t loop = 0;
    uint32_t first = 0;
    uint32_t continue_label = 0;
    /// Chains with foreign exits: the dispatch block (which takes the exit block's
    /// label, so every branch to the exit reaches it), the exit block's own label, the
    /// selector phi, and for each foreign target the block branching there and the phis
    /// of its parameters.
    uint32_t dispatch = 0;
    uint32_t exit = 0;
    uint32_t selector = 0;
    std::vector<uint32_t> target_labels;
    std::vector<std::vector<uint32_t>> target_phis;
  };
  std::vector<ChainIds> chain_ids_;
  /// The id of u32 constant `v` (scopes and memory semantics are such constants).
  uint32_t U32Const(uint32_t v) { return ScalarConst(module_.Types().Int(32, false), 0, v); }
  /// OpAtomic* on a storage-buffer or workgroup pointer (atomics.cpp).
  void WriteAtomic(const ir::Inst& inst);
  /// `texture atomic`: OpAtomic* on an RWBuffer element through OpImageTexelPointer.
  void WriteTexelAtomic(const ir::Inst& inst);
  /// The OpAtomic* of `inst` (its `which`) on `pointer`, its values from operand `first`.
  void EmitAtomic(const ir::Inst& inst, ir::AtomicOp which, uint32_t pointer, spv::Scope scope,
                  size_t first);
  /// OpControlBarrier / OpMemoryBarrier with the scopes and semantics HLSL's barriers have.
  void WriteBarrier(const ir::Inst& inst);
  void WritePrintf(const ir::Inst& inst);
  /// A `spirv_asm` block's instructions (inline_asm.cpp).
  void WriteSpirvAsm(const ir::Inst& inst);
  /// OpGroupNonUniform* at subgroup scope.
  void WriteWave(const ir::Inst& inst);
  /// A signed integer remainder, truncating toward zero as HLSL requires.
  void WriteSignedRem(const ir::Inst& inst);
  void WriteConvert(const ir::Inst& inst);
  uint32_t Glsl(ir::Intrinsic which, const ir::Type* t);
  /// The core SPIR-V instruction an intrinsic maps to, or 0 (GLSL.std.450 or expanded).
  static uint32_t CoreOpOf(ir::Intrinsic which);
  void WriteIntrinsic(const ir::Inst& inst);
  /// f32tof16 / f16tof32, lane by lane through PackHalf2x16 / UnpackHalf2x16.
  void WriteHalfConversion(const ir::Inst& inst, bool to_half);
  // Matrices. A float matrix is an OpTypeMatrix whose columns are the IR's rows (HLSL's
  // rows), so a row is an OpCompositeExtract and mul swaps its operands; an integer or
  // bool matrix is an array of its rows.
  /// A component-wise operation on matrices (SPIR-V arithmetic takes scalars and
  /// vectors only): the operation on each row, then the rows put together.
  void WriteByRows(const ir::Inst& inst);
  void WriteMatMul(const ir::Inst& inst);
  void WriteTranspose(const ir::Inst& inst);
  /// An integer row vector `v` times integer matrix `m`: the sum of v[i] * m[i].
  uint32_t IntVectorTimesMatrix(uint32_t v, const ir::Type* m_type, uint32_t m);
  /// Element `index` of composite `value` of type `element` (OpCompositeExtract).
  uint32_t ExtractId(const ir::Type* element, uint32_t value, uint32_t index);
  /// Decorates member `index` of laid-out struct `id` when `member` is a matrix (or an
  /// array of them): its majorness and stride.
  void DecorateMatrixMember(uint32_t id, uint32_t index, const ir::Type* member,
                            ir::MatrixLayout layout, BufferLayout rules);
  /// A uniform buffer or push-constant block: a Block-decorated struct variable.
  void DeclareUniformGlobal(const ir::Global* g);
  // Textures and samplers (UniformConstant variables of OpTypeImage / OpTypeSampler).
  /// OpTypeImage of texture type `t` with texel format `format` (Unknown for sampled ones).
  uint32_t ImageTypeId(const ir::Type* t, ir::ImageFormat format);
  uint32_t SamplerTypeId();
  /// OpTypeSampledImage of that image type (a combined texture and sampler's binding).
  uint32_t SampledImageTypeId(const ir::Type* t, ir::ImageFormat format);
  /// What global `g`'s handle is: a sampler, an image, or a sampled image (Sampler2D).
  uint32_t HandleTypeId(const ir::Global* g);
  void DeclareTextureGlobal(const ir::Global* g);
  /// The loaded image (or sampler) of `texture` instruction operand `v`, a global.
  uint32_t LoadHandle(const ir::Value* v);
  /// The id of constant `v` (a scalar, or a vector built of constants), declared as an
  /// OpConstantComposite: a texel offset.
  uint32_t ConstantVectorId(const ir::Value* v);
  /// A texture operation (ir::TextureOp); results are 4-vectors in SPIR-V, narrowed to
  /// the texel type after.
  void WriteTexture(const ir::Inst& inst);

  ir::Module& module_;
  const WriterOptions& options_;
  uint32_t next_id_ = 1;
  uint32_t glsl_ext_ = 0;
  uint32_t printf_ext_ = 0;  ///< NonSemantic.DebugPrintf, once a printf is written
  std::set<spv::Capability> capabilities_used_;
  /// The extensions spirv_asm blocks declared, each written once.
  std::set<std::string> asm_extensions_;
  /// Float widths tested by isnan/isinf: their entry points get SignedZeroInfNanPreserve,
  /// so that drivers which assume no NaNs or infinities (NVIDIA's) keep the test.
  std::set<uint32_t> nan_preserve_widths_;
  Section capabilities_, extensions_, ext_imports_, memory_model_, entry_points_,
      execution_modes_, names_, decorations_, globals_, functions_;
  std::map<const ir::Type*, uint32_t> types_;
  std::map<const ir::Type*, uint32_t> undefs_;
  /// OpTypeImage by what it says: sampled scalar, Dim, Arrayed, storage, format (texel
  /// types of one scalar share one image type).
  std::map<std::tuple<const ir::Type*, ir::TextureDim, bool, bool, ir::ImageFormat>, uint32_t>
      image_types_;
  std::map<uint32_t, uint32_t> sampled_image_types_;  ///< by image type id
  uint32_t sampler_type_ = 0;
  std::map<std::pair<const ir::Type*, BufferLayout>, uint32_t> layout_types_;
  std::set<uint32_t> block_structs_;  ///< laid-out structs already decorated Block
  /// StorageBufferPointerTypeId's types, by laid-out element type id and writability.
  std::map<std::pair<uint32_t, bool>, uint32_t> buffer_pointer_types_;
  std::map<std::pair<spv::StorageClass, const ir::Type*>, uint32_t> pointer_types_;
  std::map<std::pair<uint32_t, std::vector<uint32_t>>, uint32_t> function_types_;
  std::map<const ir::Constant*, uint32_t> constants_;
  std::map<std::pair<const ir::Type*, uint64_t>, uint32_t> typed_consts_;
  /// OpConstantNull per type, for zero composites too large for one instruction.
  std::map<const ir::Type*, uint32_t> null_consts_;
  std::unordered_map<const ir::Value*, bool> zero_memo_;
  std::map<std::string, uint32_t> builtins_;
  std::map<const ir::Value*, uint32_t> values_;
  std::map<const ir::Block*, uint32_t> labels_;
  std::map<const ir::Function*, uint32_t> function_ids_;
  std::vector<uint32_t> interface_;  // builtins used by the function being written
  /// An entry point written, whose OpEntryPoint waits for the end of the module: the
  /// subgroup builtins any function it calls uses belong in its interface too.
  struct EntryPoint {
    uint32_t id;
    std::string name;
    std::vector<uint32_t> interface;
  };
  std::vector<EntryPoint> entry_points_written_;
  /// -g: the debug information being written, or null.
  std::unique_ptr<DebugInfo> debug_;
  /// -g: OpString, which precedes every OpName.
  Section debug_strings_;
};

}  // namespace slope::targets::spirv
