#include "runtime/cuda/cuda_device.h"

#include <dlfcn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "compiler/targets/cuda/kernel_symbol.h"

namespace slope::runtime::cuda {
namespace {

// The driver API's types, as cuda.h declares them (the ABI is stable).
using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = struct CUctx_st*;
using CUmodule = struct CUmod_st*;
using CUfunction = struct CUfunc_st*;
using CUstream = struct CUstream_st*;
using CUevent = struct CUevent_st*;
constexpr CUresult kSuccess = 0;
constexpr int kAttributeComputeMajor = 75;  // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR
constexpr int kAttributeComputeMinor = 76;

/// The driver API entry points this backend calls, from libcuda.so.1.
struct Driver {
  bool loaded = false;
  std::string why;  ///< why it did not load
  CUresult (*cuInit)(unsigned);
  CUresult (*cuDeviceGetCount)(int*);
  CUresult (*cuDeviceGet)(CUdevice*, int);
  CUresult (*cuDeviceGetName)(char*, int, CUdevice);
  CUresult (*cuDeviceGetAttribute)(int*, int, CUdevice);
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext*, CUdevice);
  CUresult (*cuDevicePrimaryCtxRelease)(CUdevice);
  CUresult (*cuCtxSetCurrent)(CUcontext);
  CUresult (*cuCtxSynchronize)();
  CUresult (*cuMemAlloc)(CUdeviceptr*, size_t);
  CUresult (*cuMemFree)(CUdeviceptr);
  CUresult (*cuMemcpyHtoD)(CUdeviceptr, const void*, size_t);
  CUresult (*cuMemcpyDtoH)(void*, CUdeviceptr, size_t);
  CUresult (*cuMemcpyDtoD)(CUdeviceptr, CUdeviceptr, size_t);
  CUresult (*cuModuleLoadDataEx)(CUmodule*, const void*, unsigned, int*, void**);
  CUresult (*cuModuleUnload)(CUmodule);
  CUresult (*cuModuleGetFunction)(CUfunction*, CUmodule, const char*);
  CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned,
                             unsigned, unsigned, CUstream, void**, void**);
  CUresult (*cuEventCreate)(CUevent*, unsigned);
  CUresult (*cuEventRecord)(CUevent, CUstream);
  CUresult (*cuEventSynchronize)(CUevent);
  CUresult (*cuEventElapsedTime)(float*, CUevent, CUevent);
  CUresult (*cuEventDestroy)(CUevent);
  CUresult (*cuGetErrorString)(CUresult, const char**);
};

template <typename F>
bool Resolve(void* lib, const char* name, F* fn) {
  *fn = reinterpret_cast<F>(dlsym(lib, name));
  return *fn != nullptr;
}

