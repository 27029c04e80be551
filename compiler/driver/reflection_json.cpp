#include "compiler/driver/reflection_json.h"

#include <bit>
#include <nlohmann/json.hpp>

namespace slope::driver {
namespace {

using json = nlohmann::ordered_json;

constexpr ScalarKind kScalarKinds[] = {
    ScalarKind::Bool,   ScalarKind::Int8,    ScalarKind::Int16,   ScalarKind::Int32,
    ScalarKind::Int64,  ScalarKind::UInt8,   ScalarKind::UInt16,  ScalarKind::UInt32,
    ScalarKind::UInt64, ScalarKind::Float16, ScalarKind::Float32, ScalarKind::Float64};

constexpr ResourceKind kResourceKinds[] = {
    ResourceKind::StructuredBuffer, ResourceKind::RWStructuredBuffer,
    ResourceKind::UniformBuffer,    ResourceKind::PushConstant,
    ResourceKind::Texture,          ResourceKind::RWTexture,
    ResourceKind::Sampler,          ResourceKind::SampledTexture,
    ResourceKind::TexelBuffer,      ResourceKind::RWTexelBuffer};
constexpr const char* kTextureShapes[] = {"?", "1d", "2d", "3d", "cube", "buffer"};

bool HasTexture(ResourceKind k) {
  return k == ResourceKind::Texture || k == ResourceKind::RWTexture ||
         k == ResourceKind::SampledTexture || k == ResourceKind::TexelBuffer ||
         k == ResourceKind::RWTexelBuffer;
}

/// "float", "float3", "float2x3": a scalar, vector or matrix type's name.
std::string TypeName(ScalarKind scalar, uint32_t components, uint32_t rows) {
  std::string name = ScalarKindName(scalar);
  if (rows != 0) return name + std::to_string(rows) + "x" + std::to_string(components);
  if (components > 1) name += std::to_string(components);
  return name;
}

/// Parses TypeName's output back; false when `text` is no such name.
bool ParseTypeName(const std::string& text, ScalarKind* scalar, uint32_t* components,
                   uint32_t* rows) {
  // Longest scalar name first, so that "int16_t" is not read as "int".
  size_t best = 0;
  for (ScalarKind kind : kScalarKinds) {
    std::string name = ScalarKindName(kind);
    if (text.rfind(name, 0) == 0 && name.size() > best) {
      best = name.size();
      *scalar = kind;
    }
  }
  if (best == 0) return false;
  std::string suffix = text.substr(best);
  *components = 1;
  *rows = 0;
  auto digit = [](char c) { return c >= '1' && c <= '4'; };
  if (suffix.empty()) return true;
  if (suffix.size() == 1 && digit(suffix[0])) {
    *components = static_cast<uint32_t>(suffix[0] - '0');
    return true;
  }
  if (suffix.size() == 3 && digit(suffix[0]) && suffix[1] == 'x' && digit(suffix[2])) {
    *rows = static_cast<uint32_t>(suffix[0] - '0');
    *components = static_cast<uint32_t>(suffix[2] - '0');
    return true;
  }
  return false;
}

json ElementJson(const ElementLayout& e) {
  json j;
  if (!e.struct_name.empty()) {
    j["type"] = e.struct_name;
  } else {
    j["type"] = TypeName(e.scalar, e.components, e.rows);
  }
  j["size"] = e.size;
  j["stride"] = e.stride;
  if (e.rows != 0) {
    j["rows"] = e.rows;
    j["row_step"] = e.row_step;
    j["component_stride"] = e.component_stride;
  }
  if (!e.struct_name.empty()) {
    json fields = json::array();
    for (const FieldLayout& f : e.fields) {
      json field{{"name", f.name}, {"type", TypeName(f.scalar, f.components, 0)},
                 {"offset", f.offset}};
      if (f.component_stride != 0) field["component_stride"] = f.component_stride;
      fields.push_back(std::move(field));
    }
    j["fields"] = std::move(fields);
  }
  return j;
}

/// Reading: every accessor reports a missing or mistyped member as an error naming it.
class Reader {
 public:
  explicit Reader(std::string* error) : error_(error) {}

