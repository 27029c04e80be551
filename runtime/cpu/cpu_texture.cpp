#include "runtime/cpu/cpu_texture.h"

#include <algorithm>
#include <atomic>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

#include "compiler/base/half.h"
#include "compiler/ir/ir.h"

namespace slope::runtime::cpu {
namespace {

struct FormatEntry {
  const char* name;
  uint32_t code;
};

constexpr FormatEntry kFormats[] = {
    {"rgba32f", kSlopeCpuRgba32f},
    {"rg32f", kSlopeCpuRg32f},
    {"r32f", kSlopeCpuR32f},
    {"rgba16f", kSlopeCpuRgba16f},
    {"rg16f", kSlopeCpuRg16f},
    {"r16f", kSlopeCpuR16f},
    {"rgba8", kSlopeCpuRgba8},
    {"rg8", kSlopeCpuRg8},
    {"r8", kSlopeCpuR8},
    {"rgba8snorm", kSlopeCpuRgba8Snorm},
    {"rgba32i", kSlopeCpuRgba32i},
    {"rg32i", kSlopeCpuRg32i},
    {"r32i", kSlopeCpuR32i},
    {"rgba16i", kSlopeCpuRgba16i},
    {"rgba8i", kSlopeCpuRgba8i},
    {"rgba32ui", kSlopeCpuRgba32ui},
    {"rg32ui", kSlopeCpuRg32ui},
    {"r32ui", kSlopeCpuR32ui},
    {"rgba16ui", kSlopeCpuRgba16ui},
    {"rgba8ui", kSlopeCpuRgba8ui},
    {"d32f", kSlopeCpuD32f},
    {"rgb32f", kSlopeCpuRgb32f},
    {"rgb32i", kSlopeCpuRgb32i},
    {"rgb32ui", kSlopeCpuRgb32ui},
};

/// How a format's components are stored.
enum class Kind { Float32, Float16, Unorm8, Snorm8, SInt, UInt };

Kind KindOf(uint32_t format) {
  switch (format) {
    case kSlopeCpuRgba16f:
    case kSlopeCpuRg16f:
    case kSlopeCpuR16f:
      return Kind::Float16;
    case kSlopeCpuRgba8:
    case kSlopeCpuRg8:
    case kSlopeCpuR8:
      return Kind::Unorm8;
    case kSlopeCpuRgba8Snorm:
      return Kind::Snorm8;
    case kSlopeCpuRgba32i:
    case kSlopeCpuRg32i:
    case kSlopeCpuR32i:
    case kSlopeCpuRgba16i:
    case kSlopeCpuRgba8i:
    case kSlopeCpuRgb32i:
      return Kind::SInt;
    case kSlopeCpuRgba32ui:
    case kSlopeCpuRg32ui:
    case kSlopeCpuR32ui:
    case kSlopeCpuRgba16ui:
    case kSlopeCpuRgba8ui:
    case kSlopeCpuRgb32ui:
      return Kind::UInt;
    default:
      return Kind::Float32;
  }
}

bool IsInteger(const SlopeCpuTexture& t) {
  Kind k = KindOf(t.format);
  return k == Kind::SInt || k == Kind::UInt;
}

uint32_t FloatBits(float f) { return std::bit_cast<uint32_t>(f); }
float BitsFloat(uint32_t u) { return std::bit_cast<float>(u); }

/// The texel at `p` as four 32-bit components: float bits for the float and normalized
/// formats, integers for the others; components the format lacks are 0, 0, 0, 1.
void Decode(const SlopeCpuTexture& t, const uint8_t* p, uint32_t out[4]) {
  Kind kind = KindOf(t.format);
  bool integer = kind == Kind::SInt || kind == Kind::UInt;
  out[0] = out[1] = out[2] = 0;
  out[3] = integer ? 1u : FloatBits(1.0f);
  uint32_t bytes = t.texel_bytes / t.components;
  for (uint32_t c = 0; c < t.components; ++c) {
    const uint8_t* q = p + c * bytes;
    switch (kind) {
      case Kind::Float32:
        std::memcpy(&out[c], q, 4);
        break;
      case Kind::Float16: {
        uint16_t h;
        std::memcpy(&h, q, 2);
        out[c] = FloatBits(static_cast<float>(base::HalfToDouble(h)));
        break;
      }
      case Kind::Unorm8:
        out[c] = FloatBits(static_cast<float>(*q) * (1.0f / 255.0f));
        break;
      case Kind::Snorm8:
        out[c] = FloatBits(
            std::max(static_cast<float>(static_cast<int8_t>(*q)) * (1.0f / 127.0f), -1.0f));
        break;
      case Kind::SInt:
      case Kind::UInt: {
        uint32_t v = 0;
        std::memcpy(&v, q, bytes);
        if (kind == Kind::SInt && bytes < 4) {
          unsigned shift = 32 - 8 * bytes;
          v = static_cast<uint32_t>(static_cast<int32_t>(v << shift) >> shift);
        }
        out[c] = v;
        break;
      }
    }
  }
}

/// Stores the four components `in` (as Decode gives them) at `p` in the texture's format:
/// normalized formats clamp and round to nearest, narrower integers keep their low bits.
void Encode(const SlopeCpuTexture& t, const uint32_t in[4], uint8_t* p) {
  Kind kind = KindOf(t.format);
  uint32_t bytes = t.texel_bytes / t.components;
  for (uint32_t c = 0; c < t.components; ++c) {
    uint8_t* q = p + c * bytes;
    float f = BitsFloat(in[c]);
    switch (kind) {
      case Kind::Float32:
        std::memcpy(q, &in[c], 4);
        break;
      case Kind::Float16: {
        uint16_t h = base::HalfFromDouble(f);
        std::memcpy(q, &h, 2);
        break;
      }
      case Kind::Unorm8:
        *q = static_cast<uint8_t>(
            std::nearbyint((std::isnan(f) ? 0.0f : std::clamp(f, 0.0f, 1.0f)) * 255.0f));
        break;
      case Kind::Snorm8:
        *q = static_cast<uint8_t>(static_cast<int8_t>(
            std::nearbyint((std::isnan(f) ? 0.0f : std::clamp(f, -1.0f, 1.0f)) * 127.0f)));
        break;
      case Kind::SInt:
      case Kind::UInt:
        std::memcpy(q, &in[c], bytes);
        break;
    }
  }
}

struct Extent {
  uint32_t size[3];
};

Extent LevelExtent(const SlopeCpuTexture& t, uint32_t level) {
  return {{std::max(1u, t.width >> level), std::max(1u, t.height >> level),
           std::max(1u, t.depth >> level)}};
}

/// Axes of a texel coordinate before the layer: a cube's faces are 2D.
uint32_t Axes(const SlopeCpuTexture& t) { return t.dim == 4 ? 2 : t.dim; }

uint8_t* TexelAt(const SlopeCpuTexture& t, uint32_t level, const int32_t xyz[3], uint32_t layer) {
  Extent e = LevelExtent(t, level);
  uint64_t index =
      ((static_cast<uint64_t>(layer) * e.size[2] + static_cast<uint32_t>(xyz[2])) * e.size[1] +
       static_cast<uint32_t>(xyz[1])) *
          e.size[0] +
      static_cast<uint32_t>(xyz[0]);
  return t.data + t.level_offsets[level] + index * t.texel_bytes;
}

/// An integer texel coordinate (Load, reads and writes): the texel's address, or null
/// when it lies outside the level (reads then give zero, writes do nothing).
uint8_t* IntegerTexel(const SlopeCpuTexture& t, uint32_t level, const SlopeCpuTexelQuery& q,
                      bool with_offset) {
  if (level >= t.levels) return nullptr;
  Extent e = LevelExtent(t, level);
  uint32_t axes = Axes(t);
  int32_t xyz[3] = {0, 0, 0};
  for (uint32_t a = 0; a < axes; ++a) {
    int64_t v = static_cast<int64_t>(q.texel[a]) + (with_offset ? q.offset[a] : 0);
    if (v < 0 || v >= e.size[a]) return nullptr;
    xyz[a] = static_cast<int32_t>(v);
  }
  int64_t layer = t.arrayed || t.dim == 4 ? q.texel[axes] : 0;
  if (layer < 0 || layer >= t.layers) return nullptr;
  return TexelAt(t, level, xyz, static_cast<uint32_t>(layer));
}

/// floor(u) as a texel index; NaN (a zero cube direction, say) is texel 0, and values far
/// outside any texture are kept where wrapping them stays exact.
int64_t FloorIndex(float u) {
  if (std::isnan(u)) return 0;
  return static_cast<int64_t>(std::floor(std::clamp(u, -1.0e9f, 1.0e9f)));
}

/// Vulkan's wrapping of texel index `i` into 0..n-1; -1 for a texel of the border.
int32_t Wrap(int64_t i, uint32_t n, uint32_t address) {
  int64_t size = n;
  switch (address) {
    case kSlopeCpuClampToBorder:
      return i < 0 || i >= size ? -1 : static_cast<int32_t>(i);
    case kSlopeCpuRepeat:
      return static_cast<int32_t>(((i % size) + size) % size);
    case kSlopeCpuMirroredRepeat: {
      int64_t m = ((i % (2 * size)) + 2 * size) % (2 * size) - size;
      int64_t mirrored = m >= 0 ? m : -(1 + m);
      return static_cast<int32_t>(size - 1 - mirrored);
    }
    default:
      return static_cast<int32_t>(std::clamp<int64_t>(i, 0, size - 1));
  }
}

/// A sampling coordinate resolved to a layer and normalized coordinates within it (a
/// cube's face coordinates).
struct Lookup {
  float st[3] = {0, 0, 0};
  uint32_t layer = 0;
  // A cube: for each face coordinate, the direction's axis and sign it comes from, and the
  // major axis's (for gradients).
  int face_axis[3] = {0, 0, 0};
  float face_sign[3] = {1, 1, 1};
  float major = 1;
};

/// Vulkan's choice of a cube face for direction `r`: the axis of largest magnitude
/// (x before y before z on ties), sc and tc per the spec's table.
void CubeFace(const float r[3], Lookup* out, uint32_t* face) {
  float ax = std::fabs(r[0]), ay = std::fabs(r[1]), az = std::fabs(r[2]);
  int major;
  if (ax >= ay && ax >= az) {
    major = 0;
  } else if (ay >= az) {
    major = 1;
  } else {
    major = 2;
  }
  bool positive = r[major] >= 0;
  // (face, s axis, s sign, t axis, t sign)
  struct Row {
    uint32_t face;
    int s_axis;
    float s_sign;
    int t_axis;
    float t_sign;
  };
  static const Row kRows[6] = {
      {0, 2, -1, 1, -1},  // +x: sc = -rz, tc = -ry
      {1, 2, 1, 1, -1},   // -x: sc = +rz, tc = -ry
      {2, 0, 1, 2, 1},    // +y: sc = +rx, tc = +rz
      {3, 0, 1, 2, -1},   // -y: sc = +rx, tc = -rz
      {4, 0, 1, 1, -1},   // +z: sc = +rx, tc = -ry
      {5, 0, -1, 1, -1},  // -z: sc = -rx, tc = -ry
  };
  const Row& row = kRows[major * 2 + (positive ? 0 : 1)];
  float ma = std::fabs(r[major]);
  float sc = row.s_sign * r[row.s_axis];
  float tc = row.t_sign * r[row.t_axis];
  out->st[0] = 0.5f * (sc / ma + 1.0f);
  out->st[1] = 0.5f * (tc / ma + 1.0f);
  out->face_axis[0] = row.s_axis;
  out->face_sign[0] = row.s_sign;
  out->face_axis[1] = row.t_axis;
  out->face_sign[1] = row.t_sign;
  out->face_axis[2] = major;
  out->face_sign[2] = positive ? 1.0f : -1.0f;
  out->major = ma;
  *face = row.face;
}

/// The layer (rounded to nearest even, clamped) and normalized coordinates of `q.coord`.
Lookup Resolve(const SlopeCpuTexture& t, const SlopeCpuTexelQuery& q) {
  Lookup out;
  uint32_t axes = t.dim == 4 ? 3 : t.dim;
  uint32_t count = t.dim == 4 ? t.layers / 6 : t.layers;
  uint32_t layer = 0;
  if (t.arrayed) {
    float a = std::nearbyint(q.coord[axes]);
    layer = std::isnan(a)
                ? 0
                : static_cast<uint32_t>(std::clamp(a, 0.0f, static_cast<float>(count - 1)));
  }
  if (t.dim == 4) {
    uint32_t face = 0;
    CubeFace(q.coord, &out, &face);
    out.layer = layer * 6 + face;
  } else {
    for (uint32_t a = 0; a < axes; ++a) out.st[a] = q.coord[a];
    out.layer = layer;
  }
  return out;
}

/// Texel `xyz` of `layer` at `level`, decoded (a border texel, a coordinate of -1, is
/// transparent black: zero in the format's components, and an alpha the format lacks is
/// 1 as for any texel); for a comparison, 1 or 0 in component 0 as `reference <= texel`.
void Fetch(const SlopeCpuTexture& t, uint32_t level, const int32_t xyz[3], uint32_t layer,
           const float* reference, uint32_t out[4]) {
  if (xyz[0] < 0 || xyz[1] < 0 || xyz[2] < 0) {
    out[0] = out[1] = out[2] = 0;
    out[3] = t.components == 4 ? 0 : IsInteger(t) ? 1u : FloatBits(1.0f);
  } else {
    Decode(t, TexelAt(t, level, xyz, layer), out);
  }
  if (reference != nullptr) {
    out[0] = FloatBits(*reference <= BitsFloat(out[0]) ? 1.0f : 0.0f);
    out[1] = out[2] = 0;
    out[3] = FloatBits(1.0f);
  }
}

/// Whether linear filtering of the texture blends 8-bit values: the unorm8 formats are
/// filtered in 8-bit fixed point, as Vulkan implementations do (weights of 1/256, each
/// blend rounded to the nearest 8-bit value).
bool Fixed8(const SlopeCpuTexture& t) { return KindOf(t.format) == Kind::Unorm8; }

/// lo + weight * (hi - lo): in floats, one fused multiply-add; for 8-bit values (`fixed8`:
/// lo and hi hold the integers 0..255), (lo * 256 + (hi - lo) * w + 128) >> 8 with the
/// weight rounded to w = round(weight * 256).
float Lerp(float lo, float hi, float weight, bool fixed8) {
  if (!fixed8) return std::fma(weight, hi - lo, lo);
  int32_t w = std::clamp(static_cast<int32_t>(std::nearbyint(weight * 256.0f)), 0, 256);
  int32_t a = static_cast<int32_t>(lo), b = static_cast<int32_t>(hi);
  return static_cast<float>((a * 256 + (b - a) * w + 128) >> 8);
}

/// Texel (i, j) of the cube face `lk` looked up, at `level`, where i and j may lie one texel
/// outside the face: Vulkan's seamless cube filtering takes such a texel from the
/// neighbouring face (the texel centre as a direction, its face chosen again), and one
/// outside two edges (a corner) is the mean of the three texels around it.
void CubeFetch(const SlopeCpuTexture& t, uint32_t level, const Lookup& lk, int64_t i, int64_t j,
               const float* reference, uint32_t out[4]) {
  int64_t n = LevelExtent(t, level).size[0];
  bool out_i = i < 0 || i >= n, out_j = j < 0 || j >= n;
  int64_t ci = std::clamp<int64_t>(i, 0, n - 1), cj = std::clamp<int64_t>(j, 0, n - 1);
  if (out_i && out_j) {
    uint32_t a[4], b[4], c[4];
    CubeFetch(t, level, lk, ci, cj, reference, a);
    if (IsInteger(t)) {
      std::memcpy(out, a, sizeof a);
      return;
    }
    CubeFetch(t, level, lk, i, cj, reference, b);
    CubeFetch(t, level, lk, ci, j, reference, c);
    for (int k = 0; k < 4; ++k) {
      out[k] = FloatBits((BitsFloat(a[k]) + BitsFloat(b[k]) + BitsFloat(c[k])) / 3.0f);
    }
    return;
  }
  int32_t xyz[3] = {static_cast<int32_t>(ci), static_cast<int32_t>(cj), 0};
  uint32_t layer = lk.layer;
  if (out_i || out_j) {
    float size = static_cast<float>(n);
    float r[3];
    r[lk.face_axis[0]] = lk.face_sign[0] * (2.0f * (static_cast<float>(i) + 0.5f) / size - 1.0f);
    r[lk.face_axis[1]] = lk.face_sign[1] * (2.0f * (static_cast<float>(j) + 0.5f) / size - 1.0f);
    r[lk.face_axis[2]] = lk.face_sign[2];
    Lookup next;
    uint32_t face = 0;
    CubeFace(r, &next, &face);
    layer = lk.layer - lk.layer % 6 + face;
    for (int a = 0; a < 2; ++a) {
      xyz[a] = static_cast<int32_t>(std::clamp<int64_t>(FloorIndex(next.st[a] * size), 0, n - 1));
    }
  }
  Fetch(t, level, xyz, layer, reference, out);
}

/// The texture filtered at one level: nearest, or the 2, 4 or 8 texels around the
/// coordinate blended by the fraction of u - 0.5 on each axis.
void FilterLevel(const SlopeCpuTexture& t, const SlopeCpuSampler& s, uint32_t level,
                 const Lookup& lk, const int32_t offset[3], const float* reference,
                 uint32_t out[4]) {
  Extent e = LevelExtent(t, level);
  uint32_t axes = Axes(t);
  // A cube's texels past its edges come from CubeFetch, not from the address mode.
  uint32_t address = t.dim == 4 ? uint32_t{kSlopeCpuClampToEdge} : s.address;
  bool linear = s.linear != 0 && !IsInteger(t);
  float u[3];
  for (uint32_t a = 0; a < axes; ++a) {
    u[a] =
        lk.st[a] * static_cast<float>(e.size[a]) + static_cast<float>(t.dim == 4 ? 0 : offset[a]);
  }
  if (!linear) {
    int32_t xyz[3] = {0, 0, 0};
    for (uint32_t a = 0; a < axes; ++a) {
      xyz[a] = Wrap(FloorIndex(u[a]), e.size[a], address);
    }
    Fetch(t, level, xyz, lk.layer, reference, out);
    return;
  }
  int64_t base[3] = {0, 0, 0};
  float frac[3] = {0, 0, 0};
  for (uint32_t a = 0; a < axes; ++a) {
    float shift = static_cast<float>(t.dim == 4 ? 0 : offset[a]) - 0.5f;
    float x = std::fma(lk.st[a], static_cast<float>(e.size[a]), shift);
    base[a] = FloorIndex(x);
    frac[a] = std::isfinite(x) ? x - std::floor(x) : 0.0f;
  }
  bool fixed8 = Fixed8(t) && reference == nullptr;
  // The 2, 4 or 8 texels by corner (bit a: the higher texel on axis a), blended one axis
  // after the other: lo + frac * (hi - lo).
  float texels[8][4];
  uint32_t corners = 1u << axes;
  for (uint32_t corner = 0; corner < corners; ++corner) {
    int32_t xyz[3] = {0, 0, 0};
    int64_t raw[3] = {0, 0, 0};
    for (uint32_t a = 0; a < axes; ++a) {
      raw[a] = base[a] + ((corner >> a) & 1u);
      xyz[a] = Wrap(raw[a], e.size[a], address);
    }
    uint32_t texel[4];
    if (t.dim == 4) {
      CubeFetch(t, level, lk, raw[0], raw[1], reference, texel);
    } else {
      Fetch(t, level, xyz, lk.layer, reference, texel);
    }
    for (int c = 0; c < 4; ++c) {
      float v = BitsFloat(texel[c]);
      texels[corner][c] = fixed8 ? std::nearbyint(v * 255.0f) : v;
    }
  }
  for (uint32_t a = 0; a < axes; ++a) {
    uint32_t step = 1u << a;
    for (uint32_t corner = 0; corner < corners; corner += 2 * step) {
      for (int c = 0; c < 4; ++c) {
        texels[corner][c] = Lerp(texels[corner][c], texels[corner + step][c], frac[a], fixed8);
      }
    }
  }
  for (int c = 0; c < 4; ++c) {
    out[c] = FloatBits(fixed8 ? texels[0][c] * (1.0f / 255.0f) : texels[0][c]);
  }
}

/// Filters at level of detail `lambda`: Vulkan's level selection with minLod 0 and no
/// maxLod (nearest: level ceil(lambda + 0.5) - 1; linear: between the two levels around
/// lambda).
void FilterLod(const SlopeCpuTexture& t, const SlopeCpuSampler& s, float lambda, const Lookup& lk,
               const int32_t offset[3], uint32_t out[4]) {
  float top = static_cast<float>(t.levels - 1);
  float d = std::isnan(lambda) ? 0.0f : std::clamp(lambda, 0.0f, top);
  if (s.linear == 0 || IsInteger(t)) {
    float nearest = std::ceil(d + 0.5f) - 1.0f;
    FilterLevel(t, s, static_cast<uint32_t>(std::clamp(nearest, 0.0f, top)), lk, offset, nullptr,
                out);
    return;
  }
  uint32_t hi = static_cast<uint32_t>(std::floor(d));
  uint32_t lo = std::min(hi + 1, t.levels - 1);
  float delta = d - static_cast<float>(hi);
  FilterLevel(t, s, hi, lk, offset, nullptr, out);
  if (delta == 0.0f || lo == hi) return;
  uint32_t next[4];
  FilterLevel(t, s, lo, lk, offset, nullptr, next);
  for (int c = 0; c < 4; ++c) {
    if (Fixed8(t)) {
      float lo = std::nearbyint(BitsFloat(out[c]) * 255.0f);
      float hi = std::nearbyint(BitsFloat(next[c]) * 255.0f);
      out[c] = FloatBits(Lerp(lo, hi, delta, true) * (1.0f / 255.0f));
    } else {
      out[c] = FloatBits(Lerp(BitsFloat(out[c]), BitsFloat(next[c]), delta, false));
    }
  }
}

/// SampleGrad's level of detail: log2 of the larger of the two gradients' lengths in
/// texels of level 0 (for a cube, of the face coordinates' gradients).
float GradientLod(const SlopeCpuTexture& t, const Lookup& lk, const SlopeCpuTexelQuery& q) {
  uint32_t axes = Axes(t);
  float size[3] = {static_cast<float>(t.width), static_cast<float>(t.height),
                   static_cast<float>(t.depth)};
  float rho = 0;
  for (const float* g : {q.ddx, q.ddy}) {
    float len2 = 0;
    for (uint32_t a = 0; a < axes; ++a) {
      float d = g[a];
      if (t.dim == 4) {
        // s = (sc / |ma| + 1) / 2: ds = (dsc * |ma| - sc * d|ma|) / (2 ma^2).
        float sc = lk.face_sign[a] * q.coord[lk.face_axis[a]];
        float dsc = lk.face_sign[a] * g[lk.face_axis[a]];
        float dma = lk.face_sign[2] * g[lk.face_axis[2]];
        d = (dsc * lk.major - sc * dma) / (2.0f * lk.major * lk.major);
      }
      float texels = d * size[a];
      len2 += texels * texels;
    }
    rho = std::max(rho, std::sqrt(len2));
  }
  return std::log2(rho);
}

/// Gather: component `q.component` of the four texels bilinear filtering would blend at
/// level 0, in the order (i0, j1), (i1, j1), (i1, j0), (i0, j0).
void Gather(const SlopeCpuTexture& t, const SlopeCpuSampler& s, const Lookup& lk,
            const SlopeCpuTexelQuery& q, uint32_t out[4]) {
  Extent e = LevelExtent(t, 0);
  uint32_t address = t.dim == 4 ? uint32_t{kSlopeCpuClampToEdge} : s.address;
  int64_t base[2];
  for (int a = 0; a < 2; ++a) {
    float u = lk.st[a] * static_cast<float>(e.size[a]) +
              static_cast<float>(t.dim == 4 ? 0 : q.offset[a]) - 0.5f;
    base[a] = FloorIndex(u);
  }
  static const int kCorners[4][2] = {{0, 1}, {1, 1}, {1, 0}, {0, 0}};
  uint32_t component = std::min(q.component, 3u);
  for (int k = 0; k < 4; ++k) {
    int32_t xyz[3] = {Wrap(base[0] + kCorners[k][0], e.size[0], address),
                      Wrap(base[1] + kCorners[k][1], e.size[1], address), 0};
    uint32_t texel[4];
    if (t.dim == 4) {
      CubeFetch(t, 0, lk, base[0] + kCorners[k][0], base[1] + kCorners[k][1], nullptr, texel);
    } else {
      Fetch(t, 0, xyz, lk.layer, nullptr, texel);
    }
    out[k] = texel[component];
  }
}

void Dimensions(const SlopeCpuTexture& t, int32_t level, uint32_t out[4]) {
  Extent e = LevelExtent(t, level < 0 ? 0 : static_cast<uint32_t>(std::min(level, 31)));
  uint32_t axes = Axes(t);
  for (uint32_t a = 0; a < axes; ++a) out[a] = e.size[a];
  if (t.arrayed) out[axes] = t.dim == 4 ? t.layers / 6 : t.layers;
}

/// ir::AtomicOp `q.component` on the 32-bit integer texel at `p` (an RWBuffer<int> or
/// RWBuffer<uint> element) with q.value[0] (CompareExchange: comparator q.value[0], value
/// q.value[1]); returns the texel before. Kernels' invocations run on several threads.
uint32_t TexelAtomic(const SlopeCpuTexture& t, uint8_t* p, const SlopeCpuTexelQuery& q) {
  using A = ir::AtomicOp;
  std::atomic_ref<uint32_t> texel(*reinterpret_cast<uint32_t*>(p));
  const uint32_t v = q.value[0];
  const bool is_signed = KindOf(t.format) == Kind::SInt;
  auto op = static_cast<A>(q.component);
  switch (op) {
    case A::Add:
      return texel.fetch_add(v);
    case A::And:
      return texel.fetch_and(v);
    case A::Or:
      return texel.fetch_or(v);
    case A::Xor:
      return texel.fetch_xor(v);
    case A::Exchange:
      return texel.exchange(v);
    case A::CompareExchange: {
      uint32_t expected = v;
      texel.compare_exchange_strong(expected, q.value[1]);
      return expected;
    }
    case A::Min:
    case A::Max: {
      uint32_t old = texel.load();
      auto better = [&](uint32_t a, uint32_t b) {  // whether b replaces a
        bool less = is_signed ? static_cast<int32_t>(b) < static_cast<int32_t>(a) : b < a;
        bool greater = is_signed ? static_cast<int32_t>(b) > static_cast<int32_t>(a) : b > a;
        return op == A::Min ? less : greater;
      };
      while (better(old, v) && !texel.compare_exchange_weak(old, v)) {
      }
      return old;
    }
  }
  return 0;
}

}  // namespace

std::span<std::byte> CpuTexture::Level(uint32_t mip) {
  Extent e = LevelExtent(view_, mip);
  size_t bytes =
      static_cast<size_t>(e.size[0]) * e.size[1] * e.size[2] * view_.layers * view_.texel_bytes;
  return {data_.data() + view_.level_offsets[mip], bytes};
}

std::unique_ptr<CpuTexture> CpuTexture::Create(const TextureDesc& desc, std::string* error) {
  TextureFormatInfo info = GetTextureFormatInfo(desc.format);
  const FormatEntry* format = nullptr;
  for (const FormatEntry& f : kFormats) {
    if (desc.format == f.name) format = &f;
  }
  if (info.components == 0 || format == nullptr) {
    *error = "unknown texture format '" + desc.format + "'";
    return nullptr;
  }
  bool cube = desc.dim == 4;
  if (desc.dim < 1 || desc.dim > 4 || desc.width == 0 || desc.height == 0 || desc.depth == 0 ||
      desc.layers == 0 || desc.mip_levels == 0 ||
      (cube && (desc.width != desc.height || desc.layers % 6 != 0)) ||
      (desc.dim == 1 && desc.height != 1) || (desc.dim != 3 && desc.depth != 1) ||
      (!desc.arrayed && desc.layers != (cube ? 6u : 1u))) {
    *error = "invalid texture size for its shape";
    return nullptr;
  }
  uint32_t largest = std::max({desc.width, desc.height, desc.depth});
  uint32_t most = static_cast<uint32_t>(std::bit_width(largest));
  if (desc.mip_levels > most || desc.mip_levels > SLOPE_CPU_MAX_LEVELS) {
    *error = "a texture of largest side " + std::to_string(largest) + " has at most " +
             std::to_string(std::min(most, SLOPE_CPU_MAX_LEVELS)) + " mip levels, not " +
             std::to_string(desc.mip_levels);
    return nullptr;
  }
  std::unique_ptr<CpuTexture> texture(new CpuTexture());
  texture->desc_ = desc;
  SlopeCpuTexture& v = texture->view_;
  v.dim = desc.dim;
  v.arrayed = desc.arrayed ? 1 : 0;
  v.width = desc.width;
  v.height = desc.height;
  v.depth = desc.depth;
  v.layers = desc.layers;
  v.levels = desc.mip_levels;
  v.format = format->code;
  v.components = info.components;
  v.texel_bytes = info.components * info.bytes_per_component;
  uint64_t total = 0;
  for (uint32_t l = 0; l < desc.mip_levels; ++l) {
    v.level_offsets[l] = total;
    Extent e = LevelExtent(v, l);
    total += uint64_t{e.size[0]} * e.size[1] * e.size[2] * v.layers * v.texel_bytes;
  }
  texture->data_.assign(total, std::byte{0});
  v.data = reinterpret_cast<uint8_t*>(texture->data_.data());
  return texture;
}

bool TexelBufferView(std::byte* data, uint64_t bytes, const std::string& format,
                     SlopeCpuTexture* view, std::string* error) {
  TextureFormatInfo info = GetTextureFormatInfo(format);
  const FormatEntry* entry = nullptr;
  for (const FormatEntry& f : kFormats) {
    if (format == f.name) entry = &f;
  }
  if (info.components == 0 || entry == nullptr) {
    *error = "unknown typed buffer format '" + format + "'";
    return false;
  }
  *view = SlopeCpuTexture{};
  view->data = reinterpret_cast<uint8_t*>(data);
  view->dim = 1;
  view->format = entry->code;
  view->components = info.components;
  view->texel_bytes = info.components * info.bytes_per_component;
  // Whole elements only; the texels past them read as zero, as a view's would.
  view->width = static_cast<uint32_t>(
      std::min<uint64_t>(bytes / view->texel_bytes, std::numeric_limits<uint32_t>::max()));
  view->height = view->depth = view->layers = view->levels = 1;
  return true;
}

CpuSampler::CpuSampler(const SamplerDesc& desc) : desc_(desc) {
  view_.linear = desc.linear ? 1 : 0;
  view_.address = desc.address == SamplerDesc::Address::Wrap     ? kSlopeCpuRepeat
                  : desc.address == SamplerDesc::Address::Mirror ? kSlopeCpuMirroredRepeat
                  : desc.address == SamplerDesc::Address::Border ? kSlopeCpuClampToBorder
                                                                 : kSlopeCpuClampToEdge;
  view_.comparison = desc.comparison ? 1 : 0;
}

}  // namespace slope::runtime::cpu

