#include "compiler/targets/llvm/writer.h"

#include <algorithm>
#include <llvm/IR/Constants.h>
#include <llvm/IR/DerivedTypes.h>
#include <llvm/IR/IntrinsicsNVPTX.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/raw_ostream.h>

#include "compiler/ir/cfg.h"
#include "compiler/targets/cuda/kernel_symbol.h"
#include "compiler/targets/layout/layout.h"
#include "compiler/targets/llvm/writer_internal.h"

namespace slope::targets::llvm {
namespace {

/// Every function reachable from `roots` through calls, callees first is not needed:
/// LLVM functions are declared before any body is written.
std::vector<const ir::Function*> Reachable(const std::vector<const ir::Function*>& roots) {
  std::vector<const ir::Function*> order;
  std::set<const ir::Function*> seen;
  std::vector<const ir::Function*> work(roots.begin(), roots.end());
  while (!work.empty()) {
    const ir::Function* f = work.back();
    work.pop_back();
    if (!seen.insert(f).second) continue;
    order.push_back(f);
    for (const ir::Block* b : f->blocks) {
      for (const ir::Inst* i : b->insts) {
        if (i->GetOp() == ir::Op::Call && i->callee != nullptr) work.push_back(i->callee);
      }
    }
  }
  return order;
}

/// Which synchronizing operations `functions` use.
uint32_t SyncFlags(const std::vector<const ir::Function*>& functions) {
  uint32_t flags = 0;
  for (const ir::Function* f : functions) {
    for (const ir::Block* b : f->blocks) {
      for (const ir::Inst* i : b->insts) {
        if (i->GetOp() == ir::Op::Barrier &&
            ir::GetBarrierInfo(static_cast<ir::BarrierKind>(i->imms[0])).sync) {
          flags |= 1;  // kSlopeCpuUsesBarrier
        }
        if (i->GetOp() == ir::Op::Wave) {
          auto op = static_cast<ir::WaveOp>(i->imms[0]);
          if (op != ir::WaveOp::LaneIndex && op != ir::WaveOp::LaneCount) flags |= 2;
        }
      }
    }
  }
  return flags;
}

std::string LegalName(const std::string& name) {
  std::string out;
  for (char c : name) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '.';
    out.push_back(ok ? c : '_');
  }
  return out;
}

}  // namespace

// ---------------------------------------------------------------------------------------
// The module

ModuleWriter::ModuleWriter(const ir::Module& module, const EmitOptions& options, bool gpu,
                           const std::string& data_layout, L::LLVMContext& context,
                           std::vector<EmitError>* errors)
    : ir_(module), options_(options), gpu_(gpu), data_layout_(data_layout), context_(context),
      errors_(errors) {}

void ModuleWriter::Error(const source::SourceLoc& loc, std::string message) {
  errors_->push_back({loc, std::move(message)});
}

int ModuleWriter::SlotOf(const ir::Global* g) const {
  auto it = slots_.find(g->Name());
  return it == slots_.end() ? -1 : it->second;
}

L::FunctionCallee ModuleWriter::Callback(const std::string& name, L::FunctionType* type) {
  return module_->getOrInsertFunction(name, type);
}

L::Type* ModuleWriter::RegType(const ir::Type* t) {
  auto it = reg_types_.find(t);
  if (it != reg_types_.end()) return it->second;
  L::Type* out = nullptr;
  switch (t->Kind()) {
    case ir::TypeKind::Void: out = L::Type::getVoidTy(context_); break;
    case ir::TypeKind::Bool: out = L::Type::getInt1Ty(context_); break;
    case ir::TypeKind::Int: out = L::Type::getIntNTy(context_, t->Width()); break;
    case ir::TypeKind::Float:
      out = t->Width() == 16   ? L::Type::getHalfTy(context_)
            : t->Width() == 64 ? L::Type::getDoubleTy(context_)
                               : L::Type::getFloatTy(context_);
      break;
    case ir::TypeKind::Vector:
      out = L::FixedVectorType::get(RegType(t->Element()), t->Count());
      break;
    case ir::TypeKind::Matrix: out = L::ArrayType::get(RegType(t->Element()), t->Count()); break;
    case ir::TypeKind::Pointer:
    case ir::TypeKind::Buffer:
    case ir::TypeKind::Texture:
    case ir::TypeKind::Sampler: out = L::PointerType::get(context_, 0); break;
    case ir::TypeKind::Struct:
    case ir::TypeKind::Array: out = MemType(t); break;
  }
  reg_types_[t] = out;
  return out;
}