  bool Fail(const std::string& where, const std::string& what) {
    *error_ = where + ": " + what;
    return false;
  }
  bool UInt(const json& j, const char* key, const std::string& where, uint32_t* out,
            bool optional = false) {
    auto it = j.find(key);
    if (it == j.end()) {
      if (optional) return true;
      return Fail(where, std::string("missing \"") + key + "\"");
    }
    if (!it->is_number_unsigned() || it->get<uint64_t>() > UINT32_MAX) {
      return Fail(where, std::string("\"") + key + "\" must be an unsigned 32-bit integer");
    }
    *out = it->get<uint32_t>();
    return true;
  }
  bool String(const json& j, const char* key, const std::string& where, std::string* out,
              bool optional = false) {
    auto it = j.find(key);
    if (it == j.end()) {
      if (optional) return true;
      return Fail(where, std::string("missing \"") + key + "\"");
    }
    if (!it->is_string()) return Fail(where, std::string("\"") + key + "\" must be a string");
    *out = it->get<std::string>();
    return true;
  }
  bool Element(const json& j, const std::string& where, ElementLayout* e) {
    std::string type;
    if (!String(j, "type", where, &type) || !UInt(j, "size", where, &e->size) ||
        !UInt(j, "stride", where, &e->stride)) {
      return false;
    }
    auto fields = j.find("fields");
    if (fields == j.end()) {
      uint32_t rows = 0;
      if (!ParseTypeName(type, &e->scalar, &e->components, &rows)) {
        return Fail(where, "unknown type '" + type + "'");
      }
      if (!UInt(j, "rows", where, &e->rows, true) ||
          !UInt(j, "row_step", where, &e->row_step, true) ||
          !UInt(j, "component_stride", where, &e->component_stride, true)) {
        return false;
      }
      if (rows != e->rows) return Fail(where, "\"rows\" does not match type '" + type + "'");
      return true;
    }
    e->struct_name = type;
    if (!fields->is_array()) return Fail(where, "\"fields\" must be an array");
    for (size_t i = 0; i < fields->size(); ++i) {
      const json& f = (*fields)[i];
      std::string at = where + ".fields[" + std::to_string(i) + "]";
      if (!f.is_object()) return Fail(at, "must be an object");
      FieldLayout field;
      std::string field_type;
      uint32_t rows = 0;
      if (!String(f, "name", at, &field.name) || !String(f, "type", at, &field_type) ||
          !UInt(f, "offset", at, &field.offset) ||
          !UInt(f, "component_stride", at, &field.component_stride, true)) {
        return false;
      }
      if (!ParseTypeName(field_type, &field.scalar, &field.components, &rows) || rows != 0) {
        return Fail(at, "unknown field type '" + field_type + "'");
      }
      e->fields.push_back(std::move(field));
    }
    return true;
  }

