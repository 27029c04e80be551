#include "compiler/targets/cuda/function_writer.h"

#include "compiler/base/ice.h"
#include "compiler/base/printf_format.h"
#include "compiler/targets/layout/layout.h"

namespace slope::targets::cuda {

using ctext::Atom;
using ctext::Binary;
using ctext::Call;
using ctext::Expr;
using ctext::Index;
using ctext::Member;
using ctext::Prec;
using ctext::Prefix;
using ir::Op;

FunctionWriter::FunctionWriter(Context& context, const ir::Function& f)
    : FunctionEmitter(f, context.Names()), context_(context) {
  for (size_t i = 0; i < f.params.size(); ++i)
    param_names_.push_back(names_.Make("p" + std::to_string(i)));
}

std::string FunctionWriter::Prototype() {
  std::string text = "__device__ " + context_.TypeName(function_.ResultType()) + " " +
                     context_.FunctionName(&function_) + "(Context& " + Context::kContext;
  if (!function_.is_entry) {
    for (size_t i = 0; i < function_.params.size(); ++i) {
      const ir::Type* t = function_.params[i]->GetType();
      // A pointer parameter (`out` / `inout` in the source) is a reference.
      text += ", " + context_.TypeName(t) + (IsPlace(t) ? "& " : " ") + param_names_[i];
    }
  }
  return text + ")";
}

std::string FunctionWriter::Definition() {
  std::string body = EmitBody(1);
  return Prototype() + " {\n" + body + "}\n";
}

std::string FunctionWriter::Declare(const ir::Type* t, const std::string& name) {
  return context_.Declare(t, name);
}

Expr FunctionWriter::ConstantExpr(const ir::Constant& c) {
  return context_.Literal(c.GetType(), c.Bits());
}

Expr FunctionWriter::GlobalExpr(const ir::Global& g) {
  const std::string& name = context_.GlobalName(&g);
  if (g.IsWorkgroup()) return Atom(name);  // a __shared__ variable of the namespace
  Expr field = Member(Atom(Context::kContext), name);
  if (g.IsUniform()) return Prefix("*", field);  // a uniform buffer's pointer
  return field;  // a buffer's pointer, a push-constant block, a `static` of the thread
}

Expr FunctionWriter::FunctionParamExpr(const ir::Param& p, size_t index) {
  if (!function_.is_entry) return Atom(param_names_[index]);
  const std::string& semantic = function_.entry.param_semantics[index];
  std::string builtin = semantic == "SV_DispatchThreadID" ? "dispatch_thread_id"
                        : semantic == "SV_GroupThreadID"  ? "group_thread_id"
                        : semantic == "SV_GroupID"        ? "group_id"
                                                          : "group_index";
  const ir::Type* want = p.GetType();
  Expr value = Call(builtin, {});
  bool is_index = semantic == "SV_GroupIndex";
  if (!is_index && !want->IsVector()) value = Member(value, "x");
  if (!is_index && want->IsVector() && want->Count() == 2) {
    value = Call("uint2", {Member(value, "x"), Member(value, "y")});
  }
  bool is_uint =
      want->Scalar()->IsInt() && !want->Scalar()->IsSigned() && want->Scalar()->Width() == 32;
  if (!is_uint) value = Call(context_.TypeName(want), {value});
  return value;
}

bool FunctionWriter::IsExpression(const ir::Inst& inst) const {
  return inst.GetOp() != Op::Insert && inst.GetOp() != Op::InsertDynamic;
}

std::string FunctionWriter::CaseLabel(const ir::Constant& c) {
  const ir::Type* t = c.GetType();
  if (t->Width() == 32 || t->Width() == 64) return context_.Literal(t, c.Bits()).text;
  // Narrow selectors are switched on as 32-bit integers of their signedness.
  const ir::Type* wide = context_.module_.Types().Int(32, t->IsSigned());
  return context_.Literal(wide, static_cast<uint64_t>(c.AsSigned())).text;
}

Expr FunctionWriter::SwitchSelector(const ir::Value* selector) {
  Expr v = ValueExpr(selector);
  const ir::Type* t = selector->GetType();
  if (t->Width() == 32 || t->Width() == 64) return v;
  return Call(t->IsSigned() ? "int" : "uint", {v});
}

Expr FunctionWriter::Lane(const Expr& v, uint32_t i) {
  static const char* kLanes[] = {"x", "y", "z", "w"};
  return Member(v, kLanes[i]);
}

Expr FunctionWriter::Splat(const ir::Type* t, double v) {
  Expr s = context_.LiteralOf(t->Scalar(), v);
  if (t->IsScalar()) return s;
  return Call(context_.TypeName(t), {s});
}

Expr FunctionWriter::Cast(const ir::Type* t, const ir::Type* from, const Expr& x) {
  if (t == from) return x;
  return Call(context_.TypeName(t), {x});
}

namespace {

/// Whether `place` is an element or member path into a read-only buffer (global memory
/// no invocation writes while the kernel runs; uniforms may live in the kernel's own
/// parameter copy, which __ldg must not read).
bool ReadOnlyPlace(const ir::Value* place) {
  while (place->VKind() == ir::ValueKind::Inst) {
    const auto* inst = static_cast<const ir::Inst*>(place);
    if (inst->GetOp() != ir::Op::ElementPtr && inst->GetOp() != ir::Op::MemberPtr) return false;
    place = inst->operands.at(0);
  }
  if (place->VKind() != ir::ValueKind::Global) return false;
  const auto* global = static_cast<const ir::Global*>(place);
  const ir::Type* t = global->GetType();
  return t->IsBuffer() && !t->IsWritable();
}

/// Whether `t`, under its arrays, is a matrix.
bool HoldsMatrix(const ir::Type* t) {
  while (t->IsArray()) t = t->Element();
  return t->IsMatrix();
}

}  // namespace

bool FunctionWriter::ColumnPlace(const ir::Value* ptr) const {
  if (ptr->VKind() == ir::ValueKind::Global) {
    const auto& g = static_cast<const ir::Global&>(*ptr);
    return !g.IsWorkgroup() && !g.IsPrivate() &&
           context_.options_.matrix_layout == ir::MatrixLayout::ColumnMajor;
  }
  if (ptr->VKind() != ir::ValueKind::Inst) return false;
  const auto& inst = static_cast<const ir::Inst&>(*ptr);
  const ir::Type* base = inst.operands.empty() ? nullptr : inst.operands[0]->GetType();
  switch (inst.GetOp()) {
    case Op::MemberPtr:
      return context_.MemberLayout(base->Element(), inst.imms[0]) ==
             ir::MatrixLayout::ColumnMajor;
    case Op::ElementPtr:
      return !base->Element()->IsMatrix() && !base->Element()->IsVector() &&
             ColumnPlace(inst.operands[0]);
    default:
      return false;
  }
}

bool FunctionWriter::AlwaysFolds(const ir::Inst& inst) const {
  return DeviceMatrixRow(inst, context_.options_.matrix_layout);
}

bool FunctionWriter::ColumnRow(const ir::Value* ptr) const {
  if (ptr->VKind() != ir::ValueKind::Inst) return false;
  const auto& inst = static_cast<const ir::Inst&>(*ptr);
  return inst.GetOp() == Op::ElementPtr &&
         inst.operands[0]->GetType()->Element()->IsMatrix() && ColumnPlace(inst.operands[0]);
}

Expr FunctionWriter::Aggregate(const ir::Type* t, const std::vector<Expr>& parts) {
  std::string text = context_.TypeName(t) + (t->IsArray() ? "{{" : "{");
  for (size_t i = 0; i < parts.size(); ++i) {
    text += (i == 0 ? "" : ", ") + Operand(parts[i], Prec::Assign);
  }
  return Atom(text + (t->IsArray() ? "}}" : "}"));
}

Expr FunctionWriter::Comparison(Op op, const Expr& a, const Expr& b) {
  const char* sym = op == Op::Eq   ? "=="
                    : op == Op::Ne ? "!="
                    : op == Op::Lt ? "<"
                    : op == Op::Le ? "<="
                    : op == Op::Gt ? ">"
                                   : ">=";
  Prec p = op == Op::Eq || op == Op::Ne ? Prec::Equality : Prec::Relational;
  return Binary(a, sym, b, p);
}

Expr FunctionWriter::ConvertExpr(const ir::Type* to, const ir::Type* from, const Expr& v) {
  const ir::Type* ts = to->Scalar();
  const ir::Type* fs = from->Scalar();
  if (ts->IsBool()) return Comparison(Op::Ne, v, Splat(from, 0.0));
  // A half converts through float (cuda_fp16.h has no conversion for every integer).
  if (to->IsScalar() && (ts->IsFloat() && ts->Width() == 16) != (fs->IsFloat() && fs->Width() == 16)) {
    return Call(context_.TypeName(to), {Call("float", {v})});
  }
  return Call(context_.TypeName(to), {v});
}

Expr FunctionWriter::ScalarOrVectorOp(const ir::Inst& inst, const ir::Type* t,
                                      const std::vector<Expr>& ops) {
  const ir::Type* operand = inst.operands[0]->GetType()->IsMatrix()
                                ? inst.operands[0]->GetType()->Element()
                                : inst.operands[0]->GetType();
  const ir::Type* s = operand->Scalar();
  bool is_float = s->IsFloat();
  bool is_bool = s->IsBool();
  // C++ computes 8- and 16-bit integers as int: the result is narrowed back, so that it
  // wraps as the IR's operation does.
  bool narrow = s->IsInt() && s->Width() < 32 && operand->IsScalar();
  auto wrap = [&](const Expr& e) { return narrow ? Call(context_.TypeName(t), {e}) : e; };
  // In a `precise` function, float arithmetic is never contracted into an fma.
  bool exact = function_.precise && is_float && operand->IsScalar() && s->Width() >= 32;
  auto exact_op = [&](const char* f32, const char* f64) {
    return Call(s->Width() == 64 ? f64 : f32, {ops[0], ops[1]});
  };
  switch (inst.GetOp()) {
    case Op::Add:
      if (exact) return exact_op("__fadd_rn", "__dadd_rn");
      return wrap(Binary(ops[0], "+", ops[1], Prec::Additive));
    case Op::Sub:
      if (exact) return exact_op("__fsub_rn", "__dsub_rn");
      return wrap(Binary(ops[0], "-", ops[1], Prec::Additive));
    case Op::Mul:
      if (exact) return exact_op("__fmul_rn", "__dmul_rn");
      return wrap(Binary(ops[0], "*", ops[1], Prec::Multiplicative));
    case Op::Div:
      return wrap(Binary(ops[0], "/", ops[1], Prec::Multiplicative));
    case Op::Rem:
      if (is_float) {
        // HLSL's % on floats keeps the sign of the dividend: x - y * trunc(x / y).
        Expr q = Call("trunc", {Binary(ops[0], "/", ops[1], Prec::Multiplicative)});
        return Binary(ops[0], "-", Binary(ops[1], "*", q, Prec::Multiplicative), Prec::Additive);
      }
      return wrap(Binary(ops[0], "%", ops[1], Prec::Multiplicative));  // truncating, as HLSL's
    case Op::Neg:
      return wrap(Prefix("-", ops[0]));
    case Op::BitAnd:
      return is_bool ? Binary(ops[0], "&&", ops[1], Prec::LogicalAnd)
                     : wrap(Binary(ops[0], "&", ops[1], Prec::BitAnd));
    case Op::BitOr:
      return is_bool ? Binary(ops[0], "||", ops[1], Prec::LogicalOr)
                     : wrap(Binary(ops[0], "|", ops[1], Prec::BitOr));
    case Op::BitXor:
      return is_bool ? Comparison(Op::Ne, ops[0], ops[1])
                     : wrap(Binary(ops[0], "^", ops[1], Prec::BitXor));
    case Op::BitNot:
      return is_bool ? Prefix("!", ops[0]) : wrap(Prefix("~", ops[0]));
    case Op::Shl:
      return wrap(Binary(ops[0], "<<", ops[1], Prec::Shift));
    case Op::Shr:
      return wrap(Binary(ops[0], ">>", ops[1], Prec::Shift));
    case Op::LogicalAnd:
      return Binary(ops[0], "&&", ops[1], Prec::LogicalAnd);
    case Op::LogicalOr:
      return Binary(ops[0], "||", ops[1], Prec::LogicalOr);
    case Op::LogicalNot:
      return Prefix("!", ops[0]);
    case Op::Eq:
    case Op::Ne:
    case Op::Lt:
    case Op::Le:
    case Op::Gt:
    case Op::Ge:
      return Comparison(inst.GetOp(), ops[0], ops[1]);
    case Op::Convert:
      return ConvertExpr(t, operand, ops[0]);
    default:
      break;
  }
  SLOPE_ICE("not a component-wise operation");
}

Expr FunctionWriter::Componentwise(const ir::Inst& inst, const ir::Type* t,
                                   const std::vector<Expr>& ops) {
  if (!t->IsMatrix()) return ScalarOrVectorOp(inst, t, ops);
  std::vector<Expr> rows;
  for (uint32_t r = 0; r < t->Count(); ++r) {
    std::vector<Expr> row_ops;
    for (const Expr& e : ops) row_ops.push_back(Index(e, Atom(std::to_string(r))));
    rows.push_back(ScalarOrVectorOp(inst, t->Element(), row_ops));
  }
  return Call("make_mat", rows);
}

Expr FunctionWriter::InstExpr(const ir::Inst& inst) {
  const ir::Type* t = inst.GetType();
  auto op = [&](size_t i) { return ValueExpr(inst.operands[i]); };
  std::vector<Expr> ops;
  switch (inst.GetOp()) {
    case Op::Add:
    case Op::Sub:
    case Op::Mul:
    case Op::Div:
    case Op::Rem:
    case Op::Neg:
    case Op::BitAnd:
    case Op::BitOr:
    case Op::BitXor:
    case Op::BitNot:
    case Op::Shl:
    case Op::Shr:
    case Op::LogicalAnd:
    case Op::LogicalOr:
    case Op::LogicalNot:
    case Op::Eq:
    case Op::Ne:
    case Op::Lt:
    case Op::Le:
    case Op::Gt:
    case Op::Ge:
    case Op::Convert:
      for (size_t i = 0; i < inst.operands.size(); ++i) ops.push_back(op(i));
      return Componentwise(inst, t, ops);
    case Op::MakeVector:
      for (size_t i = 0; i < inst.operands.size(); ++i) {
        const ir::Type* part = inst.operands[i]->GetType();
        if (!part->IsVector()) {
          ops.push_back(op(i));
          continue;
        }
        Expr v = op(i);
        for (uint32_t k = 0; k < part->Count(); ++k) ops.push_back(Lane(v, k));
      }
      return Call(context_.TypeName(t), ops);
    case Op::MakeMatrix:
      for (size_t i = 0; i < inst.operands.size(); ++i) ops.push_back(op(i));
      return Call("make_mat", ops);
    case Op::MakeStruct:
    case Op::MakeArray:
      for (size_t i = 0; i < inst.operands.size(); ++i) {
        // A member held column by column is initialized from its storage form.
        bool columns = t->IsStruct() && HoldsMatrix(t->Members()[i]) &&
                       context_.MemberLayout(t, i) == ir::MatrixLayout::ColumnMajor;
        ops.push_back(columns ? Call("to_cols", {op(i)}) : op(i));
      }
      if (t->IsStruct() && t->Members().empty()) ops.push_back(Atom("0"));
      return Aggregate(t, ops);
    case Op::Splat:
      return Call(context_.TypeName(t), {op(0)});
    case Op::Extract: {
      const ir::Type* from = inst.operands[0]->GetType();
      if (from->IsVector()) return Lane(op(0), inst.imms[0]);
      if (from->IsStruct()) {
        Expr member = Member(op(0), context_.MemberName(from, inst.imms[0]));
        bool columns = context_.MemberLayout(from, inst.imms[0]) == ir::MatrixLayout::ColumnMajor;
        return columns && HoldsMatrix(t) ? Call("col_value", {member}) : member;
      }
      return Index(op(0), Atom(std::to_string(inst.imms[0])));
    }
    case Op::ExtractDynamic:
      return Index(op(0), op(1));
    case Op::Shuffle: {
      uint32_t n = inst.operands[0]->GetType()->Count();
      Expr a = op(0), b = op(1);
      for (uint32_t lane : inst.imms) ops.push_back(lane < n ? Lane(a, lane) : Lane(b, lane - n));
      return Call(context_.TypeName(t), ops);
    }
    case Op::Intrinsic:
      return IntrinsicExpr(inst);
    case Op::Call:
      ops.push_back(Atom(Context::kContext));
      for (size_t i = 0; i < inst.operands.size(); ++i) ops.push_back(op(i));
      return Call(context_.FunctionName(inst.callee), ops);
    case Op::Var:
      return Atom(ResultName(inst));
    case Op::Load: {
      const ir::Value* place = inst.operands[0];
      if (place->GetType()->IsDevicePointer()) {
        // A matrix (or a row of one) that device memory holds column by column.
        bool columns = context_.options_.matrix_layout == ir::MatrixLayout::ColumnMajor &&
                       (HoldsMatrix(t) || (place->VKind() == ir::ValueKind::Inst &&
                                           AlwaysFolds(*static_cast<const ir::Inst*>(place))));
        return columns ? Call("col_value", {DevicePlace(place)}) : DevicePlace(place);
      }
      if ((HoldsMatrix(t) && ColumnPlace(place)) || ColumnRow(place)) {
        return Call("col_value", {op(0)});
      }
      // A scalar of a read-only buffer: through the read-only data cache.
      if (ReadOnlyPlace(place) && (t->IsFloat() || t->IsInt()) && t->Width() >= 32) {
        return Call("__ldg", {Prefix("&", op(0))});
      }
      return op(0);
    }
    case Op::ElementPtr:
      if (t->IsDevicePointer()) return Prefix("&", Index(DevicePlace(inst.operands[0]), op(1)));
      return Index(op(0), op(1));
    case Op::MemberPtr: {
      const ir::Type* s = inst.operands[0]->GetType()->Element();
      if (t->IsDevicePointer()) {
        Expr place = DevicePlace(inst.operands[0]);
        return Prefix("&", Member(place, context_.MemberName(s, inst.imms[0])));
      }
      return Member(op(0), context_.MemberName(s, inst.imms[0]));
    }
    case Op::PtrOffset:
      // Natural C++ pointer arithmetic: the scalar layout is C's.
      return Binary(op(0), "+", op(1), Prec::Additive);
    case Op::PtrCast:
      return Atom("reinterpret_cast<" + context_.TypeName(t) + ">(" + op(0).text + ")");
    case Op::BufferInfo: {
      // The stride under the CUDA target's scalar layout; the element count from the
      // size in bytes the kernel received for the buffer.
      uint32_t stride = targets::LayoutArrayStride(inst.operands[0]->GetType()->Element(),
                                                   targets::BufferLayout::Scalar,
                                                   ir::MatrixLayout::RowMajor);
      if (inst.imms[0] != 0) return Atom(std::to_string(stride) + "u");
      if (inst.operands[0]->VKind() != ir::ValueKind::Global) {
        SLOPE_ICE("cuda: a buffer's element count of a buffer that is not a global");
      }
      const auto& g = static_cast<const ir::Global&>(*inst.operands[0]);
      return Atom("(uint)(" + std::string(Context::kContext) + "." + Context::kSizes + "." +
                  context_.GlobalName(&g) + " / " + std::to_string(stride) + "ull)");
    }
    case Op::Atomic:
      return AtomicExpr(inst);
    case Op::Wave:
      return WaveExpr(inst);
    case Op::Texture:
      // driver/targets.cpp refuses modules with textures before this writer runs.
      SLOPE_ICE("cuda: texture instruction reached the writer");
    case Op::SpirvAsm:
    case Op::SpirvAsmValue:
      // driver/targets.cpp refuses modules with inline SPIR-V before this writer runs.
      SLOPE_ICE("cuda: spirv_asm instruction reached the writer");
    case Op::Printf: {
      std::string format;
      if (!ir::UnpackString(inst.imms, &format)) SLOPE_ICE("printf without a format");
      format = base::ExpandVectorConversions(format);  // %v3f: three conversions
      std::string literal = "\"";
      for (char c : format) {
        if (c == '\n') {
          literal += "\\n";
        } else if (c == '\t') {
          literal += "\\t";
        } else if (c == '"' || c == '\\') {
          literal += '\\';
          literal += c;
        } else {
          literal += c;
        }
      }
      ops.push_back(Atom(literal + "\""));
      for (size_t i = 0; i < inst.operands.size(); ++i) {
        const ir::Type* t = inst.operands[i]->GetType();
        const ir::Type* a = t->Scalar();
        // A vector passes its components; printf's `...` takes no half and reads a bool
        // as an int.
        uint32_t n = t->IsVector() ? t->Count() : 1;
        for (uint32_t k = 0; k < n; ++k) {
          Expr v = t->IsVector() ? Lane(op(i), k) : op(i);
          if (a->IsFloat() && a->Width() == 16) {
            ops.push_back(Call("double", {Call("float", {v})}));
          } else if (a->IsBool()) {
            ops.push_back(Call("int", {v}));
          } else {
            ops.push_back(v);
          }
        }
      }
      return Call("printf", ops);
    }
    case Op::Insert:
    case Op::InsertDynamic:
    case Op::Store:
    case Op::Barrier:
    case Op::Br:
    case Op::CondBr:
    case Op::If:
    case Op::Loop:
    case Op::Switch:
    case Op::Return:
    case Op::Unreachable:
      break;
  }
  SLOPE_ICE("instruction is not an expression");
}

void FunctionWriter::EmitInst(const ir::Inst& inst) {
  auto op = [&](size_t i) { return ValueExpr(inst.operands[i]); };
  switch (inst.GetOp()) {
    case Op::Store: {
      const ir::Value* ptr = inst.operands[0];
      Expr place = ptr->GetType()->IsDevicePointer() ? DevicePlace(ptr) : op(0);
      // An array of matrices held column by column takes its storage form (a matrix or a
      // row of one converts as it is assigned).
      const ir::Type* t = inst.operands[1]->GetType();
      bool columns = ptr->GetType()->IsDevicePointer() && t->IsArray() && HoldsMatrix(t) &&
                     context_.options_.matrix_layout == ir::MatrixLayout::ColumnMajor;
      Out().Line(place.text + " = " + (columns ? Call("to_cols", {op(1)}) : op(1)).text + ";");
      return;
    }
    case Op::Barrier:
      return EmitBarrier(inst);
    case Op::Insert:
    case Op::InsertDynamic: {
      const std::string& name = ResultName(inst);
      const ir::Type* t = inst.GetType();
      Out().Line(name + " = " + op(0).text + ";");
      Expr place = Atom(name);
      if (inst.GetOp() == Op::InsertDynamic) {
        place = Index(place, op(2));
      } else if (t->IsVector()) {
        place = Lane(place, inst.imms[0]);
      } else if (t->IsStruct()) {
        place = Member(place, context_.MemberName(t, inst.imms[0]));
      } else {
        place = Index(place, Atom(std::to_string(inst.imms[0])));
      }
      Out().Line(place.text + " = " + op(1).text + ";");
      return;
    }
    default:
      break;
  }
  Expr value = InstExpr(inst);
  if (!inst.GetType()->IsVoid() && IsUsed(inst)) {
    Out().Line(ResultName(inst) + " = " + value.text + ";");
  } else {
    Out().Line(value.text + ";");
  }
}

std::string FunctionWriter::StructMemberName(const ir::Type* s, size_t index) {
  return context_.MemberName(s, index);
}

void FunctionWriter::EmitBarrier(const ir::Inst& inst) {
  // A thread-group barrier is __syncthreads (which also orders shared and global memory
  // within the block); memory barriers are fences of the block or of the device.
  const ir::BarrierInfo& info = ir::GetBarrierInfo(static_cast<ir::BarrierKind>(inst.imms[0]));
  if (info.memory == ir::BarrierMemory::Group) {
    Out().Line(info.sync ? "__syncthreads();" : "__threadfence_block();");
    return;
  }
  Out().Line("__threadfence();");
  if (info.sync) Out().Line("__syncthreads();");
}

Expr FunctionWriter::AtomicExpr(const ir::Inst& inst) {
  using A = ir::AtomicOp;
  const ir::Value* ptr = inst.operands[0];
  std::vector<Expr> args{ptr->GetType()->IsDevicePointer()
                             ? ValueExpr(ptr)
                             : Prefix("&", ValueExpr(ptr))};
  for (size_t i = 1; i < inst.operands.size(); ++i) args.push_back(ValueExpr(inst.operands[i]));
  const char* fn = "atomic_add";
  switch (static_cast<A>(inst.imms[0])) {
    case A::Add:
      fn = "atomic_add";
      break;
    case A::And:
      fn = "atomic_and";
      break;
    case A::Or:
      fn = "atomic_or";
      break;
    case A::Xor:
      fn = "atomic_xor";
      break;
    case A::Min:
      fn = "atomic_min";
      break;
    case A::Max:
      fn = "atomic_max";
      break;
    case A::Exchange:
      fn = "atomic_exchange";
      break;
    case A::CompareExchange:
      fn = "atomic_compare_exchange";  // (pointer, comparator, value)
      break;
  }
  return Call(fn, args);
}

Expr FunctionWriter::WaveExpr(const ir::Inst& inst) {
  using W = ir::WaveOp;
  std::vector<Expr> args;
  for (const ir::Value* v : inst.operands) args.push_back(ValueExpr(v));
  auto call = [&](const char* fn) { return Call(fn, args); };
  switch (static_cast<W>(inst.imms[0])) {
    case W::LaneIndex:
      return Call("lane_index", {});
    case W::LaneCount:
      return Atom("uint(kWaveSize)");
    case W::IsFirstLane:
      return Call("wave_is_first_lane", {});
    case W::Sum:
      return call("wave_sum");
    case W::Product:
      return call("wave_product");
    case W::Min:
      return call("wave_min");
    case W::Max:
      return call("wave_max");
    case W::BitAnd:
      return call("wave_and");
    case W::BitOr:
      return call("wave_or");
    case W::BitXor:
      return call("wave_xor");
    case W::PrefixSum:
      return call("wave_prefix_sum");
    case W::PrefixProduct:
      return call("wave_prefix_product");
    case W::AllTrue:
      return call("wave_all");
    case W::AnyTrue:
      return call("wave_any");
    case W::AllEqual:
      return call("wave_all_equal");
    case W::CountBits:
      return call("wave_count_bits");
    case W::PrefixCountBits:
      return call("wave_prefix_count_bits");
    case W::Ballot:
      return call("wave_ballot");
    case W::ReadLaneFirst:
      return call("wave_first");
    case W::ReadLaneAt:
      return call("wave_read_lane");
  }
  SLOPE_ICE("unknown wave operation");
}

}  // namespace slope::targets::cuda
