#pragma once
// The LLVM writer's shared state: the module writer (types, globals, functions, entry
// points) and the function writer (instructions), split over writer.cpp, insts.cpp,
// intrinsics.cpp and sync.cpp.

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>

#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "compiler/ir/ir.h"
#include "compiler/targets/llvm/plugin_api.h"

namespace slope::targets::llvm {

namespace L = ::llvm;

/// Fields of SlopeCpuInvocation (cpu_abi.h), in order.
enum InvField : unsigned {
  kInvResources,
  kInvSizes,
  kInvShared,
  kInvPrivate,
  kInvGroupId,
  kInvLocalId,
  kInvLocalIndex,
  kInvLane,
  kInvScheduler,
  kInvLaneCount
};

class ModuleWriter {
 public:
  ModuleWriter(const ir::Module& module, const EmitOptions& options, bool gpu,
               const std::string& data_layout, L::LLVMContext& context,
               std::vector<EmitError>* errors);

  std::unique_ptr<L::Module> Write();

  // Types. Register form: bools are i1, vectors LLVM vectors, matrices arrays of row
  // vectors. Memory form (what a pointer points at, and the members of structs and
  // arrays, which are always in memory form): bools are i32, vectors and matrix rows
  // arrays, so that every type has the scalar layout the reflection reports.
  L::Type* RegType(const ir::Type* t);
  L::Type* MemType(const ir::Type* t);
  L::StructType* InvocationType() const { return invocation_; }
  L::Align AlignOf(const ir::Type* t);

  L::LLVMContext& Context() { return context_; }
  L::Module& Module() { return *module_; }
  const ir::Module& Ir() const { return ir_; }
  bool Gpu() const { return gpu_; }
  const EmitOptions& Options() const { return options_; }
  void Error(const source::SourceLoc& loc, std::string message);
  bool Failed() const { return !errors_->empty(); }

  L::Function* FunctionFor(const ir::Function* f) { return functions_.at(f); }
  /// The binding slot of a resource global; -1 when it is not reflected.
  int SlotOf(const ir::Global* g) const;
  /// The byte offset of a groupshared or static global in its block.
  uint64_t OffsetOf(const ir::Global* g) const { return offsets_.at(g); }
  /// A site number for a wave operation (the scheduler groups lanes by it), also given
  /// to loops and calls in the order they are written (see TracksWaves).
  uint32_t NextWaveSite() { return wave_sites_++; }
  /// The CPU target, writing a module with wave operations: each invocation tells the
  /// scheduler where it is in the loops and calls it runs (slope_cpu_enter on entering a
  /// loop or a call, slope_cpu_next on a loop's back edge, slope_cpu_leave on leaving),
  /// so that only lanes at the same dynamic instance of a wave operation act together.
  bool TracksWaves() const { return tracks_waves_; }
  /// A declaration of the runtime callback or C library function `name`.
  L::FunctionCallee Callback(const std::string& name, L::FunctionType* type);

 private:
  void LayoutGlobals();
  void WriteCpuEntry(const ir::Function& f, L::Function* body, uint32_t flags);
  void WriteGpuKernel(const ir::Function& f, L::Function* body);
  /// The builtin value of entry parameter `semantic`, of IR type `t`, read from `inv`.
  L::Value* Builtin(L::IRBuilder<>& b, L::Value* inv, const std::string& semantic,
                    const ir::Type* t, const ir::Function& entry);
  bool CheckLayouts();

  const ir::Module& ir_;
  const EmitOptions& options_;
  bool gpu_;
  std::string data_layout_;
  L::LLVMContext& context_;
  std::unique_ptr<L::Module> module_;
  std::vector<EmitError>* errors_;
  std::map<const ir::Type*, L::Type*> reg_types_;
  std::map<const ir::Type*, L::Type*> mem_types_;
  std::map<const ir::Function*, L::Function*> functions_;
  std::map<const ir::Global*, uint64_t> offsets_;
  std::map<std::string, int> slots_;
  uint64_t shared_bytes_ = 0;
  uint64_t private_bytes_ = 0;
  L::StructType* invocation_ = nullptr;
  L::GlobalVariable* gpu_shared_ = nullptr;
  uint32_t wave_sites_ = 0;
  bool tracks_waves_ = false;
};

/// What a function's instructions use that the module writer tracks.
struct FunctionFacts {
  bool barrier = false;
  bool wave = false;
};

class FunctionWriter {
 public:
  FunctionWriter(ModuleWriter& mw, const ir::Function& f, L::Function* out);
  void Write();

 private:
  // writer.cpp
  L::Value* Val(const ir::Value* v);
  L::Value* ConstantValue(const ir::Constant& c);
  L::Value* GlobalValue(const ir::Global& g);
  L::Value* Inv() { return out_->getArg(0); }
  void EmitBlock(const ir::Block& block);
  void EmitTerminator(const ir::Inst& inst);
  void AddIncoming(const ir::Inst& term, size_t edge, L::BasicBlock* target_bb);
  // Wave tracking on the CPU (ModuleWriter::TracksWaves), writer.cpp.
  /// Whether the edge from `from` to `to` needs code of its own: it enters or repeats a
  /// loop whose header is `to`.
  bool EdgeHasHook(const ir::Block* from, const ir::Block* to) const;
  /// Emits that code at the builder's place.
  void EmitEdgeHook(const ir::Block* from, const ir::Block* to);
  /// slope_cpu_enter(inv, position): the depth before; slope_cpu_leave(inv, depth).
  L::Value* EnterTracked(uint32_t position);
  void LeaveTracked(L::Value* depth);
  L::AllocaInst* EntryAlloca(L::Type* t);

