#pragma once
// Readable text for Vulkan result codes, so every failed call reports which call failed
// and how ("vkCreateComputePipelines failed: VK_ERROR_OUT_OF_HOST_MEMORY").

#include <vulkan/vulkan.h>

#include <string>

namespace slope::runtime::vulkan {

/// Returns the enumerator name of `result`, e.g. "VK_ERROR_DEVICE_LOST"; for a value
/// this file does not know, "VkResult(<number>)".
std::string VkResultName(VkResult result);

/// Returns true when `result` is VK_SUCCESS; otherwise sets `*error` to
/// "<call> failed: <result name>" and returns false.
bool CheckVk(VkResult result, const char* call, std::string* error);

}  // namespace slope::runtime::vulkan
