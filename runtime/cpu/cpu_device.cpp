#include "runtime/cpu/cpu_device.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <mutex>
#include <thread>

#include "compiler/base/half.h"
#include "compiler/targets/llvm/cpu_abi.h"
#include "compiler/targets/llvm/plugin_loader.h"
#include "runtime/cpu/cpu_texture.h"
#include "runtime/cpu/scheduler.h"

namespace slope::runtime::cpu {
namespace {

namespace tl = targets::llvm;

class CpuBuffer : public Buffer {
 public:
  explicit CpuBuffer(size_t size) : size_(size), words_((size + 15) / 16 + 1) {}
  size_t Size() const override { return size_; }
  Backend GetBackend() const override { return Backend::Cpu; }
  std::byte* Data() { return reinterpret_cast<std::byte*>(words_.data()); }

 private:
  size_t size_;
  // 16-byte aligned storage (one block more, so that a zero-byte buffer has an address).
  struct alignas(16) Block {
    unsigned char bytes[16];
  };
  std::vector<Block> words_;
};

class CpuKernel : public Kernel {
 public:
  CpuKernel(const driver::Reflection& reflection, driver::EntryPointInfo entry, tl::Jit* jit,
            const tl::Api* api, KernelFn fn, const SlopeCpuKernelInfo* info)
      : reflection_(reflection), entry_(std::move(entry)), jit_(jit), api_(api), fn_(fn), info_(info) {}
  ~CpuKernel() override { api_->jit_destroy(jit_); }
  const driver::Reflection& GetReflection() const override { return reflection_; }
  const driver::EntryPointInfo& GetEntryPoint() const override { return entry_; }
  Backend GetBackend() const override { return Backend::Cpu; }
  KernelFn Fn() const { return fn_; }
  const SlopeCpuKernelInfo* Info() const { return info_; }

 private:
  driver::Reflection reflection_;
  driver::EntryPointInfo entry_;
  tl::Jit* jit_;
  const tl::Api* api_;
  KernelFn fn_;
  const SlopeCpuKernelInfo* info_;
};

/// One conversion of a printf format applied to one scalar.
std::string FormatOne(const std::string& spec, char conversion, const uint8_t* p, uint32_t code) {
  uint32_t kind = code & 15u, bytes = (code >> 4) & 15u;
  double f = 0;
  int64_t i = 0;
  uint64_t u = 0;
  if (kind == kSlopeCpuFloat) {
    if (bytes == 2) {
      uint16_t bits;
      std::memcpy(&bits, p, 2);
      f = base::HalfToDouble(bits);
    } else if (bytes == 4) {
      float v;
      std::memcpy(&v, p, 4);
      f = v;
    } else {
      std::memcpy(&f, p, 8);
    }
    i = static_cast<int64_t>(f);
    u = static_cast<uint64_t>(i);
  } else {
    std::memcpy(&u, p, bytes);
    if (kind == kSlopeCpuSInt && bytes < 8) {
      unsigned shift = 64 - 8 * bytes;
      i = static_cast<int64_t>(u << shift) >> shift;
    } else {
      i = static_cast<int64_t>(u);
    }
    if (kind != kSlopeCpuSInt && bytes < 8) u &= (uint64_t{1} << (8 * bytes)) - 1;
    f = kind == kSlopeCpuSInt ? static_cast<double>(i) : static_cast<double>(u);
  }
  char buffer[512];
  std::string format = spec;
  switch (conversion) {
    case 'd':
    case 'i':
      format += "lld";
      std::snprintf(buffer, sizeof buffer, format.c_str(), static_cast<long long>(i));
      break;
    case 'u':
    case 'x':
    case 'X':
    case 'o':
      format += "ll";
      format += conversion;
      std::snprintf(buffer, sizeof buffer, format.c_str(),
                    static_cast<unsigned long long>(kind == kSlopeCpuSInt ? static_cast<uint64_t>(i) & (bytes < 8 ? (uint64_t{1} << (8 * bytes)) - 1 : ~uint64_t{0}) : u));
      break;
    case 'c':
      format += 'c';
      std::snprintf(buffer, sizeof buffer, format.c_str(), static_cast<int>(u));
      break;
    default:
      format += conversion;
      std::snprintf(buffer, sizeof buffer, format.c_str(), f);
      break;
  }
  return buffer;
}

/// printf's text, as the Vulkan debug-printf layer writes it (`%v3f`: three components
/// separated by ", ").
std::string Format(const char* format, uint32_t count, const uint32_t* types, const void* const* values) {
  std::string out;
  uint32_t next = 0;
  for (const char* c = format; *c != '\0'; ++c) {
    if (*c != '%') {
      out += *c;
      continue;
    }
    if (c[1] == '%') {
      out += '%';
      ++c;
      continue;
    }
    std::string spec = "%";
    ++c;
    while (*c != '\0' && std::strchr("-+ #0", *c) != nullptr) spec += *c++;
    while (*c != '\0' && ((*c >= '0' && *c <= '9') || *c == '.')) spec += *c++;
    uint32_t components = 1;
    if (*c == 'v' && c[1] >= '1' && c[1] <= '4') {
      components = static_cast<uint32_t>(c[1] - '0');
      c += 2;
    }
    while (*c == 'l' || *c == 'h') ++c;
    if (*c == '\0') break;
    char conversion = *c;
    if (next >= count) {
      out += "<missing>";
      continue;
    }
    uint32_t code = types[next];
    const auto* p = static_cast<const uint8_t*>(values[next]);
    ++next;
    uint32_t bytes = (code >> 4) & 15u;
    uint32_t have = (code >> 8) & 255u;
    for (uint32_t k = 0; k < components && k < have; ++k) {
      if (k > 0) out += ", ";
      out += FormatOne(spec, conversion, p + k * bytes, code);
    }
  }
  return out;
}

class CpuDevice : public Device {
 public:
  explicit CpuDevice(const tl::Api* api) : api_(api) {}
  Backend GetBackend() const override { return Backend::Cpu; }
  std::string Name() const override {
    return "host CPU (LLVM " + std::string(api_->llvm_version()) + " JIT, " +
           std::to_string(Workers()) + " threads)";
  }

