#include "tools/slope-run/test_spec.h"

#include "compiler/base/half.h"

#include <bit>
#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>
#include <utility>
#include <system_error>

namespace slope::run {
namespace {

// Large enough for any test; small enough that a typo cannot exhaust memory.
constexpr uint64_t kMaxElements = uint64_t{1} << 24;

// Names as the compiler lexes them: ASCII letters, digits and '_', and the bytes of
// non-ASCII (UTF-8) letters, which the compiler checked.
bool IsIdentStart(char c) {
  auto byte = static_cast<unsigned char>(c);
  return byte >= 0x80 || std::isalpha(byte) || c == '_';
}
bool IsIdentChar(char c) {
  auto byte = static_cast<unsigned char>(c);
  return byte >= 0x80 || std::isalnum(byte) || c == '_';
}

// A cursor over the text of one directive, after its keyword.
class Cursor {
 public:
  explicit Cursor(std::string_view text) : text_(text) {}

  void SkipSpace() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  bool AtEnd() {
    SkipSpace();
    return pos_ == text_.size();
  }
  bool Consume(char c) {
    SkipSpace();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  // A run of characters up to whitespace, ',', '[', ']' or '='.
  std::string_view Word() {
    SkipSpace();
    size_t start = pos_;
    while (pos_ < text_.size()) {
      char c = text_[pos_];
      if (std::isspace(static_cast<unsigned char>(c)) || c == ',' || c == '[' || c == ']' ||
          c == '=') {
        break;
      }
      ++pos_;
    }
    return text_.substr(start, pos_ - start);
  }

  std::string_view Rest() {
    SkipSpace();
    return text_.substr(pos_);
  }
  // A run of characters up to whitespace (a name with indices: "w[1]").
  std::string_view Name() {
    SkipSpace();
    size_t start = pos_;
    while (pos_ < text_.size() && !std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
    return text_.substr(start, pos_ - start);
  }

 private:
  std::string_view text_;
  size_t pos_ = 0;
};

bool IsIdentifier(std::string_view text) {
  if (text.empty() || !IsIdentStart(text[0])) return false;
  for (char c : text) {
    if (!IsIdentChar(c)) return false;
  }
  return true;
}

/// `name` or `a.b.c`: a tensor inside a struct (`x.primal` of a DiffTensorView `x`).
bool IsMemberPath(std::string_view text) {
  size_t start = 0;
  for (;;) {
    size_t dot = text.find('.', start);
    if (!IsIdentifier(text.substr(start, dot == std::string_view::npos ? dot : dot - start))) {
      return false;
    }
    if (dot == std::string_view::npos) return true;
    start = dot + 1;
  }
}

template <typename T>
bool ParseInteger(std::string_view text, T* value) {
  int base = 10;
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    base = 16;
    text.remove_prefix(2);
  }
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), *value, base);
  return ec == std::errc() && end == text.data() + text.size();
}

/// "a float", "an int8_t".
std::string WithArticle(const char* name) {
  return std::string(name[0] == 'i' ? "an " : "a ") + name;
}

bool ParseFloatValue(std::string_view text, std::string_view digits, driver::ScalarKind scalar,
                     uint64_t* bits, std::string* message) {
  double value = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  const char* name = driver::ScalarKindName(scalar);
  if (ec != std::errc() && ec != std::errc::result_out_of_range) end = digits.data();
  if (end != digits.data() + digits.size()) {
    *message = "expected " + WithArticle(name) + " value, found '" + std::string(text) + "'";
    return false;
  }
  bool out_of_range = ec == std::errc::result_out_of_range;
  if (scalar == driver::ScalarKind::Float16) {
    uint16_t half = base::HalfFromDouble(value);
    out_of_range = out_of_range || ((half & 0x7c00) == 0x7c00 && std::isfinite(value));
    *bits = half;
  } else if (scalar == driver::ScalarKind::Float32) {
    auto single = static_cast<float>(value);
    out_of_range = out_of_range || (std::isinf(single) && std::isfinite(value));
    *bits = std::bit_cast<uint32_t>(single);
  } else {
    *bits = std::bit_cast<uint64_t>(value);
  }
  if (out_of_range) {
    *message = std::string(name) + " value '" + std::string(text) + "' is out of range";
    return false;
  }
  return true;
}

// Integers: decimal in the type's range, or hex giving the bit pattern (0xffffffff is
// -1 as an int).
bool ParseIntegerValue(std::string_view text, std::string_view digits, driver::ScalarKind scalar,
                       uint64_t* bits, std::string* message) {
  const uint32_t width = driver::ScalarKindBytes(scalar) * 8;
  const uint64_t mask = width == 64 ? ~uint64_t{0} : (uint64_t{1} << width) - 1;
  const bool is_signed = scalar == driver::ScalarKind::Int8 ||
                         scalar == driver::ScalarKind::Int16 ||
                         scalar == driver::ScalarKind::Int32 || scalar == driver::ScalarKind::Int64;
  const char* name = driver::ScalarKindName(scalar);
  bool hex = digits.size() > 2 && (digits[1] == 'x' || digits[1] == 'X');
  int64_t value = 0;
  uint64_t unsigned_value = 0;
  bool in_range = false;
  if (!hex && is_signed && ParseInteger(digits, &value)) {
    int64_t lo = width == 64 ? INT64_MIN : -(int64_t{1} << (width - 1));
    int64_t hi = width == 64 ? INT64_MAX : (int64_t{1} << (width - 1)) - 1;
    in_range = value >= lo && value <= hi;
    unsigned_value = static_cast<uint64_t>(value) & mask;
  } else if (!digits.empty() && digits[0] == '-') {
    *message = std::string(name) + " value '" + std::string(text) + "' is negative";
    return false;
  } else if (ParseInteger(digits, &unsigned_value)) {
    in_range = (unsigned_value & ~mask) == 0;
  } else {
    *message = "expected " + WithArticle(name) + " value, found '" + std::string(text) + "'";
    return false;
  }
  if (!in_range) {
    *message = "expected " + WithArticle(name) + " value, found '" + std::string(text) +
               "', which is out of range";
    return false;
  }
  *bits = unsigned_value;
  return true;
}

}  // namespace

