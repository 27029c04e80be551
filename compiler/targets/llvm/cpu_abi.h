#pragma once
// The host kernels' calling convention, shared by the LLVM writer (which compiles to it)
// and the CPU runtime (runtime/cpu, which calls it). docs/cpu.md describes it.
//
// For each entry point E the writer defines
//   void slope_cpu_E(SlopeCpuInvocation* inv);      one invocation of E
//   const SlopeCpuKernelInfo slope_cpu_info_E;       what the runtime must provide
// A kernel calls back into the runtime for barriers, wave operations and printf.

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// One invocation's view of its dispatch. The runtime fills it; the kernel only reads it.
typedef struct SlopeCpuInvocation {
  void* const* resources;   ///< per reflected binding, in reflection order: its memory
  const uint64_t* sizes;    ///< per reflected binding: its size in bytes
  uint8_t* shared;          ///< this workgroup's groupshared memory
  uint8_t* private_memory;  ///< this invocation's `static` globals
  uint32_t group_id[3];     ///< SV_GroupID
  uint32_t local_id[3];     ///< SV_GroupThreadID
  uint32_t local_index;     ///< SV_GroupIndex
  uint32_t lane;            ///< the lane within its wave (local_index % wave size)
  void* scheduler;          ///< the runtime's, for the callbacks below
} SlopeCpuInvocation;

/// Bits of SlopeCpuKernelInfo::flags.
enum {
  kSlopeCpuUsesBarrier = 1,  ///< calls slope_cpu_barrier: invocations run as fibers
  kSlopeCpuUsesWave = 2,     ///< calls slope_cpu_wave: invocations run as fibers
};

typedef struct SlopeCpuKernelInfo {
  uint64_t shared_bytes;   ///< groupshared memory per workgroup
  uint64_t private_bytes;  ///< `static` globals per invocation
  uint32_t flags;
  uint32_t numthreads[3];
} SlopeCpuKernelInfo;

/// The lanes of a wave on the CPU: consecutive invocations by SV_GroupIndex.
#define SLOPE_CPU_WAVE_SIZE 32u

/// A wave operation's operand type: kind | bytes per component << 4 | components << 8.
enum { kSlopeCpuBool = 0, kSlopeCpuSInt = 1, kSlopeCpuUInt = 2, kSlopeCpuFloat = 3 };

/// GroupMemoryBarrierWithGroupSync and the other synchronizing barriers: returns once
/// every invocation of the workgroup that has not finished has called it.
void slope_cpu_barrier(SlopeCpuInvocation* inv);

/// Wave operation `op` (ir::WaveOp) at call site `site` with operand `in` of type
/// `type`; writes the result to `out`. `lane_arg` is WaveReadLaneAt's lane.
void slope_cpu_wave(SlopeCpuInvocation* inv, uint32_t site, uint32_t op, uint32_t type,
                    const void* in, void* out, uint32_t lane_arg);

/// printf: `format`, then `count` operands, operand i of type `types[i]` (as for waves)
/// at `values[i]`.
/// Where an invocation is in the loops and calls it runs, for kernels with wave
/// operations: entering a loop or a call pushes (position, 0) and returns the depth
/// before; a loop's back edge adds one to the innermost iteration count; leaving sets the
/// depth back. Lanes act together at a wave operation only at the same positions and
/// iteration counts.
uint32_t slope_cpu_enter(SlopeCpuInvocation* inv, uint32_t position);
void slope_cpu_next(SlopeCpuInvocation* inv);
void slope_cpu_leave(SlopeCpuInvocation* inv, uint32_t depth);
void slope_cpu_printf(SlopeCpuInvocation* inv, const char* format, uint32_t count,
                      const uint32_t* types, const void* const* values);

#ifdef __cplusplus
}
#endif