const Driver& GetDriver() {
  static const Driver driver = [] {
    Driver d;
    void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (lib == nullptr) {
      d.why = "libcuda.so.1 is not installed (no NVIDIA driver)";
      return d;
    }
    bool ok = Resolve(lib, "cuInit", &d.cuInit) &&
              Resolve(lib, "cuDeviceGetCount", &d.cuDeviceGetCount) &&
              Resolve(lib, "cuDeviceGet", &d.cuDeviceGet) &&
              Resolve(lib, "cuDeviceGetName", &d.cuDeviceGetName) &&
              Resolve(lib, "cuDeviceGetAttribute", &d.cuDeviceGetAttribute) &&
              Resolve(lib, "cuDevicePrimaryCtxRetain", &d.cuDevicePrimaryCtxRetain) &&
              Resolve(lib, "cuDevicePrimaryCtxRelease_v2", &d.cuDevicePrimaryCtxRelease) &&
              Resolve(lib, "cuCtxSetCurrent", &d.cuCtxSetCurrent) &&
              Resolve(lib, "cuCtxSynchronize", &d.cuCtxSynchronize) &&
              Resolve(lib, "cuMemAlloc_v2", &d.cuMemAlloc) &&
              Resolve(lib, "cuMemFree_v2", &d.cuMemFree) &&
              Resolve(lib, "cuMemcpyHtoD_v2", &d.cuMemcpyHtoD) &&
              Resolve(lib, "cuMemcpyDtoH_v2", &d.cuMemcpyDtoH) &&
              Resolve(lib, "cuMemcpyDtoD_v2", &d.cuMemcpyDtoD) &&
              Resolve(lib, "cuModuleLoadDataEx", &d.cuModuleLoadDataEx) &&
              Resolve(lib, "cuModuleUnload", &d.cuModuleUnload) &&
              Resolve(lib, "cuModuleGetFunction", &d.cuModuleGetFunction) &&
              Resolve(lib, "cuLaunchKernel", &d.cuLaunchKernel) &&
              Resolve(lib, "cuEventCreate", &d.cuEventCreate) &&
              Resolve(lib, "cuEventRecord", &d.cuEventRecord) &&
              Resolve(lib, "cuEventSynchronize", &d.cuEventSynchronize) &&
              // cuEventElapsedTime_v2 is new in CUDA 12.8; older drivers have the plain one.
              (Resolve(lib, "cuEventElapsedTime_v2", &d.cuEventElapsedTime) ||
               Resolve(lib, "cuEventElapsedTime", &d.cuEventElapsedTime)) &&
              Resolve(lib, "cuEventDestroy_v2", &d.cuEventDestroy) &&
              Resolve(lib, "cuGetErrorString", &d.cuGetErrorString);
    if (!ok) {
      d.why = "libcuda.so.1 lacks a driver API function this backend needs";
      return d;
    }
    CUresult r = d.cuInit(0);
    if (r != kSuccess) {
      d.why = "cuInit failed (error " + std::to_string(r) + "): no usable NVIDIA GPU";
      return d;
    }
    d.loaded = true;
    return d;
  }();
  return driver;
}

/// `what` failed with `r`: a readable message.
std::string Failed(const char* what, CUresult r) {
  const char* text = nullptr;
  const Driver& d = GetDriver();
  if (d.cuGetErrorString != nullptr) d.cuGetErrorString(r, &text);
  return std::string(what) + " failed: " + (text != nullptr ? text : "error " + std::to_string(r));
}

/// Standard output (file descriptor 1) sent to a temporary file between Start and
/// Finish, which returns what was written there and puts standard output back.
class StdoutCapture {
 public:
  StdoutCapture() = default;
  StdoutCapture(const StdoutCapture&) = delete;
  StdoutCapture& operator=(const StdoutCapture&) = delete;
  ~StdoutCapture() { Finish(); }

  bool Start(std::string* error) {
    std::fflush(stdout);
    file_ = std::tmpfile();
    saved_ = file_ != nullptr ? dup(1) : -1;
    if (saved_ < 0 || dup2(fileno(file_), 1) < 0) {
      *error = std::string("cannot capture the kernel's printf output: ") + std::strerror(errno);
      if (saved_ >= 0) close(saved_);
      if (file_ != nullptr) std::fclose(file_);
      saved_ = -1;
      file_ = nullptr;
      return false;
    }
    return true;
  }

  std::string Finish() {
    if (saved_ < 0) return "";
    std::fflush(stdout);
    dup2(saved_, 1);
    close(saved_);
    saved_ = -1;
    std::string text;
    std::rewind(file_);
    char chunk[4096];
    for (size_t n; (n = std::fread(chunk, 1, sizeof(chunk), file_)) > 0;) text.append(chunk, n);
    std::fclose(file_);
    file_ = nullptr;
    return text;
  }

 private:
  std::FILE* file_ = nullptr;
  int saved_ = -1;
};

class CudaBuffer final : public Buffer {
 public:
  CudaBuffer(CUdeviceptr ptr, size_t size) : ptr_(ptr), size_(size) {}
  ~CudaBuffer() override { GetDriver().cuMemFree(ptr_); }
  CudaBuffer(const CudaBuffer&) = delete;
  CudaBuffer& operator=(const CudaBuffer&) = delete;
  size_t Size() const override { return size_; }
  Backend GetBackend() const override { return Backend::Cuda; }
  CUdeviceptr Pointer() const { return ptr_; }

 private:
  CUdeviceptr ptr_;
  size_t size_;
};