bool ParseAddressValue(std::string_view text, std::string* buffer, uint64_t* offset) {
  if (text.empty() || text[0] != '@') return false;
  text.remove_prefix(1);
  size_t plus = text.find('+');
  std::string_view name = text.substr(0, plus);
  if (name.empty()) return false;
  for (char c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  }
  *buffer = std::string(name);
  *offset = 0;
  if (plus == std::string_view::npos) return true;
  std::string_view digits = text.substr(plus + 1);
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), *offset);
  return ec == std::errc() && end == digits.data() + digits.size();
}

namespace {

// Parses one value of `scalar` into its bit pattern.
bool ParseScalar(std::string_view text, driver::ScalarKind scalar, uint64_t* bits,
                 std::string* message) {
  std::string_view digits = text;
  if (!digits.empty() && digits[0] == '+') digits.remove_prefix(1);
  switch (scalar) {
    case driver::ScalarKind::Float16:
    case driver::ScalarKind::Float32:
    case driver::ScalarKind::Float64: return ParseFloatValue(text, digits, scalar, bits, message);
    case driver::ScalarKind::Bool:
      return ParseIntegerValue(text, digits, driver::ScalarKind::UInt32, bits, message);
    case driver::ScalarKind::Int8:
    case driver::ScalarKind::Int16:
    case driver::ScalarKind::Int32:
    case driver::ScalarKind::Int64:
    case driver::ScalarKind::UInt8:
    case driver::ScalarKind::UInt16:
    case driver::ScalarKind::UInt32:
    case driver::ScalarKind::UInt64: return ParseIntegerValue(text, digits, scalar, bits, message);
  }
  *message = "unknown scalar kind";
  return false;
}

// Parses "[v0, v1, ...]" (commas optional) into bit patterns, or keeps the values as
// text in `*texts` when it is given (struct buffers).
bool ParseValueList(Cursor& cursor, driver::ScalarKind scalar, std::vector<uint64_t>* values,
                    std::string* message, std::vector<std::string>* texts = nullptr) {
  if (!cursor.Consume('[')) {
    *message = "expected '[' to start the value list";
    return false;
  }
  bool need_value = true;  // true right after '[' or ','
  while (true) {
    if (cursor.AtEnd()) {
      *message = "missing ']' at the end of the value list";
      return false;
    }
    if (cursor.Consume(']')) break;
    if (cursor.Consume(',')) {
      if (need_value) {
        *message = "expected a value before ','";
        return false;
      }
      need_value = true;
      continue;
    }
    std::string_view word = cursor.Word();
    if (word.empty()) {
      *message = "unexpected '" + std::string(cursor.Rest().substr(0, 1)) + "' in value list";
      return false;
    }
    uint64_t bits = 0;
    if (texts != nullptr) {
      texts->emplace_back(word);
    } else {
      if (!ParseScalar(word, scalar, &bits, message)) return false;
      values->push_back(bits);
    }
    need_value = false;
  }
  return true;
}

bool ParseCount(std::string_view word, const char* what, uint32_t* value, std::string* message) {
  uint64_t parsed = 0;
  if (word.empty() || !ParseInteger(word, &parsed)) {
    *message = std::string("expected ") + what + ", found '" + std::string(word) + "'";
    return false;
  }
  if (parsed == 0) {
    *message = std::string(what) + " must be at least 1";
    return false;
  }
  if (parsed > std::numeric_limits<uint32_t>::max()) {
    *message = std::string(what) + " " + std::string(word) + " is too large";
    return false;
  }
  *value = static_cast<uint32_t>(parsed);
  return true;
}

// The rest of a buffer directive whose element type is a struct: its values stay text.
bool ParseStructBufferDirective(Cursor& cursor, std::string struct_name, BufferSpec* buffer,
                                std::string* message) {
  buffer->type.struct_name = std::move(struct_name);
  if (buffer->role == BufferRole::Input) {
    if (!ParseValueList(cursor, driver::ScalarKind::Float32, nullptr, message, &buffer->texts)) {
      return false;
    }
    if (buffer->texts.empty()) {
      *message = "input buffer '" + buffer->name + "' has no values";
      return false;
    }
  } else {
    if (!ParseCount(cursor.Word(), "an element count", &buffer->count, message)) return false;
    if (buffer->count > kMaxElements) {
      *message = "element count " + std::to_string(buffer->count) + " is too large";
      return false;
    }
    if (cursor.Consume('=') &&
        !ParseValueList(cursor, driver::ScalarKind::Float32, nullptr, message, &buffer->texts)) {
      return false;
    }
  }
  if (!cursor.AtEnd()) {
    *message = "unexpected '" + std::string(cursor.Rest()) + "' after the directive";
    return false;
  }
  return true;
}

/// A uniform member's name: identifiers joined by '.', each optionally indexed ("w[1]").
bool IsUniformName(std::string_view name) {
  if (name.empty()) return false;
  size_t start = 0;
  while (start <= name.size()) {
    size_t end = name.find('.', start);
    if (end == std::string_view::npos) end = name.size();
    std::string_view part = name.substr(start, end - start);
    while (!part.empty() && part.back() == ']') {
      size_t open = part.rfind('[');
      if (open == std::string_view::npos || open + 2 > part.size() - 1) return false;
      for (char c : part.substr(open + 1, part.size() - open - 2)) {
        if (c < '0' || c > '9') return false;
      }
      part = part.substr(0, open);
    }
    if (!IsIdentifier(part)) return false;
    start = end + 1;
  }
  return true;
}

// Parses the text after //INPUT: uniform.
bool ParseUniformDirective(Cursor& cursor, UniformSpec* uniform, std::string* message) {
  std::string_view name = cursor.Name();
  if (!IsUniformName(name)) {
    *message = name.empty() ? std::string("expected a uniform member name")
                            : "invalid uniform member name '" + std::string(name) + "'";
    return false;
  }
  uniform->name = std::string(name);
  std::string_view type_text = cursor.Word();
  std::optional<ElementType> type = ParseElementType(type_text);
  if (!type || type->rows != 0) {
    *message = type_text.empty() ? std::string("expected a scalar or vector type")
                                 : "expected a scalar or vector type, found '" +
                                       std::string(type_text) + "' (give a matrix row by row)";
    return false;
  }
  uniform->type = *type;
  if (cursor.AtEnd()) {
    *message = "uniform '" + uniform->name + "' has no value";
    return false;
  }
  // One value, or a bracketed list of them, or a buffer's address.
  std::string_view rest = cursor.Rest();
  std::string address_buffer;
  uint64_t address_offset = 0;
  if (ParseAddressValue(rest, &address_buffer, &address_offset)) {
    bool wide = type->components == 1 && (type->scalar == driver::ScalarKind::UInt64 ||
                                          type->scalar == driver::ScalarKind::Int64);
    if (!wide) {
      *message = "a buffer address ('" + std::string(rest) + "') needs type uint64_t or int64_t";
      return false;
    }
    uniform->address = std::string(cursor.Word());
    uniform->bits.push_back(0);
  } else if (!rest.empty() && rest[0] == '[') {
    if (!ParseValueList(cursor, type->scalar, &uniform->bits, message)) return false;
  } else {
    uint64_t bits = 0;
    if (!ParseScalar(cursor.Word(), type->scalar, &bits, message)) return false;
    uniform->bits.push_back(bits);
  }
  if (uniform->bits.size() != type->components) {
    *message = "uniform '" + uniform->name + "' of type " + ElementTypeName(*type) + " needs " +
               std::to_string(type->components) + " values, found " +
               std::to_string(uniform->bits.size());
    return false;
  }
  if (!cursor.AtEnd()) {
    *message = "unexpected '" + std::string(cursor.Rest()) + "' after the directive";
    return false;
  }
  return true;
}

// Parses the text after //INPUT: tensor or //OUTPUT: tensor into the buffer and the
// uniform shape and strides it stands for.
bool ParseTensorDirective(Cursor& cursor, BufferRole role, uint32_t line, BufferSpec* buffer,
                          std::vector<UniformSpec>* uniforms, std::string* message) {
  std::string_view name = cursor.Word();
  if (!IsMemberPath(name)) {
    *message = name.empty() ? std::string("expected a tensor name")
                            : "invalid tensor name '" + std::string(name) + "'";
    return false;
  }
  std::string_view type_text = cursor.Word();
  std::optional<ElementType> type = ParseElementType(type_text);
  if (!type || type->rows != 0) {
    *message = "expected a scalar or vector element type, found '" + std::string(type_text) + "'";
    return false;
  }
  std::vector<uint64_t> shape;
  if (!ParseValueList(cursor, driver::ScalarKind::UInt32, &shape, message)) return false;
  if (shape.empty() || shape.size() > 4) {
    *message = "a tensor has 1 to 4 dimensions, found " + std::to_string(shape.size());
    return false;
  }
  uint64_t count = 1;
  for (uint64_t d : shape) count *= d;
  if (count == 0 || count * type->components > kMaxElements) {
    *message = "tensor '" + std::string(name) + "' must have 1 to " +
               std::to_string(kMaxElements) + " values";
    return false;
  }
  buffer->role = role;
  buffer->name = std::string(name) + ".data";
  buffer->type = *type;
  buffer->count = static_cast<uint32_t>(count);
  buffer->line = line;
  if (role == BufferRole::Input) {
    if (!ParseValueList(cursor, type->scalar, &buffer->bits, message)) return false;
    if (buffer->bits.size() != count * type->components) {
      *message = "tensor '" + std::string(name) + "' of shape " + std::to_string(shape.size()) +
                 "-D needs " + std::to_string(count * type->components) + " values, found " +
                 std::to_string(buffer->bits.size());
      return false;
    }
  } else {
    buffer->bits.assign(count * type->components, 0);
  }
  if (!cursor.AtEnd()) {
    *message = "unexpected '" + std::string(cursor.Rest()) + "' after the directive";
    return false;
  }
  UniformSpec sizes{std::string(name) + ".sizes", ElementType{driver::ScalarKind::UInt32, 4},
                    std::vector<uint64_t>(4, 0), line};
  UniformSpec strides{std::string(name) + ".strides",
                      ElementType{driver::ScalarKind::UInt32, 4}, std::vector<uint64_t>(4, 0),
                      line};
  uint64_t stride = 1;
  for (size_t d = shape.size(); d-- > 0;) {
    sizes.bits[d] = shape[d];
    strides.bits[d] = stride;
    stride *= shape[d];
  }
  uniforms->push_back(std::move(sizes));
  uniforms->push_back(std::move(strides));
  return true;
}

// Parses the text after //INPUT: or //OUTPUT:.
bool ParseBufferDirective(std::string_view text, BufferRole role, BufferSpec* buffer,
                          std::string* message) {
  Cursor cursor(text);
  buffer->role = role;
  std::string_view kind = cursor.Word();
  if (kind != "buffer") {
    *message = "expected 'buffer', found '" + std::string(kind) + "'";
    return false;
  }
  std::string_view name = cursor.Name();
  // A buffer field of a struct global reads "m.weights"; an element of an array of
  // buffers "bufs[1]".
  if (!IsUniformName(name)) {
    *message = name.empty() ? std::string("expected a buffer name")
                            : "invalid buffer name '" + std::string(name) + "'";
    return false;
  }
  buffer->name = std::string(name);
  std::string_view type_text = cursor.Word();
  std::optional<ElementType> type = ParseElementType(type_text);
  bool builtin_like = false;
  for (std::string_view prefix : {"float", "int", "uint", "bool", "half", "double"}) {
    builtin_like = builtin_like || type_text.starts_with(prefix);
  }
  if (!type && IsIdentifier(type_text) && !builtin_like) {
    return ParseStructBufferDirective(cursor, std::string(type_text), buffer, message);
  }
  if (!type) {
    *message = type_text.empty() ? std::string("expected an element type")
                                 : "unknown element type '" + std::string(type_text) + "'";
    return false;
  }
  buffer->type = *type;
  const uint32_t components = type->Values();

  if (role == BufferRole::Input) {
    if (!ParseValueList(cursor, type->scalar, &buffer->bits, message)) return false;
    if (buffer->bits.empty()) {
      *message = "input buffer '" + buffer->name + "' has no values";
      return false;
    }
    if (buffer->bits.size() % components != 0) {
      *message = std::to_string(buffer->bits.size()) + " values do not make whole " +
                 ElementTypeName(*type) + " elements (" + std::to_string(components) +
                 " components each)";
      return false;
    }
    buffer->count = static_cast<uint32_t>(buffer->bits.size() / components);
  } else {
    if (!ParseCount(cursor.Word(), "an element count", &buffer->count, message)) return false;
    if (uint64_t{buffer->count} * components > kMaxElements) {
      *message = "element count " + std::to_string(buffer->count) + " is too large";
      return false;
    }
    if (cursor.Consume('=')) {
      if (!ParseValueList(cursor, type->scalar, &buffer->bits, message)) return false;
      if (buffer->bits.size() != uint64_t{buffer->count} * components) {
        *message = "expected " + std::to_string(uint64_t{buffer->count} * components) +
                   " initial values (" + std::to_string(buffer->count) + " " +
                   ElementTypeName(*type) + "), found " + std::to_string(buffer->bits.size());
        return false;
      }
    } else {
      buffer->bits.assign(size_t{buffer->count} * components, 0);
    }
  }
  if (!cursor.AtEnd()) {
    *message = "unexpected '" + std::string(cursor.Rest()) + "' after the directive";
    return false;
  }
  return true;
}

bool ParseDispatch(std::string_view text, runtime::GroupCount* groups, std::string* message) {
  Cursor cursor(text);
  uint32_t* dims[3] = {&groups->x, &groups->y, &groups->z};
  int given = 0;
  while (!cursor.AtEnd()) {
    if (given == 3) {
      *message = "expected at most 3 group counts";
      return false;
    }
    if (!ParseCount(cursor.Word(), "a group count", dims[given], message)) return false;
    cursor.Consume(',');
    ++given;
  }
  if (given == 0) {
    *message = "expected group counts 'X [Y [Z]]'";
    return false;
  }
  return true;
}

std::string_view TrimLeft(std::string_view line) {
  size_t start = 0;
  while (start < line.size() && (line[start] == ' ' || line[start] == '\t')) ++start;
  return line.substr(start);
}

}  // namespace