  // insts.cpp
  void EmitInst(const ir::Inst& inst);
  L::Value* Componentwise(const ir::Inst& inst, const ir::Type* t,
                          const std::vector<L::Value*>& ops);
  L::Value* ScalarOrVector(ir::Op op, const ir::Type* result, const ir::Type* operand,
                           const std::vector<L::Value*>& ops);
  L::Value* Convert(const ir::Type* to, const ir::Type* from, L::Value* v);
  L::Value* Load(L::Value* ptr, const ir::Type* t);
  void Store(L::Value* ptr, L::Value* v, const ir::Type* t);
  L::Value* ToMem(L::Value* v, const ir::Type* t);
  L::Value* ToReg(L::Value* v, const ir::Type* t);
  L::Value* Index64(const ir::Value* index);
  L::Value* ElementPtr(const ir::Inst& inst);
  // Column-major matrices in buffer memory (insts.cpp).
  ir::MatrixLayout Resolve(ir::MatrixLayout layout) const;
  bool HoldsColumnMajor(const ir::Type* t, ir::MatrixLayout bare) const;
  ir::MatrixLayout PointerLayout(const ir::Value* ptr);
  L::Value* Permute(L::Value* v, const ir::Type* t, ir::MatrixLayout bare, bool to_buffer);
  L::Value* LoadThrough(const ir::Value* ptr, const ir::Type* t);
  /// Whether `ptr` points into memory no invocation writes while the kernel runs (a
  /// read-only buffer, a uniform or push constant): its loads are marked invariant, so
  /// the NVPTX backend reads them through the read-only data cache (ld.global.nc).
  static bool ReadOnlyPointer(const ir::Value* ptr);
  void StoreThrough(const ir::Value* ptr, L::Value* v, const ir::Type* t);
  L::Value* Splat(const ir::Type* t, double v);
  L::Value* IntDivRem(ir::Op op, bool is_signed, L::Value* a, L::Value* b);

  // intrinsics.cpp
  L::Value* Intrinsic(const ir::Inst& inst);
  L::Value* IntrinsicOn(ir::Intrinsic which, const ir::Type* t, const ir::Type* arg,
                        const std::vector<L::Value*>& ops);
  L::Value* MathCall(const char* name, const ir::Type* t, const std::vector<L::Value*>& args);
  L::Value* Dot(L::Value* a, L::Value* b, const ir::Type* vt);
  L::Value* MatMul(const ir::Inst& inst, L::Value* a, L::Value* b);
  L::Value* Determinant(L::Value* m, uint32_t n, const ir::Type* s);
  L::Value* PerLane(const ir::Type* t, const std::vector<L::Value*>& args,
                    const std::function<L::Value*(const std::vector<L::Value*>&)>& f);

  // sync.cpp
  L::Value* Atomic(const ir::Inst& inst);
  void Barrier(const ir::Inst& inst);
  L::Value* Wave(const ir::Inst& inst);
  L::Value* GpuWave(const ir::Inst& inst);
  /// A 32-bit integer reduction as one `redux.sync` (sm_80 and later); null otherwise.
  L::Value* ReduxSync(ir::WaveOp op, const ir::Type* operand, L::Value* mask, L::Value* x);
  void Printf(const ir::Inst& inst);
  L::Value* TypeCode(const ir::Type* t);

  // textures.cpp
  /// A `texture` instruction: a call of slope_cpu_texture (cpu_abi.h).
  L::Value* Texture(const ir::Inst& inst);

  ModuleWriter& mw_;
  const ir::Module& ir_;
  const ir::Function& f_;
  L::Function* out_;
  L::LLVMContext& ctx_;
  L::IRBuilder<> b_;
  std::map<const ir::Value*, L::Value*> values_;
  /// A pointer to a row of a column-major matrix in buffer memory (not contiguous there):
  /// the matrix's address and the row. Only loads, stores and element pointers use it.
  struct RowPtr {
    L::Value* matrix;
    L::Value* row;
    const ir::Type* type;  ///< the matrix
  };
  /// Set while LoadThrough loads through a ReadOnlyPointer: Load marks its loads.
  bool invariant_loads_ = false;
  std::map<const ir::Value*, RowPtr> rows_;
  source::SourceLoc loc_;  ///< of the instruction being written
  std::map<const ir::Block*, L::BasicBlock*> blocks_;
  // Wave tracking: each loop header's loop instruction, the block its loop continues
  // from, the headers by merge block, and the slot holding the depth before the loop.
  std::map<const ir::Block*, const ir::Inst*> loop_of_header_;
  std::map<const ir::Block*, const ir::Block*> header_of_merge_;
  /// GPU: the continue blocks of innermost loops, whose back edges ask LLVM to unroll
  /// the loop fully when its trip count is a constant.
  std::set<const ir::Block*> unroll_back_edges_;
  std::map<const ir::Block*, L::AllocaInst*> loop_depth_;
  std::map<const ir::Global*, L::Value*> globals_;
  L::BasicBlock* alloca_block_ = nullptr;
};

}  // namespace slope::targets::llvm
