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
                            ///< (a texture's SlopeCpuTexture, a sampler's SlopeCpuSampler)
  const uint64_t* sizes;    ///< per reflected binding: its size in bytes
  uint8_t* shared;          ///< this workgroup's groupshared memory
  uint8_t* private_memory;  ///< this invocation's `static` globals
  uint32_t group_id[3];     ///< SV_GroupID
  uint32_t local_id[3];     ///< SV_GroupThreadID
  uint32_t local_index;     ///< SV_GroupIndex
  uint32_t lane;            ///< the lane within its wave (local_index % wave size)
  void* scheduler;          ///< the runtime's, for the callbacks below
  uint32_t lane_count;      ///< the lanes of a wave: WaveGetLaneCount()
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
  uint32_t wave_size;  ///< [WaveSize(n)]'s n (4 to 32), or 0: SLOPE_CPU_WAVE_SIZE
} SlopeCpuKernelInfo;

/// The lanes of a wave on the CPU: consecutive invocations by SV_GroupIndex, 32 unless
/// the entry point names a smaller [WaveSize(n)].
#define SLOPE_CPU_WAVE_SIZE 32u

/// A wave operation's operand type: kind | bytes per component << 4 | components << 8.
enum { kSlopeCpuBool = 0, kSlopeCpuSInt = 1, kSlopeCpuUInt = 2, kSlopeCpuFloat = 3 };

/// How a sampler filters and addresses (runtime::SamplerDesc): resources[slot] of a
/// SamplerState or SamplerComparisonState binding points at one.
typedef struct SlopeCpuSampler {
  uint32_t linear;      ///< 1: bilinear (trilinear between levels) filtering; 0: nearest
  uint32_t address;     ///< every axis: kSlopeCpuClampToEdge, ... (below)
  uint32_t comparison;  ///< 1: a comparison sampler (reference <= texel)
} SlopeCpuSampler;

/// SlopeCpuSampler::address: clamp to the edge, wrap (repeat), mirrored repeat, or clamp to
/// a transparent black border.
enum {
  kSlopeCpuClampToEdge,
  kSlopeCpuRepeat,
  kSlopeCpuMirroredRepeat,
  kSlopeCpuClampToBorder,
};

/// A texture's texel formats (runtime::GetTextureFormatInfo's names).
enum {
  kSlopeCpuRgba32f,
  kSlopeCpuRg32f,
  kSlopeCpuR32f,
  kSlopeCpuRgba16f,
  kSlopeCpuRg16f,
  kSlopeCpuR16f,
  kSlopeCpuRgba8,
  kSlopeCpuRg8,
  kSlopeCpuR8,
  kSlopeCpuRgba8Snorm,
  kSlopeCpuRgba32i,
  kSlopeCpuRg32i,
  kSlopeCpuR32i,
  kSlopeCpuRgba16i,
  kSlopeCpuRgba8i,
  kSlopeCpuRgba32ui,
  kSlopeCpuRg32ui,
  kSlopeCpuR32ui,
  kSlopeCpuRgba16ui,
  kSlopeCpuRgba8ui,
  kSlopeCpuD32f,
  kSlopeCpuRgb32f,  ///< the 3-component formats: typed buffers only (Buffer<float3>)
  kSlopeCpuRgb32i,
  kSlopeCpuRgb32ui
};

/// The most mip levels a texture has (a side of up to 2^15 texels).
#define SLOPE_CPU_MAX_LEVELS 16u

/// A texture: resources[slot] of a texture binding (Texture2D, RWTexture2D, Sampler2D,
/// ...) points at one. A typed buffer's binding (Buffer<T>, RWBuffer<T>) gets one too: a
/// 1D texture (`dim` 1) of one level whose texels are the buffer's elements in place. Level l holds
/// `layers` layers of max(1, depth >> l) slices of max(1, height >> l) rows of max(1, width >> l)
/// texels, x fastest, tightly packed.
typedef struct SlopeCpuTexture {
  uint8_t* data;
  uint64_t level_offsets[SLOPE_CPU_MAX_LEVELS];  ///< each level's first byte in `data`
  uint32_t dim;                                  ///< 1, 2, 3, or 4 for a cube
  uint32_t arrayed;
  uint32_t width, height, depth;
  uint32_t layers;  ///< array layers; a cube's six faces are six layers
  uint32_t levels;
  uint32_t format;  ///< kSlopeCpuRgba32f, ...
  uint32_t components;
  uint32_t texel_bytes;
  SlopeCpuSampler sampler;  ///< a combined texture and sampler's (Sampler2D)
} SlopeCpuTexture;

/// The operands of a texture operation; those an operation does not take are zero.
typedef struct SlopeCpuTexelQuery {
  float coord[4];     ///< a sampling coordinate, the array layer last
  int32_t texel[4];   ///< an integer texel coordinate, the array layer last
  int32_t offset[3];  ///< a constant texel offset
  float lod;          ///< SampleLevel's level of detail
  int32_t level;      ///< Load's and GetDimensions' mip level
  float ddx[3];       ///< SampleGrad's gradients
  float ddy[3];
  float reference;     ///< SampleCmp's reference value
  uint32_t component;  ///< Gather's component (0..3); an atomic's ir::AtomicOp
  uint32_t value[4];   ///< a written texel's bits, four 32-bit components; an atomic's
                       ///< value (a compare-exchange's comparator, then its value)
} SlopeCpuTexelQuery;

/// Texture operation `op` (ir::TextureOp) of `texture` with `sampler` (null for a
/// combined texture, whose own sampler is used, and for operations without one). Writes
/// four 32-bit components to `out` (float, int or uint bits as the format holds; sizes
/// for GetDimensions, width first, layers last), or, for a write, stores `query->value`;
/// an atomic (on an RWBuffer<int> or RWBuffer<uint> element) writes the texel before.
void slope_cpu_texture(const SlopeCpuTexture* texture, const SlopeCpuSampler* sampler, uint32_t op,
                       const SlopeCpuTexelQuery* query, uint32_t* out);

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
