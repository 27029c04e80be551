// Uniform data: `cbuffer NAME { ... }` (members visible unqualified), `ConstantBuffer<T>`
// globals and `uniform` entry-point parameters. All three are read-only values laid out
// in buffer memory by the target (a uniform buffer, or a push-constant block for entry
// parameters), so their types must have a buffer layout: numbers, vectors, float
// matrices, arrays and structs of those, 32 or 64 bits wide.

#include "compiler/sema/global_uniforms.h"
#include "compiler/sema/checker.h"

namespace slope::sema {

using diag::DiagId;

namespace {
/// The first 8- or 16-bit scalar type inside `type`, or null.
const Type* NarrowScalarIn(const Type* type, TypeContext& types) {
  if (type->IsEnum()) return nullptr;
  if (type->IsArray()) return NarrowScalarIn(type->Element(), types);
  if (type->IsStruct()) {
    for (size_t i = 0; i < type->Info()->fields.size(); ++i) {
      if (const Type* t = NarrowScalarIn(types.FieldType(type, i), types)) return t;
    }
    return nullptr;
  }
  if (!type->IsNumericLike()) return nullptr;
  const Type* scalar = type->ScalarType();
  return scalar->Width() < 32 ? scalar : nullptr;
}
}  // namespace

bool Checker::CheckUniformType(const Type* type, const source::SourceRange& range) {
  if (type->IsError()) return false;
  if (ContainsResource(type)) {
    diags_.Report(DiagId::UnsupportedUniformType, range, type->Name(),
                  "it holds a resource; resources are bound on their own");
    return false;
  }
  if (!IsBufferElement(type)) {
    diags_.Report(DiagId::UnsupportedUniformType, range, type->Name(),
                  "uniform data must be numbers, vectors, float matrices, or arrays and "
                  "structs of them");
    return false;
  }
  if (const Type* narrow = NarrowScalarIn(type, types_)) {
    diags_.Report(DiagId::UnsupportedUniformType, range, type->Name(),
                  "8- and 16-bit scalars ('" + narrow->Name() + "') need device features "
                  "uniform buffers do not request; use 32-bit types");
    return false;
  }
  return true;
}

void Checker::DeclarePushConstantBlock(ast::Decl* block, const ast::Attribute& attr) {
  const ast::Attribute* binding = block->FindAttribute("vk::binding");
  if (binding != nullptr) {
    diags_.Report(DiagId::AttributeNotSupportedHere, binding->range, binding->name,
                  "a push-constant block, which has no binding");
  }
  if (push_constant_block_ != nullptr) {
    diags_.Report(DiagId::InvalidGlobal, attr.range,
                  "a module has one push-constant block (Vulkan gives an entry point one)")
        .Note(DiagId::DeclaredHere, push_constant_block_->name_range, push_constant_block_->name);
    return;
  }
  push_constant_block_ = block;
}

void Checker::DeclareBufferBlock(ast::AggregateDecl* block, std::vector<ast::Decl*>* decls) {
  CheckAttributes(block->attributes, {"vk::binding", "vk::push_constant"});
  if (const ast::Attribute* push = block->FindAttribute("vk::push_constant")) {
    DeclarePushConstantBlock(block, *push);
  }
  CheckRegister(block->register_args, block->name_range, 'b', "a cbuffer");
  uint32_t index = 0;
  for (ast::Decl* member : block->members) {
    auto* var = member->kind == ast::DeclKind::Var ? static_cast<ast::VarDecl*>(member) : nullptr;
    if (var == nullptr || var->is_static || var->is_const || var->init != nullptr) {
      diags_.Report(DiagId::UnsupportedConstruct, member->name_range,
                    "declarations other than plain variables in a 'cbuffer'", "are");
      continue;
    }
    var->role = ast::VarRole::Global;
    var->uniform_kind = ast::UniformKind::CBufferMember;
    var->uniform_block = block;
    var->uniform_index = index++;
    decls->push_back(var);
  }
}

void Checker::DeclareGlobalUniform(ast::VarDecl* var, CheckedModule* out) {
  if (var->init != nullptr) {
    diags_.Report(DiagId::InvalidGlobal, var->init->range,
                  "a uniform global is set by the host and cannot have an initializer; "
                  "write 'static const' for a constant");
    return;
  }
  if ((var->modifiers & ast::kModConst) != 0) {
    diags_.Report(DiagId::InvalidGlobal, var->name_range,
                  "a 'const' global needs 'static' and an initializer to be a constant");
    return;
  }
  if (!CheckUniformType(var->type, var->type_expr->range)) return;
  if (global_params_ == nullptr) {
    global_params_ = ctx_.New<ast::AggregateDecl>(ast::DeclKind::BufferBlock, "GlobalParams",
                                                  var->name_range);
    global_params_->attributes.push_back(
        {std::string(kGlobalUniformsAttribute), {}, var->name_range});
    out->resources.insert(out->resources.begin(), global_params_);
  }
  var->uniform_kind = ast::UniformKind::CBufferMember;
  var->uniform_block = global_params_;
  var->uniform_index = static_cast<uint32_t>(global_params_->members.size());
  global_params_->members.push_back(var);
}

void Checker::CheckRegister(const std::vector<std::string>& args, const source::SourceRange& range,
                            char letter, const char* what) {
  if (args.empty()) return;
  auto number_after = [](const std::string& s, size_t prefix) {
    if (s.size() <= prefix) return false;
    for (size_t i = prefix; i < s.size(); ++i) {
      if (s[i] < '0' || s[i] > '9') return false;
    }
    return true;
  };
  std::string expected = std::string("'") + letter + "N' and an optional 'spaceM'";
  const std::string& reg = args[0];
  if (reg.empty() || reg[0] != letter || !number_after(reg, 1)) {
    diags_.Report(DiagId::InvalidRegister, range, reg, what, expected);
    return;
  }
  if (args.size() > 2 || (args.size() == 2 && (args[1].rfind("space", 0) != 0 ||
                                               !number_after(args[1], 5)))) {
    diags_.Report(DiagId::InvalidRegister, range, args.back(), what, expected);
  }
}

bool Checker::CheckResourceStructFields(const Type* type, const std::string& prefix,
                                        const source::SourceRange& range, const Type* outer) {
  if (outer == nullptr) outer = type;
  bool ok = true;
  for (size_t i = 0; i < type->Info()->fields.size(); ++i) {
    const Type* field = types_.FieldType(type, i);
    std::string name = prefix + type->Info()->fields[i]->name;
    if (field->IsResource()) continue;  // a buffer, texture or sampler: bound on its own
    if (field->IsStruct() && ContainsResource(field)) {
      // `DiffTensorView` holds `TensorView`s: their buffers are bound on their own too.
      ok = CheckResourceStructFields(field, name + ".", range, outer) && ok;
    } else if (ContainsResource(field)) {
      diags_.Report(DiagId::UnsupportedUniformType, range, outer->Name(),
                    "field '" + name +
                        "' holds resources inside an array; only buffer, texture and sampler "
                        "fields (also inside nested structs) are bound on their own");
      ok = false;
    } else {
      ok = CheckUniformType(field, range) && ok;
    }
  }
  return ok;
}

void Checker::CheckResourceStruct(ast::VarDecl* var, bool parameter_block,
                                  CheckedModule* out) {
  const source::SourceRange& range =
      parameter_block ? var->type_expr->type_args[0]->range : var->type_expr->range;
  if (var->init != nullptr) {
    diags_.Report(DiagId::InvalidGlobal, var->init->range,
                  "a global holding resources cannot have an initializer");
  }
  if (!var->type->IsStruct()) {
    diags_.Report(DiagId::UnsupportedUniformType, range, var->type->Name(),
                  "the element of a 'ParameterBlock' must be a struct");
    return;
  }
  bool ok = CheckResourceStructFields(var->type, "", range);
  if (!ok) return;
  var->uniform_kind =
      parameter_block ? ast::UniformKind::ParameterBlock : ast::UniformKind::ResourceStruct;
  out->resources.push_back(var);
}

void Checker::CheckUniformEntryParam(ast::FuncDecl* func, ast::VarDecl* param) {
  if (!param->semantic.empty()) {
    diags_.Report(DiagId::InvalidEntryParameter, param->semantic_range, param->name,
                  "is 'uniform' and cannot have a semantic");
    return;
  }
  if (param->direction != ast::ParamDirection::In) {
    diags_.Report(DiagId::InvalidEntryParameter, param->name_range, param->name,
                  "is 'uniform' and cannot be 'out' or 'inout'");
    return;
  }
  if (param->type->IsResource()) {
    // `uniform RWStructuredBuffer<T> b`: bound like a global buffer (after the globals).
    param->role = ast::VarRole::Global;
    return;
  }
  if (param->type->IsStruct() && ContainsResource(param->type)) {
    // A struct holding buffers (`TensorView<float> t`): bound like such a global.
    if (!CheckResourceStructFields(param->type, "", param->type_expr->range)) return;
    param->role = ast::VarRole::Global;
    param->uniform_kind = ast::UniformKind::ResourceStruct;
    return;
  }
  if (!CheckUniformType(param->type, param->type_expr->range)) return;
  if (push_constant_block_ != nullptr) {
    // The uniform parameters are the entry point's push-constant block.
    diags_.Report(DiagId::InvalidEntryParameter, param->name_range, param->name,
                  "is 'uniform', which makes it a push constant, and the module already "
                  "has a push-constant block; Vulkan gives an entry point one")
        .Note(DiagId::DeclaredHere, push_constant_block_->name_range, push_constant_block_->name);
    return;
  }
  uint32_t index = 0;
  for (ast::VarDecl* p : func->params) {
    if (p == param) break;
    // Buffers and structs holding them are bound on their own.
    if (p->is_uniform && !p->type->IsResource() && !ContainsResource(p->type)) ++index;
  }
  param->uniform_kind = ast::UniformKind::EntryParam;
  param->uniform_index = index;
}

}  // namespace slope::sema
