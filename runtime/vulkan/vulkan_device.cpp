#include "runtime/vulkan/vulkan_device.h"

#include <vulkan/vulkan.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>
#include <map>
#include <utility>
#include <vector>

#if defined(__SANITIZE_ADDRESS__)
#include <dlfcn.h>
#define SLOPE_PIN_LAVAPIPE 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#include <dlfcn.h>
#define SLOPE_PIN_LAVAPIPE 1
#endif
#endif

#include "runtime/vulkan/vk_features.h"
#include "runtime/vulkan/vk_result.h"

namespace slope::runtime::vulkan {
namespace {

constexpr uint32_t kSpirvMagic = 0x07230203;
// Vulkan forbids zero-sized buffers; an empty Buffer still owns this many bytes.
constexpr VkDeviceSize kMinBufferBytes = 16;

class VulkanBuffer final : public Buffer {
 public:
  VulkanBuffer(VkDevice device, size_t size) : device_(device), size_(size) {}
  ~VulkanBuffer() override {
    if (mapped_ != nullptr) vkUnmapMemory(device_, memory_);
    if (buffer_ != VK_NULL_HANDLE) vkDestroyBuffer(device_, buffer_, nullptr);
    if (memory_ != VK_NULL_HANDLE) vkFreeMemory(device_, memory_, nullptr);
  }
  VulkanBuffer(const VulkanBuffer&) = delete;
  VulkanBuffer& operator=(const VulkanBuffer&) = delete;

  size_t Size() const override { return size_; }
  Backend GetBackend() const override { return Backend::Vulkan; }

  VkDevice device_;
  size_t size_;
  VkBuffer buffer_ = VK_NULL_HANDLE;
  VkDeviceMemory memory_ = VK_NULL_HANDLE;
  std::byte* mapped_ = nullptr;
};

class VulkanTexture final : public Texture {
 public:
  VulkanTexture(VkDevice device, TextureDesc desc) : device_(device), desc_(std::move(desc)) {}
  ~VulkanTexture() override {
    if (view_ != VK_NULL_HANDLE) vkDestroyImageView(device_, view_, nullptr);
    if (image_ != VK_NULL_HANDLE) vkDestroyImage(device_, image_, nullptr);
    if (memory_ != VK_NULL_HANDLE) vkFreeMemory(device_, memory_, nullptr);
  }
  VulkanTexture(const VulkanTexture&) = delete;
  VulkanTexture& operator=(const VulkanTexture&) = delete;
  const TextureDesc& Desc() const override { return desc_; }
  Backend GetBackend() const override { return Backend::Vulkan; }

  VkDevice device_;
  TextureDesc desc_;
  VkFormat format_ = VK_FORMAT_UNDEFINED;
  bool linear_filter_ = false;  ///< the format can be sampled with linear filtering
  uint32_t texel_bytes_ = 0;
  VkImage image_ = VK_NULL_HANDLE;
  VkDeviceMemory memory_ = VK_NULL_HANDLE;
  VkImageView view_ = VK_NULL_HANDLE;  ///< in VK_IMAGE_LAYOUT_GENERAL from creation on
};

class VulkanSampler final : public Sampler {
 public:
  VulkanSampler(VkDevice device, SamplerDesc desc) : device_(device), desc_(desc) {}
  ~VulkanSampler() override {
    if (sampler_ != VK_NULL_HANDLE) vkDestroySampler(device_, sampler_, nullptr);
  }
  VulkanSampler(const VulkanSampler&) = delete;
  VulkanSampler& operator=(const VulkanSampler&) = delete;
  const SamplerDesc& Desc() const override { return desc_; }
  Backend GetBackend() const override { return Backend::Vulkan; }

  VkDevice device_;
  SamplerDesc desc_;
  VkSampler sampler_ = VK_NULL_HANDLE;
};

/// The Vulkan format of texel format `name`, or VK_FORMAT_UNDEFINED.
VkFormat VkFormatOf(std::string_view name) {
  static const std::pair<std::string_view, VkFormat> kFormats[] = {
      {"rgba32f", VK_FORMAT_R32G32B32A32_SFLOAT}, {"rg32f", VK_FORMAT_R32G32_SFLOAT},
      {"r32f", VK_FORMAT_R32_SFLOAT},             {"rgba16f", VK_FORMAT_R16G16B16A16_SFLOAT},
      {"rg16f", VK_FORMAT_R16G16_SFLOAT},         {"r16f", VK_FORMAT_R16_SFLOAT},
      {"rgba8", VK_FORMAT_R8G8B8A8_UNORM},        {"rg8", VK_FORMAT_R8G8_UNORM},
      {"r8", VK_FORMAT_R8_UNORM},                 {"rgba8snorm", VK_FORMAT_R8G8B8A8_SNORM},
      {"rgba32i", VK_FORMAT_R32G32B32A32_SINT},   {"rg32i", VK_FORMAT_R32G32_SINT},
      {"r32i", VK_FORMAT_R32_SINT},               {"rgba16i", VK_FORMAT_R16G16B16A16_SINT},
      {"rgba8i", VK_FORMAT_R8G8B8A8_SINT},        {"rgba32ui", VK_FORMAT_R32G32B32A32_UINT},
      {"rg32ui", VK_FORMAT_R32G32_UINT},          {"r32ui", VK_FORMAT_R32_UINT},
      {"rgba16ui", VK_FORMAT_R16G16B16A16_UINT},  {"rgba8ui", VK_FORMAT_R8G8B8A8_UINT},
      {"d32f", VK_FORMAT_D32_SFLOAT},
      // Typed buffers of 3-component elements (texel buffer views only).
      {"rgb32f", VK_FORMAT_R32G32B32_SFLOAT},     {"rgb32i", VK_FORMAT_R32G32B32_SINT},
      {"rgb32ui", VK_FORMAT_R32G32B32_UINT},
  };
  for (const auto& [n, f] : kFormats) {
    if (n == name) return f;
  }
  return VK_FORMAT_UNDEFINED;
}

/// The descriptor a reflected binding of `kind` takes (StructuredBuffer and
/// RWStructuredBuffer are both storage buffers).
VkDescriptorType DescriptorTypeOf(driver::ResourceKind kind) {
  switch (kind) {
    case driver::ResourceKind::UniformBuffer: return VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER;
    case driver::ResourceKind::Texture: return VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE;
    case driver::ResourceKind::RWTexture: return VK_DESCRIPTOR_TYPE_STORAGE_IMAGE;
    case driver::ResourceKind::Sampler: return VK_DESCRIPTOR_TYPE_SAMPLER;
    case driver::ResourceKind::SampledTexture: return VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER;
    case driver::ResourceKind::TexelBuffer: return VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER;
    case driver::ResourceKind::RWTexelBuffer: return VK_DESCRIPTOR_TYPE_STORAGE_TEXEL_BUFFER;
    case driver::ResourceKind::StructuredBuffer:
    case driver::ResourceKind::RWStructuredBuffer:
    case driver::ResourceKind::PushConstant: return VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
  }
  return VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
}

/// The aspect of an image of `format`: depth for d32f, color for the rest.
VkImageAspectFlags AspectOf(VkFormat format) {
  return format == VK_FORMAT_D32_SFLOAT ? VK_IMAGE_ASPECT_DEPTH_BIT : VK_IMAGE_ASPECT_COLOR_BIT;
}

/// Texels in mip level `mip` of `desc`: every layer and depth slice.
uint64_t TexelCount(const TextureDesc& desc, uint32_t mip) {
  uint64_t w = std::max(1u, desc.width >> mip);
  uint64_t h = std::max(1u, desc.height >> mip);
  uint64_t d = std::max(1u, desc.depth >> mip);
  return w * h * d * desc.layers;
}

class VulkanKernel final : public Kernel {
 public:
  VulkanKernel(VkDevice device, driver::Reflection reflection, driver::EntryPointInfo entry)
      : device_(device), reflection_(std::move(reflection)), entry_(std::move(entry)) {}
  ~VulkanKernel() override {
    if (pipeline_ != VK_NULL_HANDLE) vkDestroyPipeline(device_, pipeline_, nullptr);
    if (pipeline_layout_ != VK_NULL_HANDLE) {
      vkDestroyPipelineLayout(device_, pipeline_layout_, nullptr);
    }
    for (VkDescriptorSetLayout layout : set_layouts_) {
      if (layout != VK_NULL_HANDLE) vkDestroyDescriptorSetLayout(device_, layout, nullptr);
    }
    if (descriptor_pool_ != VK_NULL_HANDLE) {
      vkDestroyDescriptorPool(device_, descriptor_pool_, nullptr);
    }
    if (shader_ != VK_NULL_HANDLE) vkDestroyShaderModule(device_, shader_, nullptr);
    DestroyTexelViews();
  }
  void DestroyTexelViews() {
    for (VkBufferView view : texel_views_) vkDestroyBufferView(device_, view, nullptr);
    texel_views_.clear();
  }
  VulkanKernel(const VulkanKernel&) = delete;
  VulkanKernel& operator=(const VulkanKernel&) = delete;