  /// A kernel's pointers are host pointers.
  uint64_t BufferAddress(const Buffer& buffer) const override {
    return reinterpret_cast<uint64_t>(const_cast<CpuBuffer&>(static_cast<const CpuBuffer&>(buffer)).Data());
  }
  std::unique_ptr<Buffer> CreateBuffer(size_t size, std::string* error) override {
    return std::make_unique<CpuBuffer>(size);
  }

  bool WriteBuffer(Buffer& buffer, size_t offset, std::span<const std::byte> data,
                   std::string* error) override {
    CpuBuffer* b = Own(buffer, error);
    if (b == nullptr || !InRange(*b, offset, data.size(), error)) return false;
    if (!data.empty()) std::memcpy(b->Data() + offset, data.data(), data.size());
    return true;
  }

  bool ReadBuffer(const Buffer& buffer, size_t offset, std::span<std::byte> out,
                  std::string* error) override {
    CpuBuffer* b = Own(const_cast<Buffer&>(buffer), error);
    if (b == nullptr || !InRange(*b, offset, out.size(), error)) return false;
    if (!out.empty()) std::memcpy(out.data(), b->Data() + offset, out.size());
    return true;
  }

  std::unique_ptr<Texture> CreateTexture(const TextureDesc& desc, std::string* error) override {
    return CpuTexture::Create(desc, error);
  }

  bool WriteTexture(Texture& texture, uint32_t mip, std::span<const std::byte> data,
                    std::string* error) override {
    std::span<std::byte> level = Level(texture, mip, data.size(), error);
    if (level.data() == nullptr) return false;
    if (!data.empty()) std::memcpy(level.data(), data.data(), data.size());
    return true;
  }

  bool ReadTexture(const Texture& texture, uint32_t mip, std::span<std::byte> out,
                   std::string* error) override {
    std::span<std::byte> level = Level(const_cast<Texture&>(texture), mip, out.size(), error);
    if (level.data() == nullptr) return false;
    if (!out.empty()) std::memcpy(out.data(), level.data(), out.size());
    return true;
  }

  std::unique_ptr<Sampler> CreateSampler(const SamplerDesc& desc, std::string* error) override {
    return std::make_unique<CpuSampler>(desc);
  }

  std::unique_ptr<Kernel> CreateKernel(std::span<const uint32_t> spirv,
                                       const driver::Reflection& reflection,
                                       const std::string& entry, std::string* error) override {
    *error = "the cpu backend runs host code (slopec -target host), not SPIR-V";
    return nullptr;
  }