L::Type* ModuleWriter::MemType(const ir::Type* t) {
  auto it = mem_types_.find(t);
  if (it != mem_types_.end()) return it->second;
  L::Type* out = nullptr;
  switch (t->Kind()) {
    case ir::TypeKind::Bool: out = L::Type::getInt32Ty(context_); break;
    case ir::TypeKind::Vector: out = L::ArrayType::get(MemType(t->Element()), t->Count()); break;
    case ir::TypeKind::Matrix: out = L::ArrayType::get(MemType(t->Element()), t->Count()); break;
    case ir::TypeKind::Array: out = L::ArrayType::get(MemType(t->Element()), t->Count()); break;
    case ir::TypeKind::Struct: {
      L::StructType* s = L::StructType::create(context_, "struct." + LegalName(t->StructName()));
      mem_types_[t] = s;  // before the members: they never hold the struct itself
      std::vector<L::Type*> members;
      for (const ir::Type* m : t->Members()) members.push_back(MemType(m));
      s->setBody(members);  // an empty struct takes no bytes, as in the scalar layout
      return s;
    }
    default: out = RegType(t); break;
  }
  mem_types_[t] = out;
  return out;
}

L::Align ModuleWriter::AlignOf(const ir::Type* t) {
  return module_->getDataLayout().getABITypeAlign(MemType(t));
}

bool ModuleWriter::CheckLayouts() {
  // The memory types follow C's layout, which for these types is the scalar block
  // layout the reflection reports; a difference would be wrong data, so it is checked.
  const L::DataLayout& dl = module_->getDataLayout();
  // The structs buffers, uniform buffers and push-constant blocks hold.
  std::set<const ir::Type*> visible;
  std::vector<const ir::Type*> work;
  for (const ir::Global* g : ir_.globals) {
    const ir::Type* t = g->GetType();
    if (t->IsBuffer() || g->IsUniform() || g->IsPushConstant()) work.push_back(t->Element());
  }
  while (!work.empty()) {
    const ir::Type* t = work.back();
    work.pop_back();
    while (t->IsArray()) t = t->Element();
    if (!t->IsStruct() || !visible.insert(t).second) continue;
    for (const ir::Type* m : t->Members()) work.push_back(m);
  }
  for (const ir::Type* s : ir_.Types().Structs()) {
    if (s->Members().empty() || visible.count(s) == 0) continue;
    auto* st = L::cast<L::StructType>(MemType(s));
    const L::StructLayout* sl = dl.getStructLayout(st);
    std::vector<uint32_t> want =
        LayoutMemberOffsets(s, BufferLayout::Scalar, options_.matrices);
    for (size_t i = 0; i < want.size(); ++i) {
      if (sl->getElementOffset(i) != want[i]) {
        Error({}, "struct '" + s->StructName() + "': member '" + s->MemberNames()[i] +
                      "' would be at byte " + std::to_string(sl->getElementOffset(i)) +
                      " instead of the scalar layout's " + std::to_string(want[i]));
        return false;
      }
    }
    if (dl.getTypeAllocSize(st) !=
        LayoutArrayStride(s, BufferLayout::Scalar, options_.matrices)) {
      Error({}, "struct '" + s->StructName() + "': its array stride differs from the scalar layout's");
      return false;
    }
  }
  return true;
}

void ModuleWriter::LayoutGlobals() {
  for (size_t i = 0; i < options_.bindings.size(); ++i) {
    slots_[options_.bindings[i].name] = static_cast<int>(i);
  }
  const L::DataLayout& dl = module_->getDataLayout();
  for (const ir::Global* g : ir_.globals) {
    if (!g->IsWorkgroup() && !g->IsPrivate()) continue;
    L::Type* t = MemType(g->GetType()->Element());
    uint64_t& end = g->IsWorkgroup() ? shared_bytes_ : private_bytes_;
    uint64_t align = std::max<uint64_t>(dl.getABITypeAlign(t).value(), 16);
    end = (end + align - 1) / align * align;
    offsets_[g] = end;
    end += dl.getTypeAllocSize(t);
  }
}

