// Lowering of buffer methods (sema/check_resources.cpp). A byte address buffer is a
// buffer of uint words: the word at byte offset `o` is element o / 4. Load<T> and
// Store<T> move a value word by word, its 32-bit components in order with no padding
// (a struct's fields, an array's elements, a vector's components), each reinterpreted
// as the component's type.

#include "compiler/base/ice.h"
#include "compiler/lower/lowerer.h"

namespace slope::lower {

using ir::Op;
using ir::Value;

namespace {

/// How many 32-bit words a value of `t` takes in a byte address buffer.
uint32_t WordCount(const ir::Type* t) {
  if (t->IsStruct()) {
    uint32_t n = 0;
    for (const ir::Type* m : t->Members()) n += WordCount(m);
    return n;
  }
  if (t->IsArray()) return t->Count() * WordCount(t->Element());
  if (t->IsVector()) return t->Count();
  return 1;
}

}  // namespace

Value* Lowerer::WordPtr(Value* buffer, Value* offset, uint32_t word) {
  const ir::Type* u32 = module_->Types().Int(32, false);
  Value* index = b_.Binary(Op::Shr, offset, module_->ConstInt(u32, 2));
  if (word != 0) index = b_.Binary(Op::Add, index, module_->ConstInt(u32, word));
  return b_.ElementPtr(buffer, index);
}

Value* Lowerer::AssembleWords(const ir::Type* t, const std::function<Value*()>& next) {
  if (t->IsStruct() || t->IsArray()) {
    std::vector<Value*> parts;
    size_t n = t->IsStruct() ? t->Members().size() : t->Count();
    for (size_t i = 0; i < n; ++i) {
      parts.push_back(AssembleWords(t->IsStruct() ? t->Members()[i] : t->Element(), next));
    }
    return t->IsStruct() ? b_.MakeStruct(t, std::move(parts)) : b_.MakeArray(t, std::move(parts));
  }
  const ir::Type* scalar = t->Scalar();
  std::vector<Value*> lanes;
  uint32_t n = t->IsVector() ? t->Count() : 1;
  for (uint32_t i = 0; i < n; ++i) {
    Value* bits = next();
    if (scalar->IsBool()) {  // a payload word of an interface value (lower_dynamic.cpp)
      bits = b_.Compare(Op::Ne, bits, module_->ConstInt(bits->GetType(), 0));
    } else if (bits->GetType() != scalar) {
      bits = b_.CallIntrinsic(ir::Intrinsic::Bitcast, scalar, {bits});
    }
    lanes.push_back(bits);
  }
  return t->IsVector() ? b_.Emit(Op::MakeVector, t, std::move(lanes)) : lanes[0];
}

void Lowerer::DisassembleWords(Value* value, const std::function<void(Value*)>& sink) {
  const ir::Type* t = value->GetType();
  if (t->IsStruct() || t->IsArray()) {
    size_t n = t->IsStruct() ? t->Members().size() : t->Count();
    for (size_t i = 0; i < n; ++i)
      DisassembleWords(b_.Extract(value, static_cast<uint32_t>(i)), sink);
    return;
  }
  const ir::Type* u32 = module_->Types().Int(32, false);
  uint32_t n = t->IsVector() ? t->Count() : 1;
  for (uint32_t i = 0; i < n; ++i) {
    Value* lane = t->IsVector() ? b_.Extract(value, i) : value;
    if (lane->GetType()->IsBool()) {
      lane = b_.Convert(lane, u32);
    } else if (lane->GetType() != u32) {
      lane = b_.CallIntrinsic(ir::Intrinsic::Bitcast, u32, {lane});
    }
    sink(lane);
  }
}

Value* Lowerer::LoadWords(Value* buffer, Value* offset, const ir::Type* t, uint32_t* word) {
  return AssembleWords(t, [&] { return b_.Load(WordPtr(buffer, offset, (*word)++)); });
}

void Lowerer::StoreWords(Value* buffer, Value* offset, Value* value, uint32_t* word) {
  DisassembleWords(value, [&](Value* w) { b_.Store(WordPtr(buffer, offset, (*word)++), w); });
}

Value* Lowerer::ReinterpretWords(Value* value, const ir::Type* to) {
  std::vector<Value*> words;
  DisassembleWords(value, [&](Value* w) { words.push_back(w); });
  const ir::Type* u32 = module_->Types().Int(32, false);
  size_t next = 0;
  return AssembleWords(
      to, [&] { return next < words.size() ? words[next++] : module_->ConstInt(u32, 0); });
}

Value* Lowerer::LowerBufferMethod(const ast::CallExpr* call) {
  Value* buffer = LowerExpr(call->receiver);
  std::vector<Value*> args;
  const ir::Type* u32 = module_->Types().Int(32, false);
  switch (call->buffer_method) {
    case ast::BufferMethod::None:
    case ast::BufferMethod::Texture:
    case ast::BufferMethod::TextureDims:
      break;
    case ast::BufferMethod::Load: {
      Value* offset = LowerExpr(call->args[0]);
      Loc(call->range);
      uint32_t word = 0;
      return LoadWords(buffer, offset, LowerType(call->value_type), &word);
    }
    case ast::BufferMethod::Store: {
      Value* offset = LowerExpr(call->args[0]);
      Value* value = LowerExpr(call->args[1]);
      Loc(call->range);
      uint32_t word = 0;
      StoreWords(buffer, offset, value, &word);
      return nullptr;
    }
    case ast::BufferMethod::Atomic: {
      Value* offset = LowerExpr(call->args[0]);
      const ir::Type* value_type = LowerType(call->value_type);
      const ir::AtomicInfo& info = ir::GetAtomicInfo(static_cast<ir::AtomicOp>(call->buffer_imm));
      std::vector<Value*> values;
      for (uint32_t i = 1; i <= info.values; ++i) values.push_back(LowerExpr(call->args[i]));
      Loc(call->range);
      Value* ptr = WordPtr(buffer, offset, 0);
      SLOPE_ASSERT(value_type == u32);
      std::vector<Value*> operands{ptr};
      operands.insert(operands.end(), values.begin(), values.end());
      Value* original = b_.Emit(Op::Atomic, value_type, std::move(operands), {call->buffer_imm});
      if (call->args.size() > 1 + info.values) {
        StoreLValue(LowerLValue(call->args[1 + info.values]), original);
      }
      return nullptr;
    }
    case ast::BufferMethod::Append:
    case ast::BufferMethod::Consume: {
      // The counter moves atomically: Append stores at its old value, Consume reads
      // below its new one (sema made sure the receiver names the global).
      const auto* var =
          static_cast<const ast::VarDecl*>(static_cast<const ast::NameExpr*>(call->receiver)->decl);
      bool append = call->buffer_method == ast::BufferMethod::Append;
      Value* value = append ? LowerExpr(call->args[0]) : nullptr;
      Loc(call->range);
      Value* counter = b_.ElementPtr(counters_.at(var), module_->ConstInt(u32, 0));
      Value* step = module_->ConstInt(u32, append ? 1 : 0xFFFFFFFFu);
      Value* old =
          b_.Emit(Op::Atomic, u32, {counter, step}, {static_cast<uint32_t>(ir::AtomicOp::Add)});
      if (append) {
        b_.Store(b_.ElementPtr(buffer, old), value);
        return nullptr;
      }
      Value* index = b_.Binary(Op::Sub, old, module_->ConstInt(u32, 1));
      return b_.Load(b_.ElementPtr(buffer, index));
    }
    case ast::BufferMethod::ByteSize: {
      Loc(call->range);
      Value* words = b_.Emit(Op::BufferInfo, u32, {buffer}, {0});
      StoreLValue(LowerLValue(call->args[0]), b_.Binary(Op::Mul, words, module_->ConstInt(u32, 4)));
      return nullptr;
    }
    case ast::BufferMethod::CountAndStride: {
      Loc(call->range);
      Value* count = b_.Emit(Op::BufferInfo, u32, {buffer}, {0});
      Value* stride = b_.Emit(Op::BufferInfo, u32, {buffer}, {1});
      StoreLValue(LowerLValue(call->args[0]), count);
      StoreLValue(LowerLValue(call->args[1]), stride);
      return nullptr;
    }
  }
  SLOPE_ICE("buffer method without a kind reached lowering");
}

}  // namespace slope::lower
