// Attributes: which ones a position honours, and what happens to the others.
//
// An attribute that carries meaning is never dropped in silence. Each position (a
// function, a method, a parameter, a statement, ...) lists the attributes it honours;
// the arguments of those are checked here. Of the rest:
// - optimization hints Slang defines ([branch], [noinline], [PreferRecompute], ...) are
//   accepted: ignoring them changes no result;
// - any other attribute Slang defines is an error naming it and the position, since
//   ignoring it could change what the program computes;
// - a name Slang does not define gets a warning and is ignored.

#include <algorithm>
#include <string_view>

#include "compiler/sema/checker.h"

namespace slope::sema {

using diag::DiagId;

namespace {

/// Attributes Slang defines that only steer code generation: ignoring one changes no
/// result, so every position accepts them.
constexpr std::string_view kHints[] = {
    "branch",          "flatten",          "fastopt",  "allow_uav_condition", "noinline",
    "PreferRecompute", "PreferCheckpoint", "call",     "Deprecated",          "deprecated",
    "noRefInline",     "UnsafeForceInlineEarly"};

/// Attributes Slang defines whose meaning a program may depend on.
constexpr std::string_view kMeaningful[] = {"shader",
                                            "numthreads",
                                            "anyValueSize",
                                            "WaveSize",
                                            "ForceInline",
                                            "unroll",
                                            "loop",
                                            "ForceUnroll",
                                            "MaxIters",
                                            "Differentiable",
                                            "ForwardDifferentiable",
                                            "BackwardDifferentiable",
                                            "TreatAsDifferentiable",
                                            "ForwardDerivative",
                                            "ForwardDerivativeOf",
                                            "BackwardDerivative",
                                            "BackwardDerivativeOf",
                                            "PrimalSubstitute",
                                            "PrimalSubstituteOf",
                                            "NoDiffThis",
                                            "DerivativeMember",
                                            "mutating",
                                            "nonmutating",
                                            "constref",
                                            "ref",
                                            "require",
                                            "vk::binding",
                                            "vk::counter_binding",
                                            "vk::push_constant",
                                            "push_constant",
                                            "vk::location",
                                            "vk::offset",
                                            "vk::image_format",
                                            "format",
                                            "vk::input_attachment_index",
                                            "vk::constant_id",
                                            "SpecializationConstant",
                                            "vk::specialization_constant",
                                            "vk::shader_record",
                                            "shader_record",
                                            "vk::spirv_instruction",
                                            "vk::index",
                                            "vk::builtin",
                                            "vk::ext_instruction",
                                            "vk::ext_decorate",
                                            "outputtopology",
                                            "domain",
                                            "partitioning",
                                            "outputcontrolpoints",
                                            "patchconstantfunc",
                                            "maxvertexcount",
                                            "instance",
                                            "earlydepthstencil",
                                            "maxtessfactor",
                                            "CudaKernel",
                                            "CUDAKernel",
                                            "CudaHost",
                                            "CUDAHost",
                                            "CudaDeviceExport",
                                            "CUDADeviceExport",
                                            "AutoPyBindCUDA",
                                            "TorchEntryPoint",
                                            "AutoPyBindExport",
                                            "PyExport",
                                            "DllExport",
                                            "DllImport",
                                            "raypayload",
                                            "payload",
                                            "OverloadRank",
                                            "KnownBuiltin",
                                            "open",
                                            "__extern_cpp",
                                            "NonUniformResourceIndex",
                                            "globallycoherent",
                                            "MaxTessFactor",
                                            "NumThreads",
                                            "EntryPoint",
                                            "ForwardDerivativeOf",
                                            "Differential",
                                            "__AttributeUsage"};

bool Contains(const auto& list, std::string_view name) {
  return std::find(std::begin(list), std::end(list), name) != std::end(list);
}

}  // namespace

/// "S.m" for a method of S, else the function's name: how reflection names it.
std::string Checker::MemberTarget(const ast::FuncDecl* f) {
  return f->parent != nullptr ? f->parent->name + "." + f->name : f->name;
}

bool IsSlangHintAttribute(std::string_view name) { return Contains(kHints, name); }

void Checker::CheckAttributes(const std::vector<ast::Attribute>& attrs,
                              std::initializer_list<std::string_view> known,
                              std::string_view position, const std::string& target) {
  for (const ast::Attribute& a : attrs) {
    if (!Contains(known, a.name)) {
      if (Contains(kHints, a.name)) continue;
      if (user_attributes_.contains(a.name)) {
        CheckUserAttribute(a, position, target);
        continue;
      }
      if (Contains(kMeaningful, a.name)) {
        diags_.Report(DiagId::AttributeNotSupportedHere, a.range, a.name, position);
      } else {
        diags_.Report(DiagId::UnknownAttribute, a.range, a.name);
      }
      continue;
    }
    CheckAttributeArgs(a);
  }
}

void Checker::CheckMethodAttributes(ast::FuncDecl* f) {
  CheckAttributes(f->attributes,
                  {"mutating", "nonmutating", "ForceInline", "Differentiable",
                   "ForwardDifferentiable", "BackwardDifferentiable", "TreatAsDifferentiable",
                   "NoDiffThis", "ForwardDerivative", "ForwardDerivativeOf", "BackwardDerivative",
                   "BackwardDerivativeOf", "PrimalSubstitute", "PrimalSubstituteOf",
                   "__intrinsic_op"},
                  "a method", MemberTarget(f));
  CheckIntrinsicAttribute(f);  // the core library's `Atomic<T>` methods
  for (ast::VarDecl* p : f->params) {
    CheckAttributes(p->attributes, {}, "a parameter", MemberTarget(f) + "." + p->name);
  }
}

bool Checker::FoldAttributeConstant(ast::Expr*& arg) {
  CheckConstantsUsedBy(arg);
  arg = CheckExpr(arg);
  int64_t value = 0;
  if (arg->type->IsError() || !arg->type->IsScalar() || arg->type->IsEnum() ||
      arg->type == types_.Bool() || !EvaluateIntConstant(arg, &value) || value < 0) {
    return false;
  }
  arg = ctx_.New<ast::IntLiteralExpr>(arg->range, static_cast<uint64_t>(value), false);
  return true;
}

void Checker::CheckWaveSize(ast::FuncDecl* func) {
  ast::Attribute* ws = nullptr;
  for (ast::Attribute& a : func->attributes) {
    if (a.name == "WaveSize" && ws == nullptr) ws = &a;
  }
  if (ws == nullptr) return;
  // `[WaveSize(kLanes)]` with a `static const`: its value, as a literal from here on
  // (WaveSizeOf reads literals).
  if (ws->args.size() == 1 && ws->args[0]->kind != ast::ExprKind::IntLiteral) {
    FoldAttributeConstant(ws->args[0]);
  }
  uint32_t size = WaveSizeOf(*func);
  if (ws->args.size() != 1 || size < 4 || size > 128 || (size & (size - 1)) != 0) {
    diags_.Report(DiagId::InvalidAttributeArgs, ws->range, "WaveSize",
                  "one integer constant, a power of two from 4 to 128");
  }
}

bool Checker::IsGenericValueName(const ast::Expr* e) {
  if (e->kind != ast::ExprKind::Name || e->type == nullptr || e->type->IsError()) return false;
  const ast::Decl* decl = static_cast<const ast::NameExpr*>(e)->decl;
  return decl != nullptr && decl->kind == ast::DeclKind::GenericParam && e->type->IsScalar() &&
         e->type != types_.Bool();
}

void Checker::CheckAttributeArgs(const ast::Attribute& a) {
  auto int_literals = [&](size_t min, size_t max) {
    bool ok = a.args.size() >= min && a.args.size() <= max;
    for (const ast::Expr* e : a.args) ok = ok && e->kind == ast::ExprKind::IntLiteral;
    return ok;
  };
  if (a.name == "vk::binding") {
    if (!int_literals(1, 2)) {
      diags_.Report(DiagId::InvalidAttributeArgs, a.range, a.name,
                    "a binding number and an optional set number, both integer literals");
    }
  } else if (a.name == "vk::counter_binding") {
    if (!int_literals(1, 1)) {
      diags_.Report(DiagId::InvalidAttributeArgs, a.range, a.name, "one integer literal");
    }
  } else if (a.name == "shader") {
    if (a.args.size() != 1 || a.args[0]->kind != ast::ExprKind::StringLiteral) {
      diags_.Report(DiagId::InvalidAttributeArgs, a.range, a.name, "one string literal");
    }
  } else if (a.name == "Differentiable" || a.name == "ForwardDifferentiable" ||
             a.name == "BackwardDifferentiable" || a.name == "unroll" || a.name == "loop" ||
             a.name == "ForceUnroll") {
    if (!int_literals(0, 1)) {
      diags_.Report(DiagId::InvalidAttributeArgs, a.range, a.name, "at most one integer literal");
    }
  } else if (a.name == "MaxIters") {
    if (!int_literals(1, 1) && !(a.args.size() == 1 && IsGenericValueName(a.args[0]))) {
      diags_.Report(DiagId::InvalidAttributeArgs, a.range, a.name,
                    "one integer constant or generic value parameter");
    }
  } else if (a.name == "mutating" || a.name == "nonmutating" || a.name == "NoDiffThis" ||
             a.name == "TreatAsDifferentiable" || a.name == "ForceInline") {
    if (!a.args.empty()) {
      diags_.Report(DiagId::InvalidAttributeArgs, a.range, a.name, "no arguments");
    }
  }
}

}  // namespace slope::sema