std::unique_ptr<L::Module> ModuleWriter::Write() {
  module_ = std::make_unique<L::Module>("slope", context_);
  module_->setDataLayout(data_layout_);
  L::Type* ptr = L::PointerType::get(context_, 0);
  L::Type* i32 = L::Type::getInt32Ty(context_);
  L::Type* u3 = L::ArrayType::get(i32, 3);
  invocation_ = L::StructType::create(context_, {ptr, ptr, ptr, ptr, u3, u3, i32, i32, ptr, i32},
                                      "SlopeCpuInvocation");
  if (!CheckLayouts()) return nullptr;
  LayoutGlobals();
  if (gpu_ && shared_bytes_ > 0) {
    L::Type* bytes = L::ArrayType::get(L::Type::getInt8Ty(context_), shared_bytes_);
    gpu_shared_ = new L::GlobalVariable(*module_, bytes, false, L::GlobalValue::InternalLinkage,
                                        L::UndefValue::get(bytes), "slope_shared", nullptr,
                                        L::GlobalValue::NotThreadLocal, 3);
    gpu_shared_->setAlignment(L::Align(16));
  }

  std::vector<const ir::Function*> entries = ir_.EntryPoints(options_.entry_points);
  if (entries.empty()) {
    Error({}, "no entry point to write");
    return nullptr;
  }
  std::vector<const ir::Function*> functions = Reachable(entries);
  for (const ir::Function* f : functions) {
    for (const ir::Block* block : f->blocks) {
      for (const ir::Inst* inst : block->insts) {
        if (!gpu_ && inst->GetOp() == ir::Op::Wave) tracks_waves_ = true;
      }
    }
  }
  for (const ir::Function* f : functions) {
    std::vector<L::Type*> params{ptr};
    for (const ir::Param* p : f->params) params.push_back(RegType(p->GetType()));
    auto* type = L::FunctionType::get(RegType(f->ResultType()), params, false);
    L::Function* out = L::Function::Create(type, L::GlobalValue::InternalLinkage,
                                           "slope." + LegalName(f->Name()), *module_);
    out->addFnAttr(L::Attribute::NoUnwind);
    // On the GPU every function is inlined, as CUDA compilers do: a call passes its
    // arguments through param memory, and aggregates passed by value (an MLP layer's
    // activations) stay in local memory unless the callee's body is in the caller
    // (recursion is rejected before this). On the CPU, LLVM's inliner decides.
    if (f->force_inline || gpu_) out->addFnAttr(L::Attribute::AlwaysInline);
    functions_[f] = out;
  }
  for (const ir::Function* f : functions) {
    FunctionWriter(*this, *f, functions_[f]).Write();
    if (Failed()) return nullptr;
  }
  for (const ir::Function* entry : entries) {
    if (gpu_) {
      WriteGpuKernel(*entry, functions_[entry]);
    } else {
      WriteCpuEntry(*entry, functions_[entry], SyncFlags(Reachable({entry})));
    }
  }
  std::string message;
  L::raw_string_ostream os(message);
  if (L::verifyModule(*module_, &os)) {
    Error({}, "internal error: the LLVM module does not verify: " + os.str());
    return nullptr;
  }
  return std::move(module_);
}

L::Value* ModuleWriter::Builtin(L::IRBuilder<>& b, L::Value* inv, const std::string& semantic,
                                const ir::Type* t, const ir::Function& entry) {
  L::Type* i32 = b.getInt32Ty();
  auto field3 = [&](unsigned field, unsigned k) {
    L::Value* p = b.CreateStructGEP(invocation_, inv, field);
    p = b.CreateConstInBoundsGEP1_32(i32, p, k);
    return b.CreateLoad(i32, p);
  };
  std::vector<L::Value*> lanes;
  if (semantic == "SV_GroupIndex") {
    lanes.push_back(b.CreateLoad(i32, b.CreateStructGEP(invocation_, inv, kInvLocalIndex)));
  } else {
    for (unsigned k = 0; k < 3; ++k) {
      if (semantic == "SV_GroupThreadID") {
        lanes.push_back(field3(kInvLocalId, k));
      } else if (semantic == "SV_GroupID") {
        lanes.push_back(field3(kInvGroupId, k));
      } else {  // SV_DispatchThreadID
        L::Value* g = field3(kInvGroupId, k);
        L::Value* l = field3(kInvLocalId, k);
        lanes.push_back(b.CreateAdd(b.CreateMul(g, b.getInt32(entry.entry.numthreads[k])), l));
      }
    }
  }
  if (!t->IsVector()) return lanes[0];
  L::Value* v = L::PoisonValue::get(RegType(t));
  for (uint32_t k = 0; k < t->Count(); ++k) v = b.CreateInsertElement(v, lanes[k], k);
  return v;
}