bool ParseScalarValue(std::string_view text, driver::ScalarKind scalar, uint64_t* bits,
                      std::string* message) {
  return ParseScalar(text, scalar, bits, message);
}

std::optional<ElementType> ParseElementType(std::string_view text) {
  using driver::ScalarKind;
  static constexpr std::pair<std::string_view, ScalarKind> kNames[] = {
      {"float", ScalarKind::Float32},    {"int", ScalarKind::Int32},
      {"uint", ScalarKind::UInt32},      {"half", ScalarKind::Float16},
      {"double", ScalarKind::Float64},   {"float16_t", ScalarKind::Float16},
      {"float32_t", ScalarKind::Float32}, {"float64_t", ScalarKind::Float64},
      {"int8_t", ScalarKind::Int8},      {"int16_t", ScalarKind::Int16},
      {"int32_t", ScalarKind::Int32},    {"int64_t", ScalarKind::Int64},
      {"uint8_t", ScalarKind::UInt8},    {"uint16_t", ScalarKind::UInt16},
      {"uint32_t", ScalarKind::UInt32},  {"uint64_t", ScalarKind::UInt64},
  };
  for (const auto& [name, kind] : kNames) {
    if (!text.starts_with(name)) continue;
    std::string_view suffix = text.substr(name.size());
    if (suffix.empty()) return ElementType{kind, 1};
    if (suffix.size() == 1 && suffix[0] >= '2' && suffix[0] <= '4') {
      return ElementType{kind, static_cast<uint32_t>(suffix[0] - '0')};
    }
    if (suffix.size() == 3 && suffix[1] == 'x' && suffix[0] >= '2' && suffix[0] <= '4' &&
        suffix[2] >= '2' && suffix[2] <= '4') {
      return ElementType{kind, static_cast<uint32_t>(suffix[2] - '0'), "",
                         static_cast<uint32_t>(suffix[0] - '0')};
    }
  }
  return std::nullopt;
}