class CudaKernel final : public Kernel {
 public:
  CudaKernel(CUmodule module, CUfunction function, driver::Reflection reflection,
             driver::EntryPointInfo entry)
      : module_(module), function_(function), reflection_(std::move(reflection)),
        entry_(std::move(entry)) {}
  ~CudaKernel() override { GetDriver().cuModuleUnload(module_); }
  CudaKernel(const CudaKernel&) = delete;
  CudaKernel& operator=(const CudaKernel&) = delete;
  const driver::Reflection& GetReflection() const override { return reflection_; }
  const driver::EntryPointInfo& GetEntryPoint() const override { return entry_; }
  Backend GetBackend() const override { return Backend::Cuda; }
  CUfunction Function() const { return function_; }

 private:
  CUmodule module_;
  CUfunction function_;
  driver::Reflection reflection_;
  driver::EntryPointInfo entry_;
};

class CudaDevice final : public Device {
 public:
  CudaDevice(CUdevice device, CUcontext context, std::string name, bool capture_printf)
      : device_(device), context_(context), name_(std::move(name)),
        capture_printf_(capture_printf) {}
  ~CudaDevice() override { GetDriver().cuDevicePrimaryCtxRelease(device_); }
  CudaDevice(const CudaDevice&) = delete;
  CudaDevice& operator=(const CudaDevice&) = delete;

  Backend GetBackend() const override { return Backend::Cuda; }
  std::string Name() const override { return name_; }

  /// A kernel's pointers are device pointers.
  uint64_t BufferAddress(const Buffer& buffer) const override {
    return static_cast<uint64_t>(static_cast<const CudaBuffer&>(buffer).Pointer());
  }
  std::unique_ptr<Buffer> CreateBuffer(size_t size, std::string* error) override {
    CUdeviceptr ptr = 0;
    // cuMemAlloc refuses zero bytes: an empty buffer still owns a few.
    CUresult r = GetDriver().cuMemAlloc(&ptr, size == 0 ? 16 : size);
    if (r != kSuccess) {
      *error = Failed("cuMemAlloc", r);
      return nullptr;
    }
    return std::make_unique<CudaBuffer>(ptr, size);
  }

  bool WriteBuffer(Buffer& buffer, size_t offset, std::span<const std::byte> data,
                   std::string* error) override {
    CudaBuffer* b = Own(buffer, offset, data.size(), error);
    if (b == nullptr) return false;
    if (data.empty()) return true;
    CUresult r = GetDriver().cuMemcpyHtoD(b->Pointer() + offset, data.data(), data.size());
    if (r != kSuccess) *error = Failed("cuMemcpyHtoD", r);
    return r == kSuccess;
  }

  bool ReadBuffer(const Buffer& buffer, size_t offset, std::span<std::byte> out,
                  std::string* error) override {
    CudaBuffer* b = Own(const_cast<Buffer&>(buffer), offset, out.size(), error);
    if (b == nullptr) return false;
    if (out.empty()) return true;
    CUresult r = GetDriver().cuMemcpyDtoH(out.data(), b->Pointer() + offset, out.size());
    if (r != kSuccess) *error = Failed("cuMemcpyDtoH", r);
    return r == kSuccess;
  }

  std::unique_ptr<Kernel> CreateKernel(std::span<const uint32_t>, const driver::Reflection&,
                                       const std::string&, std::string* error) override {
    *error = "the cuda backend runs PTX, not SPIR-V (compile with -target cuda)";
    return nullptr;
  }

