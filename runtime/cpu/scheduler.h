#pragma once
// Runs the invocations of one workgroup on the calling thread (runtime/cpu's workers
// each own one GroupRunner).
//
// A kernel without synchronizing operations runs its invocations one after another. A
// kernel that calls slope_cpu_barrier or slope_cpu_wave runs each invocation as a fiber
// (a ucontext with a stack of its own): an invocation runs until it reaches a barrier or
// a wave operation, or returns. When none can run:
// - in each wave (SLOPE_CPU_WAVE_SIZE consecutive invocations by SV_GroupIndex, or the
//   kernel's [WaveSize(n)]) whose
//   waiting invocations wait at wave operations, those furthest behind act together:
//   each lane's place is the positions of the loops and calls it is in with the loops'
//   iteration counts (slope_cpu_enter/next/leave), then the site of its operation. The
//   writer numbers loops, calls and sites in the order of the blocks it writes, so an
//   operation inside an `if` comes before the one after it, a loop before what follows
//   it, and an earlier iteration before a later one. The lanes at the smallest place
//   (compared lexicographically) are the active lanes: the operation is computed over
//   them, in lane order, and they go on; lanes at the same site in different
//   iterations of a loop never act together;
// - otherwise, once every unfinished invocation waits at a barrier, all of them go on.
// So a barrier holds until every invocation of the group reaches it, and a wave operation
// acts on the lanes of its wave that reach it together, as on a GPU that reconverges
// after each branch.

#include <ucontext.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "compiler/targets/llvm/cpu_abi.h"

namespace slope::runtime::cpu {

using KernelFn = void (*)(SlopeCpuInvocation*);

/// What one dispatch shares between its workgroups.
struct DispatchContext {
  KernelFn kernel = nullptr;
  const SlopeCpuKernelInfo* info = nullptr;
  void* const* resources = nullptr;
  const uint64_t* sizes = nullptr;
  /// Receives each printf message (called under a lock by the caller's choice).
  std::function<void(std::string)> print;
};

class GroupRunner {
 public:
  GroupRunner();
  ~GroupRunner();
  GroupRunner(const GroupRunner&) = delete;
  GroupRunner& operator=(const GroupRunner&) = delete;

  /// Runs every invocation of workgroup `group`.
  void Run(const DispatchContext& dispatch, const uint32_t group[3]);

  // The callbacks (cpu_abi.h) land here.
  void Barrier(SlopeCpuInvocation* inv);
  void Wave(SlopeCpuInvocation* inv, uint32_t site, uint32_t op, uint32_t type, const void* in,
            void* out, uint32_t lane_arg);
  void Print(std::string message);
  uint32_t Enter(SlopeCpuInvocation* inv, uint32_t position);
  void Next(SlopeCpuInvocation* inv);
  void Leave(SlopeCpuInvocation* inv, uint32_t depth);

 private:
  enum class State : uint8_t { Ready, AtBarrier, AtWave, Done };
  struct Lane {
    SlopeCpuInvocation inv{};
    ucontext_t context{};
    State state = State::Ready;
    uint32_t site = 0, op = 0, type = 0, lane_arg = 0;
    const void* in = nullptr;
    void* out = nullptr;
    void* stack = nullptr;
    /// (position, iteration) per loop or call the lane is in, outermost first.
    std::vector<uint32_t> place;
  };
  /// Whether `a` is behind `b`: its place, then its site, compared lexicographically.
  static bool Behind(const Lane& a, const Lane& b);
  static bool SamePlace(const Lane& a, const Lane& b);
  static void Trampoline();
  void RunFibers(size_t count);
  /// Gives `lane` a fresh context that starts in Trampoline on its own stack.
  void MakeFiber(Lane& lane);
  void Yield(Lane& lane);
  /// Computes one wave operation over `lanes` (the active lanes, in lane order).
  void ComputeWave(const std::vector<Lane*>& lanes);

  const DispatchContext* dispatch_ = nullptr;
  std::vector<Lane> lanes_;
  std::vector<uint8_t> shared_;
  std::vector<uint8_t> private_;
  ucontext_t scheduler_{};
  Lane* current_ = nullptr;
  uint32_t wave_size_ = SLOPE_CPU_WAVE_SIZE;  ///< the running kernel's lanes per wave
  size_t stack_bytes_ = 0;
  // AddressSanitizer's view of the stack switches (unused without it).
  const void* scheduler_bottom_ = nullptr;
  size_t scheduler_size_ = 0;
};

}  // namespace slope::runtime::cpu
