#pragma once
// Running an execution test once its kernel is compiled: check the directives against
// the kernel's reflection, lay the buffers out as the kernel expects (std430 strides),
// dispatch, and print each output buffer.

#include <cstddef>
#include <cstdint>
#include <ostream>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "compiler/driver/reflection.h"
#include "runtime/core/device.h"
#include "tools/slope-run/test_spec.h"

namespace slope::run {

/// Checks that every buffer in `spec` names a binding of `reflection` with the declared
/// element type and a layout this tool can fill, and that no output buffer is
/// read-only. On failure, `*error` names the offending directive's line.
bool CheckSpecAgainstReflection(const TestSpec& spec, const driver::Reflection& reflection,
                                SpecError* error);

/// Lays out `buffer`'s initial contents as `layout` says: element i at byte
/// i * layout.stride, padding bytes zero. Assumes CheckSpecAgainstReflection passed.
/// Buffers' device addresses by name (`@NAME` values).
using BufferAddresses = std::map<std::string, uint64_t>;

std::vector<std::byte> PackBuffer(const BufferSpec& buffer, const driver::ElementLayout& layout,
                                  const BufferAddresses& addresses = {});

/// Formats the contents `bytes` of `buffer` (laid out per `layout`) as
/// "NAME: v0 v1 ..." with components flattened, floats (half, float, double) in the
/// shortest form that reads back as the same value of their type and integers in
/// decimal. No trailing newline.
std::string FormatBuffer(const BufferSpec& buffer, const driver::ElementLayout& layout,
                         std::span<const std::byte> bytes);

/// Returns the shortest round-trip decimal spelling of `value` ("2", "0.5", "3.3333333").
std::string FormatFloat(float value);
/// Returns the shortest round-trip decimal spelling of `value` ("2", "0.1").
std::string FormatDouble(double value);

/// Uploads the buffers and uniform data of `spec` (uniform buffers as buffers, the
/// entry point's push constants with the dispatch), runs entry point `entry` (empty =
/// the first) of the compiled `spirv` on `device` over `spec.dispatch` groups, and
/// writes one line per output buffer, in declaration order, to `out`. With `stats`,
/// measures the kernel's device time into it. Assumes CheckSpecAgainstReflection passed.
/// Returns false with `*error` set when the device fails or a uniform member of the
/// kernel is not given.
bool RunTestSpec(const TestSpec& spec, runtime::Device& device, std::span<const uint32_t> spirv,
                 const driver::Reflection& reflection, const std::string& entry, std::ostream& out,
                 std::string* error, runtime::DispatchStats* stats = nullptr);
/// The same for a kernel in any form a backend runs (SPIR-V or PTX).
bool RunTestSpec(const TestSpec& spec, runtime::Device& device, const runtime::KernelCode& code,
                 const driver::Reflection& reflection, const std::string& entry, std::ostream& out,
                 std::string* error, runtime::DispatchStats* stats = nullptr);

}  // namespace slope::run
