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
/// device cannot be opened. Needs no validation layers.
std::unique_ptr<Device> CreateVulkanDevice(int device_index, std::string* error);

}  // namespace slope::runtime::vulkan