void ModuleWriter::WriteCpuEntry(const ir::Function& f, L::Function* body, uint32_t flags) {
  L::Type* ptr = L::PointerType::get(context_, 0);
  auto* type = L::FunctionType::get(L::Type::getVoidTy(context_), {ptr}, false);
  std::string name = "slope_cpu_" + f.Name();
  L::Function* entry =
      L::Function::Create(type, L::GlobalValue::ExternalLinkage, name, *module_);
  entry->addFnAttr(L::Attribute::NoUnwind);
  L::IRBuilder<> b(L::BasicBlock::Create(context_, "entry", entry));
  std::vector<L::Value*> args{entry->getArg(0)};
  for (size_t i = 0; i < f.params.size(); ++i) {
    args.push_back(Builtin(b, entry->getArg(0), f.entry.param_semantics[i],
                           f.params[i]->GetType(), f));
  }
  b.CreateCall(body, args);
  b.CreateRetVoid();

  // The info the runtime reads: SlopeCpuKernelInfo.
  L::Type* i64 = L::Type::getInt64Ty(context_);
  L::Type* i32 = L::Type::getInt32Ty(context_);
  auto* info_type = L::StructType::get(context_, {i64, i64, i32, L::ArrayType::get(i32, 3), i32});
  const auto& n = f.entry.numthreads;
  L::Constant* threads = L::ConstantArray::get(
      L::ArrayType::get(i32, 3),
      {L::ConstantInt::get(i32, n[0]), L::ConstantInt::get(i32, n[1]), L::ConstantInt::get(i32, n[2])});
  L::Constant* info = L::ConstantStruct::get(
      info_type,
      {L::ConstantInt::get(i64, shared_bytes_), L::ConstantInt::get(i64, private_bytes_),
       L::ConstantInt::get(i32, flags), threads, L::ConstantInt::get(i32, f.entry.wave_size)});
  new L::GlobalVariable(*module_, info_type, true, L::GlobalValue::ExternalLinkage, info,
                        "slope_cpu_info_" + f.Name());
}

