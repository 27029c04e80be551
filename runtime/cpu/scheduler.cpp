#include "runtime/cpu/scheduler.h"

#include <sys/mman.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "compiler/base/half.h"
#include "compiler/ir/ir.h"

#if defined(__SANITIZE_ADDRESS__)
#define SLOPE_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SLOPE_ASAN 1
#endif
#endif
#ifdef SLOPE_ASAN
#include <sanitizer/common_interface_defs.h>
#endif

namespace slope::runtime::cpu {
namespace {

thread_local GroupRunner* g_runner = nullptr;

/// Each fiber's stack: large, since kernels keep arrays (reverse-mode tapes) on it; the
/// pages are only committed when touched.
constexpr size_t kStackBytes = size_t{1} << 20;

struct TypeCode {
  uint32_t kind, bytes, count;
};
TypeCode Decode(uint32_t code) { return {code & 15u, (code >> 4) & 15u, (code >> 8) & 255u}; }

/// One component of a wave operand as a number: integers exactly in int64/uint64,
/// floats as double (a half read from its bits).
struct Number {
  int64_t i = 0;
  uint64_t u = 0;
  double f = 0;
};

Number Read(const uint8_t* p, const TypeCode& t) {
  Number n;
  switch (t.kind) {
    case kSlopeCpuFloat:
      if (t.bytes == 2) {
        uint16_t bits;
        std::memcpy(&bits, p, 2);
        n.f = base::HalfToDouble(bits);
      } else if (t.bytes == 4) {
        float v;
        std::memcpy(&v, p, 4);
        n.f = v;
      } else {
        std::memcpy(&n.f, p, 8);
      }
      break;
    case kSlopeCpuSInt: {
      int64_t v = 0;
      if (t.bytes == 1) v = static_cast<int8_t>(*p);
      if (t.bytes == 2) { int16_t x; std::memcpy(&x, p, 2); v = x; }
      if (t.bytes == 4) { int32_t x; std::memcpy(&x, p, 4); v = x; }
      if (t.bytes == 8) std::memcpy(&v, p, 8);
      n.i = v;
      n.u = static_cast<uint64_t>(v);
      break;
    }
    default: {  // unsigned and bool
      uint64_t v = 0;
      std::memcpy(&v, p, t.bytes);
      n.u = v;
      n.i = static_cast<int64_t>(v);
      break;
    }
  }
  return n;
}

void Write(uint8_t* p, const TypeCode& t, const Number& n) {
  switch (t.kind) {
    case kSlopeCpuFloat:
      if (t.bytes == 2) {
        uint16_t bits = base::HalfFromDouble(n.f);
        std::memcpy(p, &bits, 2);
      } else if (t.bytes == 4) {
        float v = static_cast<float>(n.f);
        std::memcpy(p, &v, 4);
      } else {
        std::memcpy(p, &n.f, 8);
      }
      break;
    default: {
      uint64_t v = t.kind == kSlopeCpuSInt ? static_cast<uint64_t>(n.i) : n.u;
      std::memcpy(p, &v, t.bytes);  // little-endian: the low bytes
      break;
    }
  }
}

/// a op b for one component; integers wrap at their width (Write keeps the low bytes).
Number Combine(ir::WaveOp op, const TypeCode& t, const Number& a, const Number& b) {
  using W = ir::WaveOp;
  Number r;
  bool is_float = t.kind == kSlopeCpuFloat;
  bool is_signed = t.kind == kSlopeCpuSInt;
  auto rounded = [&](double v) {
    // Float results round to the operand's precision after every step.
    if (t.bytes == 4) return static_cast<double>(static_cast<float>(v));
    if (t.bytes == 2) return base::RoundToHalf(v);
    return v;
  };
  switch (op) {
    case W::Sum:
    case W::PrefixSum:
      r.f = rounded(a.f + b.f);
      r.u = a.u + b.u;
      r.i = static_cast<int64_t>(r.u);
      break;
    case W::Product:
    case W::PrefixProduct:
      r.f = rounded(a.f * b.f);
      r.u = a.u * b.u;
      r.i = static_cast<int64_t>(r.u);
      break;
    case W::Min:
      r = is_float ? (b.f < a.f ? b : a) : is_signed ? (b.i < a.i ? b : a) : (b.u < a.u ? b : a);
      if (is_float && std::isnan(a.f)) r = b;
      break;
    case W::Max:
      r = is_float ? (b.f > a.f ? b : a) : is_signed ? (b.i > a.i ? b : a) : (b.u > a.u ? b : a);
      if (is_float && std::isnan(a.f)) r = b;
      break;
    case W::BitAnd: r.u = a.u & b.u; r.i = static_cast<int64_t>(r.u); break;
    case W::BitOr: r.u = a.u | b.u; r.i = static_cast<int64_t>(r.u); break;
    case W::BitXor: r.u = a.u ^ b.u; r.i = static_cast<int64_t>(r.u); break;
    default: break;
  }
  return r;
}

bool Equal(const TypeCode& t, const Number& a, const Number& b) {
  return t.kind == kSlopeCpuFloat ? a.f == b.f : a.u == b.u;
}

}  // namespace

GroupRunner::GroupRunner() = default;

GroupRunner::~GroupRunner() {
  for (Lane& lane : lanes_) {
    if (lane.stack != nullptr) munmap(lane.stack, stack_bytes_);
  }
}

void GroupRunner::Print(std::string message) {
  if (dispatch_ != nullptr && dispatch_->print) dispatch_->print(std::move(message));
}

void GroupRunner::Run(const DispatchContext& dispatch, const uint32_t group[3]) {
  dispatch_ = &dispatch;
  const SlopeCpuKernelInfo& info = *dispatch.info;
  const uint32_t* n = info.numthreads;
  size_t count = size_t{n[0]} * n[1] * n[2];
  wave_size_ = info.wave_size != 0 ? info.wave_size : SLOPE_CPU_WAVE_SIZE;
  bool fibers = (info.flags & (kSlopeCpuUsesBarrier | kSlopeCpuUsesWave)) != 0;
  if (lanes_.size() < count) lanes_.resize(count);
  shared_.assign(info.shared_bytes, 0);
  size_t private_stride = (info.private_bytes + 15) / 16 * 16;
  private_.assign(private_stride * (fibers ? count : 1), 0);
  for (size_t i = 0; i < count; ++i) {
    SlopeCpuInvocation& inv = lanes_[i].inv;
    inv.resources = dispatch.resources;
    inv.sizes = dispatch.sizes;
    inv.shared = shared_.data();
    inv.private_memory = private_.data() + (fibers ? i * private_stride : 0);
    for (int k = 0; k < 3; ++k) inv.group_id[k] = group[k];
    uint32_t index = static_cast<uint32_t>(i);
    inv.local_id[0] = index % n[0];
    inv.local_id[1] = index / n[0] % n[1];
    inv.local_id[2] = index / (n[0] * n[1]);
    inv.local_index = index;
    inv.lane = index % wave_size_;
    inv.lane_count = wave_size_;
    inv.scheduler = this;
    lanes_[i].place.clear();
  }
  g_runner = this;
  if (!fibers) {
    for (size_t i = 0; i < count; ++i) dispatch.kernel(&lanes_[i].inv);
  } else {
    RunFibers(count);
  }
  g_runner = nullptr;
}

void GroupRunner::Trampoline() {
  GroupRunner* runner = g_runner;
  Lane* lane = runner->current_;
#ifdef SLOPE_ASAN
  __sanitizer_finish_switch_fiber(nullptr, &runner->scheduler_bottom_, &runner->scheduler_size_);
#endif
  runner->dispatch_->kernel(&lane->inv);
  lane->state = State::Done;
#ifdef SLOPE_ASAN
  // Leaving the fiber for good: its fake stack is released.
  __sanitizer_start_switch_fiber(nullptr, runner->scheduler_bottom_, runner->scheduler_size_);
#endif
  // Returning resumes the scheduler through uc_link.
}

void GroupRunner::Yield(Lane& lane) {
#ifdef SLOPE_ASAN
  void* fake = nullptr;
  __sanitizer_start_switch_fiber(&fake, scheduler_bottom_, scheduler_size_);
#endif
  swapcontext(&lane.context, &scheduler_);
#ifdef SLOPE_ASAN
  __sanitizer_finish_switch_fiber(fake, &scheduler_bottom_, &scheduler_size_);
#endif
}

// Its own function: getcontext returns twice, and the caller's loop counters would be
// locals of a function that does (GCC's -Wclobbered).
__attribute__((noinline)) void GroupRunner::MakeFiber(Lane& lane) {
  getcontext(&lane.context);
  lane.context.uc_stack.ss_sp = lane.stack;
  lane.context.uc_stack.ss_size = stack_bytes_;
  lane.context.uc_link = &scheduler_;
  makecontext(&lane.context, &GroupRunner::Trampoline, 0);
  lane.state = State::Ready;
}

void GroupRunner::RunFibers(size_t count) {
  if (stack_bytes_ == 0) stack_bytes_ = kStackBytes;
  for (size_t i = 0; i < count; ++i) {
    Lane& lane = lanes_[i];
    if (lane.stack == nullptr) {
      lane.stack = mmap(nullptr, stack_bytes_, PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
      if (lane.stack == MAP_FAILED) {
        lane.stack = nullptr;
        Print("slope cpu runtime: cannot map a fiber stack");
        return;
      }
    }
    MakeFiber(lane);
  }
  // Lanes that have not started run from their context's entry; the others resume.
  for (;;) {
    bool ran = false;
    for (size_t i = 0; i < count; ++i) {
      Lane& lane = lanes_[i];
      if (lane.state != State::Ready) continue;
      ran = true;
      current_ = &lane;
#ifdef SLOPE_ASAN
      void* fake = nullptr;
      __sanitizer_start_switch_fiber(&fake, lane.stack, stack_bytes_);
#endif
      swapcontext(&scheduler_, &lane.context);
#ifdef SLOPE_ASAN
      __sanitizer_finish_switch_fiber(fake, nullptr, nullptr);
#endif
      current_ = nullptr;
    }
    if (ran) continue;
    // Nothing can run: waves first, then the barrier.
    bool released = false;
    for (size_t wave = 0; wave < count; wave += wave_size_) {
      size_t end = std::min(count, wave + wave_size_);
      const Lane* first = nullptr;
      for (size_t i = wave; i < end; ++i) {
        if (lanes_[i].state != State::AtWave) continue;
        if (first == nullptr || Behind(lanes_[i], *first)) first = &lanes_[i];
      }
      if (first == nullptr) continue;
      std::vector<Lane*> active;
      for (size_t i = wave; i < end; ++i) {
        if (lanes_[i].state == State::AtWave && SamePlace(lanes_[i], *first)) active.push_back(&lanes_[i]);
      }
      ComputeWave(active);
      for (Lane* lane : active) lane->state = State::Ready;
      released = true;
    }
    if (released) continue;
    bool waiting = false;
    for (size_t i = 0; i < count; ++i) {
      if (lanes_[i].state == State::AtBarrier) {
        lanes_[i].state = State::Ready;
        waiting = true;
      }
    }
    if (!waiting) break;  // every invocation has returned
  }
}

bool GroupRunner::Behind(const Lane& a, const Lane& b) {
  size_t n = std::min(a.place.size(), b.place.size());
  for (size_t i = 0; i < n; ++i) {
    if (a.place[i] != b.place[i]) return a.place[i] < b.place[i];
  }
  // One place is a prefix of the other: the next entry of the longer (a loop's or a
  // call's position) against the other's site.
  if (a.place.size() < b.place.size()) return a.site < b.place[n];
  if (b.place.size() < a.place.size()) return a.place[n] < b.site;
  return a.site < b.site;
}

bool GroupRunner::SamePlace(const Lane& a, const Lane& b) {
  return a.site == b.site && a.place == b.place;
}

uint32_t GroupRunner::Enter(SlopeCpuInvocation* inv, uint32_t position) {
  Lane& lane = lanes_[inv->local_index];
  auto depth = static_cast<uint32_t>(lane.place.size() / 2);
  lane.place.push_back(position);
  lane.place.push_back(0);
  return depth;
}

void GroupRunner::Next(SlopeCpuInvocation* inv) {
  Lane& lane = lanes_[inv->local_index];
  if (!lane.place.empty()) ++lane.place.back();
}

void GroupRunner::Leave(SlopeCpuInvocation* inv, uint32_t depth) {
  Lane& lane = lanes_[inv->local_index];
  if (lane.place.size() > 2 * size_t{depth}) lane.place.resize(2 * size_t{depth});
}

void GroupRunner::Barrier(SlopeCpuInvocation* inv) {
  Lane& lane = lanes_[inv->local_index];
  lane.state = State::AtBarrier;
  Yield(lane);
}

void GroupRunner::Wave(SlopeCpuInvocation* inv, uint32_t site, uint32_t op, uint32_t type,
                       const void* in, void* out, uint32_t lane_arg) {
  Lane& lane = lanes_[inv->local_index];
  lane.state = State::AtWave;
  lane.site = site;
  lane.op = op;
  lane.type = type;
  lane.in = in;
  lane.out = out;
  lane.lane_arg = lane_arg;
  Yield(lane);
}

void GroupRunner::ComputeWave(const std::vector<Lane*>& lanes) {
  using W = ir::WaveOp;
  auto op = static_cast<W>(lanes.front()->op);
  TypeCode t = Decode(lanes.front()->type);
  auto in = [&](const Lane* l, uint32_t c) {
    return Read(static_cast<const uint8_t*>(l->in) + c * t.bytes, t);
  };
  auto out_bool = [](Lane* l, bool v) {
    uint32_t x = v ? 1 : 0;
    std::memcpy(l->out, &x, 4);
  };
  auto out_u32 = [](Lane* l, uint32_t v) { std::memcpy(l->out, &v, 4); };
  const Lane* first = lanes.front();
  switch (op) {
    case W::IsFirstLane:
      for (Lane* l : lanes) out_bool(l, l == first);
      return;
    case W::AllTrue:
    case W::AnyTrue: {
      bool all = true, any = false;
      for (const Lane* l : lanes) {
        bool v = in(l, 0).u != 0;
        all = all && v;
        any = any || v;
      }
      for (Lane* l : lanes) out_bool(l, op == W::AllTrue ? all : any);
      return;
    }
    case W::AllEqual: {
      bool same = true;
      for (const Lane* l : lanes) {
        for (uint32_t c = 0; c < t.count; ++c) same = same && Equal(t, in(l, c), in(first, c));
      }
      for (Lane* l : lanes) out_bool(l, same);
      return;
    }
    case W::CountBits:
    case W::PrefixCountBits:
    case W::Ballot: {
      uint32_t bits = 0;
      for (const Lane* l : lanes) {
        if (in(l, 0).u != 0) bits |= 1u << l->inv.lane;
      }
      for (Lane* l : lanes) {
        if (op == W::Ballot) {
          uint32_t v[4] = {bits, 0, 0, 0};
          std::memcpy(l->out, v, 16);
        } else if (op == W::CountBits) {
          out_u32(l, static_cast<uint32_t>(__builtin_popcount(bits)));
        } else {
          out_u32(l, static_cast<uint32_t>(__builtin_popcount(bits & ((1u << l->inv.lane) - 1u))));
        }
      }
      return;
    }
    case W::ReadLaneFirst:
    case W::ReadLaneAt:
      for (Lane* l : lanes) {
        const Lane* from = first;
        if (op == W::ReadLaneAt) {
          for (const Lane* k : lanes) {
            if (k->inv.lane == l->lane_arg) from = k;
          }
        }
        std::memcpy(l->out, from->in, size_t{t.bytes} * t.count);
      }
      return;
    case W::PrefixSum:
    case W::PrefixProduct: {
      for (uint32_t c = 0; c < t.count; ++c) {
        Number acc;
        if (op == W::PrefixProduct) {
          acc.f = 1;
          acc.u = 1;
          acc.i = 1;
        }
        for (Lane* l : lanes) {
          Write(static_cast<uint8_t*>(l->out) + c * t.bytes, t, acc);
          acc = Combine(op, t, acc, in(l, c));
        }
      }
      return;
    }
    default: {  // reductions
      for (uint32_t c = 0; c < t.count; ++c) {
        Number acc = in(first, c);
        for (size_t k = 1; k < lanes.size(); ++k) acc = Combine(op, t, acc, in(lanes[k], c));
        for (Lane* l : lanes) Write(static_cast<uint8_t*>(l->out) + c * t.bytes, t, acc);
      }
      return;
    }
  }
}

}  // namespace slope::runtime::cpu

// The callbacks the kernels call (cpu_abi.h), registered with the JIT by name.
extern "C" void slope_cpu_barrier(SlopeCpuInvocation* inv) {
  static_cast<slope::runtime::cpu::GroupRunner*>(inv->scheduler)->Barrier(inv);
}

extern "C" void slope_cpu_wave(SlopeCpuInvocation* inv, uint32_t site, uint32_t op, uint32_t type,
                               const void* in, void* out, uint32_t lane_arg) {
  static_cast<slope::runtime::cpu::GroupRunner*>(inv->scheduler)->Wave(inv, site, op, type, in, out, lane_arg);
}

extern "C" uint32_t slope_cpu_enter(SlopeCpuInvocation* inv, uint32_t position) {
  return static_cast<slope::runtime::cpu::GroupRunner*>(inv->scheduler)->Enter(inv, position);
}

extern "C" void slope_cpu_next(SlopeCpuInvocation* inv) {
  static_cast<slope::runtime::cpu::GroupRunner*>(inv->scheduler)->Next(inv);
}

extern "C" void slope_cpu_leave(SlopeCpuInvocation* inv, uint32_t depth) {
  static_cast<slope::runtime::cpu::GroupRunner*>(inv->scheduler)->Leave(inv, depth);
}
