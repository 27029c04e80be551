#include "tools/slope-run/run_spec.h"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstring>
#include <memory>

#include "compiler/base/half.h"

namespace slope::run {
namespace {

/// Values per element of a struct buffer: every component of every flattened member.
size_t ValuesPerElement(const driver::ElementLayout& layout) {
  size_t n = 0;
  for (const driver::FieldLayout& field : layout.fields) n += field.components;
  return n;
}

/// Bytes between the components of `field`.
uint32_t ComponentStride(const driver::FieldLayout& field) {
  return field.component_stride != 0 ? field.component_stride
                                      : driver::ScalarKindBytes(field.scalar);
}

/// The byte offset, within an element, of value `k` of a scalar, vector or matrix element
/// (a matrix's values row after row).
size_t ValueOffset(const driver::ElementLayout& layout, uint32_t k) {
  if (layout.rows == 0) return size_t{k} * driver::ScalarKindBytes(layout.scalar);
  return size_t{k / layout.components} * layout.row_step +
         size_t{k % layout.components} * layout.component_stride;
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
        uint64_t bits = 0;
        std::string message;
        std::string address;
        if (ParseAddressValue(buffer.texts[k], &address, &bits)) {
          if (f.scalar != driver::ScalarKind::UInt64 && f.scalar != driver::ScalarKind::Int64) {
            return "member '" + f.name + "': a buffer address needs a 64-bit member";
          }
          continue;
        }
        if (!ParseScalarValue(buffer.texts[k], f.scalar, &bits, &message)) {
          return "member '" + f.name + "': " + message;
        }
      }
    }
  }
  return "";
}

/// The shortest decimal spelling that reads back as the half whose bits are `bits`
/// ("0.1" for the half nearest 0.1, 0.0999755859375).
std::string FormatHalf(uint16_t bits) {
  double value = base::HalfToDouble(bits);
  // Whole halves (all of those from 2048 on) print whole, not as 6.55e+04.
  if (!std::isfinite(value) || value == std::trunc(value)) return FormatDouble(value);
  for (int digits = 1; digits < 17; ++digits) {
    char text[32];
    auto [end, ec] = std::to_chars(text, text + sizeof(text), value, std::chars_format::general,
                                   digits);
    double back = 0;
    std::from_chars(text, end, back);
    if (ec == std::errc() && base::HalfFromDouble(back) == bits) return std::string(text, end);
  }
  return FormatDouble(value);
}

/// Sign-extends the low `bytes` bytes of `bits`.
int64_t SignExtend(uint64_t bits, uint32_t bytes) {
  if (bytes == 8) return static_cast<int64_t>(bits);
  uint64_t sign = uint64_t{1} << (bytes * 8 - 1);
  uint64_t mask = (sign << 1) - 1;
  return static_cast<int64_t>(((bits & mask) ^ sign) - sign);
}

/// One value of `kind` read from `bytes` at `offset` (zero past the end).
std::string FormatValue(driver::ScalarKind kind, std::span<const std::byte> bytes, size_t offset) {
  uint32_t size = driver::ScalarKindBytes(kind);
  uint64_t bits = 0;
  if (offset + size <= bytes.size()) std::memcpy(&bits, bytes.data() + offset, size);
  switch (kind) {
    case driver::ScalarKind::Float16: return FormatHalf(static_cast<uint16_t>(bits));
    case driver::ScalarKind::Float32:
      return FormatFloat(std::bit_cast<float>(static_cast<uint32_t>(bits)));
    case driver::ScalarKind::Float64: return FormatDouble(std::bit_cast<double>(bits));
    case driver::ScalarKind::Int8:
    case driver::ScalarKind::Int16:
    case driver::ScalarKind::Int32:
    case driver::ScalarKind::Int64: return std::to_string(SignExtend(bits, size));
    case driver::ScalarKind::UInt8:
    case driver::ScalarKind::UInt16:
    case driver::ScalarKind::UInt32:
    case driver::ScalarKind::UInt64:
    case driver::ScalarKind::Bool: return std::to_string(bits);
  }
  return "?";
}