void ModuleWriter::WriteGpuKernel(const ir::Function& f, L::Function* body) {
  // Parameters as the CUDA C++ target's kernels take them (docs/cuda.md): a pointer per
  // resource in reflection order, the entry point's push-constant block by value, then
  // each storage buffer's size in bytes.
  L::Type* ptr = L::PointerType::get(context_, 0);
  L::Type* i64 = L::Type::getInt64Ty(context_);
  L::Type* i32 = L::Type::getInt32Ty(context_);
  std::vector<L::Type*> params;
  std::vector<int> push_index(options_.bindings.size(), -1);
  std::vector<L::Type*> push_types(options_.bindings.size(), nullptr);
  size_t storage = 0;
  for (size_t i = 0; i < options_.bindings.size(); ++i) {
    const Binding& bd = options_.bindings[i];
    if (bd.push_constant && bd.entry_point != f.Name()) continue;
    if (bd.push_constant) {
      for (const ir::Global* g : ir_.globals) {
        if (g->Name() == bd.name) push_types[i] = MemType(g->GetType()->Element());
      }
      push_index[i] = static_cast<int>(params.size());
    }
    params.push_back(ptr);
    if (bd.storage) ++storage;
  }
  size_t first_size = params.size();
  for (size_t k = 0; k < storage; ++k) params.push_back(i64);
  auto* type = L::FunctionType::get(L::Type::getVoidTy(context_), params, false);
  L::Function* kernel = L::Function::Create(type, L::GlobalValue::ExternalLinkage,
                                            cuda::KernelSymbol(f.Name()), *module_);
  for (size_t i = 0; i < options_.bindings.size(); ++i) {
    if (push_index[i] >= 0 && push_types[i] != nullptr) {
      kernel->addParamAttr(push_index[i], L::Attribute::getWithByValType(context_, push_types[i]));
    }
  }
  L::IRBuilder<> b(L::BasicBlock::Create(context_, "entry", kernel));
  size_t n = options_.bindings.size();
  L::Value* resources = b.CreateAlloca(L::ArrayType::get(ptr, n == 0 ? 1 : n));
  L::Value* sizes = b.CreateAlloca(L::ArrayType::get(i64, n == 0 ? 1 : n));
  L::Value* inv = b.CreateAlloca(invocation_);
  L::Value* priv = b.CreateAlloca(L::ArrayType::get(b.getInt8Ty(), private_bytes_ == 0 ? 1 : private_bytes_));
  L::cast<L::AllocaInst>(priv)->setAlignment(L::Align(16));
  size_t param = 0, size_param = first_size;
  for (size_t i = 0; i < n; ++i) {
    const Binding& bd = options_.bindings[i];
    L::Value* slot = b.CreateConstInBoundsGEP2_32(L::ArrayType::get(ptr, n), resources, 0, i);
    L::Value* size_slot = b.CreateConstInBoundsGEP2_32(L::ArrayType::get(i64, n), sizes, 0, i);
    if (bd.push_constant && bd.entry_point != f.Name()) {
      b.CreateStore(L::ConstantPointerNull::get(L::PointerType::get(context_, 0)), slot);
      b.CreateStore(b.getInt64(0), size_slot);
      continue;
    }
    b.CreateStore(kernel->getArg(param++), slot);
    b.CreateStore(bd.storage ? static_cast<L::Value*>(kernel->getArg(size_param++)) : b.getInt64(0),
                  size_slot);
  }
  auto set = [&](unsigned field, L::Value* v) {
    b.CreateStore(v, b.CreateStructGEP(invocation_, inv, field));
  };
  set(kInvResources, resources);
  set(kInvSizes, sizes);
  set(kInvShared, gpu_shared_ != nullptr
                      ? b.CreateAddrSpaceCast(gpu_shared_, ptr)
                      : static_cast<L::Value*>(L::ConstantPointerNull::get(L::PointerType::get(context_, 0))));
  set(kInvPrivate, priv);
  auto sreg = [&](L::Intrinsic::ID id) { return b.CreateIntrinsic(id, {}, {}); };
  L::Intrinsic::ID tid[3] = {L::Intrinsic::nvvm_read_ptx_sreg_tid_x, L::Intrinsic::nvvm_read_ptx_sreg_tid_y,
                             L::Intrinsic::nvvm_read_ptx_sreg_tid_z};
  L::Intrinsic::ID ctaid[3] = {L::Intrinsic::nvvm_read_ptx_sreg_ctaid_x,
                               L::Intrinsic::nvvm_read_ptx_sreg_ctaid_y,
                               L::Intrinsic::nvvm_read_ptx_sreg_ctaid_z};
  L::Value* local[3];
  for (unsigned k = 0; k < 3; ++k) {
    local[k] = sreg(tid[k]);
    b.CreateStore(local[k], b.CreateConstInBoundsGEP2_32(L::ArrayType::get(i32, 3),
                                                         b.CreateStructGEP(invocation_, inv, kInvLocalId), 0, k));
    b.CreateStore(sreg(ctaid[k]), b.CreateConstInBoundsGEP2_32(L::ArrayType::get(i32, 3),
                                                               b.CreateStructGEP(invocation_, inv, kInvGroupId), 0, k));
  }
  const auto& nt = f.entry.numthreads;
  L::Value* index = b.CreateAdd(local[0], b.CreateMul(b.getInt32(nt[0]),
                                                      b.CreateAdd(local[1], b.CreateMul(b.getInt32(nt[1]), local[2]))));
  set(kInvLocalIndex, index);
  set(kInvLane, b.CreateURem(index, b.getInt32(32)));
  set(kInvScheduler, L::ConstantPointerNull::get(L::PointerType::get(context_, 0)));
  set(kInvLaneCount, b.getInt32(32));
  std::vector<L::Value*> args{inv};
  for (size_t i = 0; i < f.params.size(); ++i) {
    args.push_back(Builtin(b, inv, f.entry.param_semantics[i], f.params[i]->GetType(), f));
  }
  b.CreateCall(body, args);
  b.CreateRetVoid();
  // The kernel's block size, as __launch_bounds__ gives it.
  L::NamedMDNode* annotations = module_->getOrInsertNamedMetadata("nvvm.annotations");
  L::Metadata* is_kernel[] = {L::ValueAsMetadata::get(kernel), L::MDString::get(context_, "kernel"),
                              L::ValueAsMetadata::get(b.getInt32(1))};
  annotations->addOperand(L::MDNode::get(context_, is_kernel));
  L::Metadata* bound[] = {L::ValueAsMetadata::get(kernel), L::MDString::get(context_, "maxntidx"),
                          L::ValueAsMetadata::get(b.getInt32(nt[0] * nt[1] * nt[2]))};
  annotations->addOperand(L::MDNode::get(context_, bound));
  (void)i32;
}