 private:
  std::string* error_;
};

}  // namespace

constexpr const char* kArgKinds[] = {"int", "uint", "float", "bool", "string"};

/// `[{"name": "MaxValue", "target_kind": "var", "target": "s", "arguments":
/// [{"type": "int", "value": 12}, {"type": "string", "value": "scale"}]}]`.
json UserAttributesJson(const std::vector<UserAttributeInfo>& attributes) {
  json out = json::array();
  for (const UserAttributeInfo& a : attributes) {
    json args = json::array();
    for (const AttributeArg& arg : a.args) {
      json value;
      switch (arg.kind) {
        case AttributeArg::Kind::Int:
          value = arg.int_value;
          break;
        case AttributeArg::Kind::UInt:
          value = static_cast<uint64_t>(arg.int_value);
          break;
        case AttributeArg::Kind::Float:
          value = arg.float_value;
          break;
        case AttributeArg::Kind::Bool:
          value = arg.int_value != 0;
          break;
        case AttributeArg::Kind::String:
          value = arg.string_value;
          break;
      }
      args.push_back({{"type", kArgKinds[static_cast<int>(arg.kind)]}, {"value", value}});
    }
    out.push_back({{"name", a.name},
                   {"target_kind", a.target_kind},
                   {"target", a.target},
                   {"arguments", std::move(args)}});
  }
  return out;
}

std::string ReflectionToJson(const Reflection& reflection) {
  json entries = json::array();
  for (const EntryPointInfo& e : reflection.entry_points) {
    json entry{{"name", e.name}, {"numthreads", e.numthreads}};
    if (e.numthreads_spec_ids != std::array<int64_t, 3>{-1, -1, -1}) {
      // `"numthreads_constant_ids": [3, null, null]`: the constant_id setting each size.
      json ids = json::array();
      for (int64_t id : e.numthreads_spec_ids) ids.push_back(id < 0 ? json(nullptr) : json(id));
      entry["numthreads_constant_ids"] = std::move(ids);
    }
    if (e.wave_size != 0) entry["wave_size"] = e.wave_size;
    entries.push_back(std::move(entry));
  }
  json parameters = json::array();
  for (const BindingInfo& b : reflection.bindings) {
    json p{{"name", b.name}, {"kind", ResourceKindName(b.kind)}};
    if (b.kind == ResourceKind::PushConstant) {
      p["entry_point"] = b.entry_point;
    } else {
      p["set"] = b.set;
      p["binding"] = b.binding;
    }
    if (b.kind == ResourceKind::Sampler) {
      p["comparison"] = b.texture.comparison;
      parameters.push_back(std::move(p));
      continue;
    }
    if (HasTexture(b.kind)) {
      p["shape"] = kTextureShapes[b.texture.dim <= 5 ? b.texture.dim : 0];
      p["arrayed"] = b.texture.arrayed;
      if (!b.texture.format.empty()) p["format"] = b.texture.format;
      // A combined texture and comparison sampler (`Sampler2DShadow`).
      if (b.texture.comparison) p["comparison"] = true;
    }
    p.update(ElementJson(b.element));
    parameters.push_back(std::move(p));
  }
  json doc{{"entry_points", std::move(entries)}, {"parameters", std::move(parameters)}};
  if (!reflection.user_attributes.empty()) {
    doc["user_attributes"] = UserAttributesJson(reflection.user_attributes);
  }
  if (!reflection.dynamic_interfaces.empty()) {
    json ifaces = json::array();
    for (const DynamicInterfaceInfo& d : reflection.dynamic_interfaces) {
      json conformances = json::array();
      for (const DynamicInterfaceInfo::Conformance& c : d.conformances) {
        conformances.push_back({{"type", c.type}, {"id", c.id}, {"payload_size", c.payload_size}});
      }
      ifaces.push_back({{"name", d.name},
                        {"any_value_size", d.any_value_size},
                        {"element_size", d.element_size},
                        {"conformances", std::move(conformances)}});
    }
    doc["dynamic_interfaces"] = std::move(ifaces);
  }
  if (!reflection.spec_constants.empty()) {
    json specs = json::array();
    for (const SpecConstantInfo& s : reflection.spec_constants) {
      json value;
      switch (s.type) {
        case ScalarKind::Bool:
          value = s.default_bits != 0;
          break;
        case ScalarKind::Int32:
          value = static_cast<int32_t>(s.default_bits);
          break;
        case ScalarKind::Float32:
          value = std::bit_cast<float>(s.default_bits);
          break;
        default:
          value = s.default_bits;
          break;
      }
      specs.push_back(
          {{"name", s.name}, {"id", s.id}, {"type", ScalarKindName(s.type)}, {"default", value}});
    }
    doc["specialization_constants"] = std::move(specs);
  }
  return doc.dump(2) + "\n";
}

namespace {
/// Reads UserAttributesJson's array, when the document has one.
bool ReadUserAttributes(const json& doc, Reader& r, Reflection* out) {
  auto attrs = doc.find("user_attributes");
  if (attrs == doc.end()) return true;
  if (!attrs->is_array()) return r.Fail("reflection", "\"user_attributes\" must be an array");
  for (size_t i = 0; i < attrs->size(); ++i) {
    const json& a = (*attrs)[i];
    std::string at = "user_attributes[" + std::to_string(i) + "]";
    if (!a.is_object()) return r.Fail(at, "must be an object");
    UserAttributeInfo info;
    if (!r.String(a, "name", at, &info.name) ||
        !r.String(a, "target_kind", at, &info.target_kind) ||
        !r.String(a, "target", at, &info.target)) {
      return false;
    }
    auto args = a.find("arguments");
    if (args == a.end() || !args->is_array()) return r.Fail(at, "missing array \"arguments\"");
    for (const json& arg : *args) {
      std::string type;
      if (!arg.is_object() || !r.String(arg, "type", at, &type)) {
        return r.Fail(at, "each argument must be an object with a \"type\"");
      }
      auto value = arg.find("value");
      AttributeArg out_arg;
      bool ok = value != arg.end();
      if (ok && type == "int") {
        out_arg.kind = AttributeArg::Kind::Int;
        ok = value->is_number_integer();
        if (ok) out_arg.int_value = value->get<int64_t>();
      } else if (ok && type == "uint") {
        out_arg.kind = AttributeArg::Kind::UInt;
        ok = value->is_number_unsigned();
        if (ok) out_arg.int_value = value->get<int64_t>();
      } else if (ok && type == "float") {
        out_arg.kind = AttributeArg::Kind::Float;
        ok = value->is_number();
        if (ok) out_arg.float_value = value->get<double>();
      } else if (ok && type == "bool") {
        out_arg.kind = AttributeArg::Kind::Bool;
        ok = value->is_boolean();
        if (ok) out_arg.int_value = value->get<bool>() ? 1 : 0;
      } else if (ok && type == "string") {
        out_arg.kind = AttributeArg::Kind::String;
        ok = value->is_string();
        if (ok) out_arg.string_value = value->get<std::string>();
      } else {
        ok = false;
      }
      if (!ok) return r.Fail(at, "an argument's \"value\" must be a value of its \"type\"");
      info.args.push_back(std::move(out_arg));
    }
    out->user_attributes.push_back(std::move(info));
  }
  return true;
}
}  // namespace

namespace {
/// Reads the "dynamic_interfaces" array, when the document has one.
bool ReadDynamicInterfaces(const json& doc, Reader& r, Reflection* out) {
  auto list = doc.find("dynamic_interfaces");
  if (list == doc.end()) return true;
  if (!list->is_array()) return r.Fail("reflection", "\"dynamic_interfaces\" must be an array");
  for (size_t i = 0; i < list->size(); ++i) {
    const json& d = (*list)[i];
    std::string at = "dynamic_interfaces[" + std::to_string(i) + "]";
    if (!d.is_object()) return r.Fail(at, "must be an object");
    DynamicInterfaceInfo info;
    if (!r.String(d, "name", at, &info.name) ||
        !r.UInt(d, "any_value_size", at, &info.any_value_size) ||
        !r.UInt(d, "element_size", at, &info.element_size)) {
      return false;
    }
    auto conformances = d.find("conformances");
    if (conformances == d.end() || !conformances->is_array()) {
      return r.Fail(at, "missing array \"conformances\"");
    }
    for (const json& c : *conformances) {
      DynamicInterfaceInfo::Conformance conf;
      if (!c.is_object() || !r.String(c, "type", at, &conf.type) ||
          !r.UInt(c, "id", at, &conf.id) || !r.UInt(c, "payload_size", at, &conf.payload_size)) {
        return c.is_object() ? false : r.Fail(at, "each conformance must be an object");
      }
      info.conformances.push_back(std::move(conf));
    }
    out->dynamic_interfaces.push_back(std::move(info));
  }
  return true;
}
}  // namespace

bool ReflectionFromJson(std::string_view text, Reflection* out, std::string* error) {
  *out = Reflection{};
  json doc = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) {
    *error = "reflection: not valid JSON";
    return false;
  }
  Reader r(error);
  if (!doc.is_object()) return r.Fail("reflection", "must be an object");
  auto entries = doc.find("entry_points");
  auto parameters = doc.find("parameters");
  if (entries == doc.end() || !entries->is_array()) {
    return r.Fail("reflection", "missing array \"entry_points\"");
  }
  if (parameters == doc.end() || !parameters->is_array()) {
    return r.Fail("reflection", "missing array \"parameters\"");
  }
  for (size_t i = 0; i < entries->size(); ++i) {
    const json& e = (*entries)[i];
    std::string at = "entry_points[" + std::to_string(i) + "]";
    if (!e.is_object()) return r.Fail(at, "must be an object");
    EntryPointInfo info;
    if (!r.String(e, "name", at, &info.name)) return false;
    auto sizes = e.find("numthreads");
    if (sizes == e.end() || !sizes->is_array() || sizes->size() != 3) {
      return r.Fail(at, "\"numthreads\" must be an array of 3 integers");
    }
    for (size_t d = 0; d < 3; ++d) {
      if (!(*sizes)[d].is_number_unsigned()) {
        return r.Fail(at, "\"numthreads\" must be an array of 3 integers");
      }
      info.numthreads[d] = (*sizes)[d].get<uint32_t>();
    }
    auto ids = e.find("numthreads_constant_ids");
    if (ids != e.end()) {
      if (!ids->is_array() || ids->size() != 3) {
        return r.Fail(at, "\"numthreads_constant_ids\" must be an array of 3 ids or nulls");
      }
      for (size_t d = 0; d < 3; ++d) {
        const json& id = (*ids)[d];
        if (id.is_null()) continue;
        if (!id.is_number_unsigned() || id.get<uint64_t>() > 0x7fffffffu) {
          return r.Fail(at, "\"numthreads_constant_ids\" must be an array of 3 ids or nulls");
        }
        info.numthreads_spec_ids[d] = id.get<int64_t>();
      }
    }
    auto wave_size = e.find("wave_size");
    if (wave_size != e.end()) {
      if (!wave_size->is_number_unsigned()) {
        return r.Fail(at, "\"wave_size\" must be an unsigned integer");
      }
      info.wave_size = wave_size->get<uint32_t>();
    }
    out->entry_points.push_back(std::move(info));
  }
  for (size_t i = 0; i < parameters->size(); ++i) {
    const json& p = (*parameters)[i];
    std::string at = "parameters[" + std::to_string(i) + "]";
    if (!p.is_object()) return r.Fail(at, "must be an object");
    BindingInfo b;
    std::string kind;
    if (!r.String(p, "name", at, &b.name) || !r.String(p, "kind", at, &kind)) return false;
    bool known = false;
    for (ResourceKind k : kResourceKinds) {
      if (kind == ResourceKindName(k)) {
        b.kind = k;
        known = true;
      }
    }
    if (!known) return r.Fail(at, "unknown kind '" + kind + "'");
    if (b.kind == ResourceKind::PushConstant) {
      if (!r.String(p, "entry_point", at, &b.entry_point)) return false;
    } else if (!r.UInt(p, "set", at, &b.set) || !r.UInt(p, "binding", at, &b.binding)) {
      return false;
    }
    if (b.kind == ResourceKind::Sampler) {
      auto cmp = p.find("comparison");
      b.texture.comparison = cmp != p.end() && cmp->is_boolean() && cmp->get<bool>();
      out->bindings.push_back(std::move(b));
      continue;
    }
    if (HasTexture(b.kind)) {
      std::string shape;
      if (!r.String(p, "shape", at, &shape)) return false;
      b.texture.dim = 0;
      for (uint32_t d = 1; d <= 5; ++d) {
        if (shape == kTextureShapes[d]) b.texture.dim = d;
      }
      if (b.texture.dim == 0) return r.Fail(at, "unknown texture shape '" + shape + "'");
      auto arrayed = p.find("arrayed");
      b.texture.arrayed = arrayed != p.end() && arrayed->is_boolean() && arrayed->get<bool>();
      auto format = p.find("format");
      if (format != p.end() && format->is_string()) b.texture.format = format->get<std::string>();
      auto cmp = p.find("comparison");
      b.texture.comparison = cmp != p.end() && cmp->is_boolean() && cmp->get<bool>();
    }
    if (!r.Element(p, at, &b.element)) return false;
    out->bindings.push_back(std::move(b));
  }
  if (!ReadUserAttributes(doc, r, out)) return false;
  if (!ReadDynamicInterfaces(doc, r, out)) return false;
  auto specs = doc.find("specialization_constants");
  if (specs == doc.end()) return true;
  if (!specs->is_array())
    return r.Fail("reflection", "\"specialization_constants\" must be an array");
  for (size_t i = 0; i < specs->size(); ++i) {
    const json& p = (*specs)[i];
    std::string at = "specialization_constants[" + std::to_string(i) + "]";
    if (!p.is_object()) return r.Fail(at, "must be an object");
    SpecConstantInfo s;
    std::string type;
    if (!r.String(p, "name", at, &s.name) || !r.UInt(p, "id", at, &s.id) ||
        !r.String(p, "type", at, &type)) {
      return false;
    }
    uint32_t components = 0, rows = 0;
    if (!ParseTypeName(type, &s.type, &components, &rows) || components != 1 ||
        (s.type != ScalarKind::Bool && s.type != ScalarKind::Int32 &&
         s.type != ScalarKind::UInt32 && s.type != ScalarKind::Float32)) {
      return r.Fail(at, "\"type\" must be int, uint, float or bool");
    }
    auto value = p.find("default");
    bool ok = value != p.end();
    if (ok && s.type == ScalarKind::Bool) {
      ok = value->is_boolean();
      if (ok) s.default_bits = value->get<bool>() ? 1 : 0;
    } else if (ok && s.type == ScalarKind::Float32) {
      ok = value->is_number();
      if (ok) s.default_bits = std::bit_cast<uint32_t>(value->get<float>());
    } else if (ok && s.type == ScalarKind::Int32) {
      ok = value->is_number_integer();
      if (ok) s.default_bits = static_cast<uint32_t>(value->get<int32_t>());
    } else if (ok) {
      ok = value->is_number_unsigned();
      if (ok) s.default_bits = value->get<uint32_t>();
    }
    if (!ok) return r.Fail(at, "\"default\" must be a value of its type");
    s.value_bits = s.default_bits;
    out->spec_constants.push_back(std::move(s));
  }
  return true;
}

}  // namespace slope::driver