  const driver::Reflection& GetReflection() const override { return reflection_; }
  const driver::EntryPointInfo& GetEntryPoint() const override { return entry_; }
  Backend GetBackend() const override { return Backend::Vulkan; }

  VkDevice device_;
  driver::Reflection reflection_;
  driver::EntryPointInfo entry_;
  VkShaderModule shader_ = VK_NULL_HANDLE;
  // Indexed by set number; sets the reflection skips get an empty layout.
  std::vector<VkDescriptorSetLayout> set_layouts_;
  VkPipelineLayout pipeline_layout_ = VK_NULL_HANDLE;
  VkPipeline pipeline_ = VK_NULL_HANDLE;
  // The entry point's push-constant block, or null.
  const driver::BindingInfo* push_constants_ = nullptr;
  // Holds one descriptor set per set layout; reset before each dispatch.
  VkDescriptorPool descriptor_pool_ = VK_NULL_HANDLE;
  // The views of the typed buffers bound by the last dispatch (made anew for each).
  std::vector<VkBufferView> texel_views_;
};

constexpr const char* kValidationLayer = "VK_LAYER_KHRONOS_validation";

bool HasValidationLayer() {
  uint32_t count = 0;
  if (vkEnumerateInstanceLayerProperties(&count, nullptr) != VK_SUCCESS) return false;
  std::vector<VkLayerProperties> layers(count);
  if (vkEnumerateInstanceLayerProperties(&count, layers.data()) != VK_SUCCESS) return false;
  for (const VkLayerProperties& layer : layers) {
    if (std::strcmp(layer.layerName, kValidationLayer) == 0) return true;
  }
  return false;
}

/// The text a kernel printed, from a debug-printf message of the validation layer:
/// "Validation Information: [ UNASSIGNED-DEBUG-PRINTF ] Object 0: ... | MessageID =
/// 0x92394c89 | x=7 y=2.500000" gives "x=7 y=2.500000" (one trailing newline dropped).
std::string PrintfText(const char* message) {
  std::string text = message != nullptr ? message : "";
  size_t id = text.find("MessageID = ");
  size_t bar = id == std::string::npos ? std::string::npos : text.find(" | ", id);
  if (bar != std::string::npos) text.erase(0, bar + 3);
  if (!text.empty() && text.back() == '\n') text.pop_back();
  return text;
}

class VulkanDevice final : public Device {
 public:
  explicit VulkanDevice(const DeviceOptions& options) : debug_printf_(options.debug_printf) {}
  ~VulkanDevice() override;
  VulkanDevice(const VulkanDevice&) = delete;
  VulkanDevice& operator=(const VulkanDevice&) = delete;

  bool Open(int device_index, std::string* error);

  Backend GetBackend() const override { return Backend::Vulkan; }
  std::string Name() const override { return name_; }
  std::unique_ptr<Buffer> CreateBuffer(size_t size, std::string* error) override;
  uint64_t BufferAddress(const Buffer& buffer) const override;
  bool WriteBuffer(Buffer& buffer, size_t offset, std::span<const std::byte> data,
                   std::string* error) override;
  bool ReadBuffer(const Buffer& buffer, size_t offset, std::span<std::byte> out,
                  std::string* error) override;
  std::unique_ptr<Kernel> CreateKernel(std::span<const uint32_t> spirv,
                                       const driver::Reflection& reflection,
                                       const std::string& entry, std::string* error) override;
  bool Dispatch(Kernel& kernel, std::span<const BufferBinding> bindings, GroupCount groups,
                std::string* error, const DispatchOptions& options = {},
                DispatchStats* stats = nullptr) override;
  std::vector<std::string> TakePrintfMessages() override { return std::move(printf_messages_); }
  std::unique_ptr<Texture> CreateTexture(const TextureDesc& desc, std::string* error) override;
  bool WriteTexture(Texture& texture, uint32_t mip, std::span<const std::byte> data,
                    std::string* error) override;
  bool ReadTexture(const Texture& texture, uint32_t mip, std::span<std::byte> out,
                   std::string* error) override;
  std::unique_ptr<Sampler> CreateSampler(const SamplerDesc& desc, std::string* error) override;

 private:
  static VKAPI_ATTR VkBool32 VKAPI_CALL OnMessage(
      VkDebugUtilsMessageSeverityFlagBitsEXT severity, VkDebugUtilsMessageTypeFlagsEXT types,
      const VkDebugUtilsMessengerCallbackDataEXT* data, void* user);
  bool CreateInstance(std::string* error);
  bool PickPhysicalDevice(int device_index, std::string* error);
  bool CreateLogicalDevice(std::string* error);
  bool FindHostMemoryType(uint32_t type_bits, uint32_t* type_index, std::string* error) const;
  bool CreateSetLayouts(VulkanKernel& kernel, std::string* error);
  bool CreatePipeline(VulkanKernel& kernel, std::span<const uint32_t> spirv, std::string* error);
  bool WriteDescriptorSets(VulkanKernel& kernel, const std::vector<const BufferBinding*>& given,
                           std::vector<VkDescriptorSet>* sets, std::string* error);
  /// A view of `buffer` in the format of typed buffer binding `info`, kept by `kernel`
  /// until its next dispatch.
  bool MakeTexelView(VulkanKernel& kernel, const driver::BindingInfo& info, const Buffer& buffer,
                     VkBufferView* view, std::string* error);
  /// Records commands with `record` into the device's command buffer, submits them and
  /// waits (texture uploads, read-backs and layout changes).
  template <typename Record>
  bool RunCommands(Record record, std::string* error);
  /// Copies between `texture`'s mip level `mip` and a host-visible buffer of its bytes.
  bool CopyTexture(const VulkanTexture& texture, uint32_t mip, VulkanBuffer& staging,
                   bool to_texture, std::string* error);
  bool RecordAndSubmit(VulkanKernel& kernel, const std::vector<VkDescriptorSet>& sets,
                       GroupCount groups, const DispatchOptions& options, DispatchStats* stats,
                       std::string* error);
  /// Reads the two timestamps written around the last dispatch into `stats`.
  bool ReadTimestamps(DispatchStats* stats, std::string* error);