extern "C" void slope_cpu_texture(const SlopeCpuTexture* texture, const SlopeCpuSampler* sampler,
                                  uint32_t op, const SlopeCpuTexelQuery* query, uint32_t* out) {
  using namespace slope::runtime::cpu;
  using T = slope::ir::TextureOp;
  const SlopeCpuTexture& t = *texture;
  const SlopeCpuSampler& s = sampler != nullptr ? *sampler : t.sampler;
  const SlopeCpuTexelQuery& q = *query;
  out[0] = out[1] = out[2] = out[3] = 0;
  switch (static_cast<T>(op)) {
    case T::Fetch:
    case T::Read: {
      bool fetch = static_cast<T>(op) == T::Fetch;
      if (fetch && q.level < 0) return;
      const uint8_t* p = IntegerTexel(t, fetch ? static_cast<uint32_t>(q.level) : 0, q, fetch);
      if (p != nullptr) Decode(t, p, out);
      return;
    }
    case T::Write: {
      uint8_t* p = IntegerTexel(t, 0, q, false);
      if (p != nullptr) Encode(t, q.value, p);
      return;
    }
    case T::SampleLevel: {
      Lookup lk = Resolve(t, q);
      FilterLod(t, s, q.lod, lk, q.offset, out);
      return;
    }
    case T::SampleGrad: {
      Lookup lk = Resolve(t, q);
      FilterLod(t, s, GradientLod(t, lk, q), lk, q.offset, out);
      return;
    }
    case T::Gather: {
      Lookup lk = Resolve(t, q);
      Gather(t, s, lk, q, out);
      return;
    }
    case T::SampleCmpLevelZero: {
      Lookup lk = Resolve(t, q);
      FilterLevel(t, s, 0, lk, q.offset, &q.reference, out);
      return;
    }
    case T::Size:
      Dimensions(t, q.level, out);
      return;
    case T::Levels:
      out[0] = t.levels;
      return;
    case T::Atomic: {
      uint8_t* p = IntegerTexel(t, 0, q, false);
      if (p != nullptr) out[0] = TexelAtomic(t, p, q);
      return;
    }
  }
}
