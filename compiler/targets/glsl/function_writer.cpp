#include "compiler/targets/glsl/function_writer.h"

#include "compiler/base/ice.h"
#include "compiler/targets/layout/layout.h"
#include "compiler/targets/spirv/layout.h"

namespace slope::targets::glsl {

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
  std::string text =
      context_.TypeName(function_.ResultType()) + " " + context_.FunctionName(&function_) + "(";
  if (!function_.is_entry) {
    for (size_t i = 0; i < function_.params.size(); ++i) {
      const ir::Type* t = function_.params[i]->GetType();
      if (i != 0) text += ", ";
      // A pointer parameter (`out` / `inout` in the source) is passed by copy-in,
      // copy-out: what the callee wrote is in the caller's variable on return.
      text += (IsPlace(t) ? "inout " : "") + context_.Declare(t, param_names_[i]);
    }
  }
  return text + ")";
}

std::string FunctionWriter::Definition() {
  std::string body = EmitBody(1);
  return Prototype() + " {\n" + body + "}\n";
}

std::string FunctionWriter::Declare(const ir::Type* t, const std::string& name) {
  // A `precise` function (exact double-word arithmetic) must not have its operations
  // fused or reassociated: every value is a `precise` variable, and glslang marks each
  // operation computing one NoContraction, as the SPIR-V writer does.
  bool is_float = !t->IsStruct() && !t->IsArray() && !t->IsPointer() && t->Scalar()->IsFloat();
  return (function_.precise && is_float ? "precise " : "") + context_.Declare(t, name);
}

Expr FunctionWriter::ConstantExpr(const ir::Constant& c) {
  return context_.Literal(c.GetType(), c.Bits());
}

Expr FunctionWriter::GlobalExpr(const ir::Global& g) {
  if (g.IsWorkgroup() || g.IsPrivate() || g.IsSpecConstant() || g.GetType()->IsTexture() ||
      g.GetType()->IsSampler()) {
    return Atom(context_.GlobalName(&g));
  }
  return Member(Atom(context_.GlobalName(&g)), "data");
}

Expr FunctionWriter::FunctionParamExpr(const ir::Param& p, size_t index) {
  if (!function_.is_entry) return Atom(param_names_[index]);
  const std::string& semantic = function_.entry.param_semantics[index];
  std::string builtin = semantic == "SV_DispatchThreadID" ? "gl_GlobalInvocationID"
                        : semantic == "SV_GroupThreadID"  ? "gl_LocalInvocationID"
                        : semantic == "SV_GroupID"        ? "gl_WorkGroupID"
                                                          : "gl_LocalInvocationIndex";
  const ir::Type* want = p.GetType();
  Expr value = Atom(builtin);
  bool is_index = semantic == "SV_GroupIndex";
  if (!is_index && !want->IsVector()) value = Member(value, "x");
  if (!is_index && want->IsVector() && want->Count() < 3) {
    value = Member(value, want->Count() == 1 ? "x" : "xy");
  }
  bool is_uint =
      want->Scalar()->IsInt() && !want->Scalar()->IsSigned() && want->Scalar()->Width() == 32;
  if (!is_uint) value = Call(context_.TypeName(want), {value});
  return value;
}

bool FunctionWriter::IsTransposedPtr(const ir::Value* ptr) const {
  if (ptr->VKind() != ir::ValueKind::Inst) return false;
  const auto* inst = static_cast<const ir::Inst*>(ptr);
  if (inst->GetOp() != Op::MemberPtr) return false;
  return context_.IsTransposedMember(inst->operands[0]->GetType()->Element(), inst->imms[0]);
}

const ir::Inst* FunctionWriter::TransposedRow(const ir::Value* ptr) const {
  if (ptr->VKind() != ir::ValueKind::Inst) return nullptr;
  const auto* inst = static_cast<const ir::Inst*>(ptr);
  if (inst->GetOp() != Op::ElementPtr || !IsTransposedPtr(inst->operands[0])) return nullptr;
  return inst;
}

bool FunctionWriter::AlwaysFolds(const ir::Inst& inst) const {
  return DeviceMatrixRow(inst, context_.options_.matrix_layout);
}

