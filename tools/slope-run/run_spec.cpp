#include "tools/slope-run/run_spec.h"

#include <bit>
#include <charconv>
#include <cstring>
#include <memory>

namespace slope::run {
namespace {

/// Values per element of a struct buffer: every component of every flattened member.
size_t ValuesPerElement(const driver::ElementLayout& layout) {
  size_t n = 0;
  for (const driver::FieldLayout& field : layout.fields) n += field.components;
  return n;
}

/// The number of elements of `buffer`: inputs of structs count their values.
size_t ElementCount(const BufferSpec& buffer, const driver::ElementLayout& layout) {
  if (buffer.type.struct_name.empty() || buffer.role == BufferRole::Output) return buffer.count;
  size_t per = ValuesPerElement(layout);
  return per == 0 ? 0 : buffer.texts.size() / per;
}

/// Checks a struct buffer's values against the kernel's struct; "" when they fit.
std::string CheckStructValues(const BufferSpec& buffer, const driver::ElementLayout& layout) {
  size_t per = ValuesPerElement(layout);
  std::string shape = std::to_string(per) + " values each: ";
  for (size_t i = 0; i < layout.fields.size(); ++i) {
    const driver::FieldLayout& f = layout.fields[i];
    shape += (i == 0 ? "" : ", ") + f.name + " " + driver::ScalarKindName(f.scalar) +
             (f.components > 1 ? std::to_string(f.components) : "");
  }
  if (buffer.role == BufferRole::Input && (per == 0 || buffer.texts.size() % per != 0)) {
    return std::to_string(buffer.texts.size()) + " values do not make whole " +
           layout.struct_name + " elements (" + shape + ")";
  }
  if (buffer.role == BufferRole::Output && !buffer.texts.empty() &&
      buffer.texts.size() != size_t{buffer.count} * per) {
    return "expected " + std::to_string(size_t{buffer.count} * per) + " initial values (" +
           shape + "), found " + std::to_string(buffer.texts.size());
  }
  size_t k = 0;
  while (k < buffer.texts.size()) {
    for (const driver::FieldLayout& f : layout.fields) {
      for (uint32_t c = 0; c < f.components && k < buffer.texts.size(); ++c, ++k) {
        uint32_t word = 0;
        std::string message;
        if (!ParseScalarValue(buffer.texts[k], f.scalar, &word, &message)) {
          return "member '" + f.name + "': " + message;
        }
      }
    }
  }
  return "";
}

std::string FormatWord(driver::ScalarKind kind, uint32_t word) {
  switch (kind) {
    case driver::ScalarKind::Float32: return FormatFloat(std::bit_cast<float>(word));
    case driver::ScalarKind::Int32: return std::to_string(static_cast<int32_t>(word));
    case driver::ScalarKind::UInt32:
    case driver::ScalarKind::Bool: return std::to_string(word);
  }
  return "?";
}

}  // namespace

bool CheckSpecAgainstReflection(const TestSpec& spec, const driver::Reflection& reflection,
                                SpecError* error) {
  auto fail = [&](uint32_t line, std::string message) {
    error->line = line;
    error->message = std::move(message);
    return false;
  };
  for (const BufferSpec& buffer : spec.buffers) {
    const driver::BindingInfo* binding = reflection.FindBinding(buffer.name);
    if (binding == nullptr) {
      std::string known;
      for (const driver::BindingInfo& info : reflection.bindings) {
        known += known.empty() ? "" : ", ";
        known += "'" + info.name + "'";
      }
      return fail(buffer.line, "the kernel has no buffer named '" + buffer.name + "' (it has " +
                                   (known.empty() ? std::string("none") : known) + ")");
    }
    const driver::ElementLayout& layout = binding->element;
    ElementType actual{layout.scalar, layout.components, layout.struct_name};
    if (!buffer.type.struct_name.empty() || !layout.struct_name.empty()) {
      if (buffer.type.struct_name != layout.struct_name) {
        return fail(buffer.line, "buffer '" + buffer.name + "' is declared " +
                                     ElementTypeName(buffer.type) +
                                     " but the kernel's element type is " +
                                     ElementTypeName(actual));
      }
      std::string problem = CheckStructValues(buffer, layout);
      if (!problem.empty()) return fail(buffer.line, "buffer '" + buffer.name + "': " + problem);
      if (buffer.role == BufferRole::Output &&
          binding->kind == driver::ResourceKind::StructuredBuffer) {
        return fail(buffer.line, "output buffer '" + buffer.name +
                                     "' is a read-only StructuredBuffer in the kernel");
      }
      continue;
    }
    if (layout.scalar != buffer.type.scalar || layout.components != buffer.type.components) {
      return fail(buffer.line, "buffer '" + buffer.name + "' is declared " +
                                   ElementTypeName(buffer.type) +
                                   " but the kernel's element type is " + ElementTypeName(actual));
    }
    if (layout.size < 4 * layout.components || layout.stride < layout.size) {
      return fail(buffer.line, "buffer '" + buffer.name + "' has an unsupported layout (size " +
                                   std::to_string(layout.size) + ", stride " +
                                   std::to_string(layout.stride) + ")");
    }
    if (buffer.role == BufferRole::Output &&
        binding->kind == driver::ResourceKind::StructuredBuffer) {
      return fail(buffer.line, "output buffer '" + buffer.name +
                                   "' is a read-only StructuredBuffer in the kernel");
    }
  }
  return true;
}

std::vector<std::byte> PackBuffer(const BufferSpec& buffer, const driver::ElementLayout& layout) {
  if (!buffer.type.struct_name.empty()) {
    size_t count = ElementCount(buffer, layout);
    std::vector<std::byte> bytes(count * layout.stride, std::byte{0});
    size_t k = 0;
    for (size_t i = 0; i < count; ++i) {
      for (const driver::FieldLayout& f : layout.fields) {
        for (uint32_t c = 0; c < f.components && k < buffer.texts.size(); ++c, ++k) {
          uint32_t word = 0;
          std::string message;
          ParseScalarValue(buffer.texts[k], f.scalar, &word, &message);
          std::memcpy(bytes.data() + i * layout.stride + f.offset + c * sizeof(word), &word,
                      sizeof(word));
        }
      }
    }
    return bytes;
  }
  std::vector<std::byte> bytes(size_t{buffer.count} * layout.stride, std::byte{0});
  const uint32_t components = buffer.type.components;
  for (size_t i = 0; i < buffer.count; ++i) {
    std::memcpy(bytes.data() + i * layout.stride, buffer.words.data() + i * components,
                components * sizeof(uint32_t));
  }
  return bytes;
}

std::string FormatFloat(float value) {
  char text[32];
  auto [end, ec] = std::to_chars(text, text + sizeof(text), value);
  if (ec != std::errc()) return "?";
  return std::string(text, end);
}

std::string FormatBuffer(const BufferSpec& buffer, const driver::ElementLayout& layout,
                         std::span<const std::byte> bytes) {
  std::string line = buffer.name + ":";
  if (!buffer.type.struct_name.empty()) {
    for (size_t i = 0; i < buffer.count; ++i) {
      for (const driver::FieldLayout& f : layout.fields) {
        for (uint32_t c = 0; c < f.components; ++c) {
          size_t offset = i * layout.stride + f.offset + c * sizeof(uint32_t);
          uint32_t word = 0;
          if (offset + sizeof(word) <= bytes.size()) {
            std::memcpy(&word, bytes.data() + offset, sizeof(word));
          }
          line += ' ' + FormatWord(f.scalar, word);
        }
      }
    }
    return line;
  }
  const uint32_t components = buffer.type.components;
  for (size_t i = 0; i < buffer.count; ++i) {
    for (uint32_t c = 0; c < components; ++c) {
      size_t offset = i * layout.stride + c * sizeof(uint32_t);
      uint32_t word = 0;
      if (offset + sizeof(word) <= bytes.size()) {
        std::memcpy(&word, bytes.data() + offset, sizeof(word));
      }
      line += ' ';
      switch (buffer.type.scalar) {
        case driver::ScalarKind::Float32:
          line += FormatFloat(std::bit_cast<float>(word));
          break;
        case driver::ScalarKind::Int32:
          line += std::to_string(static_cast<int32_t>(word));
          break;
        case driver::ScalarKind::UInt32:
        case driver::ScalarKind::Bool:
          line += std::to_string(word);
          break;
      }
    }
  }
  return line;
}

bool RunTestSpec(const TestSpec& spec, runtime::Device& device, std::span<const uint32_t> spirv,
                 const driver::Reflection& reflection, const std::string& entry, std::ostream& out,
                 std::string* error) {
  std::unique_ptr<runtime::Kernel> kernel = device.CreateKernel(spirv, reflection, entry, error);
  if (kernel == nullptr) return false;

  std::vector<std::unique_ptr<runtime::Buffer>> buffers;
  std::vector<runtime::BufferBinding> bindings;
  for (const BufferSpec& buffer : spec.buffers) {
    const driver::ElementLayout& layout = reflection.FindBinding(buffer.name)->element;
    std::vector<std::byte> bytes = PackBuffer(buffer, layout);
    std::unique_ptr<runtime::Buffer> device_buffer = device.CreateBuffer(bytes.size(), error);
    if (device_buffer == nullptr) return false;
    if (!device.WriteBuffer(*device_buffer, 0, bytes, error)) return false;
    bindings.push_back({buffer.name, device_buffer.get()});
    buffers.push_back(std::move(device_buffer));
  }
  if (!device.Dispatch(*kernel, bindings, spec.dispatch, error)) return false;

  for (size_t i = 0; i < spec.buffers.size(); ++i) {
    const BufferSpec& buffer = spec.buffers[i];
    if (buffer.role != BufferRole::Output) continue;
    const driver::ElementLayout& layout = reflection.FindBinding(buffer.name)->element;
    std::vector<std::byte> bytes(buffers[i]->Size());
    if (!device.ReadBuffer(*buffers[i], 0, bytes, error)) return false;
    out << FormatBuffer(buffer, layout, bytes) << '\n';
  }
  return true;
}

}  // namespace slope::run