  std::unique_ptr<Kernel> CreateKernelFromCode(const KernelCode& code,
                                               const driver::Reflection& reflection,
                                               const std::string& entry,
                                               std::string* error) override {
    if (code.ptx.empty()) return CreateKernel(code.spirv, reflection, entry, error);
    if (!RefuseSpecConstantOverrides(reflection, Backend::Cuda, error)) return nullptr;
    const driver::EntryPointInfo* info = FindEntryPoint(reflection, entry, error);
    if (info == nullptr) return nullptr;
    const Driver& d = GetDriver();
    std::string ptx(code.ptx);  // the driver reads a NUL-terminated image
    // The JIT's log, for a PTX the driver refuses.
    std::vector<char> log(8192, '\0');
    int options[] = {5 /* CU_JIT_ERROR_LOG_BUFFER */,
                     6 /* CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES */};
    void* values[] = {log.data(), reinterpret_cast<void*>(log.size())};
    CUmodule module = nullptr;
    CUresult r = d.cuModuleLoadDataEx(&module, ptx.c_str(), 2, options, values);
    if (r != kSuccess) {
      *error = Failed("cuModuleLoadDataEx", r) + ": " + log.data();
      return nullptr;
    }
    CUfunction function = nullptr;
    std::string symbol = targets::cuda::KernelSymbol(info->name);
    r = d.cuModuleGetFunction(&function, module, symbol.c_str());
    if (r != kSuccess) {
      d.cuModuleUnload(module);
      *error = Failed(("cuModuleGetFunction('" + symbol + "')").c_str(), r);
      return nullptr;
    }
    return std::make_unique<CudaKernel>(module, function, reflection, *info);
  }

  bool Dispatch(Kernel& kernel, std::span<const BufferBinding> bindings, GroupCount groups,
                std::string* error, const DispatchOptions& options,
                DispatchStats* stats) override {
    if (kernel.GetBackend() != Backend::Cuda) {
      *error = "the kernel belongs to another backend";
      return false;
    }
    auto& k = static_cast<CudaKernel&>(kernel);
    const driver::Reflection& reflection = k.GetReflection();
    std::vector<Buffer*> resolved;
    if (!ResolveBindings(reflection, bindings, &resolved, error)) return false;
    // The kernel's parameters, in reflection order: a pointer per buffer and uniform
    // buffer, and this entry point's push-constant block by value; then each storage
    // buffer's size in bytes, in the same order (docs/cuda.md).
    std::vector<CUdeviceptr> pointers(reflection.bindings.size(), 0);
    std::vector<unsigned long long> sizes(reflection.bindings.size(), 0);
    std::vector<void*> size_params;
    std::vector<void*> params;
    std::vector<std::byte> push(options.push_constants.begin(), options.push_constants.end());
    bool pushed = false;
    for (size_t i = 0; i < reflection.bindings.size(); ++i) {
      const driver::BindingInfo& b = reflection.bindings[i];
      if (b.kind == driver::ResourceKind::PushConstant) {
        if (b.entry_point != k.GetEntryPoint().name) continue;
        if (push.size() != b.element.size) {
          *error = "the push-constant block of '" + b.entry_point + "' takes " +
                   std::to_string(b.element.size) + " bytes, " + std::to_string(push.size()) +
                   " given";
          return false;
        }
        params.push_back(push.data());
        pushed = true;
        continue;
      }
      if (resolved[i]->GetBackend() != Backend::Cuda) {
        *error = "binding '" + b.name + "' is a buffer of another backend";
        return false;
      }
      pointers[i] = static_cast<CudaBuffer*>(resolved[i])->Pointer();
      params.push_back(&pointers[i]);
      if (b.kind == driver::ResourceKind::StructuredBuffer ||
          b.kind == driver::ResourceKind::RWStructuredBuffer) {
        sizes[i] = resolved[i]->Size();
        size_params.push_back(&sizes[i]);
      }
    }
    params.insert(params.end(), size_params.begin(), size_params.end());
    if (!pushed && !push.empty()) {
      *error = "push constants given, but the kernel has no push-constant block";
      return false;
    }
    const Driver& d = GetDriver();
    const auto& n = k.GetEntryPoint().numthreads;
    CUevent start = nullptr, stop = nullptr;
    bool timed = options.measure_time && stats != nullptr;
    if (timed) {
      d.cuEventCreate(&start, 0);
      d.cuEventCreate(&stop, 0);
      d.cuEventRecord(start, nullptr);
    }
    // Device printf goes to the process's standard output when the context synchronizes:
    // while capturing, that is a temporary file, read back into messages.
    StdoutCapture capture;
    if (capture_printf_ && !capture.Start(error)) return false;
    CUresult r = d.cuLaunchKernel(k.Function(), groups.x, groups.y, groups.z, n[0], n[1], n[2], 0,
                                  nullptr, params.data(), nullptr);
    if (r == kSuccess && timed) d.cuEventRecord(stop, nullptr);
    CUresult done = r == kSuccess ? d.cuCtxSynchronize() : r;
    if (capture_printf_) {
      std::string text = capture.Finish();
      size_t start = 0;
      while (start < text.size()) {
        size_t end = text.find('\n', start);
        if (end == std::string::npos) end = text.size();
        printf_messages_.push_back(text.substr(start, end - start));
        start = end + 1;
      }
    }
    if (timed) {
      float ms = -1.0f;
      if (done == kSuccess && d.cuEventSynchronize(stop) == kSuccess &&
          d.cuEventElapsedTime(&ms, start, stop) == kSuccess) {
        stats->kernel_ms = ms;
      }
      d.cuEventDestroy(start);
      d.cuEventDestroy(stop);
    }
    if (r != kSuccess) {
      *error = Failed("cuLaunchKernel", r);
      return false;
    }
    if (done != kSuccess) {
      *error = Failed("the kernel", done);
      return false;
    }
    return true;
  }

