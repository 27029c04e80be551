#pragma once
// Hash sets and maps keyed by pointers, in one flat array (open addressing, linear
// probing): no allocation per element, as std::set and std::unordered_set make, which
// dominates passes that mark or look up every value of a function of 10^5 instructions.
// Membership and lookup only: no erasing, and no iteration (the order would depend on
// addresses). Null is not a key.

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "compiler/base/ice.h"

namespace slope::base {

/// A mix of the pointer's bits (allocations are aligned: the low bits alone are poor).
inline size_t HashPointer(const void* p) {
  auto x = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(p));
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  return static_cast<size_t>(x);
}

template <typename K, typename V>
class PointerMap {
 public:
  explicit PointerMap(size_t expected = 0) { Reserve(expected); }

  /// Room for `count` keys without growing.
  void Reserve(size_t count) {
    size_t capacity = 16;
    while (capacity < count * 2) capacity *= 2;
    if (capacity > slots_.size()) Rehash(capacity);
  }
  size_t Size() const { return size_; }
  bool Empty() const { return size_ == 0; }
  void Clear() {
    slots_.assign(slots_.size(), Slot{});
    size_ = 0;
  }

  V* Find(const K* key) {
    if (slots_.empty()) return nullptr;
    Slot& slot = slots_[Index(key)];
    return slot.key == key ? &slot.value : nullptr;
  }
  const V* Find(const K* key) const { return const_cast<PointerMap*>(this)->Find(key); }
  /// The value of `key`, which must be mapped.
  V& At(const K* key) {
    V* value = Find(key);
    SLOPE_ASSERT(value != nullptr);
    return *value;
  }
  bool Contains(const K* key) const { return Find(key) != nullptr; }

  /// Maps `key` to `value` unless it is mapped already: the stored value (valid until the
  /// next insertion), and whether it was inserted now.
  std::pair<V*, bool> Emplace(const K* key, V value) {
    SLOPE_ASSERT(key != nullptr);
    if ((size_ + 1) * 2 > slots_.size()) Rehash(slots_.empty() ? 16 : slots_.size() * 2);
    Slot& slot = slots_[Index(key)];
    if (slot.key == key) return {&slot.value, false};
    slot.key = key;
    slot.value = std::move(value);
    ++size_;
    return {&slot.value, true};
  }
  V& operator[](const K* key) { return *Emplace(key, V{}).first; }

 private:
  struct Slot {
    const K* key = nullptr;
    [[no_unique_address]] V value{};
  };

  /// The slot holding `key`, or the empty slot where it would go.
  size_t Index(const K* key) const {
    size_t mask = slots_.size() - 1;
    size_t i = HashPointer(key) & mask;
    while (slots_[i].key != nullptr && slots_[i].key != key) i = (i + 1) & mask;
    return i;
  }

  void Rehash(size_t capacity) {
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(capacity, Slot{});
    for (Slot& slot : old) {
      if (slot.key != nullptr) slots_[Index(slot.key)] = std::move(slot);
    }
  }

  std::vector<Slot> slots_;
  size_t size_ = 0;
};

/// A PointerMap without values (its slots hold only the keys).
template <typename K>
class PointerSet {
 public:
  explicit PointerSet(size_t expected = 0) : map_(expected) {}

  void Reserve(size_t count) { map_.Reserve(count); }
  size_t Size() const { return map_.Size(); }
  bool Empty() const { return map_.Empty(); }
  void Clear() { map_.Clear(); }
  bool Contains(const K* key) const { return map_.Contains(key); }
  /// Adds `key`: true when it was not there.
  bool Insert(const K* key) { return map_.Emplace(key, {}).second; }

 private:
  struct Unit {};
  PointerMap<K, Unit> map_;
};

}  // namespace slope::base