// ---------------------------------------------------------------------------------------
// Functions

FunctionWriter::FunctionWriter(ModuleWriter& mw, const ir::Function& f, L::Function* out)
    : mw_(mw), ir_(mw.Ir()), f_(f), out_(out), ctx_(mw.Context()), b_(mw.Context()) {}

L::AllocaInst* FunctionWriter::EntryAlloca(L::Type* t) {
  L::IRBuilder<> a(alloca_block_, alloca_block_->begin());
  return a.CreateAlloca(t);
}

L::Value* FunctionWriter::ConstantValue(const ir::Constant& c) {
  const ir::Type* t = c.GetType();
  L::Type* lt = mw_.RegType(t);
  if (t->IsBool()) return L::ConstantInt::get(lt, c.Bits() != 0);
  if (t->IsInt()) return L::ConstantInt::get(lt, c.Bits());
  return L::ConstantFP::get(lt, c.AsDouble());
}

L::Value* FunctionWriter::GlobalValue(const ir::Global& g) {
  auto it = globals_.find(&g);
  if (it != globals_.end()) return it->second;
  // Formed in the entry block, before anything that could use it.
  L::IRBuilder<> a(alloca_block_, alloca_block_->getTerminator() != nullptr
                                      ? alloca_block_->getTerminator()->getIterator()
                                      : alloca_block_->end());
  L::Type* ptr = L::PointerType::get(ctx_, 0);
  L::Value* v = nullptr;
  if (g.IsWorkgroup() || g.IsPrivate()) {
    unsigned field = g.IsWorkgroup() ? kInvShared : kInvPrivate;
    L::Value* base = a.CreateLoad(ptr, a.CreateStructGEP(mw_.InvocationType(), Inv(), field));
    v = a.CreateConstInBoundsGEP1_64(a.getInt8Ty(), base, mw_.OffsetOf(&g));
  } else {
    int slot = mw_.SlotOf(&g);
    if (slot < 0) {
      mw_.Error({}, "resource '" + g.Name() + "' has no reflected binding");
      v = L::ConstantPointerNull::get(L::PointerType::get(ctx_, 0));
    } else {
      L::Value* table = a.CreateLoad(ptr, a.CreateStructGEP(mw_.InvocationType(), Inv(), kInvResources));
      v = a.CreateLoad(ptr, a.CreateConstInBoundsGEP1_64(ptr, table, slot));
    }
  }
  globals_[&g] = v;
  return v;
}

L::Value* FunctionWriter::Val(const ir::Value* v) {
  switch (v->VKind()) {
    case ir::ValueKind::Constant: return ConstantValue(static_cast<const ir::Constant&>(*v));
    case ir::ValueKind::Global: return GlobalValue(static_cast<const ir::Global&>(*v));
    default: break;
  }
  if (rows_.count(v) != 0) {
    mw_.Error(loc_, "the LLVM targets cannot pass a pointer to a row of a column-major matrix in "
                    "buffer memory to a function or through a branch; load the row first");
    return L::PoisonValue::get(mw_.RegType(v->GetType()));
  }
  auto it = values_.find(v);
  if (it == values_.end()) {
    mw_.Error({}, "internal error: a value is used before it is defined");
    return L::PoisonValue::get(mw_.RegType(v->GetType()));
  }
  return it->second;
}