  std::unique_ptr<Kernel> CreateKernelFromCode(const KernelCode& code,
                                               const driver::Reflection& reflection,
                                               const std::string& entry,
                                               std::string* error) override {
    if (code.host.empty()) {
      *error = "the cpu backend runs host code (slopec -target host), not SPIR-V or PTX";
      return nullptr;
    }
    if (!RefuseSpecConstantOverrides(reflection, Backend::Cpu, error)) return nullptr;
    const driver::EntryPointInfo* info = FindEntryPoint(reflection, entry, error);
    if (info == nullptr) return nullptr;
    std::vector<std::pair<std::string, void*>> symbols = {
        {"slope_cpu_barrier", reinterpret_cast<void*>(&slope_cpu_barrier)},
        {"slope_cpu_wave", reinterpret_cast<void*>(&slope_cpu_wave)},
        {"slope_cpu_enter", reinterpret_cast<void*>(&slope_cpu_enter)},
        {"slope_cpu_next", reinterpret_cast<void*>(&slope_cpu_next)},
        {"slope_cpu_leave", reinterpret_cast<void*>(&slope_cpu_leave)},
        {"slope_cpu_printf", reinterpret_cast<void*>(&slope_cpu_printf)},
        {"slope_cpu_texture", reinterpret_cast<void*>(&slope_cpu_texture)},
    };
    tl::Jit* jit = api_->jit_create(code.host, symbols, error);
    if (jit == nullptr) return nullptr;
    void* fn = api_->jit_lookup(jit, "slope_cpu_" + info->name, error);
    void* kinfo = fn != nullptr ? api_->jit_lookup(jit, "slope_cpu_info_" + info->name, error) : nullptr;
    if (fn == nullptr || kinfo == nullptr) {
      api_->jit_destroy(jit);
      return nullptr;
    }
    return std::make_unique<CpuKernel>(reflection, *info, jit, api_, reinterpret_cast<KernelFn>(fn),
                                       static_cast<const SlopeCpuKernelInfo*>(kinfo));
  }

  bool Dispatch(Kernel& kernel, std::span<const BufferBinding> bindings, GroupCount groups,
                std::string* error, const DispatchOptions& options,
                DispatchStats* stats) override {
    if (kernel.GetBackend() != Backend::Cpu) {
      *error = "the kernel belongs to another backend";
      return false;
    }
    auto& k = static_cast<CpuKernel&>(kernel);
    const driver::Reflection& reflection = k.GetReflection();
    std::vector<const BufferBinding*> resolved;
    if (!ResolveResources(reflection, bindings, &resolved, error)) return false;
    std::vector<void*> resources(reflection.bindings.size() + 1, nullptr);
    std::vector<uint64_t> sizes(reflection.bindings.size() + 1, 0);
    std::vector<std::byte> push;
    // A combined texture and sampler's view: the texture's with the sampler's state.
    std::vector<SlopeCpuTexture> combined(reflection.bindings.size());
    for (size_t i = 0; i < reflection.bindings.size(); ++i) {
      const driver::BindingInfo& b = reflection.bindings[i];
      bool texture = b.kind == driver::ResourceKind::Texture ||
                     b.kind == driver::ResourceKind::RWTexture ||
                     b.kind == driver::ResourceKind::SampledTexture;
      if (texture || b.kind == driver::ResourceKind::Sampler) {
        const BufferBinding& given = *resolved[i];
        if ((texture && given.texture->GetBackend() != Backend::Cpu) ||
            (given.sampler != nullptr && given.sampler->GetBackend() != Backend::Cpu)) {
          *error = "the " + std::string(texture ? "texture" : "sampler") + " for binding '" +
                   b.name + "' belongs to another backend";
          return false;
        }
        if (!texture) {
          resources[i] =
              const_cast<SlopeCpuSampler*>(&static_cast<CpuSampler*>(given.sampler)->View());
          continue;
        }
        combined[i] = static_cast<CpuTexture*>(given.texture)->View();
        if (given.sampler != nullptr)
          combined[i].sampler = static_cast<CpuSampler*>(given.sampler)->View();
        resources[i] = &combined[i];
        continue;
      }
      if (b.kind == driver::ResourceKind::PushConstant) {
        if (b.entry_point != k.GetEntryPoint().name) continue;
        if (options.push_constants.size() != b.element.size) {
          *error = "the push-constant block '" + b.name + "' takes " + std::to_string(b.element.size) +
                   " bytes; " + std::to_string(options.push_constants.size()) + " were given";
          return false;
        }
        push.assign(options.push_constants.begin(), options.push_constants.end());
        push.resize(push.size() + 16);
        resources[i] = push.data();
        sizes[i] = options.push_constants.size();
        continue;
      }
      CpuBuffer* buffer = Own(*resolved[i]->buffer, error);
      if (buffer == nullptr) return false;
      resources[i] = buffer->Data();
      sizes[i] = buffer->Size();
      if (b.kind == driver::ResourceKind::TexelBuffer ||
          b.kind == driver::ResourceKind::RWTexelBuffer) {
        // A typed buffer: its memory seen as a 1D texture of its format.
        if (!TexelBufferView(buffer->Data(), buffer->Size(), b.texture.format, &combined[i],
                             error)) {
          return false;
        }
        resources[i] = &combined[i];
      }
    }
    DispatchContext dispatch;
    dispatch.kernel = k.Fn();
    dispatch.info = k.Info();
    dispatch.resources = resources.data();
    dispatch.sizes = sizes.data();
    std::mutex print_lock;
    dispatch.print = [&](std::string message) {
      std::lock_guard<std::mutex> lock(print_lock);
      if (!message.empty() && message.back() == '\n') message.pop_back();
      printf_messages_.push_back(std::move(message));
    };
    auto start = std::chrono::steady_clock::now();
    uint64_t total = uint64_t{groups.x} * groups.y * groups.z;
    std::atomic<uint64_t> next{0};
    auto work = [&] {
      GroupRunner runner;
      for (uint64_t g = next++; g < total; g = next++) {
        uint32_t id[3] = {static_cast<uint32_t>(g % groups.x),
                          static_cast<uint32_t>(g / groups.x % groups.y),
                          static_cast<uint32_t>(g / (uint64_t{groups.x} * groups.y))};
        runner.Run(dispatch, id);
      }
    };
    size_t workers = std::min<uint64_t>(Workers(), total);
    std::vector<std::thread> threads;
    for (size_t i = 1; i < workers; ++i) threads.emplace_back(work);
    if (total > 0) work();
    for (std::thread& t : threads) t.join();
    if (stats != nullptr && options.measure_time) {
      stats->kernel_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    }
    return true;
  }