/// Writes the low bytes of `bits` that one `kind` value takes at `offset`.
void StoreValue(std::vector<std::byte>* bytes, size_t offset, driver::ScalarKind kind,
                uint64_t bits) {
  std::memcpy(bytes->data() + offset, &bits, driver::ScalarKindBytes(kind));
}

/// The uniform member called `name` among the uniform buffers and push-constant blocks
/// of `reflection` (push-constant blocks of entry point `entry` only, unless empty).
const driver::FieldLayout* FindUniformField(const driver::Reflection& reflection,
                                            const std::string& name, const std::string& entry,
                                            const driver::BindingInfo** owner) {
  for (const driver::BindingInfo& b : reflection.bindings) {
    bool push = b.kind == driver::ResourceKind::PushConstant;
    if (b.kind != driver::ResourceKind::UniformBuffer && !push) continue;
    if (push && !entry.empty() && b.entry_point != entry) continue;
    for (const driver::FieldLayout& f : b.element.fields) {
      if (f.name != name) continue;
      if (owner != nullptr) *owner = &b;
      return &f;
    }
  }
  return nullptr;
}

/// Writes `uniform`'s values into `bytes` (the block holding `field`).
void PackUniform(const UniformSpec& uniform, const driver::FieldLayout& field,
                 std::vector<std::byte>* bytes) {
  for (uint32_t c = 0; c < field.components; ++c) {
    StoreValue(bytes, field.offset + c * ComponentStride(field), field.scalar, uniform.bits[c]);
  }
}

/// Axes of a texture's size (a cube's faces are square: width and height).
uint32_t TextureAxes(const driver::TextureInfo& t) { return t.dim == 4 ? 2 : t.dim; }

/// The texture `spec` describes for the kernel binding `info`.
runtime::TextureDesc DescribeTexture(const TextureSpec& spec, const driver::BindingInfo& info) {
  runtime::TextureDesc desc;
  desc.dim = info.texture.dim;
  desc.arrayed = info.texture.arrayed;
  desc.width = spec.size[0];
  uint32_t axes = TextureAxes(info.texture);
  desc.height = axes >= 2 ? spec.size[1] : 1;
  desc.depth = axes == 3 ? spec.size[2] : 1;
  desc.layers = (info.texture.arrayed ? spec.size.back() : 1) * (info.texture.dim == 4 ? 6 : 1);
  desc.mip_levels = spec.mips;
  desc.format = spec.format;
  desc.storage = info.kind == driver::ResourceKind::RWTexture;
  return desc;
}

/// Texels of mip level `mip` of `desc`.
uint64_t LevelTexels(const runtime::TextureDesc& desc, uint32_t mip) {
  return uint64_t{std::max(1u, desc.width >> mip)} * std::max(1u, desc.height >> mip) *
         std::max(1u, desc.depth >> mip) * desc.layers;
}

/// Values `spec` must give: every component of every texel of every level.
uint64_t TextureValues(const TextureSpec& spec, const runtime::TextureDesc& desc) {
  uint64_t n = 0;
  for (uint32_t mip = 0; mip < desc.mip_levels; ++mip) n += LevelTexels(desc, mip);
  return n * spec.components;
}