  std::vector<std::string> TakePrintfMessages() override {
    std::vector<std::string> out;
    out.swap(printf_messages_);
    return out;
  }

 private:
  /// `buffer` as this backend's, when [offset, offset + size) lies in it.
  static CudaBuffer* Own(Buffer& buffer, size_t offset, size_t size, std::string* error) {
    if (buffer.GetBackend() != Backend::Cuda) {
      *error = "the buffer belongs to another backend";
      return nullptr;
    }
    if (offset > buffer.Size() || size > buffer.Size() - offset) {
      *error = "range [" + std::to_string(offset) + ", " + std::to_string(offset + size) +
               ") is outside the buffer of " + std::to_string(buffer.Size()) + " bytes";
      return nullptr;
    }
    return static_cast<CudaBuffer*>(&buffer);
  }

  CUdevice device_;
  CUcontext context_;
  std::string name_;
  bool capture_printf_;
  std::vector<std::string> printf_messages_;
};

// ---- NVRTC, loaded with dlopen.
using nvrtcProgram = struct _nvrtcProgram*;
struct Nvrtc {
  bool loaded = false;
  int (*CreateProgram)(nvrtcProgram*, const char*, const char*, int, const char* const*,
                       const char* const*);
  int (*CompileProgram)(nvrtcProgram, int, const char* const*);
  int (*GetPTXSize)(nvrtcProgram, size_t*);
  int (*GetPTX)(nvrtcProgram, char*);
  int (*GetProgramLogSize)(nvrtcProgram, size_t*);
  int (*GetProgramLog)(nvrtcProgram, char*);
  int (*DestroyProgram)(nvrtcProgram*);
};

/// The CUDA toolkit's root: $CUDA_HOME, $CUDA_PATH, else /usr/local/cuda.
std::string ToolkitRoot() {
  for (const char* var : {"CUDA_HOME", "CUDA_PATH"}) {
    const char* v = std::getenv(var);
    if (v != nullptr && *v != '\0') return v;
  }
  return "/usr/local/cuda";
}

const Nvrtc& GetNvrtc() {
  static const Nvrtc nvrtc = [] {
    Nvrtc n;
    std::string root = ToolkitRoot();
    void* lib = nullptr;
    for (std::string name : {std::string("libnvrtc.so"), std::string("libnvrtc.so.13"),
                             std::string("libnvrtc.so.12"), root + "/lib64/libnvrtc.so"}) {
      lib = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
      if (lib != nullptr) break;
    }
    if (lib == nullptr) return n;
    n.loaded = Resolve(lib, "nvrtcCreateProgram", &n.CreateProgram) &&
               Resolve(lib, "nvrtcCompileProgram", &n.CompileProgram) &&
               Resolve(lib, "nvrtcGetPTXSize", &n.GetPTXSize) &&
               Resolve(lib, "nvrtcGetPTX", &n.GetPTX) &&
               Resolve(lib, "nvrtcGetProgramLogSize", &n.GetProgramLogSize) &&
               Resolve(lib, "nvrtcGetProgramLog", &n.GetProgramLog) &&
               Resolve(lib, "nvrtcDestroyProgram", &n.DestroyProgram);
    return n;
  }();
  return nvrtc;
}