std::string ElementTypeName(ElementType type) {
  if (!type.struct_name.empty()) return type.struct_name;
  std::string name = driver::ScalarKindName(type.scalar);
  if (type.rows != 0) return name + std::to_string(type.rows) + "x" + std::to_string(type.components);
  if (type.components > 1) name += std::to_string(type.components);
  return name;
}

namespace {

// The text after //INPUT: texture or //OUTPUT: texture.
bool ParseTextureDirective(Cursor& cursor, TextureSpec* texture, std::string* message) {
  std::string_view name = cursor.Word();
  // A texture field of a ParameterBlock reads "m.albedo".
  if (!IsUniformName(name)) {
    *message = name.empty() ? std::string("expected a texture name")
                            : "invalid texture name '" + std::string(name) + "'";
    return false;
  }
  texture->name = std::string(name);
  std::string_view type_text = cursor.Word();
  std::optional<ElementType> type = ParseElementType(type_text);
  if (type && type->rows == 0 && driver::ScalarKindBytes(type->scalar) == 4 &&
      type->components != 3 && type->scalar != driver::ScalarKind::Bool) {
    const char* channels = type->components == 4 ? "rgba" : type->components == 2 ? "rg" : "r";
    const char* suffix = type->scalar == driver::ScalarKind::Float32 ? "32f"
                         : type->scalar == driver::ScalarKind::Int32 ? "32i"
                                                                     : "32ui";
    texture->format = std::string(channels) + suffix;
  } else if (runtime::GetTextureFormatInfo(type_text).components != 0) {
    texture->format = std::string(type_text);
  } else {
    *message = "expected a texel type (float, float2, float4, int.., uint..) or a format "
               "(rgba8, rgba16f, ...), found '" + std::string(type_text) + "'";
    return false;
  }
  runtime::TextureFormatInfo info = runtime::GetTextureFormatInfo(texture->format);
  texture->scalar = info.scalar == driver::ScalarKind::Float16 ? driver::ScalarKind::Float32
                    : info.bytes_per_component < 4 && !info.normalized
                        ? (info.scalar == driver::ScalarKind::Int8 || info.scalar == driver::ScalarKind::Int16
                               ? driver::ScalarKind::Int32
                               : driver::ScalarKind::UInt32)
                        : info.scalar;
  texture->components = info.components;
  std::vector<uint64_t> size;
  if (!ParseValueList(cursor, driver::ScalarKind::UInt32, &size, message)) return false;
  if (size.empty() || size.size() > 4) {
    *message = "a texture size has 1 to 4 numbers (the axes, then the layers)";
    return false;
  }
  uint64_t texels = 1;
  for (uint64_t s : size) {
    if (s == 0 || s > 4096) {
      *message = "texture sizes must be 1 to 4096";
      return false;
    }
    texels *= s;
    texture->size.push_back(static_cast<uint32_t>(s));
  }
  if (texels * info.components > kMaxElements) {
    *message = "texture '" + texture->name + "' is too large";
    return false;
  }
  std::string_view option = cursor.Word();
  if (option == "mips") {
    if (texture->role == BufferRole::Output || !cursor.Consume('=')) {
      *message = "expected 'mips=N' on an input texture";
      return false;
    }
    if (!ParseCount(cursor.Word(), "a mip level count", &texture->mips, message)) return false;
  } else if (!option.empty()) {
    *message = "unexpected '" + std::string(option) + "' after the texture size";
    return false;
  }
  if (texture->role == BufferRole::Input || cursor.Consume('=')) {
    if (!ParseValueList(cursor, texture->scalar, &texture->bits, message)) return false;
  }
  if (!cursor.AtEnd()) {
    *message = "unexpected '" + std::string(cursor.Rest()) + "' after the directive";
    return false;
  }
  return true;
}

// The text after //INPUT: sampler.
bool ParseSamplerDirective(Cursor& cursor, SamplerSpec* sampler, std::string* message) {
  std::string_view name = cursor.Word();
  if (!IsUniformName(name)) {
    *message = name.empty() ? std::string("expected a sampler name")
                            : "invalid sampler name '" + std::string(name) + "'";
    return false;
  }
  sampler->name = std::string(name);
  while (!cursor.AtEnd()) {
    std::string_view key = cursor.Word();
    if (!cursor.Consume('=')) {
      *message = "expected 'filter=...' or 'address=...', found '" + std::string(key) + "'";
      return false;
    }
    std::string_view value = cursor.Word();
    if (key == "filter" && (value == "nearest" || value == "linear")) {
      sampler->desc.linear = value == "linear";
    } else if (key == "address" &&
               (value == "clamp" || value == "wrap" || value == "mirror" || value == "border")) {
      sampler->desc.address = value == "wrap"     ? runtime::SamplerDesc::Address::Wrap
                              : value == "mirror" ? runtime::SamplerDesc::Address::Mirror
                              : value == "border" ? runtime::SamplerDesc::Address::Border
                                                  : runtime::SamplerDesc::Address::Clamp;
    } else {
      *message = "unknown sampler setting '" + std::string(key) + "=" + std::string(value) +
                 "' (filter=nearest|linear, address=clamp|wrap|mirror|border)";
      return false;
    }
  }
  return true;
}

}  // namespace