/// Texel bytes of `count` values of `spec` from value `first`, in its format.
std::vector<std::byte> PackTexels(const TextureSpec& spec, size_t first, size_t count) {
  runtime::TextureFormatInfo info = runtime::GetTextureFormatInfo(spec.format);
  std::vector<std::byte> bytes(count * info.bytes_per_component);
  for (size_t k = 0; k < count; ++k) {
    uint64_t bits = spec.bits.empty() ? 0 : spec.bits[first + k];
    uint64_t stored = bits;
    if (spec.scalar == driver::ScalarKind::Float32 && info.bytes_per_component != 4) {
      double v = std::bit_cast<float>(static_cast<uint32_t>(bits));
      if (info.scalar == driver::ScalarKind::Float16) {
        stored = base::HalfFromDouble(v);
      } else if (spec.format == "rgba8snorm") {
        stored = static_cast<uint8_t>(static_cast<int8_t>(std::lround(std::clamp(v, -1.0, 1.0) * 127)));
      } else {
        stored = static_cast<uint8_t>(std::lround(std::clamp(v, 0.0, 1.0) * 255));
      }
    }
    std::memcpy(bytes.data() + k * info.bytes_per_component, &stored, info.bytes_per_component);
  }
  return bytes;
}

/// "NAME: v0 v1 ..." for mip level 0 of texture `spec` read back as `bytes`.
std::string FormatTexels(const TextureSpec& spec, std::span<const std::byte> bytes) {
  runtime::TextureFormatInfo info = runtime::GetTextureFormatInfo(spec.format);
  std::string line = spec.name + ":";
  size_t count = bytes.size() / info.bytes_per_component;
  for (size_t k = 0; k < count; ++k) {
    size_t offset = k * info.bytes_per_component;
    if (info.normalized) {
      uint8_t raw = static_cast<uint8_t>(bytes[offset]);
      float v = spec.format == "rgba8snorm" ? std::max(-1.0f, static_cast<int8_t>(raw) / 127.0f)
                                            : raw / 255.0f;
      line += ' ' + FormatFloat(v);
    } else {
      line += ' ' + FormatValue(info.scalar, bytes, offset);
    }
  }
  return line;
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
    ElementType actual{layout.scalar, layout.components, layout.struct_name, layout.rows};
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
    if (layout.scalar != buffer.type.scalar || layout.components != buffer.type.components ||
        layout.rows != buffer.type.rows) {
      return fail(buffer.line, "buffer '" + buffer.name + "' is declared " +
                                   ElementTypeName(buffer.type) +
                                   " but the kernel's element type is " + ElementTypeName(actual));
    }
    if (layout.size < driver::ScalarKindBytes(layout.scalar) * buffer.type.Values() ||
        layout.stride < layout.size) {
      return fail(buffer.line, "buffer '" + buffer.name + "' has an unsupported layout (size " +
                                   std::to_string(layout.size) + ", stride " +
                                   std::to_string(layout.stride) + ")");
    }
    if (buffer.role == BufferRole::Output &&
        binding->kind == driver::ResourceKind::StructuredBuffer) {
      return fail(buffer.line, "output buffer '" + buffer.name +
                                   "' is a read-only StructuredBuffer in the kernel");
    }
    if (buffer.role == BufferRole::Output && binding->kind == driver::ResourceKind::TexelBuffer) {
      return fail(buffer.line,
                  "output buffer '" + buffer.name + "' is a read-only Buffer in the kernel");
    }
  }
  for (const TextureSpec& texture : spec.textures) {
    const driver::BindingInfo* binding = reflection.FindBinding(texture.name);
    if (binding == nullptr || (binding->kind != driver::ResourceKind::Texture &&
                               binding->kind != driver::ResourceKind::RWTexture &&
                               binding->kind != driver::ResourceKind::SampledTexture)) {
      return fail(texture.line, "the kernel has no texture named '" + texture.name + "'");
    }
    const driver::TextureInfo& shape = binding->texture;
    uint32_t numbers = TextureAxes(shape) + (shape.arrayed ? 1 : 0);
    if (texture.size.size() != numbers) {
      return fail(texture.line, "texture '" + texture.name + "' takes a size of " +
                                    std::to_string(numbers) + " number(s): " +
                                    (shape.dim == 4 ? "the face width and height"
                                     : numbers - (shape.arrayed ? 1 : 0) == 1 ? "the width"
                                     : shape.dim == 2 ? "width and height"
                                                      : "width, height and depth") +
                                    (shape.arrayed ? ", then the layer count" : ""));
    }
    if (shape.dim == 4 && texture.size[0] != texture.size[1]) {
      return fail(texture.line, "the faces of cube texture '" + texture.name + "' must be square");
    }
    bool rw = binding->kind == driver::ResourceKind::RWTexture;
    if (rw && texture.mips != 1) {
      return fail(texture.line, "RW texture '" + texture.name + "' has one mip level here");
    }
    if (rw && !shape.format.empty() && shape.format != texture.format) {
      return fail(texture.line, "RW texture '" + texture.name + "' has format " + shape.format +
                                    " in the kernel; give its texels as " + shape.format);
    }
    // The format's numbers must be the kind the kernel reads (float, int or uint).
    runtime::TextureFormatInfo info = runtime::GetTextureFormatInfo(texture.format);
    auto kind_of = [](driver::ScalarKind k) {
      switch (k) {
        case driver::ScalarKind::Int8: case driver::ScalarKind::Int16:
        case driver::ScalarKind::Int32: case driver::ScalarKind::Int64: return 'i';
        case driver::ScalarKind::UInt8: case driver::ScalarKind::UInt16:
        case driver::ScalarKind::UInt32: case driver::ScalarKind::UInt64:
        case driver::ScalarKind::Bool: return 'u';
        default: return 'f';
      }
    };
    if (kind_of(info.scalar) != kind_of(binding->element.scalar)) {
      return fail(texture.line, "texture '" + texture.name + "' holds " +
                                    driver::ScalarKindName(binding->element.scalar) +
                                    " texels in the kernel, not those of format " + texture.format);
    }
    runtime::TextureDesc desc = DescribeTexture(texture, *binding);
    uint32_t largest = std::max({desc.width, desc.height, desc.depth});
    if (texture.mips > static_cast<uint32_t>(std::bit_width(largest))) {
      return fail(texture.line, "texture '" + texture.name + "' has at most " +
                                    std::to_string(std::bit_width(largest)) + " mip levels");
    }
    uint64_t wanted = texture.role == BufferRole::Input
                          ? TextureValues(texture, desc)
                          : LevelTexels(desc, 0) * texture.components;
    if (!texture.bits.empty() || texture.role == BufferRole::Input) {
      if (texture.bits.size() != wanted) {
        return fail(texture.line, "texture '" + texture.name + "' needs " + std::to_string(wanted) +
                                      " values (" + std::to_string(texture.components) +
                                      " per texel), found " + std::to_string(texture.bits.size()));
      }
    }
  }
  for (const SamplerSpec& sampler : spec.samplers) {
    const driver::BindingInfo* binding = reflection.FindBinding(sampler.name);
    if (binding == nullptr || (binding->kind != driver::ResourceKind::Sampler &&
                               binding->kind != driver::ResourceKind::SampledTexture)) {
      return fail(sampler.line, "the kernel has no sampler named '" + sampler.name + "'");
    }
  }
  for (const UniformSpec& uniform : spec.uniforms) {
    const driver::FieldLayout* field = FindUniformField(reflection, uniform.name, "", nullptr);
    if (field == nullptr) {
      std::string known;
      for (const driver::BindingInfo& b : reflection.bindings) {
        if (b.kind != driver::ResourceKind::UniformBuffer &&
            b.kind != driver::ResourceKind::PushConstant) {
          continue;
        }
        for (const driver::FieldLayout& f : b.element.fields) {
          known += (known.empty() ? "'" : ", '") + f.name + "'";
        }
      }
      return fail(uniform.line, "the kernel has no uniform named '" + uniform.name + "' (it has " +
                                    (known.empty() ? std::string("none") : known) + ")");
    }
    ElementType actual{field->scalar, field->components};
    if (field->scalar != uniform.type.scalar || field->components != uniform.type.components) {
      return fail(uniform.line, "uniform '" + uniform.name + "' is declared " +
                                    ElementTypeName(uniform.type) + " but the kernel's is " +
                                    ElementTypeName(actual));
    }
  }
  return true;
}

