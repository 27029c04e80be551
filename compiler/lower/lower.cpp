#include "compiler/lower/lower.h"

#include <algorithm>
#include <cctype>
#include <functional>
#include <map>
#include <set>
#include <unordered_set>

#include "compiler/base/ice.h"
#include "compiler/ir/cfg.h"
#include "compiler/ir/type_walk.h"
#include "compiler/lower/lowerer.h"
#include "compiler/sema/global_uniforms.h"

namespace slope::lower {

using ir::Op;
using ir::Value;

std::unique_ptr<ir::Module> Lowerer::Run(const sema::CheckedModule& checked, bool reachable_only) {
  check_deferred_body_ = checked.check_deferred_body;
  DeclareGlobals(checked.resources);
  DeclareGroupShared(checked.groupshared);
  DeclareStatics(checked.statics);
  DeclareSpecConstants(checked.spec_constants);
  entries_.insert(checked.entry_points.begin(), checked.entry_points.end());
  // Every non-generic function is lowered; generic ones and the methods of extensions
  // (the core library's among them) when a call uses them.
  std::vector<const ast::FuncDecl*> plain;
  for (ast::FuncDecl* decl : checked.functions) {
    bool in_extension = decl->parent != nullptr && decl->parent->kind == ast::DeclKind::Extension;
    if (decl->generic_context.empty() && !in_extension) plain.push_back(decl);
  }
  reachable_only = reachable_only && !checked.entry_points.empty();
  if (reachable_only) {
    // Only the entry points to begin with; the other functions when something lowered
    // refers to them (a call, a derivative attribute, fwd_diff/bwd_diff, a dispatch's
    // witness). Each keeps the name it has when all are lowered: names are taken in
    // source order first.
    for (size_t i = 0; i < plain.size(); ++i) {
      std::string name = UniqueFunctionName(FunctionName(plain[i]));
      function_names_.insert(name);
      reserved_names_.emplace(plain[i], std::make_pair(std::move(name), i));
    }
    for (const ast::FuncDecl* decl : checked.entry_points) Instance(decl, {});
  } else {
    for (const ast::FuncDecl* decl : plain) Instance(decl, {});
  }
  size_t lowered = 0;
  do {
    for (; lowered < pending_.size(); ++lowered) {
      Pending p = pending_[lowered];
      subst_.clear();
      for (size_t k = 0; k < p.args.size(); ++k) subst_[p.decl->generic_context[k]] = p.args[k];
      LowerFunction(p.decl, p.function);
    }
    subst_.clear();
  } while (ExpandDispatchers() || lowered < pending_.size());
  FinishExistentials();
  if (reachable_only) {
    // In the order all would have: the non-generic functions in source order, then the
    // rest as they were made.
    auto rank = [&](const ir::Function* f) {
      auto it = source_index_.find(f);
      return it != source_index_.end() ? it->second : plain.size();
    };
    std::stable_sort(
        module_->functions.begin(), module_->functions.end(),
        [&](const ir::Function* a, const ir::Function* b) { return rank(a) < rank(b); });
  }
  return std::move(module_);
}

std::string MangledTypeName(const sema::Type* t) {
  if (t->IsPack()) {
    // `(int, float)` -> "pack2.int.float"
    std::string pack = "pack" + std::to_string(t->Args().size());
    for (const sema::Type* e : t->Args()) pack += "." + MangledTypeName(e);
    return pack;
  }
  std::string out;
  // `float[3]` -> "float.arr3", `S*` -> "S.ptr": names the IR text reads back.
  for (char c : t->Name()) {
    if (c == '<' || c == ',' || (c == ':' && (out.empty() || out.back() != '.'))) {
      out += '.';
    } else if (c == '[') {
      out += ".arr";
    } else if (c == '*') {
      out += ".ptr";
    } else if (c != '>' && c != ' ' && c != ':' && c != ']') {
      out += c;
    }
  }
  return out;
}

ir::Function* Lowerer::Instance(const ast::FuncDecl* decl,
                                const std::vector<const sema::Type*>& args) {
  auto key = std::make_pair(decl, args);
  auto it = instances_.find(key);
  if (it != instances_.end()) return it->second;
  // Overloads and specializations share a source name; the IR name tells them apart.
  std::string base = FunctionName(decl);
  for (const sema::Type* a : args) base += "." + MangledTypeName(a);
  auto reserved = reserved_names_.find(decl);
  std::string name =
      reserved != reserved_names_.end() ? reserved->second.first : UniqueFunctionName(base);
  sema::Subst saved = subst_;
  subst_.clear();
  for (size_t k = 0; k < args.size(); ++k) subst_[decl->generic_context[k]] = args[k];
  const sema::Type* result = decl->func_kind == ast::FuncKind::Init ? decl->owner : decl->result_type;
  ir::Function* f = module_->AddFunction(name, LowerType(result));
  subst_ = std::move(saved);
  if (reserved != reserved_names_.end()) source_index_.emplace(f, reserved->second.second);
  f->is_entry = entries_.count(decl) != 0;
  f->force_inline = decl->FindAttribute("ForceInline") != nullptr;
  instances_.emplace(key, f);
  instance_decls_.emplace(f, decl);
  pending_.push_back({decl, args, f});
  MarkDifferentiable(decl, f, args);
  return f;
}

ir::Function* Lowerer::SynthesizedDiffOp(const sema::Type* owner, const ast::FuncDecl* req,
                                         const sema::Type* iface) {
  auto key = std::make_pair(owner, req->name);
  auto made = synthesized_ops_.find(key);
  if (made != synthesized_ops_.end()) return made->second;
  sema::Subst subst = types_.RequirementSubst(iface, owner);
  bool init = req->func_kind == ast::FuncKind::Init;
  const ir::Type* type = LowerType(init ? owner : types_.Substitute(req->result_type, subst));
  ir::Function* f =
      module_->AddFunction(UniqueFunctionName(MangledTypeName(owner) + "." + req->name), type);
  synthesized_ops_.emplace(key, f);
  for (const ast::VarDecl* param : req->params) {
    ir::Param* p = module_->AddParam(LowerType(types_.Substitute(param->type, subst)), nullptr);
    f->params.push_back(p);
  }
  ir::Function* saved_func = func_;
  ir::Block* saved_block = b_.GetInsertBlock();
  func_ = f;
  ir::Block* entry = module_->AddBlock(f);
  f->blocks.push_back(entry);
  b_.SetInsertBlock(entry);
  // A synthesized Differential is a struct of the fields' differentials: the vector-space
  // operations apply leaf by leaf (floats, vectors, matrices; through structs and arrays).
  if (init) {
    b_.Return(DefaultOf(owner));
  } else if (req->name == "dzero") {
    b_.Return(Zero(type));
  } else if (req->name == "dadd") {
    b_.Return(DiffLeaves(type, f->params[0], f->params[1], nullptr));
  } else {
    b_.Return(DiffLeaves(type, nullptr, f->params[1], f->params[0]));
  }
  func_ = saved_func;
  b_.SetInsertBlock(saved_block);
  return f;
}

Value* Lowerer::DiffLeaves(const ir::Type* t, Value* a, Value* b, Value* scale) {
  if (t->IsStruct() || t->IsArray()) {
    std::vector<Value*> parts;
    uint32_t n = t->IsStruct() ? static_cast<uint32_t>(t->Members().size()) : t->Count();
    for (uint32_t i = 0; i < n; ++i) {
      const ir::Type* part = t->IsStruct() ? t->Members()[i] : t->Element();
      parts.push_back(DiffLeaves(part, a != nullptr ? b_.Extract(a, i) : nullptr,
                                 b_.Extract(b, i), scale));
    }
    return t->IsStruct() ? b_.MakeStruct(t, parts) : b_.MakeArray(t, parts);
  }
  if (!t->Scalar()->IsFloat()) return b;  // no derivative lives here
  if (a != nullptr) return b_.Binary(Op::Add, a, b);
  Value* s = ConvertValue(scale, t->Scalar());
  if (t->IsMatrix()) s = SplatMatrix(s, t);
  else if (t->IsVector()) s = b_.Splat(s, t->Count());
  return b_.Binary(Op::Mul, s, b);
}

std::string Lowerer::UniqueFunctionName(const std::string& base) {
  for (; function_names_seen_ < module_->functions.size(); ++function_names_seen_) {
    function_names_.insert(module_->functions[function_names_seen_]->Name());
  }
  // A name taken by a function since removed stays taken: the result is still unique.
  std::string name = base;
  if (function_names_.count(name) == 0) return name;
  int& n = next_suffix_[base];
  n = std::max(n, 1);
  for (name = base + "." + std::to_string(n); function_names_.count(name) != 0;
       name = base + "." + std::to_string(n)) {
    ++n;
  }
  return name;
}

ir::Function* Lowerer::Callee(const ast::CallExpr* call) {
  const ast::FuncDecl* f = call->func;
  const sema::Type* owner = nullptr;
  if (call->receiver != nullptr) {
    owner = Concrete(call->receiver->type);
  } else if (call->static_owner != nullptr) {
    owner = Concrete(call->static_owner);
  } else if (call->constructed != nullptr) {
    owner = Concrete(call->constructed);
  }
  if (f->parent != nullptr && f->parent->kind == ast::DeclKind::Interface) {
    // An interface requirement: the concrete type's implementation, or a dispatch on
    // the tag of an interface-typed value.
    SLOPE_ASSERT(owner != nullptr && call->via_interface != nullptr);
    const sema::Type* iface = Concrete(call->via_interface);
    if (owner->IsInterface()) return Dispatcher(owner, f, iface, call);
    return WitnessInstance(owner, f, iface, call);
  }
  sema::Subst context;
  if (f->parent != nullptr) {
    if (owner == nullptr || !types_.MethodContext(f, owner, &context)) {
      SLOPE_ICE("cannot bind the context of method '" + f->name + "'");
    }
  }
  return InstanceIn(f, std::move(context), call);
}

ir::Function* Lowerer::WitnessInstance(const sema::Type* owner, const ast::FuncDecl* req,
                                       const sema::Type* iface, const ast::CallExpr* call,
                                       const std::vector<const sema::Type*>* own) {
  sema::Subst context;
  const ast::FuncDecl* f = types_.FindWitness(owner, req, iface, &context);
  if (f == nullptr && (owner->IsStruct() || owner->IsArray()) &&
      (req->name == "dzero" || req->name == "dadd" || req->name == "dmul")) {
    return SynthesizedDiffOp(owner, req, iface);
  }
  if (f == nullptr && req->func_kind == ast::FuncKind::Init && req->params.empty()) {
    return SynthesizedDiffOp(owner, req, iface);  // IDefaultInitializable's `__init()`
  }
  if (f == nullptr) SLOPE_ICE("no implementation of '" + req->name + "' for '" + owner->Name() + "'");
  if (own != nullptr) return InstanceWith(f, std::move(context), *own);
  return InstanceIn(f, std::move(context), call);
}

ir::Function* Lowerer::InstanceIn(const ast::FuncDecl* f, sema::Subst context,
                                  const ast::CallExpr* call) {
  std::vector<const sema::Type*> own;
  if (call != nullptr) {
    for (const sema::Type* a : call->generic_args) own.push_back(Concrete(a));
  }
  return InstanceWith(f, std::move(context), own);
}

ir::Function* Lowerer::InstanceWith(const ast::FuncDecl* f, sema::Subst context,
                                    const std::vector<const sema::Type*>& own) {
  for (size_t i = 0; i < own.size(); ++i) {
    context[f->generic_context[f->own_generic_begin + i]] = own[i];
  }
  std::vector<const sema::Type*> args;
  for (const sema::Type* p : f->generic_context) {
    auto bound = context.find(p);
    if (bound == context.end()) SLOPE_ICE("unbound generic parameter '" + p->Name() + "'");
    args.push_back(bound->second);
  }
  return Instance(f, args);
}

const ir::Type* Lowerer::LowerType(const sema::Type* t) {
  t = Concrete(t);
  auto it = type_cache_.find(t);
  if (it != type_cache_.end()) return it->second;
  ir::TypeTable& types = module_->Types();
  const ir::Type* result = nullptr;
  switch (t->Kind()) {
    case sema::TypeKind::Void: result = types.Void(); break;
    case sema::TypeKind::Bool: result = types.Bool(); break;
    case sema::TypeKind::Int: result = types.Int(t->Width(), true); break;
    case sema::TypeKind::UInt: result = types.Int(t->Width(), false); break;
    case sema::TypeKind::Float: result = types.Float(t->Width()); break;
    case sema::TypeKind::Vector: result = types.Vector(LowerType(t->Element()), t->Count()); break;
    case sema::TypeKind::Buffer:
      // `StructuredBuffer<IFoo>` holds IFoo's stored form (lower_dynamic.cpp).
      result = types.Buffer(Concrete(t->Element())->IsInterface() ? StoredType(t->Element())
                                                                  : LowerType(t->Element()),
                            t->IsWritable());
      break;
    case sema::TypeKind::Texture:
      result = types.Texture(LowerType(t->Element()), static_cast<ir::TextureDim>(t->TextureDim()),
                             t->IsTextureArray(), t->IsWritable(), t->IsCombinedSampler(),
                             t->IsShadowSampler());
      break;
    case sema::TypeKind::Sampler: result = types.Sampler(t->IsComparisonSampler()); break;
    case sema::TypeKind::Pointer: {
      const sema::Type* pointee = Concrete(t->Element());
      if (structs_in_progress_.contains(pointee)) {
        // `struct Node { Node* next; }`: the struct, defined once its members are lowered.
        result = types.Pointer(ir::AddressSpace::Device, types.Struct(StructIrName(pointee), {}, {}));
        break;
      }
      result = types.Pointer(ir::AddressSpace::Device, LowerType(pointee));
      break;
    }
    case sema::TypeKind::Struct:
      // `Atomic<T>` has T's layout, and atomics work on its value in place.
      result = IsCoreAtomic(t) ? LowerType(Concrete(t->Args()[0])) : LowerStructType(t);
      break;
    case sema::TypeKind::Enum: result = LowerType(t->Element()); break;
    case sema::TypeKind::Array: result = types.Array(LowerType(t->Element()), t->Count()); break;
    case sema::TypeKind::Matrix:
      result = types.Matrix(LowerType(t->Element()), t->Rows(), t->Cols());
      break;
    case sema::TypeKind::Error: SLOPE_ICE("error type reached lowering");
    case sema::TypeKind::Pack: SLOPE_ICE("a type pack reached LowerType: " + t->Name());
    case sema::TypeKind::InitList:
      SLOPE_ICE("an untyped initializer list reached LowerType");
    case sema::TypeKind::Interface: result = ExistentialType(t); break;
    case sema::TypeKind::GenericParam:
    case sema::TypeKind::AssocType:
    case sema::TypeKind::IntValue:
    case sema::TypeKind::IntExpr:
      SLOPE_ICE("type '" + t->Name() + "' is not specialized in lowering");
  }
  type_cache_[t] = result;
  return result;
}

namespace {
bool IntArg(const ast::Attribute& a, size_t i, uint32_t* out) {
  if (i >= a.args.size() || a.args[i]->kind != ast::ExprKind::IntLiteral) return false;
  *out = static_cast<uint32_t>(static_cast<const ast::IntLiteralExpr*>(a.args[i])->value);
  return true;
}

/// `[[vk::binding(b, s)]]` on `decl`: true with its binding and set.
bool VkBinding(const ast::Decl& decl, uint32_t* binding, uint32_t* set) {
  const ast::Attribute* a = decl.FindAttribute("vk::binding");
  if (a == nullptr) return false;
  IntArg(*a, 0, binding);
  IntArg(*a, 1, set);
  return true;
}
}  // namespace

namespace {
/// The texel format of RW texture `var`: its `[format]` / `[[vk::image_format]]` (sema
/// checked it), else the one its texel type implies, as Slang infers it (float4:
/// rgba32f, int2: rg32i, uint: r32ui, ...); 3-component texels have none (Unknown).
ir::ImageFormat StorageFormatOf(const ast::VarDecl& var, const ir::Type* texel) {
  const ast::Attribute* a = var.FindAttribute("format");
  if (a == nullptr) a = var.FindAttribute("vk::image_format");
  ir::ImageFormat format = ir::ImageFormat::Unknown;
  if (a != nullptr && a->args.size() == 1 && a->args[0]->kind == ast::ExprKind::StringLiteral &&
      ir::FindImageFormat(static_cast<const ast::StringLiteralExpr*>(a->args[0])->value, &format)) {
    return format;
  }
  const ir::Type* s = texel->Scalar();
  const char* suffix = s->IsFloat() ? "32f" : s->IsSigned() ? "32i" : "32ui";
  const char* channels = texel->Count() == 4 ? "rgba" : texel->Count() == 2 ? "rg" : texel->Count() == 1 ? "r" : nullptr;
  if (channels == nullptr) return ir::ImageFormat::Unknown;
  ir::FindImageFormat(std::string(channels) + suffix, &format);
  return format;
}

}  // namespace

/// `register(b2, space1)` -> binding 2, set 1 (sema checked the spelling), plus the
/// shifts of the register's class in that space.
bool Lowerer::RegisterBinding(const std::vector<std::string>& args, uint32_t* binding,
                              uint32_t* set) const {
  if (args.empty()) return false;
  *binding = static_cast<uint32_t>(std::stoul(args[0].substr(1)));
  *set = args.size() > 1 ? static_cast<uint32_t>(std::stoul(args[1].substr(5))) : 0;
  const char register_class = static_cast<char>(std::tolower(args[0][0]));
  for (const RegisterShift& shift : binding_options_.register_shifts) {
    if (shift.register_class == register_class && (!shift.space || *shift.space == *set)) {
      *binding += shift.amount;
    }
  }
  return true;
}

void Lowerer::DeclareGlobals(const std::vector<ast::Decl*>& resources) {
  // Explicit bindings first; the rest take the next free binding of set 0. Parameter
  // blocks take the sets after the highest one named explicitly.
  std::set<std::pair<uint32_t, uint32_t>> used;
  next_block_set_ = 1;
  for (ast::Decl* decl : resources) {
    if (const ast::Attribute* a = decl->FindAttribute("vk::binding")) {
      uint32_t set = 0;
      IntArg(*a, 1, &set);
      next_block_set_ = std::max(next_block_set_, set + 1);
    }
    if (decl->kind == ast::DeclKind::BufferBlock || decl->kind == ast::DeclKind::Var) {
      const std::vector<std::string>* args =
          decl->kind == ast::DeclKind::BufferBlock
              ? &static_cast<ast::AggregateDecl*>(decl)->register_args
              : static_cast<ast::VarDecl*>(decl)->semantic == "register"
                  ? &static_cast<ast::VarDecl*>(decl)->semantic_args
                  : nullptr;
      uint32_t binding = 0, set = 0;
      if (args != nullptr && RegisterBinding(*args, &binding, &set)) {
        next_block_set_ = std::max(next_block_set_, set + 1);
      }
      if (binding_options_.globals_binding &&
          decl->FindAttribute(sema::kGlobalUniformsAttribute) != nullptr) {
        next_block_set_ = std::max(next_block_set_, binding_options_.globals_set + 1);
      }
    }
  }
  std::vector<std::pair<ir::Global*, bool>> made;  // (global, bound explicitly)
  for (ast::Decl* decl : resources) {
    ir::Global* g = nullptr;
    const std::vector<std::string>* register_args = nullptr;
    // `[[vk::push_constant]]`: the block is push constants, which have no binding.
    const bool push = decl->FindAttribute("vk::push_constant") != nullptr;
    const ir::AddressSpace space = push ? ir::AddressSpace::PushConstant : ir::AddressSpace::Uniform;
    if (decl->kind == ast::DeclKind::BufferBlock) {
      // `cbuffer NAME { ... }`: a uniform buffer holding a struct of the members.
      auto* block = static_cast<ast::AggregateDecl*>(decl);
      std::vector<const ir::Type*> members;
      std::vector<std::string> names;
      for (ast::Decl* m : block->members) {
        auto* var = static_cast<ast::VarDecl*>(m);
        if (var->uniform_block != block) continue;  // rejected by sema
        members.push_back(LowerType(var->type));
        names.push_back(var->name);
      }
      const ir::Type* s = module_->Types().Struct(block->name + ".cbuffer", members, names);
      g = module_->AddGlobal(module_->Types().Pointer(space, s), block->name);
      g->loc = block->name_range.begin;
      uniform_blocks_[block] = g;
      register_args = &block->register_args;
    } else if (auto* var = static_cast<ast::VarDecl*>(decl);
               var->type->IsArray() && var->type->Element()->IsBuffer()) {
      DeclareBufferArray(var, &made, &used);
      continue;
    } else if (var->uniform_kind == ast::UniformKind::ResourceStruct ||
               var->uniform_kind == ast::UniformKind::ParameterBlock) {
      DeclareResourceStruct(var, &made);
      for (size_t k = made.size(); k-- > 0 && made[k].second;) {
        used.insert({made[k].first->set, made[k].first->binding});
      }
      continue;
    } else {
      const ir::Type* t = LowerType(var->type);
      if (var->uniform_kind == ast::UniformKind::ConstantBuffer) {
        // `ConstantBuffer<T> p`: a block of its own holding one `T` named `p`, so that
        // `T` stays free to be nested in other blocks (SPIR-V forbids nesting a Block).
        const ir::Type* block = module_->Types().Struct(var->name + ".cbuffer", {t}, {var->name});
        t = module_->Types().Pointer(space, block);
      }
      g = module_->AddGlobal(t, var->name);
      g->loc = var->name_range.begin;
      if (t->IsTexture() && t->IsWritable()) g->image_format = StorageFormatOf(*var, t->Element());
      globals_[var] = g;
      if (var->semantic == "register") register_args = &var->semantic_args;
    }
    if (push) continue;
    bool explicit_binding = VkBinding(*decl, &g->binding, &g->set);
    if (!explicit_binding && register_args != nullptr) {
      explicit_binding = RegisterBinding(*register_args, &g->binding, &g->set);
    }
    if (!explicit_binding && binding_options_.globals_binding &&
        decl->FindAttribute(sema::kGlobalUniformsAttribute) != nullptr) {
      g->binding = *binding_options_.globals_binding;
      g->set = binding_options_.globals_set;
      explicit_binding = true;
    }
    if (explicit_binding) used.insert({g->set, g->binding});
    made.emplace_back(g, explicit_binding);
    if (decl->kind == ast::DeclKind::Var &&
        static_cast<ast::VarDecl*>(decl)->type->IsCounterBuffer()) {
      // An Append/ConsumeStructuredBuffer's counter: a one-word RW buffer `NAME.counter`
      // bound at the next free binding.
      auto* var = static_cast<ast::VarDecl*>(decl);
      const ir::Type* word = module_->Types().Buffer(module_->Types().Int(32, false), true);
      ir::Global* counter = module_->AddGlobal(word, var->name + ".counter");
      counter->loc = var->name_range.begin;
      counters_[var] = counter;
      // `[[vk::counter_binding(n)]]`: binding n in the buffer's set.
      bool counter_explicit = false;
      if (const ast::Attribute* a = var->FindAttribute("vk::counter_binding")) {
        IntArg(*a, 0, &counter->binding);
        counter->set = g->set;
        used.insert({counter->set, counter->binding});
        counter_explicit = true;
      }
      made.emplace_back(counter, counter_explicit);
    }
  }
  uint32_t next = 0;
  for (auto& [g, explicit_binding] : made) {
    if (explicit_binding) continue;
    while (used.count({0, next}) != 0) ++next;
    g->binding = next;
    used.insert({0, next});
  }
}

void Lowerer::DeclareBufferArray(const ast::VarDecl* var,
                                  std::vector<std::pair<ir::Global*, bool>>* made,
                                  std::set<std::pair<uint32_t, uint32_t>>* used) {
  const ir::Type* element = LowerType(var->type->Element());
  std::vector<ir::Global*>& globals = buffer_arrays_[var];
  uint32_t set = 0, binding = 0;
  bool explicit_binding = VkBinding(*var, &binding, &set);
  if (!explicit_binding && var->semantic == "register") {
    explicit_binding = RegisterBinding(var->semantic_args, &binding, &set);
  }
  for (uint32_t k = 0; k < var->type->Count(); ++k) {
    ir::Global* g = module_->AddGlobal(element, var->name + "[" + std::to_string(k) + "]");
    g->loc = var->name_range.begin;
    g->set = set;
    g->binding = binding + k;
    if (explicit_binding) used->insert({set, binding + k});
    made->emplace_back(g, explicit_binding);
    globals.push_back(g);
  }
}

void Lowerer::DeclareResourceStruct(const ast::VarDecl* var,
                                    std::vector<std::pair<ir::Global*, bool>>* made) {
  // The members, depth first: a struct holding resources (a `TensorView` inside a
  // `DiffTensorView`) is walked into, so each leaf is a resource or plain data.
  struct Leaf {
    const ir::Type* type;
    std::string name;                        ///< `primal.data`
    const ast::VarDecl* field = nullptr;     ///< its declaration, for [format(...)]
  };
  std::vector<Leaf> leaves;
  std::function<void(const sema::Type*, const std::string&)> walk =
      [&](const sema::Type* type, const std::string& prefix) {
        const ir::Type* s = LowerType(type);
        const sema::StructInfo* info = Concrete(type)->Info();
        for (size_t i = 0; i < s->Members().size(); ++i) {
          const ir::Type* member = s->Members()[i];
          std::string name = prefix + s->MemberNames()[i];
          size_t index = info != nullptr ? FieldOfMember(Concrete(type), i) : i;
          const ast::VarDecl* field =
              info != nullptr && index < info->fields.size() ? info->fields[index] : nullptr;
          if (member->IsStruct() && ir::ContainsResource(member)) {
            walk(types_.FieldType(Concrete(type), index), name + ".");
          } else {
            leaves.push_back({member, name, field});
          }
        }
      };
  walk(var->type, "");
  std::vector<const ir::Type*> plain;
  std::vector<std::string> plain_names;
  for (const Leaf& leaf : leaves) {
    if (leaf.type->IsResource()) continue;
    plain.push_back(leaf.type);
    plain_names.push_back(leaf.name);
  }
  // The uniform buffer of the plain members (if any) comes first, then each buffer,
  // texture and sampler.
  ir::Global* uniforms = nullptr;
  std::vector<ir::Global*> order;
  if (!plain.empty()) {
    const ir::Type* block = module_->Types().Struct(var->name + ".uniforms", plain, plain_names);
    uniforms = module_->AddGlobal(module_->Types().Pointer(ir::AddressSpace::Uniform, block),
                                  var->name);
    uniforms->loc = var->name_range.begin;
    order.push_back(uniforms);
  }
  ResourceStructGlobals& globals = resource_structs_[var];
  uint32_t plain_index = 0;
  for (const Leaf& leaf : leaves) {
    if (!leaf.type->IsResource()) {
      globals.members.emplace_back(uniforms, plain_index++);
      continue;
    }
    ir::Global* g = module_->AddGlobal(leaf.type, var->name + "." + leaf.name);
    g->loc = var->name_range.begin;
    if (leaf.type->IsTexture() && leaf.type->IsWritable() && leaf.field != nullptr) {
      g->image_format = StorageFormatOf(*leaf.field, leaf.type->Element());
    }
    globals.members.emplace_back(g, 0);
    order.push_back(g);
  }
  // [[vk::binding(b, s)]]: the first global at binding b of set s, the rest after it. A
  // ParameterBlock without one takes the next set no other resource names explicitly.
  uint32_t set = 0, binding = 0;
  bool explicit_binding = VkBinding(*var, &binding, &set);
  if (!explicit_binding && var->uniform_kind == ast::UniformKind::ParameterBlock) {
    set = next_block_set_++;
    explicit_binding = true;
  }
  for (ir::Global* g : order) {
    g->set = set;
    g->binding = binding++;
    made->emplace_back(g, explicit_binding);
  }
}

Value* Lowerer::LoadResourceStruct(const ast::VarDecl* var) {
  const ResourceStructGlobals& globals = resource_structs_.at(var);
  size_t next = 0;
  // Rebuilds the value in the order DeclareResourceStruct walked it.
  std::function<Value*(const ir::Type*)> build = [&](const ir::Type* s) -> Value* {
    std::vector<Value*> members;
    for (const ir::Type* member : s->Members()) {
      if (member->IsStruct() && ir::ContainsResource(member)) {
        members.push_back(build(member));
        continue;
      }
      const auto& [g, index] = globals.members[next++];
      members.push_back(g->GetType()->IsResource() ? static_cast<Value*>(g)
                                                   : b_.Load(b_.MemberPtr(g, index)));
    }
    return b_.MakeStruct(s, std::move(members));
  };
  return build(LowerType(var->type));
}

ir::Global* Lowerer::PushConstantsOf(const ast::FuncDecl* decl) {
  auto it = push_constants_.find(decl);
  if (it != push_constants_.end()) return it->second;
  std::vector<const ir::Type*> members;
  std::vector<std::string> names;
  for (ast::VarDecl* p : decl->params) {
    if (p->uniform_kind != ast::UniformKind::EntryParam) continue;
    members.push_back(LowerType(p->type));
    names.push_back(p->name);
  }
  const ir::Type* s = module_->Types().Struct(decl->name + ".uniforms", members, names);
  ir::Global* g = module_->AddGlobal(
      module_->Types().Pointer(ir::AddressSpace::PushConstant, s), decl->name + ".uniforms");
  g->loc = decl->name_range.begin;
  push_constants_[decl] = g;
  return g;
}

void Lowerer::DeclareGroupShared(const std::vector<ast::VarDecl*>& vars) {
  for (ast::VarDecl* var : vars) {
    const ir::Type* t = LowerType(var->type);
    globals_[var] = module_->AddGlobal(
        module_->Types().Pointer(ir::AddressSpace::Workgroup, t), var->name);
    globals_[var]->loc = var->name_range.begin;
  }
}

void Lowerer::DeclareStatics(const std::vector<ast::VarDecl*>& vars) {
  std::unordered_set<std::string> taken;
  for (const ir::Global* g : module_->globals) taken.insert(g->Name());
  for (ast::VarDecl* var : vars) {
    // Statics of different namespaces may share a name; IR globals may not.
    std::string name = var->name;
    for (int n = 1; taken.count(name) != 0; ++n) name = var->name + "." + std::to_string(n);
    taken.insert(name);
    const ir::Type* t = LowerType(var->type);
    globals_[var] = module_->AddGlobal(module_->Types().Pointer(ir::AddressSpace::Private, t), name);
    globals_[var]->loc = var->name_range.begin;
    statics_.push_back(var);
  }
}

void Lowerer::InitializeStatics() {
  for (const ast::VarDecl* var : statics_) {
    Loc(var->name_range);
    Value* value = var->init != nullptr         ? LowerExpr(var->init)
                   : Concrete(var->type)->IsStruct() ? DefaultValue(var->type)
                                                     : Zero(LowerType(var->type));
    b_.Store(globals_.at(var), value);
  }
}

void Lowerer::LowerFunction(const ast::FuncDecl* decl, ir::Function* f) {
  base::IceLocationScope ice(sources_.Describe(decl->name_range.begin));
  // A core library function's body is checked the first time a compile needs it.
  if (check_deferred_body_ && !check_deferred_body_(decl)) {
    SLOPE_ICE("the core library's function '" + decl->name + "' does not check");
  }
  ice_ = &ice;
  func_ = f;
  decl_ = decl;
  locals_.clear();
  pack_locals_.clear();
  defer_scopes_.clear();
  catches_.clear();
  throw_flag_ = nullptr;
  throw_err_ = nullptr;
  Place(NewBlock());
  Loc(decl->name_range);
  // While the body is lowered, the entry block holds only the variables and a branch to
  // the block after it, where the code goes: Builder::Var inserts each variable before
  // that one branch rather than before all the code lowered so far (10^5 locals took a
  // minute). JoinEntryBlock makes the two one block again.
  ir::Block* entry = b_.GetInsertBlock();
  body_ = NewBlock();
  b_.Br(body_);
  Place(body_);
  if (f->is_entry) {
    f->entry.numthreads = sema::NumThreadsOf(*decl);
    for (size_t i = 0; i < 3; ++i) {
      auto spec = spec_constants_.find(decl->numthreads_spec[i]);
      if (spec != spec_constants_.end()) f->entry.numthreads_spec[i] = spec->second;
    }
    f->entry.wave_size = sema::WaveSizeOf(*decl);
    if (const ast::Attribute* ws = decl->FindAttribute("WaveSize")) {
      f->entry.wave_size_loc = ws->range.begin;
    }
  }
  bool is_init = decl->func_kind == ast::FuncKind::Init;
  if (decl->this_param != nullptr && !is_init) {
    // A [mutating] method receives a pointer to its object; others a copy.
    const ir::Type* self = LowerType(decl->this_param->type);
    if (decl->is_mutating) {
      const ir::Type* ptr = module_->Types().Pointer(ir::AddressSpace::Function, self);
      ir::Param* p = module_->AddParam(ptr, nullptr);
      f->params.push_back(p);
      locals_[decl->this_param] = p;
    } else {
      ir::Param* p = module_->AddParam(self, nullptr);
      f->params.push_back(p);
      Value* slot = b_.Var(f, self);
      b_.Store(slot, p);
      locals_[decl->this_param] = slot;
    }
  }
  for (ast::VarDecl* param : decl->params) {
    if (f->is_entry && param->role == ast::VarRole::Global) continue;  // a bound buffer
    if (f->is_entry && param->uniform_kind == ast::UniformKind::EntryParam) {
      // A `uniform` entry-point parameter reads the entry point's push-constant block.
      locals_[param] = b_.MemberPtr(PushConstantsOf(decl), param->uniform_index);
      continue;
    }
    if (param->direction != ast::ParamDirection::In) {
      // `out` / `inout`: a pointer to the caller's temporary (see LowerArgs).
      const ir::Type* ptr =
          module_->Types().Pointer(ir::AddressSpace::Function, LowerType(param->type));
      ir::Param* p = module_->AddParam(ptr, nullptr);
      f->params.push_back(p);
      locals_[param] = p;
      continue;
    }
    if (param->type->IsPack()) {
      LowerPackParam(param, f);
      continue;
    }
    ir::Param* p = module_->AddParam(LowerType(param->type), nullptr);
    f->params.push_back(p);
    if (f->is_entry) f->entry.param_semantics.push_back(param->semantic);
    // Parameters are mutable locals in HLSL.
    Value* slot = b_.Var(f, p->GetType());
    b_.Store(slot, p);
    locals_[param] = slot;
  }
  AddErrorParams(decl, f);
  if (f->is_entry) InitializeStatics();
  if (is_init) {
    // `__init` builds its object in a local that starts at the default value.
    Value* slot = b_.Var(f, f->ResultType());
    b_.Store(slot, DefaultValue(decl->owner));
    locals_[decl->this_param] = slot;
  }
  LowerStmt(decl->body);
  if (!b_.IsTerminated()) {
    Loc(source::SourceRange(decl->body->range.end));
    if (is_init) {
      b_.Return(b_.Load(locals_.at(decl->this_param)));
    } else if (f->ResultType()->IsVoid()) {
      b_.Return();
    } else {
      b_.Return(Zero(f->ResultType()));  // sema warned: control reaches the end
    }
  }
  JoinEntryBlock(f, entry, body_);
  body_ = nullptr;
  RemoveDeadBlocks(f);
  func_ = nullptr;
  decl_ = nullptr;
  ice_ = nullptr;
}

void Lowerer::JoinEntryBlock(ir::Function* f, ir::Block* entry, ir::Block* body) {
  for (const ir::Block* b : f->blocks) {
    if (b == entry) continue;
    for (const ir::Block* succ : ir::Successors(*b)) {
      if (succ == body) return;  // a loop back to the first statement: keep two blocks
    }
  }
  entry->insts.pop_back();  // the branch to `body`
  for (ir::Inst* inst : body->insts) inst->block = entry;
  entry->insts.insert(entry->insts.end(), body->insts.begin(), body->insts.end());
  body->insts.clear();
  f->blocks.erase(std::find(f->blocks.begin(), f->blocks.end(), body));
}

void Lowerer::RemoveDeadBlocks(ir::Function* f) {
  // Reachable through real edges.
  std::set<ir::Block*> reachable;
  std::vector<ir::Block*> work{f->blocks.front()};
  while (!work.empty()) {
    ir::Block* b = work.back();
    work.pop_back();
    if (!reachable.insert(b).second) continue;
    ir::Inst* t = b->Terminator();
    SLOPE_ASSERT(t != nullptr);
    size_t edges = ir::EdgeCount(*t);
    for (size_t i = 0; i < edges; ++i) work.push_back(t->targets[i]);
  }
  // Merge and continue blocks named by reachable headers must exist even when no path
  // reaches them; such a block is reduced to what SPIR-V requires of it.
  std::set<ir::Block*> kept = reachable;
  for (ir::Block* b : f->blocks) {
    if (reachable.count(b) == 0) continue;
    ir::Inst* t = b->Terminator();
    if (t->GetOp() == Op::If || t->GetOp() == Op::Loop || t->GetOp() == Op::Switch) {
      ir::Block* merge = t->targets[t->GetOp() == Op::Loop ? 1 : t->targets.size() - 1];
      if (reachable.count(merge) == 0 && kept.insert(merge).second) {
        merge->insts.clear();
        b_.SetInsertBlock(merge);
        b_.Unreachable();
      }
    }
    if (t->GetOp() == Op::Loop) {
      ir::Block* cont = t->targets[2];
      if (reachable.count(cont) == 0 && kept.insert(cont).second) {
        cont->insts.clear();
        b_.SetInsertBlock(cont);
        b_.Br(b);
      }
    }
  }
  std::vector<ir::Block*> blocks;
  for (ir::Block* b : f->blocks) {
    if (kept.count(b) != 0) blocks.push_back(b);
  }
  f->blocks = std::move(blocks);
}

// ---------------------------------------------------------------------------------------
// Statements

namespace {
/// The label a loop (`outer: for ...`) or a `break outer;`/`continue outer;` carries as
/// the parser's `__label` attribute; empty for none.
std::string LoopLabelOf(const ast::Stmt& loop) {
  for (const ast::Attribute& a : loop.attributes) {
    if (a.name == "__label") return static_cast<const ast::NameExpr*>(a.args[0])->name;
  }
  return {};
}

/// The immediates of a loop statement's `loop`: its unrolling hint, then the bound of
/// `[MaxIters(n)]` when it has one; empty for neither.
/// `value_of` gives the value of a generic value parameter `[MaxIters(N)]` names.
std::vector<uint32_t> LoopImmsOf(const ast::Stmt& loop,
                                 const std::function<int64_t(const ast::Expr*)>& value_of) {
  auto control = ir::LoopControl::None;
  int64_t max_iters = -1;  // none
  for (const ast::Attribute& a : loop.attributes) {
    if (a.name == "ForceUnroll") control = ir::LoopControl::ForceUnroll;
    if (a.name == "unroll" && control == ir::LoopControl::None) control = ir::LoopControl::Unroll;
    if (a.name == "MaxIters" && a.args.size() == 1 && a.args[0]->kind == ast::ExprKind::IntLiteral) {
      uint64_t n = static_cast<const ast::IntLiteralExpr*>(a.args[0])->value;
      max_iters = static_cast<int64_t>(std::min<uint64_t>(n, UINT32_MAX));
    } else if (a.name == "MaxIters" && a.args.size() == 1 &&
               a.args[0]->kind == ast::ExprKind::Name) {
      int64_t n = value_of(a.args[0]);
      if (n >= 0) max_iters = std::min<int64_t>(n, UINT32_MAX);
    }
  }
  std::vector<uint32_t> imms;
  if (control != ir::LoopControl::None || max_iters >= 0) imms.push_back(static_cast<uint32_t>(control));
  if (max_iters >= 0) imms.push_back(static_cast<uint32_t>(max_iters));
  return imms;
}
}  // namespace

void Lowerer::StartDeadBlock() {
  dead_block_ = NewBlock();
  Place(dead_block_);
}

bool Lowerer::InsertBlockUnreachable() const {
  const ir::Block* block = b_.GetInsertBlock();
  if (b_.IsTerminated() || block == dead_block_) return true;
  const ir::Function* f = block->GetFunction();
  if ((!f->blocks.empty() && f->blocks[0] == block) || block == body_) return false;
  for (const ir::Block* other : f->blocks) {
    for (const ir::Block* succ : ir::Successors(*other)) {
      if (succ == block) return false;
    }
  }
  return true;
}

void Lowerer::LowerStmt(const ast::Stmt* stmt) {
  if (stmt == nullptr) return;
  Loc(stmt->range);
  if (ice_ != nullptr) ice_->Update(sources_.Describe(stmt->range.begin));
  auto max_iters_of = [&](const ast::Expr* e) -> int64_t {
    const auto* decl = static_cast<const ast::NameExpr*>(e)->decl;
    const sema::Type* value = Concrete(static_cast<const ast::GenericParamDecl*>(decl)->type);
    return value->Kind() == sema::TypeKind::IntValue ? value->Value() : -1;
  };
  switch (stmt->kind) {
    case ast::StmtKind::Block:
      LowerBlock(static_cast<const ast::BlockStmt*>(stmt)->stmts);
      return;
    case ast::StmtKind::Decl:
      for (const ast::VarDecl* v : static_cast<const ast::DeclStmt*>(stmt)->vars) LowerLocal(v);
      return;
    case ast::StmtKind::Expr: {
      const ast::Expr* e = static_cast<const ast::ExprStmt*>(stmt)->expr;
      // A bare buffer name has no value to compute and no side effect (an assignment
      // of a buffer has one).
      if (!e->type->IsResource() || e->kind != ast::ExprKind::Name) LowerExpr(e);
      return;
    }
    case ast::StmtKind::If:
      LowerIf(static_cast<const ast::IfStmt*>(stmt));
      return;
    case ast::StmtKind::For: {
      auto* s = static_cast<const ast::ForStmt*>(stmt);
      next_loop_label_ = LoopLabelOf(*stmt);
      LowerLoop(s->init, s->cond, s->step, s->body, true, LoopImmsOf(*stmt, max_iters_of),
                s->step_throws);
      return;
    }
    case ast::StmtKind::While: {
      auto* s = static_cast<const ast::WhileStmt*>(stmt);
      next_loop_label_ = LoopLabelOf(*stmt);
      LowerLoop(nullptr, s->cond, nullptr, s->body, true, LoopImmsOf(*stmt, max_iters_of));
      return;
    }
    case ast::StmtKind::DoWhile: {
      auto* s = static_cast<const ast::DoWhileStmt*>(stmt);
      next_loop_label_ = LoopLabelOf(*stmt);
      LowerLoop(nullptr, s->cond, nullptr, s->body, false, LoopImmsOf(*stmt, max_iters_of),
                s->cond_throws);
      return;
    }
    case ast::StmtKind::Return:
      LowerReturn(static_cast<const ast::ReturnStmt*>(stmt));
      return;
    case ast::StmtKind::Break:
    case ast::StmtKind::Continue: {
      bool is_continue = stmt->kind == ast::StmtKind::Continue;
      if (std::string label = LoopLabelOf(*stmt); !label.empty()) {
        LowerLabeledExit(label, is_continue);
        return;
      }
      LowerJump(is_continue, true);
      return;
    }
    case ast::StmtKind::Throw: {
      auto* s = static_cast<const ast::ThrowStmt*>(stmt);
      Value* v = LowerExpr(s->value);
      Loc(stmt->range);
      LowerThrow(s->value->type, v);
      return;
    }
    case ast::StmtKind::DoCatch:
      LowerDoCatch(static_cast<const ast::DoCatchStmt*>(stmt));
      return;
    case ast::StmtKind::Defer:
      // Not directly in a block (`if (c) defer f();`): its scope ends at once.
      LowerStmt(static_cast<const ast::DeferStmt*>(stmt)->body);
      return;
    case ast::StmtKind::Empty:
      return;
    case ast::StmtKind::Switch:
      LowerSwitch(static_cast<const ast::SwitchStmt*>(stmt));
      return;
    case ast::StmtKind::Case:
      SLOPE_ICE("case label outside a switch body reached lowering");
  }
}

void Lowerer::LowerLocal(const ast::VarDecl* var) {
  // `precise float t = ...;`: the function's float arithmetic is computed as written
  // (no contraction or reassociation), the whole function, since the IR marks it there.
  if ((var->modifiers & ast::kModPrecise) != 0) func_->precise = true;
  const ir::Type* type = LowerType(var->type);
  Value* slot = b_.Var(func_, type);
  locals_[var] = slot;
  // Locals without an initializer start at zero so that results never depend on
  // whatever a target leaves in uninitialised memory.
  Value* init = var->init != nullptr   ? LowerExpr(var->init)
                : var->type->IsStruct() ? DefaultValue(var->type)
                                        : Zero(type);
  b_.Store(slot, init);
}

void Lowerer::LowerIf(const ast::IfStmt* s) {
  Value* cond = LowerExpr(s->cond);
  if (s->cond->kind == ast::ExprKind::TypeTest && cond->VKind() == ir::ValueKind::Constant) {
    // `if (T is float)` in a specialization: only the branch taken is lowered, so the
    // other may use what this specialization's types cannot (`reinterpret<T>(x)`).
    bool taken = static_cast<const ir::Constant*>(cond)->Bits() != 0;
    const ast::Stmt* live = taken ? s->then_stmt : s->else_stmt;
    if (live != nullptr) LowerStmt(live);
    return;
  }
  ir::Block* then_block = NewBlock();
  ir::Block* else_block = s->else_stmt != nullptr ? NewBlock() : nullptr;
  ir::Block* merge = NewBlock();
  Loc(s->range);
  b_.If(cond, then_block, else_block != nullptr ? else_block : merge, merge);
  Place(then_block);
  LowerStmt(s->then_stmt);
  if (!b_.IsTerminated()) b_.Br(merge);
  if (else_block != nullptr) {
    Place(else_block);
    LowerStmt(s->else_stmt);
    if (!b_.IsTerminated()) b_.Br(merge);
  }
  Place(merge);
}

void Lowerer::LowerSwitch(const ast::SwitchStmt* s) {
  Value* selector = LowerExpr(s->value);
  struct Clause {
    std::vector<const ast::CaseStmt*> labels;
    std::vector<const ast::Stmt*> stmts;
    ir::Block* block = nullptr;
  };
  // Consecutive labels form one clause. A clause whose statements can end normally
  // falls through into the next one: its block repeats the following clauses'
  // statements until one leaves the switch, so every block ends by leaving it.
  std::vector<Clause> clauses;
  for (const ast::Stmt* stmt : s->body->stmts) {
    if (stmt->kind == ast::StmtKind::Case) {
      if (clauses.empty() || !clauses.back().stmts.empty()) clauses.emplace_back();
      clauses.back().labels.push_back(static_cast<const ast::CaseStmt*>(stmt));
    } else if (stmt->kind != ast::StmtKind::Empty && !clauses.empty()) {
      clauses.back().stmts.push_back(stmt);
    }
  }
  ir::Block* merge = NewBlock();
  ir::Block* default_block = merge;  // no default: values without a case skip the body
  std::vector<ir::Builder::SwitchCase> cases;
  for (Clause& c : clauses) {
    c.block = NewBlock();
    for (const ast::CaseStmt* label : c.labels) {
      if (label->value == nullptr) {
        default_block = c.block;
      } else {
        cases.push_back({LowerExpr(label->value), c.block});  // sema made it a literal
      }
    }
  }
  Loc(s->range);
  b_.Switch(selector, default_block, cases, merge);
  loops_.push_back({merge, loops_.empty() ? nullptr : loops_.back().continue_target});
  loops_.back().defer_depth = defer_scopes_.size();
  loops_.back().is_switch = true;
  for (size_t i = 0; i < clauses.size(); ++i) {
    Place(clauses[i].block);
    // The clause's own block is a target of the switch; only the blocks its statements
    // end in need the (whole-function) reachability test.
    // Each clause is a scope for `defer`.
    defer_scopes_.emplace_back();
    for (size_t j = i; j < clauses.size() && (j == i || !InsertBlockUnreachable()); ++j) {
      for (const ast::Stmt* stmt : clauses[j].stmts) {
        if (stmt->kind == ast::StmtKind::Defer) {
          defer_scopes_.back().push_back(static_cast<const ast::DeferStmt*>(stmt)->body);
        } else {
          LowerStmt(stmt);
        }
      }
    }
    if (!b_.IsTerminated()) RunDefers(defer_scopes_.size() - 1);
    defer_scopes_.pop_back();
    if (!b_.IsTerminated()) b_.Br(merge);
  }
  std::vector<size_t> pending = std::move(loops_.back().pending);
  loops_.pop_back();
  Place(merge);
  ExitPending(pending);
}

void Lowerer::LowerLabeledExit(const std::string& label, bool is_continue) {
  size_t k = loops_.size() - 1;
  while (k > 0 && loops_[k].label != label) --k;
  if (loops_[k].label != label) SLOPE_ICE("a labeled exit without its loop reached lowering");
  RunDefers(loops_[k].defer_depth);
  if (k + 1 == loops_.size()) {  // the innermost construct: an ordinary break or continue
    b_.Br(is_continue ? loops_[k].continue_target : loops_[k].break_target);
    StartDeadBlock();
    return;
  }
  // Several levels: SPIR-V's structured control flow leaves one construct at a time, so
  // the exit is recorded in the labeled loop's flag and each construct on the way out
  // tests it after its end.
  const ir::Type* int_type = LowerType(types_.Int());
  b_.Store(loops_[k].exit_flag, module_->ConstInt(int_type, is_continue ? 2 : 1));
  std::vector<size_t>& pending = loops_.back().pending;
  if (std::find(pending.begin(), pending.end(), k) == pending.end()) pending.push_back(k);
  b_.Br(loops_.back().break_target);
  StartDeadBlock();
}

void Lowerer::ExitPending(const std::vector<size_t>& pending) {
  const ir::Type* int_type = LowerType(types_.Int());
  for (size_t k : pending) {
    const LoopTargets& target = loops_[k];
    bool arrived = k + 1 == loops_.size();
    // A `do`/`catch` loop keeps its flag: its end reads it to choose a clause.
    bool catch_arrived = arrived && target.is_catch;
    // In the labeled loop itself: flag 1 breaks it, 2 continues it (the flag cleared
    // first); deeper, any exit leaves the enclosing construct too.
    for (int64_t code :
         arrived && !catch_arrived ? std::vector<int64_t>{1, 2} : std::vector<int64_t>{0}) {
      Value* flag = b_.Load(target.exit_flag);
      Value* zero = module_->ConstInt(int_type, 0);
      Value* cond = code == 0 ? b_.Compare(ir::Op::Ne, flag, zero)
                              : b_.Compare(ir::Op::Eq, flag, module_->ConstInt(int_type, code));
      ir::Block* leave = NewBlock();
      ir::Block* stay = NewBlock();
      b_.If(cond, leave, stay, stay);
      Place(leave);
      if (catch_arrived) {
        b_.Br(target.break_target);
      } else if (code == 0) {
        std::vector<size_t>& outer = loops_.back().pending;
        if (std::find(outer.begin(), outer.end(), k) == outer.end()) outer.push_back(k);
        b_.Br(loops_.back().break_target);
      } else {
        b_.Store(target.exit_flag, zero);
        b_.Br(code == 1 ? target.break_target : target.continue_target);
      }
      Place(stay);
    }
  }
}

void Lowerer::LowerLoop(const ast::Stmt* init, const ast::Expr* cond, const ast::Expr* step,
                        const ast::Stmt* body, bool test_first, std::vector<uint32_t> imms,
                        bool continue_throws) {
  std::string label = std::move(next_loop_label_);
  next_loop_label_.clear();
  if (init != nullptr) LowerStmt(init);
  ir::Value* exit_flag = nullptr;
  if (!label.empty()) {
    const ir::Type* int_type = LowerType(types_.Int());
    exit_flag = b_.Var(func_, int_type);
    b_.Store(exit_flag, module_->ConstInt(int_type, 0));
  }
  ir::Block* header = NewBlock();
  ir::Block* first = NewBlock();  // condition (test_first) or body
  ir::Block* cont = NewBlock();
  ir::Block* exit = NewBlock();
  b_.Br(header);
  Place(header);
  ir::Inst* loop = b_.Loop(first, exit, cont);
  loop->imms = std::move(imms);
  Place(first);
  // The loop is entered before its condition and left after its step: an error thrown
  // there (`while (try f(i))`) leaves the loop like a `break outer;`.
  loops_.push_back({exit, cont, label, exit_flag});
  loops_.back().defer_depth = defer_scopes_.size();
  if (test_first && cond != nullptr) {
    Value* c = LowerExpr(cond);
    ir::Block* body_block = NewBlock();
    b_.CondBr(c, body_block, exit);
    Place(body_block);
  }
  if (continue_throws) {
    // The step or condition runs in the body, where an error may leave for a catch.
    LowerBodyBeforeThrowingStep(body);
    if (step != nullptr) LowerExpr(step);
    if (!test_first) {
      Value* c = LowerExpr(cond);
      b_.CondBr(c, cont, exit);
    } else {
      b_.Br(cont);
    }
    Place(cont);
    b_.Br(header);
    std::vector<size_t> pending = std::move(loops_.back().pending);
    loops_.pop_back();
    Place(exit);
    ExitPending(pending);
    return;
  }
  LowerStmt(body);
  if (!b_.IsTerminated()) b_.Br(cont);
  Place(cont);
  if (step != nullptr) LowerExpr(step);
  if (!test_first) {
    Value* c = LowerExpr(cond);
    b_.CondBr(c, header, exit);
  } else {
    b_.Br(header);
  }
  std::vector<size_t> pending = std::move(loops_.back().pending);
  loops_.pop_back();
  Place(exit);
  ExitPending(pending);
}

void Lowerer::DeclareSpecConstants(const std::vector<ast::VarDecl*>& vars) {
  for (const ast::VarDecl* var : vars) {
    const ir::Type* type = LowerType(var->type);
    ir::Value* value = nullptr;
    switch (var->init->kind) {
      case ast::ExprKind::BoolLiteral:
        value = module_->ConstBool(static_cast<const ast::BoolLiteralExpr*>(var->init)->value);
        break;
      case ast::ExprKind::IntLiteral:
        value = module_->ConstInt(
            type, static_cast<int64_t>(static_cast<const ast::IntLiteralExpr*>(var->init)->value));
        break;
      case ast::ExprKind::FloatLiteral:
        value =
            module_->ConstFloat(type, static_cast<const ast::FloatLiteralExpr*>(var->init)->value);
        break;
      default:
        SLOPE_ICE("a specialization constant's initializer is not a literal");
    }
    ir::Global* g = module_->AddSpecConstant(var->name, static_cast<uint32_t>(var->spec_id),
                                             static_cast<const ir::Constant*>(value));
    g->loc = var->name_range.begin;
    spec_constants_[var] = g;
  }
}

std::unique_ptr<ir::Module> LowerModule(const sema::CheckedModule& checked,
                                        const source::SourceManager& sources, bool reachable_only,
                                        const BindingOptions& bindings) {
  Lowerer lowerer(sources, *checked.types);
  lowerer.SetBindingOptions(bindings);
  return lowerer.Run(checked, reachable_only);
}

}  // namespace slope::lower