bool ParseTestSpec(std::string_view source, TestSpec* spec, SpecError* error) {
  *spec = TestSpec();
  bool have_dispatch = false;
  uint32_t line_number = 0;
  size_t pos = 0;
  while (pos <= source.size()) {
    size_t end = source.find('\n', pos);
    if (end == std::string_view::npos) end = source.size();
    std::string_view line = source.substr(pos, end - pos);
    pos = end + 1;
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    line = TrimLeft(line);
    if (!line.starts_with("//")) continue;
    line.remove_prefix(2);

    std::string message;
    auto fail = [&](std::string text) {
      error->line = line_number;
      error->message = std::move(text);
      return false;
    };
    if (line.starts_with("INPUT:") && Cursor(line.substr(6)).Word() == "uniform") {
      Cursor cursor(line.substr(6));
      cursor.Word();  // uniform
      UniformSpec uniform;
      uniform.line = line_number;
      if (!ParseUniformDirective(cursor, &uniform, &message)) return fail(std::move(message));
      for (const UniformSpec& other : spec->uniforms) {
        if (other.name == uniform.name) {
          return fail("uniform '" + uniform.name + "' is already given on line " +
                      std::to_string(other.line));
        }
      }
      spec->uniforms.push_back(std::move(uniform));
    } else if ((line.starts_with("INPUT:") && Cursor(line.substr(6)).Word() == "texture") ||
               (line.starts_with("OUTPUT:") && Cursor(line.substr(7)).Word() == "texture")) {
      bool input = line.starts_with("INPUT:");
      Cursor cursor(line.substr(input ? 6 : 7));
      cursor.Word();  // texture
      TextureSpec texture;
      texture.role = input ? BufferRole::Input : BufferRole::Output;
      texture.line = line_number;
      if (!ParseTextureDirective(cursor, &texture, &message)) return fail(std::move(message));
      spec->textures.push_back(std::move(texture));
    } else if (line.starts_with("INPUT:") && Cursor(line.substr(6)).Word() == "sampler") {
      Cursor cursor(line.substr(6));
      cursor.Word();  // sampler
      SamplerSpec sampler;
      sampler.line = line_number;
      if (!ParseSamplerDirective(cursor, &sampler, &message)) return fail(std::move(message));
      spec->samplers.push_back(std::move(sampler));
    } else if ((line.starts_with("INPUT:") && Cursor(line.substr(6)).Word() == "tensor") ||
               (line.starts_with("OUTPUT:") && Cursor(line.substr(7)).Word() == "tensor")) {
      bool input = line.starts_with("INPUT:");
      Cursor cursor(line.substr(input ? 6 : 7));
      cursor.Word();  // tensor
      BufferSpec buffer;
      std::vector<UniformSpec> shape;
      if (!ParseTensorDirective(cursor, input ? BufferRole::Input : BufferRole::Output,
                                line_number, &buffer, &shape, &message)) {
        return fail(std::move(message));
      }
      for (const BufferSpec& other : spec->buffers) {
        if (other.name == buffer.name) {
          return fail("tensor '" + buffer.name.substr(0, buffer.name.size() - 5) +
                      "' is already declared on line " + std::to_string(other.line));
        }
      }
      spec->buffers.push_back(std::move(buffer));
      for (UniformSpec& u : shape) spec->uniforms.push_back(std::move(u));
    } else if (line.starts_with("INPUT:") || line.starts_with("OUTPUT:")) {
      bool input = line.starts_with("INPUT:");
      line.remove_prefix(input ? 6 : 7);
      BufferSpec buffer;
      buffer.line = line_number;
      if (!ParseBufferDirective(line, input ? BufferRole::Input : BufferRole::Output, &buffer,
                                &message)) {
        return fail(std::move(message));
      }
      for (const BufferSpec& other : spec->buffers) {
        if (other.name == buffer.name) {
          return fail("buffer '" + buffer.name + "' is already declared on line " +
                      std::to_string(other.line));
        }
      }
      spec->buffers.push_back(std::move(buffer));
    } else if (line.starts_with("DISPATCH:")) {
      if (have_dispatch) return fail("more than one //DISPATCH: directive");
      have_dispatch = true;
      line.remove_prefix(9);
      if (!ParseDispatch(line, &spec->dispatch, &message)) return fail(std::move(message));
    } else if (line.starts_with("ENTRY:")) {
      if (spec->entry_line != 0) return fail("more than one //ENTRY: directive");
      line.remove_prefix(6);
      Cursor cursor(line);
      std::string_view name = cursor.Word();
      if (!IsIdentifier(name)) return fail("expected an entry point name");
      if (!cursor.AtEnd()) {
        return fail("unexpected '" + std::string(cursor.Rest()) + "' after the entry point name");
      }
      spec->entry = std::string(name);
      spec->entry_line = line_number;
    }
  }
  return true;
}

}  // namespace slope::run