/// The value of `@NAME+BYTES` (ParseAddressValue); 0 for an unknown buffer (which
/// ResolveAddresses reported).
uint64_t AddressValue(std::string_view text, const BufferAddresses& addresses) {
  std::string name;
  uint64_t offset = 0;
  if (!ParseAddressValue(text, &name, &offset)) return 0;
  auto found = addresses.find(name);
  return found == addresses.end() ? 0 : found->second + offset;
}

std::vector<std::byte> PackBuffer(const BufferSpec& buffer, const driver::ElementLayout& layout,
                                  const BufferAddresses& addresses) {
  if (!buffer.type.struct_name.empty()) {
    size_t count = ElementCount(buffer, layout);
    std::vector<std::byte> bytes(count * layout.stride, std::byte{0});
    size_t k = 0;
    for (size_t i = 0; i < count; ++i) {
      for (const driver::FieldLayout& f : layout.fields) {
        for (uint32_t c = 0; c < f.components && k < buffer.texts.size(); ++c, ++k) {
          uint64_t bits = 0;
          std::string message;
          if (!buffer.texts[k].empty() && buffer.texts[k][0] == '@') {
            bits = AddressValue(buffer.texts[k], addresses);
          } else {
            ParseScalarValue(buffer.texts[k], f.scalar, &bits, &message);
          }
          StoreValue(&bytes, i * layout.stride + f.offset + c * ComponentStride(f), f.scalar,
                     bits);
        }
      }
    }
    return bytes;
  }
  std::vector<std::byte> bytes(size_t{buffer.count} * layout.stride, std::byte{0});
  const uint32_t components = buffer.type.Values();
  for (size_t i = 0; i < buffer.count; ++i) {
    for (uint32_t c = 0; c < components; ++c) {
      StoreValue(&bytes, i * layout.stride + ValueOffset(layout, c), buffer.type.scalar,
                 buffer.bits[i * components + c]);
    }
  }
  return bytes;
}

