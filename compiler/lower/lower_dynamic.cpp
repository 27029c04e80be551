// Interface-typed values in memory (sema/check_dynamic.cpp). The stored form of a value
// of interface I with [anyValueSize(N)] is the IR struct `I.stored` of 32-bit words:
//   0: type id (written 0, not read)   1: its high word (0)
//   2: conformance id                  3: its high word (0, not read)
//   4 ...: the payload, ceil(N / 4) words: the concrete value's components in order (a
//          struct's fields, an array's elements, a vector's lanes), a 32-bit one (or a
//          bool, as 0/1) one word, a 64-bit one two (low word first); zero after them.
// Reading one (`I.load`) switches on the conformance id, rebuilds the value of that
// type from the payload and packs it into I's existential; an id of no conforming type
// gives an existential with tag kNoTag, on which requirement calls do nothing and return
// zero, and `is` tests are false. Writing one (`I.store`) switches on the tag.

#include <algorithm>
#include <functional>

#include "compiler/base/ice.h"
#include "compiler/lower/lowerer.h"

namespace slope::lower {

using ir::Op;
using ir::Value;

namespace {
constexpr uint32_t kHeaderWords = 4;
constexpr uint32_t kIdWord = 2;

ir::Block* StartBody(ir::Module& module, ir::Function* f, ir::Builder& b) {
  ir::Block* entry = module.AddBlock(f);
  f->blocks.push_back(entry);
  b.SetInsertBlock(entry);
  return entry;
}

/// The payload words of `value`: each component of 32 bits or fewer (bool as 0 or 1)
/// one word, a 64-bit one two (its low word first).
void PayloadWordsOf(ir::Module& m, ir::Builder& b, Value* value,
                    const std::function<void(Value*)>& sink) {
  const ir::Type* t = value->GetType();
  if (t->IsStruct() || t->IsArray()) {
    size_t n = t->IsStruct() ? t->Members().size() : t->Count();
    for (size_t i = 0; i < n; ++i)
      PayloadWordsOf(m, b, b.Extract(value, static_cast<uint32_t>(i)), sink);
    return;
  }
  const ir::Type* u32 = m.Types().Int(32, false);
  const ir::Type* u64 = m.Types().Int(64, false);
  uint32_t n = t->IsVector() ? t->Count() : 1;
  for (uint32_t i = 0; i < n; ++i) {
    Value* lane = t->IsVector() ? b.Extract(value, i) : value;
    const ir::Type* s = lane->GetType();
    if (s->IsBool()) {
      sink(b.Convert(lane, u32));
    } else if (s->Width() == 64) {
      Value* bits = s == u64 ? lane : b.CallIntrinsic(ir::Intrinsic::Bitcast, u64, {lane});
      sink(b.Convert(bits, u32));
      sink(b.Convert(b.Binary(Op::Shr, bits, m.ConstInt(u64, 32)), u32));
    } else {
      sink(s == u32 ? lane : b.CallIntrinsic(ir::Intrinsic::Bitcast, u32, {lane}));
    }
  }
}

/// A value of `t` from payload words, as PayloadWordsOf writes them.
Value* PayloadValue(ir::Module& m, ir::Builder& b, const ir::Type* t,
                    const std::function<Value*()>& next) {
  if (t->IsStruct() || t->IsArray()) {
    std::vector<Value*> parts;
    size_t n = t->IsStruct() ? t->Members().size() : t->Count();
    for (size_t i = 0; i < n; ++i) {
      parts.push_back(PayloadValue(m, b, t->IsStruct() ? t->Members()[i] : t->Element(), next));
    }
    return t->IsStruct() ? b.MakeStruct(t, std::move(parts)) : b.MakeArray(t, std::move(parts));
  }
  const ir::Type* s = t->Scalar();
  const ir::Type* u32 = m.Types().Int(32, false);
  const ir::Type* u64 = m.Types().Int(64, false);
  std::vector<Value*> lanes;
  uint32_t n = t->IsVector() ? t->Count() : 1;
  for (uint32_t i = 0; i < n; ++i) {
    Value* lane = nullptr;
    if (s->IsBool()) {
      lane = b.Compare(Op::Ne, next(), m.ConstInt(u32, 0));
    } else if (s->Width() == 64) {
      Value* low = b.Convert(next(), u64);
      Value* high = b.Convert(next(), u64);
      lane = b.Binary(Op::BitOr, low, b.Binary(Op::Shl, high, m.ConstInt(u64, 32)));
      if (s != u64) lane = b.CallIntrinsic(ir::Intrinsic::Bitcast, s, {lane});
    } else {
      lane = next();
      if (s != u32) lane = b.CallIntrinsic(ir::Intrinsic::Bitcast, s, {lane});
    }
    lanes.push_back(lane);
  }
  return t->IsVector() ? b.Emit(Op::MakeVector, t, std::move(lanes)) : lanes[0];
}
}  // namespace

const ir::Type* Lowerer::StoredType(const sema::Type* iface) {
  iface = Concrete(iface);
  Existential& e = ExistentialOf(iface);
  if (e.stored != nullptr) return e.stored;
  ir::TypeTable& types = module_->Types();
  const ir::Type* u32 = types.Int(32, false);
  auto payload = static_cast<uint32_t>((iface->Iface()->any_value_size + 3) / 4);
  std::vector<const ir::Type*> members(kHeaderWords + payload, u32);
  std::vector<std::string> names{"type_id", "type_id_hi", "id", "id_hi"};
  for (uint32_t i = 0; i < payload; ++i) names.push_back("p" + std::to_string(i));
  // Named as the interface: reflection and slope-run name the element type so.
  e.stored = types.Struct(MangledTypeName(iface), members, names);
  std::string stem = MangledTypeName(iface);
  e.load = module_->AddFunction(UniqueFunctionName(stem + ".load"), e.type);
  e.store = module_->AddFunction(UniqueFunctionName(stem + ".store"), e.stored);
  e.load->force_inline = true;
  e.store->force_inline = true;
  e.dynamic = true;
  // Every conforming type may come out of memory: each gets its tag (and so its case in
  // every dispatcher) now, before the dispatchers are expanded.
  for (const sema::Type* t : iface->Iface()->dynamic_types) TagOf(e, t);
  return e.stored;
}

Lowerer::Existential* Lowerer::ExistentialByStored(const ir::Type* type) {
  for (auto& e : existentials_) {
    if (e->stored != nullptr && e->stored == type) return e.get();
  }
  return nullptr;
}

Value* Lowerer::LoadStored(Value* stored) {
  Existential* e = ExistentialByStored(stored->GetType());
  SLOPE_ASSERT(e != nullptr);
  return b_.Call(e->load, {stored});
}

Value* Lowerer::StoreStored(Value* value, const ir::Type* stored) {
  Existential* e = ExistentialByStored(stored);
  SLOPE_ASSERT(e != nullptr && value->GetType() == e->type);
  return b_.Call(e->store, {value});
}

Value* Lowerer::LowerDynamicObject(const ast::CallExpr* call) {
  Value* id = LowerExpr(call->args[0]);
  Value* data = LowerExpr(call->args[1]);
  Loc(call->range);
  const ir::Type* stored = StoredType(call->type);
  const ir::Type* u32 = module_->Types().Int(32, false);
  if (id->GetType() != u32) id = b_.Convert(id, u32);
  Value* zero = module_->ConstInt(u32, 0);
  std::vector<Value*> words{zero, zero, id, zero};
  PayloadWordsOf(*module_, b_, data, [&](Value* w) { words.push_back(w); });
  SLOPE_ASSERT(words.size() <= stored->Members().size());  // sema checked the size
  while (words.size() < stored->Members().size()) words.push_back(zero);
  return LoadStored(b_.MakeStruct(stored, words));
}

void Lowerer::WriteStoredConversions(Existential& e) {
  if (e.stored == nullptr) return;
  ir::TypeTable& types = module_->Types();
  const ir::Type* u32 = types.Int(32, false);
  Value* zero = module_->ConstInt(u32, 0);
  const std::vector<const sema::Type*>& ids = e.iface->Iface()->dynamic_types;
  const size_t size = e.stored->Members().size();
  auto no_value = [&] {
    std::vector<Value*> parts{module_->ConstInt(u32, kNoTag)};
    for (size_t m = 1; m < e.type->Members().size(); ++m)
      parts.push_back(Zero(e.type->Members()[m]));
    return b_.MakeStruct(e.type, parts);
  };
  {
    // load: stored -> existential, by conformance id.
    func_ = e.load;
    ir::Param* stored = module_->AddParam(e.stored, nullptr);
    func_->params.push_back(stored);
    StartBody(*module_, func_, b_);
    CaseSwitch sw = SwitchOver(b_.Extract(stored, kIdWord), ids.size() + 1, e.type);
    for (size_t c = 0; c < ids.size(); ++c) {
      Place(sw.cases[c]);
      uint32_t word = kHeaderWords;
      Value* v =
          PayloadValue(*module_, b_, LowerType(ids[c]), [&] { return b_.Extract(stored, word++); });
      b_.Br(sw.merge, {b_.Call(e.packs[TagOf(e, ids[c])], {v})});
    }
    Place(sw.cases.back());
    b_.Br(sw.merge, {no_value()});
    Place(sw.merge);
    b_.Return(sw.merged);
  }
  {
    // store: existential -> stored, by tag. A type with no conformance id (a generic
    // type's instance) is stored as no value.
    func_ = e.store;
    ir::Param* value = module_->AddParam(e.type, nullptr);
    func_->params.push_back(value);
    StartBody(*module_, func_, b_);
    auto none = [&] {
      std::vector<Value*> words(size, zero);
      words[kIdWord] = module_->ConstInt(u32, kNoConformance);
      return b_.MakeStruct(e.stored, words);
    };
    CaseSwitch sw = SwitchOver(b_.Extract(value, 0), e.concrete.size() + 1, e.stored);
    for (size_t k = 0; k < e.concrete.size(); ++k) {
      Place(sw.cases[k]);
      auto id = std::find(ids.begin(), ids.end(), e.concrete[k]);
      if (id == ids.end()) {
        b_.Br(sw.merge, {none()});
        continue;
      }
      std::vector<Value*> words{
          zero, zero, module_->ConstInt(u32, static_cast<int64_t>(id - ids.begin())), zero};
      PayloadWordsOf(*module_, b_, b_.Extract(value, static_cast<uint32_t>(k + 1)),
                     [&](Value* w) { words.push_back(w); });
      SLOPE_ASSERT(words.size() <= size);
      while (words.size() < size) words.push_back(zero);
      b_.Br(sw.merge, {b_.MakeStruct(e.stored, words)});
    }
    Place(sw.cases.back());
    b_.Br(sw.merge, {none()});
    Place(sw.merge);
    b_.Return(sw.merged);
  }
}

}  // namespace slope::lower
