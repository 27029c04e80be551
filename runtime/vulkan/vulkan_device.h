#pragma once
// The Vulkan backend of the device API: a Vulkan 1.2 instance, one compute queue,
// storage buffers in host-visible coherent memory, one compute pipeline per kernel.

#include <memory>
#include <string>

#include "runtime/core/device.h"

namespace slope::runtime::vulkan {

/// Opens Vulkan physical device number `device_index` (in enumeration order), or with
/// -1 the preferred one (a discrete GPU, then an integrated or virtual GPU, then any).
/// Returns nullptr and sets `*error` when there is no Vulkan driver, no device, or the
/// device cannot be opened. Needs no validation layers, except with
/// `options.debug_printf`: then the Khronos validation layer runs with debug printf only
/// (VK_EXT_validation_features turns every other check off) and a VK_EXT_debug_utils
/// messenger keeps the messages for TakePrintfMessages.
std::unique_ptr<Device> CreateVulkanDevice(int device_index, std::string* error,
                                           const DeviceOptions& options = {});

/// Whether the Khronos validation layer (VK_LAYER_KHRONOS_validation), which prints
/// for `printf`, is installed; when not, `*why` says so.
bool VulkanPrintfAvailable(std::string* why);

}  // namespace slope::runtime::vulkan