  std::vector<std::string> TakePrintfMessages() override { return std::move(printf_messages_); }

 private:
  static size_t Workers() { return std::max(1u, std::thread::hardware_concurrency()); }

  static CpuBuffer* Own(Buffer& buffer, std::string* error) {
    if (buffer.GetBackend() != Backend::Cpu) {
      *error = "the buffer belongs to another backend";
      return nullptr;
    }
    return static_cast<CpuBuffer*>(&buffer);
  }

  /// Mip level `mip` of `texture`, when it has `bytes` bytes; else empty with `*error`.
  static std::span<std::byte> Level(Texture& texture, uint32_t mip, size_t bytes,
                                    std::string* error) {
    if (texture.GetBackend() != Backend::Cpu) {
      *error = std::string("texture belongs to the ") + BackendName(texture.GetBackend()) +
               " backend, not cpu";
      return {};
    }
    auto& t = static_cast<CpuTexture&>(texture);
    if (mip >= t.Desc().mip_levels) {
      *error = "the texture has no mip level " + std::to_string(mip);
      return {};
    }
    std::span<std::byte> level = t.Level(mip);
    if (bytes != level.size()) {
      *error = "mip level " + std::to_string(mip) + " of the texture takes " +
               std::to_string(level.size()) + " bytes, not " + std::to_string(bytes);
      return {};
    }
    return level;
  }

  static bool InRange(const CpuBuffer& b, size_t offset, size_t size, std::string* error) {
    if (offset > b.Size() || size > b.Size() - offset) {
      *error = "range [" + std::to_string(offset) + ", " + std::to_string(offset + size) +
               ") is outside the buffer of " + std::to_string(b.Size()) + " bytes";
      return false;
    }
    return true;
  }

  const tl::Api* api_;
  std::vector<std::string> printf_messages_;
};

}  // namespace

std::unique_ptr<Device> CreateCpuDevice(int device_index, std::string* error,
                                        const DeviceOptions& options) {
  if (device_index > 0) {
    *error = "CPU device index " + std::to_string(device_index) +
             " is out of range (1 device(s) found: 0: the host CPU)";
    return nullptr;
  }
  const tl::Api* api = tl::LoadLlvmPlugin(error);
  if (api == nullptr) return nullptr;
  return std::make_unique<CpuDevice>(api);
}

}  // namespace slope::runtime::cpu

extern "C" void slope_cpu_printf(SlopeCpuInvocation* inv, const char* format, uint32_t count,
                                 const uint32_t* types, const void* const* values) {
  static_cast<slope::runtime::cpu::GroupRunner*>(inv->scheduler)
      ->Print(slope::runtime::cpu::Format(format, count, types, values));
}
