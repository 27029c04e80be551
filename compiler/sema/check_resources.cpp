// Methods of buffers, resolved here rather than through declarations: the byte address
// buffers' Load/Store/Interlocked*/GetDimensions, and a structured buffer's
// GetDimensions(out count, out stride). Each call records what lowering needs
// (ast::BufferMethod) and leaves `receiver` pointing at the buffer.

#include <set>
#include <string>

#include "compiler/ir/ir.h"
#include "compiler/sema/checker.h"

namespace slope::sema {

using diag::DiagId;

namespace {

struct AtomicName {
  const char* name;
  ir::AtomicOp op;
  uint32_t values;     ///< values after the offset
  bool needs_original;  ///< the `out original` argument is required
  bool takes_original;  ///< ... or allowed at all
};

constexpr AtomicName kAtomics[] = {
    {"InterlockedAdd", ir::AtomicOp::Add, 1, false, true},
    {"InterlockedAnd", ir::AtomicOp::And, 1, false, true},
    {"InterlockedOr", ir::AtomicOp::Or, 1, false, true},
    {"InterlockedXor", ir::AtomicOp::Xor, 1, false, true},
    {"InterlockedMin", ir::AtomicOp::Min, 1, false, true},
    {"InterlockedMax", ir::AtomicOp::Max, 1, false, true},
    {"InterlockedExchange", ir::AtomicOp::Exchange, 1, true, true},
    {"InterlockedCompareExchange", ir::AtomicOp::CompareExchange, 2, true, true},
    {"InterlockedCompareStore", ir::AtomicOp::CompareExchange, 2, false, false},
};

}  // namespace

bool Checker::IsByteAddressValue(const Type* t) {
  if (t->IsEnum()) return false;
  if (t->IsScalar() || t->IsVector()) {
    const Type* s = t->ScalarType();
    return (s->Kind() == TypeKind::Int || s->Kind() == TypeKind::UInt ||
            s->Kind() == TypeKind::Float) &&
           s->Width() == 32;
  }
  if (t->IsArray()) return IsByteAddressValue(t->Element());
  if (t->IsStruct() && !t->IsDependent()) {
    for (size_t i = 0; i < t->Info()->fields.size(); ++i) {
      if (!IsByteAddressValue(types_.FieldType(t, i))) return false;
    }
    return !t->Info()->fields.empty();
  }
  return false;
}

bool Checker::ByteAddressValueOk(const Type* t, source::SourceRange at) {
  // `b.Load<T>(offset)` in a generic function: T is checked where it is specialized.
  if (t->IsDependent() && current_function_ != nullptr && current_function_->parent == nullptr) {
    generic_uses_[current_function_].byte_address_values.emplace_back(t, at);
    return true;
  }
  return IsByteAddressValue(t);
}

bool Checker::ByteAddressValueFits(const Type* t, source::SourceRange at, const Subst& subst,
                                   const std::string& owner) {
  const Type* concrete = types_.Substitute(t, subst);
  if (concrete->IsDependent() || IsByteAddressValue(concrete)) return true;
  diags_.Report(DiagId::ByteAddressGenericValueType, at, t->Name(), owner, concrete->Name());
  return false;
}

bool Checker::CheckOutUInt(ast::Expr*& arg) {
  if (!CheckAssignable(arg)) return false;
  if (arg->type != types_.UInt()) {
    diags_.Report(DiagId::BufferMethodArgs, arg->range, "GetDimensions",
                  "'out uint' arguments, not a value of type '" + arg->type->Name() + "'");
    return false;
  }
  return true;
}

ast::Expr* Checker::CheckBufferMethod(ast::CallExpr* call, ast::MemberExpr* callee) {
  const Type* buffer = callee->base->type;
  const std::string& name = callee->member;
  const std::string buffer_name = buffer->Name();
  call->receiver = callee->base;
  call->type = types_.Error();  // until the call checks
  size_t argc = call->args.size();
  auto wrong = [&](const std::string& takes) {
    diags_.Report(DiagId::BufferMethodArgs, call->range, buffer_name + "." + name, takes);
    return call;
  };
  auto needs_writable = [&]() {
    if (buffer->IsWritable()) return true;
    diags_.Report(DiagId::BufferReadOnly, callee->member_range, name, buffer_name,
                  "RW" + buffer_name);
    call->type = types_.Error();
    return false;
  };
  if (buffer->IsCounterBuffer() && (name == "Append" || name == "Consume")) {
    bool append = name == "Append";
    if (append != buffer->IsAppendBuffer()) {
      diags_.Report(DiagId::NoSuchMember, callee->member_range, buffer_name, name);
      return call;
    }
    const ast::Expr* base = callee->base;
    const ast::Decl* decl =
        base->kind == ast::ExprKind::Name ? static_cast<const ast::NameExpr*>(base)->decl : nullptr;
    if (decl == nullptr || decl->kind != ast::DeclKind::Var ||
        static_cast<const ast::VarDecl*>(decl)->role != ast::VarRole::Global) {
      diags_.Report(DiagId::CounterBufferThroughName, base->range, name, buffer_name);
      return call;
    }
    if (append) {
      if (argc != 1) return wrong("one argument: the value appended");
      call->args[0] = Coerce(call->args[0], buffer->Element());
      if (call->args[0]->type->IsError()) return call;
      call->type = types_.Void();
    } else {
      if (argc != 0) return wrong("no arguments");
      call->type = buffer->Element();
    }
    call->buffer_method = append ? ast::BufferMethod::Append : ast::BufferMethod::Consume;
    call->value_type = buffer->Element();
    return call;
  }
  if (!buffer->IsByteAddressBuffer()) {
    if (name != "GetDimensions") {
      diags_.Report(DiagId::NoSuchMember, callee->member_range, buffer_name, name);
      return call;
    }
    if (argc != 2) return wrong("two 'out uint' arguments: the element count and stride");
    if (!CheckOutUInt(call->args[0]) || !CheckOutUInt(call->args[1])) return call;
    call->buffer_method = ast::BufferMethod::CountAndStride;
    call->type = types_.Void();
    return call;
  }
  auto offset_arg = [&]() {
    call->args[0] = Coerce(call->args[0], types_.UInt());
    return !call->args[0]->type->IsError();
  };
  // Load, Load2, Load3, Load4, Load<T>.
  if (name.starts_with("Load")) {
    uint32_t n = name == "Load" ? 1 : name.size() == 5 ? name[4] - '0' : 0;
    if (n < 1 || n > 4) {
      diags_.Report(DiagId::NoSuchMember, callee->member_range, buffer_name, name);
      return call;
    }
    const Type* value = types_.Vector(types_.UInt(), n);
    if (!callee->generic_args.empty()) {
      if (n != 1 || callee->generic_args.size() != 1) return wrong("one type argument: Load<T>");
      value = ResolveType(callee->generic_args[0]);
      if (value->IsError()) return call;
      if (!ByteAddressValueOk(value, callee->generic_args[0]->range)) {
        diags_.Report(DiagId::ByteAddressValueType, callee->generic_args[0]->range,
                      value->Name());
        return call;
      }
    }
    if (argc != 1) return wrong("one argument: the byte offset");
    if (!offset_arg()) return call;
    call->buffer_method = ast::BufferMethod::Load;
    call->value_type = value;
    call->type = value;
    return call;
  }
  if (name.starts_with("Store")) {
    uint32_t n = name == "Store" ? 1 : name.size() == 6 ? name[5] - '0' : 0;
    if (n < 1 || n > 4) {
      diags_.Report(DiagId::NoSuchMember, callee->member_range, buffer_name, name);
      return call;
    }
    if (!needs_writable()) return call;
    if (argc != 2) return wrong("two arguments: the byte offset and the value");
    const Type* value = nullptr;
    if (!callee->generic_args.empty()) {
      if (n != 1 || callee->generic_args.size() != 1) return wrong("one type argument: Store<T>");
      value = ResolveType(callee->generic_args[0]);
      if (value->IsError()) return call;
    } else if (n == 1 && !call->args[1]->type->IsScalar()) {
      value = call->args[1]->type;  // Store(offset, v) of a vector or struct: Store<T>
    } else {
      value = types_.Vector(types_.UInt(), n);
    }
    if (!ByteAddressValueOk(value, call->args[1]->range)) {
      diags_.Report(DiagId::ByteAddressValueType, call->args[1]->range, value->Name());
      return call;
    }
    if (!offset_arg()) return call;
    call->args[1] = Coerce(call->args[1], value);
    if (call->args[1]->type->IsError()) return call;
    call->buffer_method = ast::BufferMethod::Store;
    call->type = types_.Void();
    call->value_type = value;
    return call;
  }
  if (name == "GetDimensions") {
    if (argc != 1) return wrong("one 'out uint' argument: the size in bytes");
    if (!CheckOutUInt(call->args[0])) return call;
    call->buffer_method = ast::BufferMethod::ByteSize;
    call->type = types_.Void();
    return call;
  }
  for (const AtomicName& a : kAtomics) {
    if (name != a.name) continue;
    if (!needs_writable()) return call;
    size_t least = 1 + a.values + (a.needs_original ? 1 : 0);
    size_t most = 1 + a.values + (a.takes_original ? 1 : 0);
    if (argc < least || argc > most) {
      std::string takes = "the byte offset, ";
      takes += a.values == 2 ? "the value compared, the value stored" : "the value";
      if (a.takes_original) takes += a.needs_original ? ", 'out uint original'" : " and optionally 'out uint original'";
      return wrong(takes);
    }
    if (!offset_arg()) return call;
    // The word is a uint: values convert to it (Min and Max compare unsigned).
    const Type* value = types_.UInt();
    for (uint32_t i = 1; i <= a.values; ++i) {
      call->args[i] = Coerce(call->args[i], value);
      if (call->args[i]->type->IsError()) return call;
    }
    if (argc == most && a.takes_original) {
      ast::Expr*& out = call->args[argc - 1];
      if (!CheckAssignable(out)) return call;
      if (out->type != value) {
        diags_.Report(DiagId::BufferMethodArgs, out->range, name,
                      "an 'out " + value->Name() + "' last argument, not a value of type '" +
                          out->type->Name() + "'");
        return call;
      }
    }
    call->buffer_method = ast::BufferMethod::Atomic;
    call->type = types_.Void();
    call->buffer_imm = static_cast<uint32_t>(a.op);
    call->value_type = value;
    return call;
  }
  diags_.Report(DiagId::NoSuchMember, callee->member_range, buffer_name, name);
  return call;
}

}  // namespace slope::sema