std::string FormatFloat(float value) {
  char text[32];
  auto [end, ec] = std::to_chars(text, text + sizeof(text), value);
  if (ec != std::errc()) return "?";
  return std::string(text, end);
}

std::string FormatDouble(double value) {
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
          size_t offset = i * layout.stride + f.offset + c * ComponentStride(f);
          line += ' ' + FormatValue(f.scalar, bytes, offset);
        }
      }
    }
    return line;
  }
  const uint32_t components = buffer.type.Values();
  for (size_t i = 0; i < buffer.count; ++i) {
    for (uint32_t c = 0; c < components; ++c) {
      line += ' ' + FormatValue(buffer.type.scalar, bytes, i * layout.stride + ValueOffset(layout, c));
    }
  }
  return line;
}

bool RunTestSpec(const TestSpec& spec, runtime::Device& device, std::span<const uint32_t> spirv,
                 const driver::Reflection& reflection, const std::string& entry, std::ostream& out,
                 std::string* error, runtime::DispatchStats* stats) {
  return RunTestSpec(spec, device, runtime::KernelCode{spirv, {}}, reflection, entry, out, error,
                     stats);
}

namespace {
/// Every `@NAME` value names a buffer of the test, and the device gives buffers addresses.
bool CheckAddresses(const TestSpec& spec, const BufferAddresses& addresses, std::string* error) {
  std::vector<std::string> used;
  for (const UniformSpec& u : spec.uniforms) {
    if (!u.address.empty()) used.push_back(u.address);
  }
  for (const BufferSpec& b : spec.buffers) {
    for (const std::string& text : b.texts) {
      if (!text.empty() && text[0] == '@') used.push_back(text);
    }
  }
  for (const std::string& text : used) {
    std::string name;
    uint64_t offset = 0;
    ParseAddressValue(text, &name, &offset);
    auto found = addresses.find(name);
    if (found == addresses.end()) {
      *error = "'" + text + "' names no buffer of the test";
      return false;
    }
    if (found->second == 0) {
      *error = "the device gives buffers no address ('" + text + "')";
      return false;
    }
  }
  return true;
}
}  // namespace