const ir::Inst* FunctionWriter::ColumnRowElement(const ir::Value* ptr) const {
  if (ptr->VKind() != ir::ValueKind::Inst) return nullptr;
  const auto* inst = static_cast<const ir::Inst*>(ptr);
  if (!AlwaysFolds(*inst)) return nullptr;
  const ir::Value* base = inst->operands[0];
  bool of_row = base->VKind() == ir::ValueKind::Inst &&
                AlwaysFolds(*static_cast<const ir::Inst*>(base)) &&
                base->GetType()->Element()->IsVector();
  return of_row ? inst : nullptr;
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

Expr FunctionWriter::Comparison(Op op, const ir::Type* operand, const Expr& a, const Expr& b) {
  if (operand->IsVector()) {
    const char* fn = op == Op::Eq   ? "equal"
                     : op == Op::Ne ? "notEqual"
                     : op == Op::Lt ? "lessThan"
                     : op == Op::Le ? "lessThanEqual"
                     : op == Op::Gt ? "greaterThan"
                                    : "greaterThanEqual";
    return Call(fn, {a, b});
  }
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
  const ir::Type* fs = from->Scalar();
  const ir::Type* ts = to->Scalar();
  ir::TypeTable& types = context_.module_.Types();
  if (ts->IsBool()) {
    Expr zero = Splat(from, 0.0);
    return Comparison(Op::Ne, from, v, zero);
  }
  if (fs->IsInt() && ts->IsInt() && fs->Width() != ts->Width() &&
      fs->IsSigned() != ts->IsSigned()) {
    // Widening extends by the source's signedness (as C does), then the sign changes.
    const ir::Type* same_sign = types.WithScalar(to, types.Int(ts->Width(), fs->IsSigned()));
    return Call(context_.TypeName(to), {Call(context_.TypeName(same_sign), {v})});
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
  bool is_signed = s->IsInt() && s->IsSigned();
  bool is_bool = s->IsBool();
  auto logical = [&](const char* sym, Prec p) {
    if (!operand->IsVector()) return Binary(ops[0], sym, ops[1], p);
    std::vector<Expr> lanes;
    for (uint32_t i = 0; i < operand->Count(); ++i) {
      lanes.push_back(Binary(Lane(ops[0], i), sym, Lane(ops[1], i), p));
    }
    return Call(context_.TypeName(t), lanes);
  };
  switch (inst.GetOp()) {
    case Op::Add:
      return Binary(ops[0], "+", ops[1], Prec::Additive);
    case Op::Sub:
      return Binary(ops[0], "-", ops[1], Prec::Additive);
    case Op::Mul:
      return Binary(ops[0], "*", ops[1], Prec::Multiplicative);
    case Op::Div:
      return Binary(ops[0], "/", ops[1], Prec::Multiplicative);
    case Op::Rem:
      if (is_float) {
        // HLSL's % on floats keeps the sign of the dividend: x - y * trunc(x / y).
        Expr q = Call("trunc", {Binary(ops[0], "/", ops[1], Prec::Multiplicative)});
        return Binary(ops[0], "-", Binary(ops[1], "*", q, Prec::Multiplicative), Prec::Additive);
      }
      if (is_signed) {
        // a - (a / b) * b: the quotient truncates toward zero, as HLSL's remainder does.
        Expr q = Binary(ops[0], "/", ops[1], Prec::Multiplicative);
        return Binary(ops[0], "-", Binary(q, "*", ops[1], Prec::Multiplicative), Prec::Additive);
      }
      return Binary(ops[0], "%", ops[1], Prec::Multiplicative);
    case Op::Neg:
      return Prefix("-", ops[0]);
    case Op::BitAnd:
      return is_bool ? logical("&&", Prec::LogicalAnd) : Binary(ops[0], "&", ops[1], Prec::BitAnd);
    case Op::BitOr:
      return is_bool ? logical("||", Prec::LogicalOr) : Binary(ops[0], "|", ops[1], Prec::BitOr);
    case Op::BitXor:
      return is_bool ? Comparison(Op::Ne, operand, ops[0], ops[1])
                     : Binary(ops[0], "^", ops[1], Prec::BitXor);
    case Op::BitNot:
      if (is_bool) return operand->IsVector() ? Call("not", {ops[0]}) : Prefix("!", ops[0]);
      return Prefix("~", ops[0]);
    case Op::Shl:
      return Binary(ops[0], "<<", ops[1], Prec::Shift);
    case Op::Shr:
      return Binary(ops[0], ">>", ops[1], Prec::Shift);
    case Op::LogicalAnd:
      return logical("&&", Prec::LogicalAnd);
    case Op::LogicalOr:
      return logical("||", Prec::LogicalOr);
    case Op::LogicalNot:
      return operand->IsVector() ? Call("not", {ops[0]}) : Prefix("!", ops[0]);
    case Op::Eq:
    case Op::Ne:
    case Op::Lt:
    case Op::Le:
    case Op::Gt:
    case Op::Ge:
      return Comparison(inst.GetOp(), operand, ops[0], ops[1]);
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
  // Row by row (GLSL's `*` on matrices is the matrix product, and its integer and
  // boolean matrices are arrays).
  std::vector<Expr> rows;
  for (uint32_t r = 0; r < t->Count(); ++r) {
    std::vector<Expr> row_ops;
    for (const Expr& e : ops) row_ops.push_back(Index(e, Atom(std::to_string(r))));
    rows.push_back(ScalarOrVectorOp(inst, t->Element(), row_ops));
  }
  return Call(context_.TypeName(t), rows);
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
    case Op::MakeMatrix:
    case Op::MakeStruct:
    case Op::MakeArray:
      for (size_t i = 0; i < inst.operands.size(); ++i) {
        bool transposed = t->IsStruct() && context_.IsTransposedMember(t, i);
        ops.push_back(transposed ? Call("transpose", {op(i)}) : op(i));
      }
      if (t->IsStruct() && t->Members().empty()) ops.push_back(Atom("0"));
      return Call(context_.TypeName(t), ops);
    case Op::Splat:
      return Call(context_.TypeName(t), {op(0)});
    case Op::Extract: {
      const ir::Type* from = inst.operands[0]->GetType();
      if (from->IsVector()) return Lane(op(0), inst.imms[0]);
      if (from->IsStruct()) {
        Expr member = Member(op(0), context_.MemberName(from, inst.imms[0]));
        if (context_.IsTransposedMember(from, inst.imms[0])) return Call("transpose", {member});
        return member;
      }
      return Index(op(0), Atom(std::to_string(inst.imms[0])));
    }
    case Op::ExtractDynamic:
      return Index(op(0), op(1));
    case Op::Shuffle: {
      const ir::Type* a = inst.operands[0]->GetType();
      uint32_t n = a->Count();
      static const char* kLanes = "xyzw";
      bool all_a = true, all_b = true;
      for (uint32_t lane : inst.imms) (lane < n ? all_b : all_a) = false;
      if (all_a || all_b) {
        std::string swizzle;
        for (uint32_t lane : inst.imms) swizzle += kLanes[all_a ? lane : lane - n];
        return Member(op(all_a ? 0 : 1), swizzle);
      }
      for (uint32_t lane : inst.imms)
        ops.push_back(lane < n ? Lane(op(0), lane) : Lane(op(1), lane - n));
      return Call(context_.TypeName(t), ops);
    }
    case Op::Intrinsic:
      return IntrinsicExpr(inst);
    case Op::Call:
      for (size_t i = 0; i < inst.operands.size(); ++i) {
        // glslang keeps a readonly block's qualifier on a reference read from it, and a
        // parameter may not drop it: such an argument (a load or a member of one printed
        // in place) is rebuilt from its address.
        const ir::Value* arg = inst.operands[i];
        const auto* arg_inst =
            arg->VKind() == ir::ValueKind::Inst ? static_cast<const ir::Inst*>(arg) : nullptr;
        bool read = arg_inst != nullptr && IsFolded(*arg_inst) &&
                    (arg_inst->GetOp() == Op::Load || arg_inst->GetOp() == Op::Extract);
        if (arg->GetType()->IsDevicePointer() && read) {
          const ir::Type* u64 = context_.module_.Types().Int(64, false);
          ops.push_back(Call(context_.TypeName(arg->GetType()),
                             {Call(context_.TypeName(u64), {op(i)})}));
          continue;
        }
        ops.push_back(op(i));
      }
      return Call(context_.FunctionName(inst.callee), ops);
    case Op::Var:
      return Atom(ResultName(inst));
    case Op::Load:
      if (const ir::Inst* element = ColumnRowElement(inst.operands[0])) {
        // An element of a row of a row_major (GLSL's spelling) matrix through a buffer
        // reference: the row is read whole and then indexed, since lavapipe reads a
        // single element of such a matrix from the wrong place.
        const ir::Value* row = element->operands[0];
        return Index(Call(context_.TypeName(row->GetType()->Element()), {DevicePlace(row)}),
                     ValueExpr(element->operands[1]));
      }
      if (inst.operands[0]->GetType()->IsDevicePointer()) {
        // A matrix or a row of one is read whole (a constructor of its own type), so that
        // the elements taken from the value are not single reads of the matrix (as above).
        const auto* from = inst.operands[0]->VKind() == ir::ValueKind::Inst
                               ? static_cast<const ir::Inst*>(inst.operands[0])
                               : nullptr;
        bool whole = context_.options_.matrix_layout == ir::MatrixLayout::ColumnMajor &&
                     (t->IsMatrix() || (from != nullptr && AlwaysFolds(*from)));
        Expr place = DevicePlace(inst.operands[0]);
        return whole ? Call(context_.TypeName(t), {place}) : place;
      }
      if (IsTransposedPtr(inst.operands[0])) return Call("transpose", {op(0)});
      if (const ir::Inst* row = TransposedRow(inst.operands[0])) {
        // Row r of the matrix is component r of each column of its transpose.
        Expr m = ValueExpr(row->operands[0]), r = ValueExpr(row->operands[1]);
        for (uint32_t c = 0; c < t->Count(); ++c) {
          ops.push_back(Index(Index(m, Atom(std::to_string(c))), r));
        }
        return Call(context_.TypeName(t), ops);
      }
      return op(0);
    case Op::ElementPtr:
      if (t->IsDevicePointer()) return DeviceElementPtr(inst);
      if (const ir::Inst* row = TransposedRow(inst.operands[0])) {
        return Index(Index(ValueExpr(row->operands[0]), op(1)), ValueExpr(row->operands[1]));
      }
      return Index(op(0), op(1));
    case Op::MemberPtr: {
      const ir::Type* s = inst.operands[0]->GetType()->Element();
      if (t->IsDevicePointer()) {
        uint32_t offset = targets::LayoutMemberOffsets(s, context_.DeviceLayout(),
                                                       context_.options_.matrix_layout)
                              .at(inst.imms[0]);
        return OffsetAddress(t, inst.operands[0], Address(offset));
      }
      return Member(op(0), context_.MemberName(s, inst.imms[0]));
    }
    case Op::Atomic:
      return AtomicExpr(inst);
    case Op::Wave:
      return WaveExpr(inst);
    case Op::Texture:
      return TextureExpr(inst);
    case Op::PtrOffset:
      return OffsetAddress(t, inst.operands[0],
                           ScaledIndex(inst.operands[1], targets::LayoutArrayStride(
                                                             t->Element(), context_.DeviceLayout(),
                                                             context_.options_.matrix_layout)));
    case Op::PtrCast:
      return PointerCast(inst);
    case Op::BufferInfo:
      if (inst.imms[0] == 0) return Atom("uint(" + op(0).text + ".length())");
      return Atom(std::to_string(spirv::LayoutArrayStride(inst.operands[0]->GetType()->Element(),
                                                          context_.options_.layout,
                                                          context_.options_.matrix_layout)) +
                  "u");
    case Op::SpirvAsm:
    case Op::SpirvAsmValue:
      // driver/targets.cpp refuses modules with inline SPIR-V before this writer runs.
      SLOPE_ICE("glsl: spirv_asm instruction reached the writer");
    case Op::Printf: {
      // GL_EXT_debug_printf: the format as a string literal, then the values.
      context_.Require("GL_EXT_debug_printf");
      std::string format;
      if (!ir::UnpackString(inst.imms, &format)) SLOPE_ICE("printf without a format");
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
      for (size_t i = 0; i < inst.operands.size(); ++i) ops.push_back(op(i));
      return Call("debugPrintfEXT", ops);
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
      if (const ir::Inst* element = ColumnRowElement(inst.operands[0])) {
        // The row is read, changed and written whole (see the load).
        const ir::Value* row = element->operands[0];
        std::string copy = NewVariable(row->GetType()->Element(), "row");
        std::string place = DevicePlace(row).text;
        Out().Line(copy + " = " + place + ";");
        Out().Line(Index(Atom(copy), ValueExpr(element->operands[1])).text + " = " + op(1).text +
                   ";");
        Out().Line(place + " = " + copy + ";");
        return;
      }
      if (inst.operands[0]->GetType()->IsDevicePointer()) {
        Out().Line(DevicePlace(inst.operands[0]).text + " = " + op(1).text + ";");
        return;
      }
      if (IsTransposedPtr(inst.operands[0])) {
        Out().Line(op(0).text + " = " + Call("transpose", {op(1)}).text + ";");
        return;
      }
      if (const ir::Inst* row = TransposedRow(inst.operands[0])) {
        const ir::Type* t = inst.operands[1]->GetType();
        Expr value = op(1);
        if (value.prec != Prec::Primary || value.text.find('(') != std::string::npos) {
          std::string temp = NewVariable(t, "t");
          Out().Line(temp + " = " + value.text + ";");
          value = Atom(temp);
        }
        Expr m = ValueExpr(row->operands[0]), r = ValueExpr(row->operands[1]);
        for (uint32_t c = 0; c < t->Count(); ++c) {
          Out().Line(Index(Index(m, Atom(std::to_string(c))), r).text + " = " +
                     Lane(value, c).text + ";");
        }
        return;
      }
      Out().Line(op(0).text + " = " + op(1).text + ";");
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
        if (context_.IsTransposedMember(t, inst.imms[0])) {
          Out().Line(place.text + " = " + Call("transpose", {op(1)}).text + ";");
          return;
        }
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

Expr FunctionWriter::DeviceDeref(const Expr& p) { return Member(p, "v"); }

Expr FunctionWriter::Address(uint64_t bytes) {
  return context_.Literal(context_.module_.Types().Int(64, false), bytes);
}

Expr FunctionWriter::ScaledIndex(const ir::Value* index, uint32_t stride) {
  const ir::Type* u64 = context_.module_.Types().Int(64, false);
  if (index->VKind() == ir::ValueKind::Constant) {
    // A constant offset back is written as a negative literal (OffsetAddress subtracts).
    const auto* c = static_cast<const ir::Constant*>(index);
    int64_t bytes = c->AsSigned() * static_cast<int64_t>(stride);
    if (bytes < 0) return Prefix("-", Address(static_cast<uint64_t>(-bytes)));
    return Address(static_cast<uint64_t>(bytes));
  }
  // A signed index widens with its sign; the product wraps as the address does.
  Expr i = index->GetType() == u64 ? ValueExpr(index)
                                   : ConvertExpr(u64, index->GetType(), ValueExpr(index));
  if (stride == 1) return i;
  return Binary(i, "*", Address(stride), Prec::Multiplicative);
}

Expr FunctionWriter::OffsetAddress(const ir::Type* to, const ir::Value* base, const Expr& bytes) {
  const ir::Type* u64 = context_.module_.Types().Int(64, false);
  Expr address = Call(context_.TypeName(u64), {ValueExpr(base)});
  if (bytes.text.starts_with("-")) {
    address = Binary(address, "-", Atom(bytes.text.substr(1)), Prec::Additive);
  } else if (bytes.text != "0ul") {
    address = Binary(address, "+", bytes, Prec::Additive);
  }
  return Call(context_.TypeName(to), {address});
}

Expr FunctionWriter::DeviceElementPtr(const ir::Inst& inst) {
  const ir::Type* base = inst.operands[0]->GetType()->Element();
  uint32_t stride = 0;
  if (base->IsArray()) {
    stride = targets::LayoutArrayStride(base->Element(), context_.DeviceLayout(),
                                        context_.options_.matrix_layout);
  } else if (base->IsVector()) {
    stride = base->Scalar()->Width() / 8;
  } else {
    // A row of a row-major matrix (a column-major one is only ever a place, see
    // AlwaysFolds): the rows lie MatrixStride apart.
    stride = targets::LayoutMatrixStride(base, context_.DeviceLayout(),
                                         context_.options_.matrix_layout);
  }
  return OffsetAddress(inst.GetType(), inst.operands[0], ScaledIndex(inst.operands[1], stride));
}

Expr FunctionWriter::PointerCast(const ir::Inst& inst) {
  const ir::Type* from = inst.operands[0]->GetType();
  const ir::Type* to = inst.GetType();
  const ir::Type* u64 = context_.module_.Types().Int(64, false);
  // Buffer references convert to and from uint64_t only.
  Expr bits = ValueExpr(inst.operands[0]);
  if (from != u64) bits = Call(context_.TypeName(u64), {bits});
  if (to == u64) return bits;
  return Call(context_.TypeName(to), {bits});
}

void FunctionWriter::EmitBarrier(const ir::Inst& inst) {
  // As the SPIR-V writer orders them: group barriers workgroup memory, device barriers
  // buffer (and image) memory, `all` both; `*_sync` adds the workgroup execution barrier.
  const ir::BarrierInfo& info = ir::GetBarrierInfo(static_cast<ir::BarrierKind>(inst.imms[0]));
  switch (info.memory) {
    case ir::BarrierMemory::Group:
      Out().Line("memoryBarrierShared();");
      break;
    case ir::BarrierMemory::Device:
      Out().Line("memoryBarrierBuffer();");
      Out().Line("memoryBarrierImage();");
      break;
    case ir::BarrierMemory::All:
      Out().Line("memoryBarrier();");
      break;
  }
  if (info.sync) Out().Line("barrier();");
}

Expr FunctionWriter::AtomicExpr(const ir::Inst& inst) {
  using A = ir::AtomicOp;
  const ir::Type* t = inst.GetType();
  if (t->IsFloat()) context_.Require("GL_EXT_shader_atomic_float");
  if (t->IsInt() && t->Width() == 64) context_.Require("GL_EXT_shader_atomic_int64");
  std::vector<Expr> args;
  for (const ir::Value* v : inst.operands) args.push_back(ValueExpr(v));
  if (inst.operands[0]->GetType()->IsDevicePointer()) args[0] = DevicePlace(inst.operands[0]);
  const char* fn = "atomicAdd";
  switch (static_cast<A>(inst.imms[0])) {
    case A::Add:
      fn = "atomicAdd";
      break;
    case A::And:
      fn = "atomicAnd";
      break;
    case A::Or:
      fn = "atomicOr";
      break;
    case A::Xor:
      fn = "atomicXor";
      break;
    case A::Min:
      fn = "atomicMin";
      break;
    case A::Max:
      fn = "atomicMax";
      break;
    case A::Exchange:
      fn = "atomicExchange";
      break;
    case A::CompareExchange:
      fn = "atomicCompSwap";
      break;  // (mem, comparator, value)
  }
  return Call(fn, args);
}

Expr FunctionWriter::WaveExpr(const ir::Inst& inst) {
  using W = ir::WaveOp;
  auto which = static_cast<W>(inst.imms[0]);
  context_.Require("GL_KHR_shader_subgroup_basic");
  auto arg = [&](size_t i) { return ValueExpr(inst.operands[i]); };
  auto arith = [&](const char* fn) {
    context_.Require("GL_KHR_shader_subgroup_arithmetic");
    return Call(fn, {arg(0)});
  };
  auto ballot = [&](const char* fn) {
    context_.Require("GL_KHR_shader_subgroup_ballot");
    return Call(fn, {Call("subgroupBallot", {arg(0)})});
  };
  auto vote = [&](const char* fn) {
    context_.Require("GL_KHR_shader_subgroup_vote");
    return Call(fn, {arg(0)});
  };
  switch (which) {
    case W::LaneIndex:
      return Atom("gl_SubgroupInvocationID");
    case W::LaneCount:
      return Atom("gl_SubgroupSize");
    case W::IsFirstLane:
      return Call("subgroupElect", {});
    case W::Sum:
      return arith("subgroupAdd");
    case W::Product:
      return arith("subgroupMul");
    case W::Min:
      return arith("subgroupMin");
    case W::Max:
      return arith("subgroupMax");
    case W::BitAnd:
      return arith("subgroupAnd");
    case W::BitOr:
      return arith("subgroupOr");
    case W::BitXor:
      return arith("subgroupXor");
    case W::PrefixSum:
      return arith("subgroupExclusiveAdd");
    case W::PrefixProduct:
      return arith("subgroupExclusiveMul");
    case W::AllTrue:
      return vote("subgroupAll");
    case W::AnyTrue:
      return vote("subgroupAny");
    case W::AllEqual:
      return vote("subgroupAllEqual");
    case W::CountBits:
      return ballot("subgroupBallotBitCount");
    case W::PrefixCountBits:
      return ballot("subgroupBallotExclusiveBitCount");
    case W::Ballot:
      context_.Require("GL_KHR_shader_subgroup_ballot");
      return Call("subgroupBallot", {arg(0)});
    case W::ReadLaneFirst:
      context_.Require("GL_KHR_shader_subgroup_ballot");
      return Call("subgroupBroadcastFirst", {arg(0)});
    case W::ReadLaneAt:
      // The lane need not be dynamically uniform: a shuffle, not a broadcast.
      context_.Require("GL_KHR_shader_subgroup_shuffle");
      return Call("subgroupShuffle", {arg(0), arg(1)});
  }
  SLOPE_ICE("unknown wave operation");
}

Expr FunctionWriter::TextureExpr(const ir::Inst& inst) {
  using T = ir::TextureOp;
  auto op = [&](size_t i) { return ValueExpr(inst.operands[i]); };
  const ir::Type* tex = inst.operands[0]->GetType();
  const ir::Type* scalar = tex->Element()->Scalar();
  const std::string prefix = scalar->IsFloat() ? "" : scalar->IsSigned() ? "i" : "u";
  const char* shape = tex->Dim() == ir::TextureDim::k1D       ? "1D"
                      : tex->Dim() == ir::TextureDim::k2D     ? "2D"
                      : tex->Dim() == ir::TextureDim::k3D     ? "3D"
                      : tex->Dim() == ir::TextureDim::kBuffer ? "Buffer"
                                                              : "Cube";
  const std::string suffix = std::string(shape) + (tex->IsArrayed() ? "Array" : "");
  // An integer coordinate as GLSL's texel functions take it (signed).
  auto int_coord = [&](size_t i) {
    uint32_t n = inst.operands[i]->GetType()->Count();
    return Call(n == 1 ? "int" : "ivec" + std::to_string(n), {op(i)});
  };
  // A 4-component result narrowed to the instruction's type.
  auto narrow = [&](const Expr& wide) {
    const ir::Type* t = inst.GetType();
    if (t->IsVector() && t->Count() == 4) return wide;
    return Member(wide, std::string("xyzw").substr(0, t->IsVector() ? t->Count() : 1));
  };
  auto combined = [&](bool shadow) {
    if (tex->IsCombined()) return op(0);  // a sampler2D already
    return Call(prefix + "sampler" + suffix + (shadow ? "Shadow" : ""), {op(0), op(1)});
  };
  auto to_uint = [&](const Expr& e) {
    const ir::Type* t = inst.GetType();
    return Call(t->IsVector() ? "uvec" + std::to_string(t->Count()) : "uint", {e});
  };
  // A texel offset as GLSL wants it, a constant expression: built from the constants
  // sema required (the value may have been kept in a variable).
  auto offset = [&](size_t i) {
    const ir::Value* v = inst.operands[i];
    if (v->VKind() != ir::ValueKind::Inst) return int_coord(i);
    const auto* parts = static_cast<const ir::Inst*>(v);
    std::vector<Expr> lanes;
    for (uint32_t k = 0; k < v->GetType()->Count(); ++k) {
      const ir::Value* lane = parts->operands[parts->GetOp() == Op::Splat ? 0 : k];
      if (lane->VKind() != ir::ValueKind::Constant) return int_coord(i);
      lanes.push_back(Atom(std::to_string(static_cast<const ir::Constant*>(lane)->AsSigned())));
    }
    return Call("ivec" + std::to_string(lanes.size()), lanes);
  };
  switch (static_cast<T>(inst.imms[0])) {
    case T::Fetch:
      // A samplerBuffer has one level: texelFetch takes none.
      if (tex->IsTexelBuffer()) return narrow(Call("texelFetch", {op(0), int_coord(1)}));
      context_.Require("GL_EXT_samplerless_texture_functions");
      if (inst.operands.size() == 4) {
        return narrow(Call("texelFetchOffset",
                           {op(0), int_coord(1), Call("int", {op(2)}), offset(3)}));
      }
      return narrow(Call("texelFetch", {op(0), int_coord(1), Call("int", {op(2)})}));
    case T::Read:
      return narrow(Call("imageLoad", {op(0), int_coord(1)}));
    case T::Write: {
      const ir::Type* texel = inst.operands[2]->GetType();
      Expr value = op(2);
      if (texel->Count() != 4 || texel->IsScalar()) {
        std::vector<Expr> parts{value};
        Expr zero = context_.LiteralOf(scalar, 0);
        for (uint32_t i = texel->IsScalar() ? 1 : texel->Count(); i < 4; ++i) parts.push_back(zero);
        value = Call(context_.TypeName(context_.module_.Types().Vector(scalar, 4)), parts);
      }
      return Call("imageStore", {op(0), int_coord(1), value});
    }
    case T::SampleLevel:
      if (inst.operands.size() == 5) {
        return narrow(Call("textureLodOffset", {combined(false), op(2), op(3), offset(4)}));
      }
      return narrow(Call("textureLod", {combined(false), op(2), op(3)}));
    case T::SampleGrad:
      return narrow(Call("textureGrad", {combined(false), op(2), op(3), op(4)}));
    case T::Gather:
      return Call("textureGather",
                  {combined(false), op(2), Atom(std::to_string(inst.imms[1]))});
    case T::SampleCmpLevelZero: {
      uint32_t coord = inst.operands[2]->GetType()->Count();
      // textureGrad with zero gradients reads level 0 on every shadow sampler shape but
      // samplerCubeArrayShadow, which driver/targets.cpp refuses.
      uint32_t axes = tex->Dim() == ir::TextureDim::kCube ? 3 : static_cast<uint32_t>(tex->Dim());
      // A 1D shadow coordinate is (u, layer?, 0, ref): GLSL's sampler1DShadow takes a vec3.
      uint32_t with_ref = std::max(coord + 1, tex->Dim() == ir::TextureDim::k1D ? 3u : 0u);
      std::vector<Expr> parts{op(2)};
      for (uint32_t i = coord + 1; i < with_ref; ++i) parts.push_back(Atom("0.0"));
      parts.push_back(op(3));
      Expr zero = Call(axes == 1 ? "float" : "vec" + std::to_string(axes), {Atom("0.0")});
      return Call("textureGrad", {combined(true), Call("vec" + std::to_string(with_ref), parts),
                                  zero, zero});
    }
    case T::Size:
      if (tex->IsWritable()) return to_uint(Call("imageSize", {op(0)}));
      if (tex->IsTexelBuffer()) return to_uint(Call("textureSize", {op(0)}));
      context_.Require("GL_EXT_samplerless_texture_functions");
      return to_uint(Call("textureSize", {op(0), Call("int", {op(1)})}));
    case T::Levels:
      context_.Require("GL_EXT_samplerless_texture_functions");
      return Call("uint", {Call("textureQueryLevels", {op(0)})});
    case T::Atomic: {
      // An RWBuffer element: imageAtomic* (CompSwap takes the comparator first, as the IR).
      static const char* const kNames[] = {"Add", "And", "Or",       "Xor",
                                           "Min", "Max", "Exchange", "CompSwap"};
      std::vector<Expr> args{op(0), int_coord(1)};
      for (size_t i = 2; i < inst.operands.size(); ++i) args.push_back(op(i));
      return Call(std::string("imageAtomic") + kNames[inst.imms[1]], args);
    }
  }
  SLOPE_ICE("glsl: unknown texture operation");
}

}  // namespace slope::targets::glsl