  VkInstance instance_ = VK_NULL_HANDLE;
  VkPhysicalDevice physical_device_ = VK_NULL_HANDLE;
  VkPhysicalDeviceProperties properties_{};
  ShaderFeatures features_;  ///< optional features, all enabled when supported
  VkPhysicalDeviceMemoryProperties memory_properties_{};
  uint32_t queue_family_ = 0;
  VkDevice device_ = VK_NULL_HANDLE;
  VkQueue queue_ = VK_NULL_HANDLE;
  VkCommandPool command_pool_ = VK_NULL_HANDLE;
  VkCommandBuffer command_buffer_ = VK_NULL_HANDLE;
  VkFence fence_ = VK_NULL_HANDLE;
  VkQueryPool timestamps_ = VK_NULL_HANDLE;  ///< two timestamps, made on first use
  uint32_t timestamp_bits_ = 0;              ///< the queue family's timestampValidBits
  std::string name_;
  bool debug_printf_ = false;  ///< opened with DeviceOptions::debug_printf
  VkDebugUtilsMessengerEXT messenger_ = VK_NULL_HANDLE;
  std::vector<std::string> printf_messages_;  ///< not yet taken
};

VkBool32 VulkanDevice::OnMessage(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                 VkDebugUtilsMessageTypeFlagsEXT types,
                                 const VkDebugUtilsMessengerCallbackDataEXT* data, void* user) {
  // Only debug printf: the layer's other messages (its settings at start-up) are dropped.
  if (data != nullptr && data->pMessageIdName != nullptr &&
      std::strcmp(data->pMessageIdName, "UNASSIGNED-DEBUG-PRINTF") == 0) {
    static_cast<VulkanDevice*>(user)->printf_messages_.push_back(PrintfText(data->pMessage));
  }
  return VK_FALSE;
}

VulkanDevice::~VulkanDevice() {
  if (device_ != VK_NULL_HANDLE) {
    vkDeviceWaitIdle(device_);
    if (fence_ != VK_NULL_HANDLE) vkDestroyFence(device_, fence_, nullptr);
    if (timestamps_ != VK_NULL_HANDLE) vkDestroyQueryPool(device_, timestamps_, nullptr);
    // Destroying the pool frees its command buffers.
    if (command_pool_ != VK_NULL_HANDLE) vkDestroyCommandPool(device_, command_pool_, nullptr);
    vkDestroyDevice(device_, nullptr);
  }
  if (messenger_ != VK_NULL_HANDLE) {
    auto destroy = reinterpret_cast<PFN_vkDestroyDebugUtilsMessengerEXT>(
        vkGetInstanceProcAddr(instance_, "vkDestroyDebugUtilsMessengerEXT"));
    if (destroy != nullptr) destroy(instance_, messenger_, nullptr);
  }
  if (instance_ != VK_NULL_HANDLE) vkDestroyInstance(instance_, nullptr);
}

bool VulkanDevice::Open(int device_index, std::string* error) {
  return CreateInstance(error) && PickPhysicalDevice(device_index, error) &&
         CreateLogicalDevice(error);
}

bool VulkanDevice::CreateInstance(std::string* error) {
  VkApplicationInfo app{};
  app.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO;
  app.pApplicationName = "slope";
  app.pEngineName = "slope";
  app.apiVersion = VK_API_VERSION_1_2;
  VkInstanceCreateInfo info{};
  info.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
  info.pApplicationInfo = &app;
  // Debug printf: the validation layer with every check but printf turned off, and a
  // messenger (also chained here, for messages while the instance is made).
  const char* layers[] = {kValidationLayer};
  const char* extensions[] = {VK_EXT_DEBUG_UTILS_EXTENSION_NAME,
                              VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME};
  VkValidationFeatureEnableEXT enables[] = {VK_VALIDATION_FEATURE_ENABLE_DEBUG_PRINTF_EXT};
  VkValidationFeatureDisableEXT disables[] = {
      VK_VALIDATION_FEATURE_DISABLE_CORE_CHECKS_EXT,
      VK_VALIDATION_FEATURE_DISABLE_OBJECT_LIFETIMES_EXT,
      VK_VALIDATION_FEATURE_DISABLE_THREAD_SAFETY_EXT,
      VK_VALIDATION_FEATURE_DISABLE_API_PARAMETERS_EXT,
      VK_VALIDATION_FEATURE_DISABLE_UNIQUE_HANDLES_EXT,
      VK_VALIDATION_FEATURE_DISABLE_SHADERS_EXT};
  VkValidationFeaturesEXT features{};
  features.sType = VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT;
  features.enabledValidationFeatureCount = 1;
  features.pEnabledValidationFeatures = enables;
  features.disabledValidationFeatureCount = static_cast<uint32_t>(std::size(disables));
  features.pDisabledValidationFeatures = disables;
  VkDebugUtilsMessengerCreateInfoEXT messenger{};
  messenger.sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT;
  messenger.pNext = &features;
  messenger.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_INFO_BIT_EXT;
  messenger.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT |
                          VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT;
  messenger.pfnUserCallback = &VulkanDevice::OnMessage;
  messenger.pUserData = this;
  if (debug_printf_) {
    if (!HasValidationLayer()) {
      *error = std::string("debug printf needs the Khronos validation layer (") + kValidationLayer +
               "), which is not installed";
      return false;
    }
    info.pNext = &messenger;
    info.enabledLayerCount = 1;
    info.ppEnabledLayerNames = layers;
    info.enabledExtensionCount = static_cast<uint32_t>(std::size(extensions));
    info.ppEnabledExtensionNames = extensions;
  }
  VkResult result = vkCreateInstance(&info, nullptr, &instance_);
  if (result == VK_ERROR_INCOMPATIBLE_DRIVER) {
    instance_ = VK_NULL_HANDLE;
    *error = "no Vulkan driver (ICD) found: vkCreateInstance failed: " + VkResultName(result);
    return false;
  }
  if (result != VK_SUCCESS) instance_ = VK_NULL_HANDLE;
#if SLOPE_PIN_LAVAPIPE
  // lavapipe (Mesa 22.3) keeps a one-time allocation in its globals. The loader unloads
  // the driver on vkDestroyInstance, after which LeakSanitizer reports that memory as a
  // leak from an unknown module that no suppression can name. Under ASan, keep the
  // driver loaded if it is; the handle is deliberately never closed.
  if (result == VK_SUCCESS) dlopen("libvulkan_lvp.so", RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
#endif
  if (!CheckVk(result, "vkCreateInstance", error)) return false;
  if (debug_printf_) {
    messenger.pNext = nullptr;
    auto create = reinterpret_cast<PFN_vkCreateDebugUtilsMessengerEXT>(
        vkGetInstanceProcAddr(instance_, "vkCreateDebugUtilsMessengerEXT"));
    if (create == nullptr) {
      *error = "debug printf: vkCreateDebugUtilsMessengerEXT is missing";
      return false;
    }
    if (!CheckVk(create(instance_, &messenger, nullptr, &messenger_),
                 "vkCreateDebugUtilsMessengerEXT", error)) {
      messenger_ = VK_NULL_HANDLE;
      return false;
    }
  }
  return true;
}

// Lower is better: discrete GPUs first, the CPU (lavapipe) last.
int DeviceTypeRank(VkPhysicalDeviceType type) {
  switch (type) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU:
      return 0;
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU:
      return 1;
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU:
      return 2;
    case VK_PHYSICAL_DEVICE_TYPE_CPU:
      return 4;
    default:
      return 3;
  }
}

// Returns the first queue family of `device` that supports compute, or -1.
int FindComputeQueueFamily(VkPhysicalDevice device) {
  uint32_t count = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(device, &count, nullptr);
  std::vector<VkQueueFamilyProperties> families(count);
  vkGetPhysicalDeviceQueueFamilyProperties(device, &count, families.data());
  for (uint32_t i = 0; i < count; ++i) {
    if ((families[i].queueFlags & VK_QUEUE_COMPUTE_BIT) != 0 && families[i].queueCount > 0) {
      return static_cast<int>(i);
    }
  }
  return -1;
}

bool VulkanDevice::PickPhysicalDevice(int device_index, std::string* error) {
  uint32_t count = 0;
  if (!CheckVk(vkEnumeratePhysicalDevices(instance_, &count, nullptr), "vkEnumeratePhysicalDevices",
               error)) {
    return false;
  }
  std::vector<VkPhysicalDevice> devices(count);
  VkResult result = vkEnumeratePhysicalDevices(instance_, &count, devices.data());
  if (result != VK_SUCCESS && result != VK_INCOMPLETE) {
    return CheckVk(result, "vkEnumeratePhysicalDevices", error);
  }
  devices.resize(count);
  if (devices.empty()) {
    *error = "no Vulkan device found";
    return false;
  }
  int chosen = -1;
  if (device_index >= 0) {
    if (static_cast<size_t>(device_index) >= devices.size()) {
      *error = "Vulkan device index " + std::to_string(device_index) + " is out of range (" +
               std::to_string(devices.size()) + " device(s) found:";
      for (size_t i = 0; i < devices.size(); ++i) {
        VkPhysicalDeviceProperties props;
        vkGetPhysicalDeviceProperties(devices[i], &props);
        *error += std::string(i == 0 ? " " : ", ") + std::to_string(i) + ": " + props.deviceName;
      }
      *error += ")";
      return false;
    }
    chosen = device_index;
    if (FindComputeQueueFamily(devices[chosen]) < 0) {
      *error = "Vulkan device " + std::to_string(device_index) + " has no compute queue";
      return false;
    }
  } else {
    int best_rank = std::numeric_limits<int>::max();
    for (size_t i = 0; i < devices.size(); ++i) {
      if (FindComputeQueueFamily(devices[i]) < 0) continue;
      VkPhysicalDeviceProperties props;
      vkGetPhysicalDeviceProperties(devices[i], &props);
      int rank = DeviceTypeRank(props.deviceType);
      if (rank < best_rank) {
        best_rank = rank;
        chosen = static_cast<int>(i);
      }
    }
    if (chosen < 0) {
      *error = "no Vulkan device with a compute queue found";
      return false;
    }
  }
  physical_device_ = devices[chosen];
  queue_family_ = static_cast<uint32_t>(FindComputeQueueFamily(physical_device_));
  {
    uint32_t family_count = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(physical_device_, &family_count, nullptr);
    std::vector<VkQueueFamilyProperties> families(family_count);
    vkGetPhysicalDeviceQueueFamilyProperties(physical_device_, &family_count, families.data());
    timestamp_bits_ = families[queue_family_].timestampValidBits;
  }
  vkGetPhysicalDeviceProperties(physical_device_, &properties_);
  vkGetPhysicalDeviceMemoryProperties(physical_device_, &memory_properties_);
  features_ = QueryShaderFeatures(physical_device_);
  name_ = properties_.deviceName;
  return true;
}

bool VulkanDevice::CreateLogicalDevice(std::string* error) {
  float priority = 1.0f;
  VkDeviceQueueCreateInfo queue_info{};
  queue_info.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO;
  queue_info.queueFamilyIndex = queue_family_;
  queue_info.queueCount = 1;
  queue_info.pQueuePriorities = &priority;
  VkDeviceCreateInfo device_info{};
  device_info.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
  device_info.queueCreateInfoCount = 1;
  device_info.pQueueCreateInfos = &queue_info;
  FeatureChain enabled(features_);
  device_info.pNext = enabled.Head();
  std::vector<const char*> device_extensions = enabled.Extensions();
  if (debug_printf_) {
    // Printf modules declare SPV_KHR_non_semantic_info; the device enables it when it has
    // it (the layer consumes the instructions either way).
    uint32_t count = 0;
    vkEnumerateDeviceExtensionProperties(physical_device_, nullptr, &count, nullptr);
    std::vector<VkExtensionProperties> available(count);
    vkEnumerateDeviceExtensionProperties(physical_device_, nullptr, &count, available.data());
    for (const VkExtensionProperties& e : available) {
      if (std::strcmp(e.extensionName, VK_KHR_SHADER_NON_SEMANTIC_INFO_EXTENSION_NAME) == 0) {
        device_extensions.push_back(VK_KHR_SHADER_NON_SEMANTIC_INFO_EXTENSION_NAME);
      }
    }
  }
  device_info.enabledExtensionCount = static_cast<uint32_t>(device_extensions.size());
  device_info.ppEnabledExtensionNames = device_extensions.data();
  if (!CheckVk(vkCreateDevice(physical_device_, &device_info, nullptr, &device_), "vkCreateDevice",
               error)) {
    device_ = VK_NULL_HANDLE;
    return false;
  }
  vkGetDeviceQueue(device_, queue_family_, 0, &queue_);

  VkCommandPoolCreateInfo pool_info{};
  pool_info.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO;
  pool_info.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
  pool_info.queueFamilyIndex = queue_family_;
  if (!CheckVk(vkCreateCommandPool(device_, &pool_info, nullptr, &command_pool_),
               "vkCreateCommandPool", error)) {
    command_pool_ = VK_NULL_HANDLE;
    return false;
  }
  VkCommandBufferAllocateInfo alloc_info{};
  alloc_info.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO;
  alloc_info.commandPool = command_pool_;
  alloc_info.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  alloc_info.commandBufferCount = 1;
  if (!CheckVk(vkAllocateCommandBuffers(device_, &alloc_info, &command_buffer_),
               "vkAllocateCommandBuffers", error)) {
    command_buffer_ = VK_NULL_HANDLE;
    return false;
  }
  VkFenceCreateInfo fence_info{};
  fence_info.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO;
  if (!CheckVk(vkCreateFence(device_, &fence_info, nullptr, &fence_), "vkCreateFence", error)) {
    fence_ = VK_NULL_HANDLE;
    return false;
  }
  return true;
}

bool VulkanDevice::FindHostMemoryType(uint32_t type_bits, uint32_t* type_index,
                                      std::string* error) const {
  const VkMemoryPropertyFlags wanted =
      VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  for (uint32_t i = 0; i < memory_properties_.memoryTypeCount; ++i) {
    if ((type_bits & (1u << i)) != 0 &&
        (memory_properties_.memoryTypes[i].propertyFlags & wanted) == wanted) {
      *type_index = i;
      return true;
    }
  }
  *error = "the Vulkan device has no host-visible coherent memory for storage buffers";
  return false;
}

std::unique_ptr<Buffer> VulkanDevice::CreateBuffer(size_t size, std::string* error) {
  auto buffer = std::make_unique<VulkanBuffer>(device_, size);
  VkBufferCreateInfo info{};
  info.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
  info.size = std::max<VkDeviceSize>(size, kMinBufferBytes);
  // Any buffer may be bound as a typed buffer (a texel buffer) too.
  info.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT |
               VK_BUFFER_USAGE_UNIFORM_TEXEL_BUFFER_BIT | VK_BUFFER_USAGE_STORAGE_TEXEL_BUFFER_BIT |
               VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  // Where the device has bufferDeviceAddress, every buffer has an address a kernel's
  // pointers can hold (BufferAddress).
  if (features_.buffer_device_address) {
    info.usage |= VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT;
  }
  info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  if (!CheckVk(vkCreateBuffer(device_, &info, nullptr, &buffer->buffer_), "vkCreateBuffer",
               error)) {
    buffer->buffer_ = VK_NULL_HANDLE;
    return nullptr;
  }
  VkMemoryRequirements requirements;
  vkGetBufferMemoryRequirements(device_, buffer->buffer_, &requirements);
  VkMemoryAllocateInfo alloc{};
  alloc.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
  alloc.allocationSize = requirements.size;
  VkMemoryAllocateFlagsInfo flags{};
  if (features_.buffer_device_address) {
    flags.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO;
    flags.flags = VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT;
    alloc.pNext = &flags;
  }
  if (!FindHostMemoryType(requirements.memoryTypeBits, &alloc.memoryTypeIndex, error)) {
    return nullptr;
  }
  if (!CheckVk(vkAllocateMemory(device_, &alloc, nullptr, &buffer->memory_), "vkAllocateMemory",
               error)) {
    buffer->memory_ = VK_NULL_HANDLE;
    return nullptr;
  }
  if (!CheckVk(vkBindBufferMemory(device_, buffer->buffer_, buffer->memory_, 0),
               "vkBindBufferMemory", error)) {
    return nullptr;
  }
  void* mapped = nullptr;
  if (!CheckVk(vkMapMemory(device_, buffer->memory_, 0, VK_WHOLE_SIZE, 0, &mapped), "vkMapMemory",
               error)) {
    return nullptr;
  }
  buffer->mapped_ = static_cast<std::byte*>(mapped);
  return buffer;
}

// Returns `buffer` as a VulkanBuffer when it is one and [offset, offset+bytes) lies in it.
const VulkanBuffer* CheckedRange(const Buffer& buffer, size_t offset, size_t bytes,
                                 std::string* error) {
  if (buffer.GetBackend() != Backend::Vulkan) {
    *error = std::string("buffer belongs to the ") + BackendName(buffer.GetBackend()) +
             " backend, not vulkan";
    return nullptr;
  }
  if (offset > buffer.Size() || bytes > buffer.Size() - offset) {
    *error = "range of " + std::to_string(bytes) + " bytes at offset " + std::to_string(offset) +
             " does not fit in a buffer of " + std::to_string(buffer.Size()) + " bytes";
    return nullptr;
  }
  return static_cast<const VulkanBuffer*>(&buffer);
}

bool VulkanDevice::WriteBuffer(Buffer& buffer, size_t offset, std::span<const std::byte> data,
                               std::string* error) {
  const VulkanBuffer* vk_buffer = CheckedRange(buffer, offset, data.size(), error);
  if (vk_buffer == nullptr) return false;
  if (!data.empty()) std::memcpy(vk_buffer->mapped_ + offset, data.data(), data.size());
  return true;
}

uint64_t VulkanDevice::BufferAddress(const Buffer& buffer) const {
  if (!features_.buffer_device_address) return 0;
  VkBufferDeviceAddressInfo info{};
  info.sType = VK_STRUCTURE_TYPE_BUFFER_DEVICE_ADDRESS_INFO;
  info.buffer = static_cast<const VulkanBuffer&>(buffer).buffer_;
  return vkGetBufferDeviceAddress(device_, &info);
}

bool VulkanDevice::ReadBuffer(const Buffer& buffer, size_t offset, std::span<std::byte> out,
                              std::string* error) {
  const VulkanBuffer* vk_buffer = CheckedRange(buffer, offset, out.size(), error);
  if (vk_buffer == nullptr) return false;
  if (!out.empty()) std::memcpy(out.data(), vk_buffer->mapped_ + offset, out.size());
  return true;
}

template <typename Record>
bool VulkanDevice::RunCommands(Record record, std::string* error) {
  if (!CheckVk(vkResetCommandBuffer(command_buffer_, 0), "vkResetCommandBuffer", error)) {
    return false;
  }
  VkCommandBufferBeginInfo begin{};
  begin.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
  begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  if (!CheckVk(vkBeginCommandBuffer(command_buffer_, &begin), "vkBeginCommandBuffer", error)) {
    return false;
  }
  // What ran before (a dispatch writing a texture) is visible to the commands recorded
  // here, and these to what runs after (the next dispatch, host reads of a staging buffer).
  VkMemoryBarrier barrier{};
  barrier.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER;
  barrier.srcAccessMask = VK_ACCESS_MEMORY_WRITE_BIT;
  barrier.dstAccessMask = VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT;
  vkCmdPipelineBarrier(command_buffer_, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
                       VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0, 1, &barrier, 0, nullptr, 0, nullptr);
  record(command_buffer_);
  barrier.dstAccessMask |= VK_ACCESS_HOST_READ_BIT;
  vkCmdPipelineBarrier(command_buffer_, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
                       VK_PIPELINE_STAGE_ALL_COMMANDS_BIT | VK_PIPELINE_STAGE_HOST_BIT, 0, 1,
                       &barrier, 0, nullptr, 0, nullptr);
  if (!CheckVk(vkEndCommandBuffer(command_buffer_), "vkEndCommandBuffer", error)) return false;
  if (!CheckVk(vkResetFences(device_, 1, &fence_), "vkResetFences", error)) return false;
  VkSubmitInfo submit{};
  submit.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO;
  submit.commandBufferCount = 1;
  submit.pCommandBuffers = &command_buffer_;
  if (!CheckVk(vkQueueSubmit(queue_, 1, &submit, fence_), "vkQueueSubmit", error)) return false;
  return CheckVk(vkWaitForFences(device_, 1, &fence_, VK_TRUE, UINT64_MAX), "vkWaitForFences",
                 error);
}

std::unique_ptr<Texture> VulkanDevice::CreateTexture(const TextureDesc& desc, std::string* error) {
  auto texture = std::make_unique<VulkanTexture>(device_, desc);
  TextureFormatInfo format = GetTextureFormatInfo(desc.format);
  texture->format_ = VkFormatOf(desc.format);
  if (format.components == 0 || texture->format_ == VK_FORMAT_UNDEFINED) {
    *error = "unknown texture format '" + desc.format + "'";
    return nullptr;
  }
  texture->texel_bytes_ = format.components * format.bytes_per_component;
  bool cube = desc.dim == 4;
  if (desc.width == 0 || desc.height == 0 || desc.depth == 0 || desc.layers == 0 ||
      desc.mip_levels == 0 || (cube && (desc.width != desc.height || desc.layers % 6 != 0)) ||
      (desc.dim == 1 && desc.height != 1) || (desc.dim != 3 && desc.depth != 1) ||
      (!desc.arrayed && desc.layers != (cube ? 6u : 1u))) {
    *error = "invalid texture size for its shape";
    return nullptr;
  }
  uint32_t largest = std::max({desc.width, desc.height, desc.depth});
  if (desc.mip_levels > 1 + static_cast<uint32_t>(std::bit_width(largest) - 1)) {
    *error = "a texture of largest side " + std::to_string(largest) + " has at most " +
             std::to_string(std::bit_width(largest)) + " mip levels, not " +
             std::to_string(desc.mip_levels);
    return nullptr;
  }
  VkFormatProperties props{};
  vkGetPhysicalDeviceFormatProperties(physical_device_, texture->format_, &props);
  VkFormatFeatureFlags needed = desc.storage ? VK_FORMAT_FEATURE_STORAGE_IMAGE_BIT
                                             : VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT;
  if ((props.optimalTilingFeatures & needed) != needed) {
    *error = "the Vulkan device cannot use format " + desc.format + " for " +
             (desc.storage ? "storage textures (VK_FORMAT_FEATURE_STORAGE_IMAGE_BIT)"
                           : "sampled textures (VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT)");
    return nullptr;
  }
  texture->linear_filter_ =
      (props.optimalTilingFeatures & VK_FORMAT_FEATURE_SAMPLED_IMAGE_FILTER_LINEAR_BIT) != 0;
  VkImageCreateInfo info{};
  info.sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO;
  info.flags = cube ? VK_IMAGE_CREATE_CUBE_COMPATIBLE_BIT : 0;
  info.imageType = desc.dim == 1 ? VK_IMAGE_TYPE_1D : desc.dim == 3 ? VK_IMAGE_TYPE_3D : VK_IMAGE_TYPE_2D;
  info.format = texture->format_;
  info.extent = {desc.width, desc.height, desc.depth};
  info.mipLevels = desc.mip_levels;
  info.arrayLayers = desc.layers;
  info.samples = VK_SAMPLE_COUNT_1_BIT;
  info.tiling = VK_IMAGE_TILING_OPTIMAL;
  info.usage = VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT |
               (desc.storage ? VK_IMAGE_USAGE_STORAGE_BIT : VK_IMAGE_USAGE_SAMPLED_BIT);
  info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  info.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
  if (!CheckVk(vkCreateImage(device_, &info, nullptr, &texture->image_), "vkCreateImage", error)) {
    texture->image_ = VK_NULL_HANDLE;
    return nullptr;
  }
  VkMemoryRequirements requirements;
  vkGetImageMemoryRequirements(device_, texture->image_, &requirements);
  VkMemoryAllocateInfo alloc{};
  alloc.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
  alloc.allocationSize = requirements.size;
  alloc.memoryTypeIndex = memory_properties_.memoryTypeCount;
  for (uint32_t i = 0; i < memory_properties_.memoryTypeCount; ++i) {
    if ((requirements.memoryTypeBits & (1u << i)) != 0) {
      alloc.memoryTypeIndex = i;
      break;
    }
  }
  if (alloc.memoryTypeIndex == memory_properties_.memoryTypeCount) {
    *error = "the Vulkan device has no memory type for this texture";
    return nullptr;
  }
  if (!CheckVk(vkAllocateMemory(device_, &alloc, nullptr, &texture->memory_), "vkAllocateMemory",
               error)) {
    texture->memory_ = VK_NULL_HANDLE;
    return nullptr;
  }
  if (!CheckVk(vkBindImageMemory(device_, texture->image_, texture->memory_, 0),
               "vkBindImageMemory", error)) {
    return nullptr;
  }
  VkImageViewCreateInfo view{};
  view.sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO;
  view.image = texture->image_;
  view.viewType = desc.dim == 1   ? (desc.arrayed ? VK_IMAGE_VIEW_TYPE_1D_ARRAY : VK_IMAGE_VIEW_TYPE_1D)
                  : desc.dim == 2 ? (desc.arrayed ? VK_IMAGE_VIEW_TYPE_2D_ARRAY : VK_IMAGE_VIEW_TYPE_2D)
                  : desc.dim == 3 ? VK_IMAGE_VIEW_TYPE_3D
                                  : (desc.arrayed ? VK_IMAGE_VIEW_TYPE_CUBE_ARRAY : VK_IMAGE_VIEW_TYPE_CUBE);
  view.format = texture->format_;
  view.subresourceRange = {AspectOf(texture->format_), 0, desc.mip_levels, 0, desc.layers};
  if (!CheckVk(vkCreateImageView(device_, &view, nullptr, &texture->view_), "vkCreateImageView",
               error)) {
    texture->view_ = VK_NULL_HANDLE;
    return nullptr;
  }
  // The texture stays in the GENERAL layout, which copies, sampling and storage all take.
  VkImageMemoryBarrier to_general{};
  to_general.sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER;
  to_general.srcAccessMask = 0;
  to_general.dstAccessMask = VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT;
  to_general.oldLayout = VK_IMAGE_LAYOUT_UNDEFINED;
  to_general.newLayout = VK_IMAGE_LAYOUT_GENERAL;
  to_general.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
  to_general.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
  to_general.image = texture->image_;
  to_general.subresourceRange = view.subresourceRange;
  bool ok = RunCommands(
      [&](VkCommandBuffer cmd) {
        vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT,
                             VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0, 0, nullptr, 0, nullptr, 1,
                             &to_general);
      },
      error);
  if (!ok) return nullptr;
  return texture;
}

bool VulkanDevice::CopyTexture(const VulkanTexture& texture, uint32_t mip, VulkanBuffer& staging,
                               bool to_texture, std::string* error) {
  const TextureDesc& desc = texture.desc_;
  VkBufferImageCopy region{};
  region.bufferOffset = 0;
  region.imageSubresource = {AspectOf(texture.format_), mip, 0, desc.layers};
  region.imageExtent = {std::max(1u, desc.width >> mip), std::max(1u, desc.height >> mip),
                        std::max(1u, desc.depth >> mip)};
  return RunCommands(
      [&](VkCommandBuffer cmd) {
        if (to_texture) {
          vkCmdCopyBufferToImage(cmd, staging.buffer_, texture.image_, VK_IMAGE_LAYOUT_GENERAL, 1,
                                 &region);
        } else {
          vkCmdCopyImageToBuffer(cmd, texture.image_, VK_IMAGE_LAYOUT_GENERAL, staging.buffer_, 1,
                                 &region);
        }
      },
      error);
}

namespace {
const VulkanTexture* CheckedLevel(const Texture& texture, uint32_t mip, size_t bytes,
                                  std::string* error) {
  if (texture.GetBackend() != Backend::Vulkan) {
    *error = std::string("texture belongs to the ") + BackendName(texture.GetBackend()) +
             " backend, not vulkan";
    return nullptr;
  }
  const auto& vk = static_cast<const VulkanTexture&>(texture);
  if (mip >= vk.desc_.mip_levels) {
    *error = "the texture has no mip level " + std::to_string(mip);
    return nullptr;
  }
  uint64_t expected = TexelCount(vk.desc_, mip) * vk.texel_bytes_;
  if (bytes != expected) {
    *error = "mip level " + std::to_string(mip) + " of the texture takes " +
             std::to_string(expected) + " bytes, not " + std::to_string(bytes);
    return nullptr;
  }
  return &vk;
}
}  // namespace

bool VulkanDevice::WriteTexture(Texture& texture, uint32_t mip, std::span<const std::byte> data,
                                std::string* error) {
  const VulkanTexture* vk = CheckedLevel(texture, mip, data.size(), error);
  if (vk == nullptr) return false;
  std::unique_ptr<Buffer> staging = CreateBuffer(data.size(), error);
  if (staging == nullptr || !WriteBuffer(*staging, 0, data, error)) return false;
  return CopyTexture(*vk, mip, static_cast<VulkanBuffer&>(*staging), true, error);
}

bool VulkanDevice::ReadTexture(const Texture& texture, uint32_t mip, std::span<std::byte> out,
                               std::string* error) {
  const VulkanTexture* vk = CheckedLevel(texture, mip, out.size(), error);
  if (vk == nullptr) return false;
  std::unique_ptr<Buffer> staging = CreateBuffer(out.size(), error);
  if (staging == nullptr) return false;
  return CopyTexture(*vk, mip, static_cast<VulkanBuffer&>(*staging), false, error) &&
         ReadBuffer(*staging, 0, out, error);
}

std::unique_ptr<Sampler> VulkanDevice::CreateSampler(const SamplerDesc& desc, std::string* error) {
  auto sampler = std::make_unique<VulkanSampler>(device_, desc);
  VkSamplerCreateInfo info{};
  info.sType = VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO;
  VkFilter filter = desc.linear ? VK_FILTER_LINEAR : VK_FILTER_NEAREST;
  info.magFilter = filter;
  info.minFilter = filter;
  info.mipmapMode = desc.linear ? VK_SAMPLER_MIPMAP_MODE_LINEAR : VK_SAMPLER_MIPMAP_MODE_NEAREST;
  VkSamplerAddressMode mode =
      desc.address == SamplerDesc::Address::Wrap     ? VK_SAMPLER_ADDRESS_MODE_REPEAT
      : desc.address == SamplerDesc::Address::Mirror ? VK_SAMPLER_ADDRESS_MODE_MIRRORED_REPEAT
      : desc.address == SamplerDesc::Address::Border ? VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_BORDER
                                                     : VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE;
  info.addressModeU = info.addressModeV = info.addressModeW = mode;
  info.compareEnable = desc.comparison ? VK_TRUE : VK_FALSE;
  info.compareOp = VK_COMPARE_OP_LESS_OR_EQUAL;
  info.minLod = 0.0f;
  info.maxLod = VK_LOD_CLAMP_NONE;
  info.borderColor = VK_BORDER_COLOR_FLOAT_TRANSPARENT_BLACK;
  if (!CheckVk(vkCreateSampler(device_, &info, nullptr, &sampler->sampler_), "vkCreateSampler",
               error)) {
    sampler->sampler_ = VK_NULL_HANDLE;
    return nullptr;
  }
  return sampler;
}

std::unique_ptr<Kernel> VulkanDevice::CreateKernel(std::span<const uint32_t> spirv,
                                                   const driver::Reflection& reflection,
                                                   const std::string& entry, std::string* error) {
  if (spirv.size() < 5 || spirv[0] != kSpirvMagic) {
    *error = "the kernel code is not a SPIR-V module (missing magic number)";
    return nullptr;
  }
  *error = MissingFeature(spirv, features_);
  if (!error->empty()) return nullptr;
  const driver::EntryPointInfo* entry_point = FindEntryPoint(reflection, entry, error);
  if (entry_point == nullptr) return nullptr;
  auto kernel = std::make_unique<VulkanKernel>(device_, reflection, *entry_point);
  *error = MissingLimit(kernel->reflection_, kernel->entry_.name, properties_.limits);
  if (!error->empty()) return nullptr;
  *error = MissingWaveSize(kernel->entry_, features_);
  if (!error->empty()) return nullptr;
  for (const driver::BindingInfo& info : kernel->reflection_.bindings) {
    if (info.kind == driver::ResourceKind::PushConstant &&
        info.entry_point == kernel->entry_.name) {
      kernel->push_constants_ = &info;
    }
  }
  if (!CreateSetLayouts(*kernel, error) || !CreatePipeline(*kernel, spirv, error)) {
    return nullptr;
  }
  return kernel;
}

bool VulkanDevice::CreateSetLayouts(VulkanKernel& kernel, std::string* error) {
  const std::vector<driver::BindingInfo>& bindings = kernel.reflection_.bindings;
  // set number -> layout bindings; std::map keeps (set, binding) pairs checkable.
  std::map<uint32_t, std::vector<VkDescriptorSetLayoutBinding>> by_set;
  std::map<std::pair<uint32_t, uint32_t>, const driver::BindingInfo*> seen;
  std::map<VkDescriptorType, uint32_t> counts;
  for (const driver::BindingInfo& info : bindings) {
    if (info.kind == driver::ResourceKind::PushConstant) continue;  // no descriptor
    VkDescriptorType type = DescriptorTypeOf(info.kind);
    ++counts[type];
    auto [it, inserted] = seen.emplace(std::make_pair(info.set, info.binding), &info);
    if (!inserted) {
      *error = "bindings '" + it->second->name + "' and '" + info.name + "' both use set " +
               std::to_string(info.set) + ", binding " + std::to_string(info.binding);
      return false;
    }
    VkDescriptorSetLayoutBinding layout_binding{};
    layout_binding.binding = info.binding;
    layout_binding.descriptorType = type;
    layout_binding.descriptorCount = 1;
    layout_binding.stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
    by_set[info.set].push_back(layout_binding);
  }
  uint32_t set_count = by_set.empty() ? 0 : by_set.rbegin()->first + 1;
  if (set_count > properties_.limits.maxBoundDescriptorSets) {
    *error = "the kernel uses descriptor set " + std::to_string(set_count - 1) +
             " but the device binds at most " +
             std::to_string(properties_.limits.maxBoundDescriptorSets) + " sets";
    return false;
  }
  kernel.set_layouts_.assign(set_count, VK_NULL_HANDLE);
  for (uint32_t set = 0; set < set_count; ++set) {
    const std::vector<VkDescriptorSetLayoutBinding>& layout_bindings = by_set[set];
    VkDescriptorSetLayoutCreateInfo info{};
    info.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO;
    info.bindingCount = static_cast<uint32_t>(layout_bindings.size());
    info.pBindings = layout_bindings.data();
    if (!CheckVk(vkCreateDescriptorSetLayout(device_, &info, nullptr, &kernel.set_layouts_[set]),
                 "vkCreateDescriptorSetLayout", error)) {
      kernel.set_layouts_[set] = VK_NULL_HANDLE;
      return false;
    }
  }
  if (set_count == 0) return true;

  std::vector<VkDescriptorPoolSize> pool_sizes;
  for (const auto& [type, count] : counts) pool_sizes.push_back({type, count});
  VkDescriptorPoolCreateInfo pool_info{};
  pool_info.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO;
  pool_info.maxSets = set_count;
  pool_info.poolSizeCount = static_cast<uint32_t>(pool_sizes.size());
  pool_info.pPoolSizes = pool_sizes.data();
  if (!CheckVk(vkCreateDescriptorPool(device_, &pool_info, nullptr, &kernel.descriptor_pool_),
               "vkCreateDescriptorPool", error)) {
    kernel.descriptor_pool_ = VK_NULL_HANDLE;
    return false;
  }
  return true;
}

bool VulkanDevice::CreatePipeline(VulkanKernel& kernel, std::span<const uint32_t> spirv,
                                  std::string* error) {
  VkShaderModuleCreateInfo module_info{};
  module_info.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO;
  module_info.codeSize = spirv.size_bytes();
  module_info.pCode = spirv.data();
  if (!CheckVk(vkCreateShaderModule(device_, &module_info, nullptr, &kernel.shader_),
               "vkCreateShaderModule", error)) {
    kernel.shader_ = VK_NULL_HANDLE;
    return false;
  }
  VkPipelineLayoutCreateInfo layout_info{};
  layout_info.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO;
  layout_info.setLayoutCount = static_cast<uint32_t>(kernel.set_layouts_.size());
  layout_info.pSetLayouts = kernel.set_layouts_.data();
  VkPushConstantRange push_range{};
  if (kernel.push_constants_ != nullptr && kernel.push_constants_->element.size > 0) {
    push_range.stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
    push_range.offset = 0;
    push_range.size = (kernel.push_constants_->element.size + 3) / 4 * 4;
    layout_info.pushConstantRangeCount = 1;
    layout_info.pPushConstantRanges = &push_range;
  }
  if (!CheckVk(vkCreatePipelineLayout(device_, &layout_info, nullptr, &kernel.pipeline_layout_),
               "vkCreatePipelineLayout", error)) {
    kernel.pipeline_layout_ = VK_NULL_HANDLE;
    return false;
  }
  VkComputePipelineCreateInfo pipeline_info{};
  pipeline_info.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO;
  pipeline_info.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
  pipeline_info.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  pipeline_info.stage.module = kernel.shader_;
  pipeline_info.stage.pName = kernel.entry_.name.c_str();
  pipeline_info.layout = kernel.pipeline_layout_;
  // [WaveSize(n)]: the subgroup size the pipeline must run with (CreateKernel checked that
  // the device offers it).
  VkPipelineShaderStageRequiredSubgroupSizeCreateInfoEXT required_size{};
  if (kernel.entry_.wave_size != 0 && features_.subgroup_size_control) {
    required_size.sType =
        VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_REQUIRED_SUBGROUP_SIZE_CREATE_INFO_EXT;
    required_size.requiredSubgroupSize = kernel.entry_.wave_size;
    pipeline_info.stage.pNext = &required_size;
  }
  // Specialization constants the host set: each a 32-bit value (a bool as a VkBool32).
  std::vector<VkSpecializationMapEntry> spec_entries;
  std::vector<uint32_t> spec_data;
  for (const driver::SpecConstantInfo& s : kernel.reflection_.spec_constants) {
    if (!s.overridden) continue;
    spec_entries.push_back(
        {s.id, static_cast<uint32_t>(spec_data.size() * sizeof(uint32_t)), sizeof(uint32_t)});
    spec_data.push_back(s.value_bits);
  }
  VkSpecializationInfo spec_info{};
  if (!spec_entries.empty()) {
    spec_info.mapEntryCount = static_cast<uint32_t>(spec_entries.size());
    spec_info.pMapEntries = spec_entries.data();
    spec_info.dataSize = spec_data.size() * sizeof(uint32_t);
    spec_info.pData = spec_data.data();
    pipeline_info.stage.pSpecializationInfo = &spec_info;
  }
  if (!CheckVk(vkCreateComputePipelines(device_, VK_NULL_HANDLE, 1, &pipeline_info, nullptr,
                                        &kernel.pipeline_),
               "vkCreateComputePipelines", error)) {
    kernel.pipeline_ = VK_NULL_HANDLE;
    return false;
  }
  return true;
}

bool VulkanDevice::Dispatch(Kernel& kernel, std::span<const BufferBinding> bindings,
                            GroupCount groups, std::string* error,
                            const DispatchOptions& options, DispatchStats* stats) {
  if (kernel.GetBackend() != Backend::Vulkan) {
    *error = std::string("kernel belongs to the ") + BackendName(kernel.GetBackend()) +
             " backend, not vulkan";
    return false;
  }
  auto& vk_kernel = static_cast<VulkanKernel&>(kernel);
  std::vector<const BufferBinding*> given;
  if (!ResolveResources(vk_kernel.reflection_, bindings, &given, error)) return false;
  std::vector<Buffer*> buffers(given.size(), nullptr);
  bool linear_sampler = false;
  for (size_t i = 0; i < given.size(); ++i) {
    if (given[i] == nullptr) continue;
    buffers[i] = given[i]->buffer;
    const void* other = given[i]->texture != nullptr   ? static_cast<const void*>(given[i]->texture)
                        : given[i]->sampler != nullptr ? static_cast<const void*>(given[i]->sampler)
                                                       : nullptr;
    Backend backend = given[i]->texture != nullptr   ? given[i]->texture->GetBackend()
                      : given[i]->sampler != nullptr ? given[i]->sampler->GetBackend()
                                                     : Backend::Vulkan;
    if (other != nullptr && backend != Backend::Vulkan) {
      *error = "the resource for binding '" + vk_kernel.reflection_.bindings[i].name +
               "' belongs to the " + BackendName(backend) + " backend";
      return false;
    }
    if (given[i]->sampler != nullptr && given[i]->sampler->Desc().linear) linear_sampler = true;
    if (given[i]->texture != nullptr) buffers[i] = nullptr;
    if (given[i]->sampler != nullptr) buffers[i] = nullptr;
  }
  // A linear sampler may filter any sampled float texture the kernel binds: each one's
  // format must allow it, or the results would be undefined. (Integer textures are never
  // filtered; a kernel reads them by texel.)
  for (size_t i = 0; i < given.size() && linear_sampler; ++i) {
    if (given[i] == nullptr || given[i]->texture == nullptr || given[i]->texture->Desc().storage) {
      continue;
    }
    driver::ScalarKind kind = GetTextureFormatInfo(given[i]->texture->Desc().format).scalar;
    if (kind != driver::ScalarKind::Float32 && kind != driver::ScalarKind::Float16) continue;
    const auto* t = static_cast<const VulkanTexture*>(given[i]->texture);
    if (!t->linear_filter_) {
      *error = "the kernel binds a linear sampler, but the Vulkan device cannot filter texture '" +
               vk_kernel.reflection_.bindings[i].name + "' of format " + t->desc_.format +
               " linearly (VK_FORMAT_FEATURE_SAMPLED_IMAGE_FILTER_LINEAR_BIT)";
      return false;
    }
  }
  size_t push_size = vk_kernel.push_constants_ != nullptr ? vk_kernel.push_constants_->element.size : 0;
  if (options.push_constants.size() != push_size) {
    *error = "the kernel's push-constant block takes " + std::to_string(push_size) +
             " bytes but " + std::to_string(options.push_constants.size()) + " were given";
    return false;
  }
  for (size_t i = 0; i < buffers.size(); ++i) {
    if (buffers[i] == nullptr) continue;  // a push-constant block
    if (buffers[i]->GetBackend() != Backend::Vulkan) {
      *error = "buffer for binding '" + vk_kernel.reflection_.bindings[i].name +
               "' belongs to the " + BackendName(buffers[i]->GetBackend()) + " backend";
      return false;
    }
  }
  const uint32_t* max_groups = properties_.limits.maxComputeWorkGroupCount;
  if (groups.x > max_groups[0] || groups.y > max_groups[1] || groups.z > max_groups[2]) {
    *error = "group count (" + std::to_string(groups.x) + ", " + std::to_string(groups.y) + ", " +
             std::to_string(groups.z) + ") exceeds the device limit (" +
             std::to_string(max_groups[0]) + ", " + std::to_string(max_groups[1]) + ", " +
             std::to_string(max_groups[2]) + ")";
    return false;
  }
  std::vector<VkDescriptorSet> sets;
  return WriteDescriptorSets(vk_kernel, given, &sets, error) &&
         RecordAndSubmit(vk_kernel, sets, groups, options, stats, error);
}

bool VulkanDevice::WriteDescriptorSets(VulkanKernel& kernel,
                                       const std::vector<const BufferBinding*>& given,
                                       std::vector<VkDescriptorSet>* sets, std::string* error) {
  if (kernel.set_layouts_.empty()) return true;
  if (!CheckVk(vkResetDescriptorPool(device_, kernel.descriptor_pool_, 0), "vkResetDescriptorPool",
               error)) {
    return false;
  }
  sets->assign(kernel.set_layouts_.size(), VK_NULL_HANDLE);
  VkDescriptorSetAllocateInfo alloc{};
  alloc.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO;
  alloc.descriptorPool = kernel.descriptor_pool_;
  alloc.descriptorSetCount = static_cast<uint32_t>(kernel.set_layouts_.size());
  alloc.pSetLayouts = kernel.set_layouts_.data();
  if (!CheckVk(vkAllocateDescriptorSets(device_, &alloc, sets->data()), "vkAllocateDescriptorSets",
               error)) {
    return false;
  }
  const std::vector<driver::BindingInfo>& infos = kernel.reflection_.bindings;
  kernel.DestroyTexelViews();  // the previous dispatch has finished
  std::vector<VkBufferView> views(infos.size(), VK_NULL_HANDLE);
  std::vector<VkDescriptorBufferInfo> buffer_infos(infos.size());
  std::vector<VkDescriptorImageInfo> image_infos(infos.size());
  std::vector<VkWriteDescriptorSet> writes;
  for (size_t i = 0; i < infos.size(); ++i) {
    if (infos[i].kind == driver::ResourceKind::PushConstant) continue;
    VkDescriptorType type = DescriptorTypeOf(infos[i].kind);
    // The write of binding i as `t`; the caller points it at its image, view or buffer.
    auto write_as = [&](VkDescriptorType t) {
      VkWriteDescriptorSet write{};
      write.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET;
      write.dstSet = (*sets)[infos[i].set];
      write.dstBinding = infos[i].binding;
      write.descriptorCount = 1;
      write.descriptorType = t;
      return write;
    };
    if (given[i]->texture != nullptr || given[i]->sampler != nullptr) {
      // A combined texture and sampler (Sampler2D) gives both.
      if (given[i]->texture != nullptr) {
        image_infos[i].imageView = static_cast<const VulkanTexture*>(given[i]->texture)->view_;
        image_infos[i].imageLayout = VK_IMAGE_LAYOUT_GENERAL;
      }
      if (given[i]->sampler != nullptr) {
        image_infos[i].sampler = static_cast<const VulkanSampler*>(given[i]->sampler)->sampler_;
      }
      VkWriteDescriptorSet write = write_as(type);
      write.pImageInfo = &image_infos[i];
      writes.push_back(write);
      continue;
    }
    const Buffer* buffer = given[i]->buffer;
    if (infos[i].kind == driver::ResourceKind::TexelBuffer ||
        infos[i].kind == driver::ResourceKind::RWTexelBuffer) {
      if (!MakeTexelView(kernel, infos[i], *buffer, &views[i], error)) return false;
      VkWriteDescriptorSet write = write_as(type);
      write.pTexelBufferView = &views[i];
      writes.push_back(write);
      continue;
    }
    bool uniform = infos[i].kind == driver::ResourceKind::UniformBuffer;
    if (uniform && buffer->Size() < infos[i].element.size) {
      *error = "uniform buffer '" + infos[i].name + "' needs " +
               std::to_string(infos[i].element.size) + " bytes but its buffer has " +
               std::to_string(buffer->Size());
      return false;
    }
    buffer_infos[i].buffer = static_cast<const VulkanBuffer*>(buffer)->buffer_;
    buffer_infos[i].offset = 0;
    // A storage buffer's range is the size asked for, not the allocation (at least
    // kMinBufferBytes), so that a kernel's GetDimensions sees the elements it was given.
    buffer_infos[i].range = uniform ? std::max<VkDeviceSize>(infos[i].element.size, 1)
                            : buffer->Size() > 0 ? buffer->Size()
                                                     : VK_WHOLE_SIZE;
    VkWriteDescriptorSet write =
        write_as(uniform ? VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER : VK_DESCRIPTOR_TYPE_STORAGE_BUFFER);
    write.pBufferInfo = &buffer_infos[i];
    writes.push_back(write);
  }
  vkUpdateDescriptorSets(device_, static_cast<uint32_t>(writes.size()), writes.data(), 0, nullptr);
  return true;
}

bool VulkanDevice::MakeTexelView(VulkanKernel& kernel, const driver::BindingInfo& info,
                                 const Buffer& buffer, VkBufferView* view, std::string* error) {
  VkFormat format = VkFormatOf(info.texture.format);
  bool storage = info.kind == driver::ResourceKind::RWTexelBuffer;
  VkFormatProperties props{};
  vkGetPhysicalDeviceFormatProperties(physical_device_, format, &props);
  VkFormatFeatureFlags needed = storage ? VK_FORMAT_FEATURE_STORAGE_TEXEL_BUFFER_BIT
                                        : VK_FORMAT_FEATURE_UNIFORM_TEXEL_BUFFER_BIT;
  if (format == VK_FORMAT_UNDEFINED || (props.bufferFeatures & needed) != needed) {
    *error = "the Vulkan device has no " + std::string(storage ? "storage" : "uniform") +
             " texel buffers of format " + info.texture.format + " (typed buffer '" + info.name +
             "')";
    return false;
  }
  // The view covers the whole elements the buffer holds.
  uint64_t elements = info.element.stride == 0 ? 0 : buffer.Size() / info.element.stride;
  if (elements > properties_.limits.maxTexelBufferElements) {
    *error = "typed buffer '" + info.name + "' has " + std::to_string(elements) +
             " elements; the Vulkan device allows " +
             std::to_string(properties_.limits.maxTexelBufferElements);
    return false;
  }
  VkBufferViewCreateInfo create{};
  create.sType = VK_STRUCTURE_TYPE_BUFFER_VIEW_CREATE_INFO;
  create.buffer = static_cast<const VulkanBuffer&>(buffer).buffer_;
  create.format = format;
  create.offset = 0;
  // An empty buffer still gets a view of one element (of its kMinBufferBytes).
  create.range = std::max<uint64_t>(elements, 1) * info.element.stride;
  if (!CheckVk(vkCreateBufferView(device_, &create, nullptr, view), "vkCreateBufferView", error)) {
    return false;
  }
  kernel.texel_views_.push_back(*view);
  return true;
}

bool VulkanDevice::RecordAndSubmit(VulkanKernel& kernel, const std::vector<VkDescriptorSet>& sets,
                                   GroupCount groups, const DispatchOptions& options,
                                   DispatchStats* stats, std::string* error) {
  // Timestamps only where the queue has them; otherwise the time stays unmeasured.
  bool timed = options.measure_time && timestamp_bits_ > 0;
  if (timed && timestamps_ == VK_NULL_HANDLE) {
    VkQueryPoolCreateInfo query_info{};
    query_info.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO;
    query_info.queryType = VK_QUERY_TYPE_TIMESTAMP;
    query_info.queryCount = 2;
    if (!CheckVk(vkCreateQueryPool(device_, &query_info, nullptr, &timestamps_),
                 "vkCreateQueryPool", error)) {
      timestamps_ = VK_NULL_HANDLE;
      return false;
    }
  }
  if (!CheckVk(vkResetCommandBuffer(command_buffer_, 0), "vkResetCommandBuffer", error)) {
    return false;
  }
  VkCommandBufferBeginInfo begin{};
  begin.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
  begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  if (!CheckVk(vkBeginCommandBuffer(command_buffer_, &begin), "vkBeginCommandBuffer", error)) {
    return false;
  }
  vkCmdBindPipeline(command_buffer_, VK_PIPELINE_BIND_POINT_COMPUTE, kernel.pipeline_);
  if (!options.push_constants.empty()) {
    // The range is a multiple of 4 bytes; the block's tail padding is zero.
    std::vector<std::byte> bytes(options.push_constants.begin(), options.push_constants.end());
    bytes.resize((bytes.size() + 3) / 4 * 4);
    vkCmdPushConstants(command_buffer_, kernel.pipeline_layout_, VK_SHADER_STAGE_COMPUTE_BIT, 0,
                       static_cast<uint32_t>(bytes.size()), bytes.data());
  }
  if (timed) {
    vkCmdResetQueryPool(command_buffer_, timestamps_, 0, 2);
    vkCmdWriteTimestamp(command_buffer_, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, timestamps_, 0);
  }
  if (!sets.empty()) {
    vkCmdBindDescriptorSets(command_buffer_, VK_PIPELINE_BIND_POINT_COMPUTE,
                            kernel.pipeline_layout_, 0, static_cast<uint32_t>(sets.size()),
                            sets.data(), 0, nullptr);
  }
  vkCmdDispatch(command_buffer_, groups.x, groups.y, groups.z);
  if (timed) {
    vkCmdWriteTimestamp(command_buffer_, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, timestamps_, 1);
  }
  // Make the shader's writes visible to host reads of the mapped memory.
  VkMemoryBarrier barrier{};
  barrier.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER;
  barrier.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
  barrier.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
  vkCmdPipelineBarrier(command_buffer_, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                       VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &barrier, 0, nullptr, 0, nullptr);
  if (!CheckVk(vkEndCommandBuffer(command_buffer_), "vkEndCommandBuffer", error)) return false;

  if (!CheckVk(vkResetFences(device_, 1, &fence_), "vkResetFences", error)) return false;
  VkSubmitInfo submit{};
  submit.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO;
  submit.commandBufferCount = 1;
  submit.pCommandBuffers = &command_buffer_;
  if (!CheckVk(vkQueueSubmit(queue_, 1, &submit, fence_), "vkQueueSubmit", error)) {
    return false;
  }
  if (!CheckVk(vkWaitForFences(device_, 1, &fence_, VK_TRUE, UINT64_MAX), "vkWaitForFences",
               error)) {
    return false;
  }
  if (stats != nullptr) stats->kernel_ms = -1.0;
  return !timed || stats == nullptr || ReadTimestamps(stats, error);
}

bool VulkanDevice::ReadTimestamps(DispatchStats* stats, std::string* error) {
  uint64_t ticks[2] = {0, 0};
  if (!CheckVk(vkGetQueryPoolResults(device_, timestamps_, 0, 2, sizeof(ticks), ticks,
                                     sizeof(uint64_t),
                                     VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT),
               "vkGetQueryPoolResults", error)) {
    return false;
  }
  // Only the low timestampValidBits bits count; the counter may wrap once.
  uint64_t mask = timestamp_bits_ >= 64 ? ~uint64_t{0} : (uint64_t{1} << timestamp_bits_) - 1;
  uint64_t elapsed = ((ticks[1] & mask) - (ticks[0] & mask)) & mask;
  stats->kernel_ms = static_cast<double>(elapsed) *
                     static_cast<double>(properties_.limits.timestampPeriod) / 1e6;
  return true;
}

}  // namespace

bool VulkanPrintfAvailable(std::string* why) {
  if (HasValidationLayer()) return true;
  *why = std::string("the Khronos validation layer (") + kValidationLayer +
         ") is not installed (Debian: vulkan-validationlayers)";
  return false;
}

std::unique_ptr<Device> CreateVulkanDevice(int device_index, std::string* error,
                                           const DeviceOptions& options) {
  auto device = std::make_unique<VulkanDevice>(options);
  if (!device->Open(device_index, error)) return nullptr;
  return device;
}

}  // namespace slope::runtime::vulkan