void FunctionWriter::Write() {
  alloca_block_ = L::BasicBlock::Create(ctx_, "allocas", out_);
  for (size_t i = 0; i < f_.params.size(); ++i) values_[f_.params[i]] = out_->getArg(i + 1);
  ir::DomTree dom(f_);
  if (mw_.TracksWaves()) {
    for (const ir::Block* block : f_.blocks) {
      const ir::Inst* term = block->insts.empty() ? nullptr : block->insts.back();
      if (term == nullptr || term->GetOp() != ir::Op::Loop) continue;
      loop_of_header_[block] = term;
      header_of_merge_[term->targets[1]] = block;
    }
  }
  if (mw_.Gpu()) {
    // Innermost loops: a header none of whose loop's blocks heads another loop. Fully
    // unrolled (when LLVM knows the trip count, within its size limit), a loop indexing a
    // per-thread array by its counter lets the array live in registers instead of local
    // memory, as CUDA compilers do for small constant loops.
    std::vector<const ir::Block*> headers;
    for (const ir::Block* b : f_.blocks) {
      const ir::Inst* t = b->insts.empty() ? nullptr : b->insts.back();
      if (t != nullptr && t->GetOp() == ir::Op::Loop && dom.IsReachable(b)) headers.push_back(b);
    }
    auto inside = [&](const ir::Block* h, const ir::Block* b) {
      const ir::Block* merge = h->insts.back()->targets[1];
      return b != h && dom.Dominates(h, b) && !(dom.IsReachable(merge) && dom.Dominates(merge, b));
    };
    for (const ir::Block* h : headers) {
      bool innermost = std::none_of(headers.begin(), headers.end(),
                                    [&](const ir::Block* other) { return inside(h, other); });
      if (innermost) unroll_back_edges_.insert(h->insts.back()->targets[2]);
    }
  }
  for (const ir::Block* block : dom.ReversePostOrder()) {
    L::BasicBlock* bb = L::BasicBlock::Create(ctx_, "", out_);
    blocks_[block] = bb;
    b_.SetInsertPoint(bb);
    for (const ir::Param* p : block->params) values_[p] = b_.CreatePHI(mw_.RegType(p->GetType()), 2);
  }
  for (const ir::Block* block : dom.ReversePostOrder()) {
    b_.SetInsertPoint(blocks_[block]);
    EmitBlock(*block);
    if (mw_.Failed()) return;
  }
  L::IRBuilder<> a(alloca_block_);
  a.CreateBr(blocks_[f_.blocks[0]]);
}

void FunctionWriter::EmitBlock(const ir::Block& block) {
  // A loop's merge block: the lanes leaving the loop are where they were before it.
  auto merge = header_of_merge_.find(&block);
  if (merge != header_of_merge_.end()) {
    auto slot = loop_depth_.find(merge->second);
    if (slot != loop_depth_.end()) LeaveTracked(b_.CreateLoad(b_.getInt32Ty(), slot->second));
  }
  for (const ir::Inst* inst : block.insts) {
    if (inst->IsTerminator()) {
      EmitTerminator(*inst);
    } else {
      EmitInst(*inst);
    }
    if (mw_.Failed()) return;
  }
}

void FunctionWriter::AddIncoming(const ir::Inst& term, size_t edge, L::BasicBlock* from) {
  const ir::Block* target = term.targets[edge];
  std::vector<ir::Value*> args = ir::EdgeArgs(term, edge);
  for (size_t i = 0; i < args.size(); ++i) {
    L::cast<L::PHINode>(values_.at(target->params[i]))->addIncoming(Val(args[i]), from);
  }
}

bool FunctionWriter::EdgeHasHook(const ir::Block* from, const ir::Block* to) const {
  return loop_of_header_.count(to) != 0;
}

L::Value* FunctionWriter::EnterTracked(uint32_t position) {
  L::Type* i32 = b_.getInt32Ty();
  auto* type = L::FunctionType::get(i32, {L::PointerType::get(ctx_, 0), i32}, false);
  return b_.CreateCall(mw_.Callback("slope_cpu_enter", type), {Inv(), b_.getInt32(position)});
}

void FunctionWriter::LeaveTracked(L::Value* depth) {
  L::Type* i32 = b_.getInt32Ty();
  auto* type = L::FunctionType::get(b_.getVoidTy(), {L::PointerType::get(ctx_, 0), i32}, false);
  b_.CreateCall(mw_.Callback("slope_cpu_leave", type), {Inv(), depth});
}