bool RunTestSpec(const TestSpec& spec, runtime::Device& device, const runtime::KernelCode& code,
                 const driver::Reflection& reflection, const std::string& entry, std::ostream& out,
                 std::string* error, runtime::DispatchStats* stats) {
  std::unique_ptr<runtime::Kernel> kernel =
      device.CreateKernelFromCode(code, reflection, entry, error);
  if (kernel == nullptr) return false;

  std::vector<std::unique_ptr<runtime::Buffer>> buffers;
  std::vector<runtime::BufferBinding> bindings;
  // The buffers exist before any data is written: a value may be another buffer's
  // address (`@NAME`).
  BufferAddresses addresses;
  for (const BufferSpec& buffer : spec.buffers) {
    const driver::ElementLayout& layout = reflection.FindBinding(buffer.name)->element;
    std::unique_ptr<runtime::Buffer> device_buffer =
        device.CreateBuffer(PackBuffer(buffer, layout).size(), error);
    if (device_buffer == nullptr) return false;
    addresses[buffer.name] = device.BufferAddress(*device_buffer);
    buffers.push_back(std::move(device_buffer));
  }
  if (!CheckAddresses(spec, addresses, error)) return false;
  // Uniform data: one block of bytes per uniform buffer and for the push constants, each
  // member written at its reflected offset; every member must be given.
  const std::string& entry_name = kernel->GetEntryPoint().name;
  std::vector<std::byte> push_constants;
  std::vector<std::unique_ptr<runtime::Buffer>> uniform_buffers;
  for (const driver::BindingInfo& b : reflection.bindings) {
    bool push = b.kind == driver::ResourceKind::PushConstant;
    if (b.kind != driver::ResourceKind::UniformBuffer && !push) continue;
    if (push && b.entry_point != entry_name) continue;
    std::vector<std::byte> bytes(b.element.size, std::byte{0});
    for (const driver::FieldLayout& f : b.element.fields) {
      auto given = std::find_if(spec.uniforms.begin(), spec.uniforms.end(),
                                [&](const UniformSpec& u) { return u.name == f.name; });
      if (given == spec.uniforms.end()) {
        *error = "uniform '" + f.name + "' of the kernel is not given (add '//INPUT: uniform " +
                 f.name + " TYPE VALUE')";
        return false;
      }
      PackUniform(*given, f, &bytes);
      if (!given->address.empty()) {
        StoreValue(&bytes, f.offset, f.scalar, AddressValue(given->address, addresses));
      }
    }
    if (push) {
      push_constants = std::move(bytes);
      continue;
    }
    std::unique_ptr<runtime::Buffer> device_buffer = device.CreateBuffer(bytes.size(), error);
    if (device_buffer == nullptr) return false;
    if (!device.WriteBuffer(*device_buffer, 0, bytes, error)) return false;
    bindings.push_back({b.name, device_buffer.get()});
    uniform_buffers.push_back(std::move(device_buffer));
  }
  for (const UniformSpec& uniform : spec.uniforms) {
    if (FindUniformField(reflection, uniform.name, entry_name, nullptr) == nullptr) {
      *error = "uniform '" + uniform.name + "' is not read by entry point '" + entry_name + "'";
      return false;
    }
  }
  for (size_t i = 0; i < spec.buffers.size(); ++i) {
    const BufferSpec& buffer = spec.buffers[i];
    const driver::ElementLayout& layout = reflection.FindBinding(buffer.name)->element;
    std::vector<std::byte> bytes = PackBuffer(buffer, layout, addresses);
    if (!device.WriteBuffer(*buffers[i], 0, bytes, error)) return false;
    bindings.push_back({buffer.name, buffers[i].get()});
  }
  std::vector<std::unique_ptr<runtime::Texture>> textures;
  for (const TextureSpec& texture : spec.textures) {
    runtime::TextureDesc desc = DescribeTexture(texture, *reflection.FindBinding(texture.name));
    std::unique_ptr<runtime::Texture> made = device.CreateTexture(desc, error);
    if (made == nullptr) return false;
    size_t first = 0;
    for (uint32_t mip = 0; mip < desc.mip_levels; ++mip) {
      size_t count = LevelTexels(desc, mip) * texture.components;
      if (!device.WriteTexture(*made, mip, PackTexels(texture, first, count), error)) return false;
      first += count;
    }
    runtime::BufferBinding binding;
    binding.name = texture.name;
    binding.texture = made.get();
    bindings.push_back(binding);
    textures.push_back(std::move(made));
  }
  // A combined texture and sampler (`Sampler2D`) takes its texture's directive and a
  // sampler directive of the same name, or, without one, a nearest, clamping sampler.
  std::vector<SamplerSpec> sampler_specs = spec.samplers;
  for (const driver::BindingInfo& b : reflection.bindings) {
    if (b.kind != driver::ResourceKind::SampledTexture) continue;
    bool given = false;
    for (const SamplerSpec& s : spec.samplers) given = given || s.name == b.name;
    if (given) continue;
    SamplerSpec nearest;
    nearest.name = b.name;
    sampler_specs.push_back(nearest);
  }
  std::vector<std::unique_ptr<runtime::Sampler>> samplers;
  for (const SamplerSpec& sampler : sampler_specs) {
    runtime::SamplerDesc desc = sampler.desc;
    desc.comparison = reflection.FindBinding(sampler.name)->texture.comparison;
    std::unique_ptr<runtime::Sampler> made = device.CreateSampler(desc, error);
    if (made == nullptr) return false;
    runtime::BufferBinding* binding = nullptr;
    for (runtime::BufferBinding& b : bindings) {
      if (b.name == sampler.name) binding = &b;
    }
    if (binding == nullptr) {
      bindings.emplace_back();
      binding = &bindings.back();
      binding->name = sampler.name;
    }
    binding->sampler = made.get();
    samplers.push_back(std::move(made));
  }
  runtime::DispatchOptions options;
  options.push_constants = push_constants;
  options.measure_time = stats != nullptr;
  if (!device.Dispatch(*kernel, bindings, spec.dispatch, error, options, stats)) return false;

  // Outputs print in the order of their directives.
  std::vector<std::pair<uint32_t, std::string>> lines;
  for (size_t i = 0; i < spec.buffers.size(); ++i) {
    const BufferSpec& buffer = spec.buffers[i];
    if (buffer.role != BufferRole::Output) continue;
    const driver::ElementLayout& layout = reflection.FindBinding(buffer.name)->element;
    std::vector<std::byte> bytes(buffers[i]->Size());
    if (!device.ReadBuffer(*buffers[i], 0, bytes, error)) return false;
    lines.emplace_back(buffer.line, FormatBuffer(buffer, layout, bytes));
  }
  for (size_t i = 0; i < spec.textures.size(); ++i) {
    const TextureSpec& texture = spec.textures[i];
    if (texture.role != BufferRole::Output) continue;
    const runtime::TextureDesc& desc = textures[i]->Desc();
    runtime::TextureFormatInfo info = runtime::GetTextureFormatInfo(desc.format);
    std::vector<std::byte> bytes(LevelTexels(desc, 0) * info.components * info.bytes_per_component);
    if (!device.ReadTexture(*textures[i], 0, bytes, error)) return false;
    lines.emplace_back(texture.line, FormatTexels(texture, bytes));
  }
  std::stable_sort(lines.begin(), lines.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  for (const auto& [line, text] : lines) out << text << '\n';
  return true;
}

}  // namespace slope::run