bool CompileWithNvrtc(const Nvrtc& n, const std::string& source, std::string_view prelude_name,
                      std::string_view prelude_text, int sm, std::string* ptx,
                      std::string* error) {
  std::string name(prelude_name), text(prelude_text);
  const char* headers[] = {text.c_str()};
  const char* names[] = {name.c_str()};
  nvrtcProgram program = nullptr;
  if (n.CreateProgram(&program, source.c_str(), "kernel.cu", 1, headers, names) != 0) {
    *error = "nvrtcCreateProgram failed";
    return false;
  }
  std::string arch = "--gpu-architecture=compute_" + std::to_string(sm);
  std::string include = "--include-path=" + ToolkitRoot() + "/include";
  const char* options[] = {arch.c_str(), "--fmad=false", "--std=c++17", include.c_str()};
  int result = n.CompileProgram(program, 4, options);
  size_t size = 0;
  n.GetProgramLogSize(program, &size);
  std::string log(size, '\0');
  if (size > 0) n.GetProgramLog(program, log.data());
  bool ok = result == 0;
  if (ok) {
    n.GetPTXSize(program, &size);
    ptx->assign(size, '\0');
    n.GetPTX(program, ptx->data());
    while (!ptx->empty() && ptx->back() == '\0') ptx->pop_back();
  } else {
    *error = "NVRTC rejected the CUDA C++:\n" + log;
  }
  n.DestroyProgram(&program);
  return ok;
}