void FunctionWriter::EmitEdgeHook(const ir::Block* from, const ir::Block* to) {
  const ir::Inst* loop = loop_of_header_.at(to);
  if (from == loop->targets[2]) {  // the back edge: the next iteration
    auto* type = L::FunctionType::get(b_.getVoidTy(), {L::PointerType::get(ctx_, 0)}, false);
    b_.CreateCall(mw_.Callback("slope_cpu_next", type), {Inv()});
    return;
  }
  L::AllocaInst*& slot = loop_depth_[to];
  if (slot == nullptr) slot = EntryAlloca(b_.getInt32Ty());
  b_.CreateStore(EnterTracked(mw_.NextWaveSite()), slot);
}

void FunctionWriter::EmitTerminator(const ir::Inst& inst) {
  using ir::Op;
  const ir::Block* here = inst.block;
  switch (inst.GetOp()) {
    case Op::Br: {
      AddIncoming(inst, 0, b_.GetInsertBlock());
      if (EdgeHasHook(here, inst.targets[0])) EmitEdgeHook(here, inst.targets[0]);
      L::BranchInst* br = b_.CreateBr(blocks_.at(inst.targets[0]));
      if (unroll_back_edges_.count(here) != 0) {
        L::MDNode* full = L::MDNode::get(ctx_, {L::MDString::get(ctx_, "llvm.loop.unroll.full")});
        L::MDNode* loop = L::MDNode::getDistinct(ctx_, {nullptr, full});
        loop->replaceOperandWith(0, loop);
        br->setMetadata(L::LLVMContext::MD_loop, loop);
      }
      return;
    }
    case Op::CondBr:
    case Op::If: {
      L::Value* cond = Val(inst.operands[0]);
      L::BasicBlock* from = b_.GetInsertBlock();
      L::BasicBlock* dest[2];
      for (size_t e = 0; e < 2; ++e) {
        dest[e] = blocks_.at(inst.targets[e]);
        if (EdgeHasHook(here, inst.targets[e])) {
          // Entering or repeating a loop: the tracking call on the edge alone.
          L::BasicBlock* hop = L::BasicBlock::Create(ctx_, "", out_);
          b_.SetInsertPoint(hop);
          EmitEdgeHook(here, inst.targets[e]);
          b_.CreateBr(dest[e]);
          b_.SetInsertPoint(from);
          if (inst.GetOp() == Op::CondBr) AddIncoming(inst, e, hop);
          dest[e] = hop;
        } else if (inst.GetOp() == Op::CondBr && inst.targets[0] == inst.targets[1] &&
            !inst.targets[e]->params.empty()) {
          // Both edges reach one block with their own arguments: each through a block
          // of its own, since a phi takes one value per predecessor.
          L::BasicBlock* hop = L::BasicBlock::Create(ctx_, "", out_);
          L::IRBuilder<>(hop).CreateBr(dest[e]);
          AddIncoming(inst, e, hop);
          dest[e] = hop;
        } else if (inst.GetOp() == Op::CondBr) {
          AddIncoming(inst, e, from);
        }
      }
      b_.CreateCondBr(cond, dest[0], dest[1]);
      return;
    }
    case Op::Loop:
      b_.CreateBr(blocks_.at(inst.targets[0]));
      return;
    case Op::Switch: {
      L::Value* selector = Val(inst.operands[0]);
      size_t cases = inst.operands.size() - 1;
      L::SwitchInst* sw = b_.CreateSwitch(selector, blocks_.at(inst.targets[0]), cases);
      for (size_t i = 0; i < cases; ++i) {
        sw->addCase(L::cast<L::ConstantInt>(Val(inst.operands[i + 1])), blocks_.at(inst.targets[i + 1]));
      }
      return;
    }
    case Op::Return:
      if (inst.operands.empty()) {
        b_.CreateRetVoid();
      } else {
        b_.CreateRet(Val(inst.operands[0]));
      }
      return;
    case Op::Unreachable:
      b_.CreateUnreachable();
      return;
    default:
      break;
  }
  mw_.Error(inst.loc, "internal error: unknown terminator");
}

std::unique_ptr<L::Module> WriteLlvmModule(const ir::Module& module, const EmitOptions& options,
                                           bool gpu, const std::string& data_layout,
                                           L::LLVMContext& context, std::vector<EmitError>* errors) {
  ModuleWriter writer(module, options, gpu, data_layout, context, errors);
  return writer.Write();
}

}  // namespace slope::targets::llvm
