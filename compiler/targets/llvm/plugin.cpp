// libslope_llvm.so: the LLVM writer, LLVM's optimizer and code generators, and the host
// JIT, behind plugin_api.h.
#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/Bitcode/BitcodeWriter.h>
#include <llvm/Config/llvm-config.h>
#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/IR/DiagnosticHandler.h>
#include <llvm/IR/DiagnosticInfo.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IRReader/IRReader.h>
#include <llvm/Linker/Linker.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/SourceMgr.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/TargetParser/Host.h>

#include <memory>
#include <mutex>

#include "compiler/targets/llvm/plugin_api.h"
#include "compiler/targets/llvm/writer.h"

extern "C" void LLVMInitializeNVPTXTargetInfo();
extern "C" void LLVMInitializeNVPTXTarget();
extern "C" void LLVMInitializeNVPTXTargetMC();
extern "C" void LLVMInitializeNVPTXAsmPrinter();

namespace slope::targets::llvm {
namespace {

namespace L = ::llvm;

void InitializeTargets() {
  static std::once_flag once;
  std::call_once(once, [] {
    L::InitializeNativeTarget();
    L::InitializeNativeTargetAsmPrinter();
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
  });
}

std::unique_ptr<L::TargetMachine> MakeMachine(const std::string& triple, const std::string& cpu,
                                              const std::string& features, uint32_t level,
                                              std::string* error) {
  std::string message;
  const L::Target* target = L::TargetRegistry::lookupTarget(triple, message);
  if (target == nullptr) {
    *error = "LLVM has no target '" + triple + "': " + message;
    return nullptr;
  }
  L::TargetOptions options;  // no fast-math: float operations stay as written
  auto opt = level == 0 ? L::CodeGenOptLevel::None
             : level == 1 ? L::CodeGenOptLevel::Less
             : level == 3 ? L::CodeGenOptLevel::Aggressive
                          : L::CodeGenOptLevel::Default;
  return std::unique_ptr<L::TargetMachine>(
      target->createTargetMachine(triple, cpu, features, options, L::Reloc::PIC_, std::nullopt, opt));
}

void Optimize(L::Module& module, L::TargetMachine* machine, uint32_t level) {
  L::LoopAnalysisManager lam;
  L::FunctionAnalysisManager fam;
  L::CGSCCAnalysisManager cgam;
  L::ModuleAnalysisManager mam;
  L::PassBuilder builder(machine);
  builder.registerModuleAnalyses(mam);
  builder.registerCGSCCAnalyses(cgam);
  builder.registerFunctionAnalyses(fam);
  builder.registerLoopAnalyses(lam);
  builder.crossRegisterProxies(lam, fam, cgam, mam);
  L::OptimizationLevel opt = level == 0 ? L::OptimizationLevel::O0
                             : level == 1 ? L::OptimizationLevel::O1
                             : level == 3 ? L::OptimizationLevel::O3
                                          : L::OptimizationLevel::O2;
  L::ModulePassManager passes = level == 0 ? builder.buildO0DefaultPipeline(opt)
                                           : builder.buildPerModuleDefaultPipeline(opt);
  passes.run(module, mam);
}

bool EmitCode(L::Module& module, L::TargetMachine& machine, L::CodeGenFileType kind,
              std::string* out, std::string* error) {
  L::SmallVector<char, 0> buffer;
  L::raw_svector_ostream os(buffer);
  L::legacy::PassManager passes;
  if (machine.addPassesToEmitFile(passes, os, nullptr, kind)) {
    *error = "LLVM cannot write this kind of file for " + machine.getTargetTriple().str();
    return false;
  }
  passes.run(module);
  out->assign(buffer.begin(), buffer.end());
  return true;
}

/// Links libdevice's functions that `module` calls (the rest are dropped).
bool LinkLibdevice(L::Module& module, const std::string& path, std::string* error) {
  L::SMDiagnostic diag;
  std::unique_ptr<L::Module> libdevice = L::parseIRFile(path, diag, module.getContext());
  if (libdevice == nullptr) {
    *error = "cannot read libdevice '" + path + "': " + diag.getMessage().str();
    return false;
  }
  libdevice->setTargetTriple(module.getTargetTriple());
  libdevice->setDataLayout(module.getDataLayout());
  if (L::Linker::linkModules(module, std::move(libdevice), L::Linker::LinkOnlyNeeded)) {
    *error = "cannot link libdevice '" + path + "'";
    return false;
  }
  // libdevice reads __nvvm_reflect("__CUDA_FTZ"): no flush to zero.
  module.addModuleFlag(L::Module::Override, "nvvm-reflect-ftz", static_cast<uint32_t>(0));
  return true;
}

bool Emit(const ir::Module& ir, const EmitOptions& options, std::string* out,
          std::vector<EmitError>* errors) {
  InitializeTargets();
  bool gpu = options.output == Output::Ptx;
  std::string error;
  std::string triple = gpu ? "nvptx64-nvidia-cuda" : L::sys::getDefaultTargetTriple();
  std::string cpu = gpu ? options.gpu_arch : "";
  std::string features = gpu ? "+ptx80" : "";
  std::unique_ptr<L::TargetMachine> machine =
      MakeMachine(triple, cpu, features, options.optimization_level, &error);
  if (machine == nullptr) {
    errors->push_back({{}, error});
    return false;
  }
  L::LLVMContext context;
  // The writer asks for innermost loops to be unrolled fully on the GPU (writer.cpp); a
  // loop whose trip count is not a constant stays a loop, and LLVM's "loop not unrolled"
  // warning about that request is not the user's concern. Other diagnostics print.
  struct QuietUnrollRequests : L::DiagnosticHandler {
    bool handleDiagnostics(const L::DiagnosticInfo& info) override {
      return info.getKind() == L::DK_OptimizationFailure;
    }
  };
  context.setDiagnosticHandler(std::make_unique<QuietUnrollRequests>());
  std::unique_ptr<L::Module> module = WriteLlvmModule(
      ir, options, gpu, machine->createDataLayout().getStringRepresentation(), context, errors);
  if (module == nullptr) return false;
  module->setTargetTriple(triple);
  if (gpu) {
    bool calls_libdevice = false;
    std::string first;
    for (const L::Function& f : *module) {
      if (f.isDeclaration() && f.getName().starts_with("__nv_")) {
        calls_libdevice = true;
        if (first.empty()) first = f.getName().str();
      }
    }
    if (calls_libdevice) {
      if (options.libdevice_path.empty()) {
        errors->push_back({{}, "the ptx target computes '" + first.substr(5) +
                                   "' with libdevice, which is not installed (the CUDA toolkit's "
                                   "nvvm/libdevice/libdevice.10.bc; set CUDA_HOME)"});
        return false;
      }
      if (!LinkLibdevice(*module, options.libdevice_path, &error)) {
        errors->push_back({{}, error});
        return false;
      }
    }
  }
  Optimize(*module, machine.get(), options.optimization_level);
  switch (options.output) {
    case Output::LlvmIr: {
      L::raw_string_ostream os(*out);
      module->print(os, nullptr);
      return true;
    }
    case Output::Bitcode: {
      L::raw_string_ostream os(*out);
      L::WriteBitcodeToFile(*module, os);
      return true;
    }
    case Output::Object:
      if (!EmitCode(*module, *machine, L::CodeGenFileType::ObjectFile, out, &error)) break;
      return true;
    case Output::Ptx:
      if (!EmitCode(*module, *machine, L::CodeGenFileType::AssemblyFile, out, &error)) break;
      return true;
  }
  errors->push_back({{}, error});
  return false;
}

}  // namespace

struct Jit {
  std::unique_ptr<L::orc::LLJIT> jit;
};

namespace {

Jit* JitCreate(std::string_view bitcode, const std::vector<std::pair<std::string, void*>>& symbols,
               std::string* error) {
  InitializeTargets();
  auto context = std::make_unique<L::LLVMContext>();
  auto buffer = L::MemoryBuffer::getMemBuffer(L::StringRef(bitcode.data(), bitcode.size()), "kernel", false);
  L::Expected<std::unique_ptr<L::Module>> module = L::parseBitcodeFile(buffer->getMemBufferRef(), *context);
  if (!module) {
    *error = "cannot read the kernel's bitcode: " + L::toString(module.takeError());
    return nullptr;
  }
  auto built = L::orc::LLJITBuilder().create();
  if (!built) {
    *error = "cannot start LLVM's JIT: " + L::toString(built.takeError());
    return nullptr;
  }
  auto jit = std::make_unique<Jit>();
  jit->jit = std::move(*built);
  L::orc::JITDylib& lib = jit->jit->getMainJITDylib();
  // The C library's math functions from the process; the runtime's callbacks as given.
  auto process = L::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
      jit->jit->getDataLayout().getGlobalPrefix());
  if (!process) {
    *error = "cannot search the process's symbols: " + L::toString(process.takeError());
    return nullptr;
  }
  lib.addGenerator(std::move(*process));
  L::orc::SymbolMap map;
  L::orc::MangleAndInterner mangle(jit->jit->getExecutionSession(), jit->jit->getDataLayout());
  for (const auto& [name, address] : symbols) {
    map[mangle(name)] = {L::orc::ExecutorAddr::fromPtr(address), L::JITSymbolFlags::Exported};
  }
  if (L::Error e = lib.define(L::orc::absoluteSymbols(std::move(map)))) {
    *error = "cannot define the runtime's symbols: " + L::toString(std::move(e));
    return nullptr;
  }
  if (L::Error e = jit->jit->addIRModule(L::orc::ThreadSafeModule(std::move(*module), std::move(context)))) {
    *error = "cannot add the kernel to the JIT: " + L::toString(std::move(e));
    return nullptr;
  }
  return jit.release();
}

void* JitLookup(Jit* jit, const std::string& name, std::string* error) {
  auto address = jit->jit->lookup(name);
  if (!address) {
    *error = "the kernel has no symbol '" + name + "': " + L::toString(address.takeError());
    return nullptr;
  }
  return address->toPtr<void*>();
}

void JitDestroy(Jit* jit) { delete jit; }

const char* Version() { return LLVM_VERSION_STRING; }

const Api kApi = {kApiVersion, Emit, JitCreate, JitLookup, JitDestroy, Version};

}  // namespace
}  // namespace slope::targets::llvm

extern "C" __attribute__((visibility("default"))) const slope::targets::llvm::Api* slope_llvm_plugin_api() {
  return &slope::targets::llvm::kApi;
}