bool CompileWithNvcc(const std::string& source, std::string_view prelude_name,
                     std::string_view prelude_text, int sm, std::string* ptx,
                     std::string* error) {
  std::string nvcc = ToolkitRoot() + "/bin/nvcc";
  if (access(nvcc.c_str(), X_OK) != 0) {
    *error = "neither NVRTC (libnvrtc.so) nor nvcc (" + nvcc + ") is installed";
    return false;
  }
  std::string dir_template =
      (std::filesystem::temp_directory_path() / "slope-cuda-XXXXXX").string();
  if (mkdtemp(dir_template.data()) == nullptr) {
    *error = "cannot make a temporary directory";
    return false;
  }
  std::filesystem::path dir = dir_template;
  std::ofstream((dir / "kernel.cu").string(), std::ios::binary) << source;
  std::ofstream((dir / std::string(prelude_name)).string(), std::ios::binary) << prelude_text;
  std::string log = (dir / "nvcc.log").string();
  pid_t pid = fork();
  if (pid == 0) {
    std::FILE* out = std::freopen(log.c_str(), "w", stdout);
    if (out == nullptr || dup2(fileno(stdout), fileno(stderr)) < 0) _exit(127);
    std::string arch = "-arch=compute_" + std::to_string(sm);
    std::string include = "-I" + dir.string();
    std::string in = (dir / "kernel.cu").string(), out_ptx = (dir / "kernel.ptx").string();
    execl(nvcc.c_str(), nvcc.c_str(), "--ptx", arch.c_str(), "--fmad=false", include.c_str(),
          in.c_str(), "-o", out_ptx.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  int status = 0;
  bool ok = pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
            WEXITSTATUS(status) == 0;
  std::ostringstream text;
  if (ok) {
    text << std::ifstream((dir / "kernel.ptx").string(), std::ios::binary).rdbuf();
    *ptx = text.str();
  } else {
    text << std::ifstream(log, std::ios::binary).rdbuf();
    *error = "nvcc rejected the CUDA C++:\n" + text.str();
  }
  std::error_code ignored;
  std::filesystem::remove_all(dir, ignored);
  return ok;
}

}  // namespace

bool CompileCudaToPtx(const std::string& source, std::string_view prelude_name,
                      std::string_view prelude_text, int sm, std::string* ptx,
                      std::string* error) {
  const Nvrtc& n = GetNvrtc();
  if (n.loaded) return CompileWithNvrtc(n, source, prelude_name, prelude_text, sm, ptx, error);
  return CompileWithNvcc(source, prelude_name, prelude_text, sm, ptx, error);
}

int CudaComputeCapability(int device_index) {
  const Driver& d = GetDriver();
  if (!d.loaded) return 0;
  CUdevice device = 0;
  if (d.cuDeviceGet(&device, device_index < 0 ? 0 : device_index) != kSuccess) return 0;
  int major = 0, minor = 0;
  d.cuDeviceGetAttribute(&major, kAttributeComputeMajor, device);
  d.cuDeviceGetAttribute(&minor, kAttributeComputeMinor, device);
  return major * 10 + minor;
}

std::unique_ptr<Device> CreateCudaDevice(int device_index, std::string* error,
                                         const DeviceOptions& options) {
  const Driver& d = GetDriver();
  if (!d.loaded) {
    *error = d.why;
    return nullptr;
  }
  int count = 0;
  CUresult r = d.cuDeviceGetCount(&count);
  if (r != kSuccess || count == 0) {
    *error = "no CUDA device";
    return nullptr;
  }
  int index = device_index < 0 ? 0 : device_index;
  if (index >= count) {
    // As the Vulkan backend words it: the devices there are, by number.
    std::string found;
    for (int i = 0; i < count; ++i) {
      CUdevice other = 0;
      char other_name[256] = {};
      if (d.cuDeviceGet(&other, i) == kSuccess) d.cuDeviceGetName(other_name, sizeof(other_name), other);
      found += (i == 0 ? "" : ", ") + std::to_string(i) + ": " + other_name;
    }
    *error = "CUDA device index " + std::to_string(index) + " is out of range (" +
             std::to_string(count) + " device(s) found: " + found + ")";
    return nullptr;
  }
  CUdevice device = 0;
  if ((r = d.cuDeviceGet(&device, index)) != kSuccess) {
    *error = Failed("cuDeviceGet", r);
    return nullptr;
  }
  if (CudaComputeCapability(index) < 70) {
    *error = "CUDA device " + std::to_string(index) + " is older than sm_70";
    return nullptr;
  }
  char name[256] = {};
  d.cuDeviceGetName(name, sizeof(name), device);
  CUcontext context = nullptr;
  if ((r = d.cuDevicePrimaryCtxRetain(&context, device)) != kSuccess) {
    *error = Failed("cuDevicePrimaryCtxRetain", r);
    return nullptr;
  }
  if ((r = d.cuCtxSetCurrent(context)) != kSuccess) {
    d.cuDevicePrimaryCtxRelease(device);
    *error = Failed("cuCtxSetCurrent", r);
    return nullptr;
  }
  return std::make_unique<CudaDevice>(device, context, name, options.debug_printf);
}

bool TimedDeviceCopy(Device& device, const Buffer& src, Buffer& dst, size_t bytes, float* ms,
                     std::string* error) {
  auto* from = dynamic_cast<const CudaBuffer*>(&src);
  auto* to = dynamic_cast<CudaBuffer*>(&dst);
  if (device.GetBackend() != Backend::Cuda || from == nullptr || to == nullptr) {
    *error = "a timed device copy needs a CUDA device and two of its buffers";
    return false;
  }
  if (bytes > src.Size() || bytes > dst.Size()) {
    *error = "a copy of " + std::to_string(bytes) + " bytes does not fit the buffers";
    return false;
  }
  const Driver& d = GetDriver();
  CUevent start = nullptr, stop = nullptr;
  d.cuEventCreate(&start, 0);
  d.cuEventCreate(&stop, 0);
  d.cuEventRecord(start, nullptr);
  CUresult r = d.cuMemcpyDtoD(to->Pointer(), from->Pointer(), bytes);
  if (r == kSuccess) d.cuEventRecord(stop, nullptr);
  CUresult done = r == kSuccess ? d.cuCtxSynchronize() : r;
  *ms = -1.0f;
  if (done == kSuccess && d.cuEventSynchronize(stop) == kSuccess) {
    d.cuEventElapsedTime(ms, start, stop);
  }
  d.cuEventDestroy(start);
  d.cuEventDestroy(stop);
  if (done != kSuccess) *error = Failed("cuMemcpyDtoD", done);
  return done == kSuccess;
}

}  // namespace slope::runtime::cuda