namespace slope::sema {

bool Checker::RejectUnsupportedType(ast::TypeExpr* te) {
  static const std::set<std::string> kTextures = {
      "Texture1D", "Texture2D", "Texture3D", "TextureCube", "Texture1DArray",
      "Texture2DArray", "TextureCubeArray", "Texture2DMS", "Texture2DMSArray",
      "RWTexture1D", "RWTexture2D", "RWTexture3D", "RWTexture1DArray", "RWTexture2DArray",
      "SamplerCubeArray", "FeedbackTexture2D",
      "RasterizerOrderedTexture2D", "SubpassInput"};
  static const std::set<std::string> kSamplers = {"SamplerState", "SamplerComparisonState"};
  static const std::set<std::string> kOtherResources = {
      "RasterizerOrderedBuffer", "RasterizerOrderedStructuredBuffer",
      "RasterizerOrderedByteAddressBuffer", "RaytracingAccelerationStructure"};
  const std::string& name = te->name;
  // Every name above starts with one of these letters; most type names do not.
  if (name.empty() || std::string_view("ABFNRST").find(name.front()) == std::string_view::npos) {
    return false;
  }
  std::string what;
  if (kTextures.contains(name)) {
    what = "textures";
  } else if (kSamplers.contains(name)) {
    what = "samplers";
  } else if (kOtherResources.contains(name)) {
    what = "resources of this kind";
  } else if (name == "String" || name == "NativeString") {
    // printf's format is read from its literal; a string held in a variable or passed
    // through a parameter has no value on the GPU targets yet.
    what = "string values other than printf's literal format";
  } else {
    return false;
  }
  if (Lookup(name) != nullptr) return false;  // the program declares its own
  diags_.Report(DiagId::UnsupportedConstruct, te->range, what + " ('" + name + "')", "are");
  return true;
}

}  // namespace slope::sema
