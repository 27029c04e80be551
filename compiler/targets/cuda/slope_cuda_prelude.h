// slope_cuda_prelude.h: what the CUDA C++ that Slope writes (slopec -target cuda) needs
// besides CUDA itself. Shipped inside the compiler (slopec -emit-cuda-prelude FILE writes
// it out); compiles with nvcc and NVRTC, for sm_70 and later.
//
// Everything is in namespace slope, and so is the code Slope writes, so that the names
// below (float3, min, sqrt, ...) are found before CUDA's own; kernels are `extern "C"`
// functions at global scope that call into the namespace.
//
// Types. Scalars keep their C++ spellings (int, uint, int64_t, half, float, double); a
// bool held in memory (a struct member, an array element, a buffer element) is a `b32`,
// four bytes as in SPIR-V. Vectors are vec<T, N> (aliases float3, int2, bool4, ...) and
// matrices mat<T, R, C> (float3x4: 3 rows of float4), both aligned to their scalar, so
// a buffer of them is laid out by the scalar block layout rules, which the compiler uses
// for the CUDA target. Arrays are arr<T, N>, values that can be copied and returned.
//
// Waves are CUDA warps of 32 threads (kWaveSize); wave operations act on the threads of
// the warp that are active (__activemask()) and are exact: reductions fold the active
// lanes in lane order.
#pragma once

#if defined(SLOPE_HALF)
#include <cuda_fp16.h>
#endif

namespace slope {

// ---- Scalars.
typedef signed char int8_t;
typedef unsigned char uint8_t;
typedef short int16_t;
typedef unsigned short uint16_t;
typedef unsigned int uint;
typedef long long int64_t;
typedef unsigned long long uint64_t;
#if defined(SLOPE_HALF)
typedef __half half;
#endif

/// A bool held in memory: four bytes, 0 or 1.
struct b32 {
  unsigned int bits;
  b32() = default;
  __device__ constexpr b32(bool b) : bits(b ? 1u : 0u) {}
  __device__ constexpr operator bool() const { return bits != 0; }
};

/// The number of threads in a wave (a CUDA warp).
constexpr int kWaveSize = 32;

template <typename To, typename From>
__device__ inline To bit_cast(const From& from) {
  static_assert(sizeof(To) == sizeof(From), "bit_cast between types of different sizes");
  To to;
  memcpy(&to, &from, sizeof(To));
  return to;
}

// ---- Vectors.
template <typename T, int N>
struct vec;

template <typename T>
struct vec<T, 2> {
  T x, y;
  vec() = default;
  __device__ constexpr vec(T a, T b) : x(a), y(b) {}
  __device__ explicit constexpr vec(T s) : x(s), y(s) {}
  template <typename U>
  __device__ explicit constexpr vec(const vec<U, 2>& o) : x(T(o.x)), y(T(o.y)) {}
  __device__ T& operator[](int i) { return (&x)[i]; }
  __device__ const T& operator[](int i) const { return (&x)[i]; }
};

template <typename T>
struct vec<T, 3> {
  T x, y, z;
  vec() = default;
  __device__ constexpr vec(T a, T b, T c) : x(a), y(b), z(c) {}
  __device__ explicit constexpr vec(T s) : x(s), y(s), z(s) {}
  template <typename U>
  __device__ explicit constexpr vec(const vec<U, 3>& o) : x(T(o.x)), y(T(o.y)), z(T(o.z)) {}
  __device__ T& operator[](int i) { return (&x)[i]; }
  __device__ const T& operator[](int i) const { return (&x)[i]; }
};

template <typename T>
struct vec<T, 4> {
  T x, y, z, w;
  vec() = default;
  __device__ constexpr vec(T a, T b, T c, T d) : x(a), y(b), z(c), w(d) {}
  __device__ explicit constexpr vec(T s) : x(s), y(s), z(s), w(s) {}
  template <typename U>
  __device__ explicit constexpr vec(const vec<U, 4>& o)
      : x(T(o.x)), y(T(o.y)), z(T(o.z)), w(T(o.w)) {}
  __device__ T& operator[](int i) { return (&x)[i]; }
  __device__ const T& operator[](int i) const { return (&x)[i]; }
};

/// A vector from the lanes of `f(i)`.
template <int N, typename F>
__device__ inline auto make_vec(F f) -> vec<decltype(f(0)), N> {
  vec<decltype(f(0)), N> r;
  for (int i = 0; i < N; ++i) r[i] = f(i);
  return r;
}

#define SLOPE_VEC_BINARY(op)                                                          \
  template <typename T, int N>                                                        \
  __device__ inline vec<T, N> operator op(const vec<T, N>& a, const vec<T, N>& b) {   \
    return make_vec<N>([&](int i) { return T(a[i] op b[i]); });                       \
  }                                                                                   \
  template <typename T, int N>                                                        \
  __device__ inline vec<T, N> operator op(const vec<T, N>& a, T b) {                  \
    return make_vec<N>([&](int i) { return T(a[i] op b); });                          \
  }                                                                                   \
  template <typename T, int N>                                                        \
  __device__ inline vec<T, N> operator op(T a, const vec<T, N>& b) {                  \
    return make_vec<N>([&](int i) { return T(a op b[i]); });                          \
  }
SLOPE_VEC_BINARY(+)
SLOPE_VEC_BINARY(-)
SLOPE_VEC_BINARY(*)
SLOPE_VEC_BINARY(/)
SLOPE_VEC_BINARY(%)
SLOPE_VEC_BINARY(&)
SLOPE_VEC_BINARY(|)
SLOPE_VEC_BINARY(^)
SLOPE_VEC_BINARY(<<)
SLOPE_VEC_BINARY(>>)
#undef SLOPE_VEC_BINARY

#define SLOPE_VEC_COMPARE(op)                                                         \
  template <typename T, int N>                                                        \
  __device__ inline vec<b32, N> operator op(const vec<T, N>& a, const vec<T, N>& b) { \
    return make_vec<N>([&](int i) { return b32(a[i] op b[i]); });                     \
  }
SLOPE_VEC_COMPARE(==)
SLOPE_VEC_COMPARE(!=)
SLOPE_VEC_COMPARE(<)
SLOPE_VEC_COMPARE(<=)
SLOPE_VEC_COMPARE(>)
SLOPE_VEC_COMPARE(>=)
SLOPE_VEC_COMPARE(&&)
SLOPE_VEC_COMPARE(||)
#undef SLOPE_VEC_COMPARE

template <typename T, int N>
__device__ inline vec<T, N> operator-(const vec<T, N>& a) {
  return make_vec<N>([&](int i) { return T(-a[i]); });
}
template <typename T, int N>
__device__ inline vec<T, N> operator~(const vec<T, N>& a) {
  return make_vec<N>([&](int i) { return T(~a[i]); });
}
template <int N>
__device__ inline vec<b32, N> operator!(const vec<b32, N>& a) {
  return make_vec<N>([&](int i) { return b32(!a[i]); });
}

// ---- Arrays: values of N elements.
template <typename T, int N>
struct arr {
  T v[N];
  __device__ T& operator[](long long i) { return v[i]; }
  __device__ const T& operator[](long long i) const { return v[i]; }
  /// Element by element from an array of another spelling of the same values (an
  /// array of column-major matrices from one of row-major ones, and back).
  template <typename U>
  __device__ arr& operator=(const arr<U, N>& o) {
    for (int i = 0; i < N; ++i) v[i] = o.v[i];
    return *this;
  }
};

// ---- Matrices: R rows of C columns, held row by row.
template <typename T, int R, int C>
struct mat {
  vec<T, C> rows[R];
  __device__ vec<T, C>& operator[](long long r) { return rows[r]; }
  __device__ const vec<T, C>& operator[](long long r) const { return rows[r]; }
};

// ---- Column-major storage: cmat<T, R, C> holds the same matrix column by column, as a
// buffer laid out with `column_major` (or -matrix-layout-column-major) does. It appears
// only as a buffer element, a struct member or an array element in such memory; values
// are always mat<T, R, C>. The writer reads one with col_value() and writes one by
// assignment; m[r] is a row of it (a crow), whose lanes are the matrix's elements.
template <typename T, int R, int C>
struct cmat;

template <typename T, int R, int C>
struct crow {
  cmat<T, R, C>* m;
  long long r;
  __device__ T& operator[](long long c) const { return m->cols[c][r]; }
  __device__ const crow& operator=(const vec<T, C>& v) const {
    for (int c = 0; c < C; ++c) m->cols[c][r] = v[c];
    return *this;
  }
};

template <typename T, int R, int C>
struct cmat {
  vec<T, R> cols[C];
  __device__ crow<T, R, C> operator[](long long r) { return crow<T, R, C>{this, r}; }
  __device__ cmat& operator=(const mat<T, R, C>& m) {
    for (int r = 0; r < R; ++r)
      for (int c = 0; c < C; ++c) cols[c][r] = m[r][c];
    return *this;
  }
};

/// The value a place holds: a matrix from column-major storage, a row of one, an array
/// of them; anything else as it is.
template <typename T>
__device__ inline const T& col_value(const T& v) {
  return v;
}
template <typename T, int R, int C>
__device__ inline mat<T, R, C> col_value(const cmat<T, R, C>& s) {
  mat<T, R, C> m;
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < C; ++c) m[r][c] = s.cols[c][r];
  return m;
}
template <typename T, int R, int C>
__device__ inline vec<T, C> col_value(const crow<T, R, C>& row) {
  vec<T, C> v;
  for (int c = 0; c < C; ++c) v[c] = row[c];
  return v;
}
template <typename T, int R, int C, int N>
__device__ inline arr<mat<T, R, C>, N> col_value(const arr<cmat<T, R, C>, N>& a) {
  arr<mat<T, R, C>, N> out;
  for (int i = 0; i < N; ++i) out[i] = col_value(a[i]);
  return out;
}
template <typename T, int R, int C, int N, int M>
__device__ inline arr<arr<mat<T, R, C>, M>, N> col_value(
    const arr<arr<cmat<T, R, C>, M>, N>& a) {
  arr<arr<mat<T, R, C>, M>, N> out;
  for (int i = 0; i < N; ++i) out[i] = col_value(a[i]);
  return out;
}

/// Column-major storage of a matrix value, or of an array of them (a struct's member
/// initialized from a value).
template <typename T, int R, int C>
__device__ inline cmat<T, R, C> to_cols(const mat<T, R, C>& m) {
  cmat<T, R, C> s;
  s = m;
  return s;
}
template <typename T, int N>
__device__ inline auto to_cols(const arr<T, N>& a) {
  arr<decltype(to_cols(a[0])), N> out;
  for (int i = 0; i < N; ++i) out[i] = to_cols(a[i]);
  return out;
}

/// A matrix from its rows.
template <typename T, int C, typename... Rows>
__device__ inline mat<T, 1 + sizeof...(Rows), C> make_mat(const vec<T, C>& first,
                                                          const Rows&... rest) {
  return mat<T, 1 + sizeof...(Rows), C>{{first, rest...}};
}

// ---- Type names as the language spells them.
#define SLOPE_VECTOR_NAMES(T, name) \
  typedef vec<T, 2> name##2;        \
  typedef vec<T, 3> name##3;        \
  typedef vec<T, 4> name##4;
#define SLOPE_MATRIX_NAMES(T, name) \
  typedef mat<T, 2, 2> name##2x2;   \
  typedef mat<T, 2, 3> name##2x3;   \
  typedef mat<T, 2, 4> name##2x4;   \
  typedef mat<T, 3, 2> name##3x2;   \
  typedef mat<T, 3, 3> name##3x3;   \
  typedef mat<T, 3, 4> name##3x4;   \
  typedef mat<T, 4, 2> name##4x2;   \
  typedef mat<T, 4, 3> name##4x3;   \
  typedef mat<T, 4, 4> name##4x4;
SLOPE_VECTOR_NAMES(b32, bool)
SLOPE_VECTOR_NAMES(int8_t, int8_t)
SLOPE_VECTOR_NAMES(uint8_t, uint8_t)
SLOPE_VECTOR_NAMES(int16_t, int16_t)
SLOPE_VECTOR_NAMES(uint16_t, uint16_t)
SLOPE_VECTOR_NAMES(int, int)
SLOPE_VECTOR_NAMES(uint, uint)
SLOPE_VECTOR_NAMES(int64_t, int64_t)
SLOPE_VECTOR_NAMES(uint64_t, uint64_t)
SLOPE_VECTOR_NAMES(float, float)
SLOPE_VECTOR_NAMES(double, double)
SLOPE_MATRIX_NAMES(b32, bool)
SLOPE_MATRIX_NAMES(int, int)
SLOPE_MATRIX_NAMES(uint, uint)
SLOPE_MATRIX_NAMES(float, float)
SLOPE_MATRIX_NAMES(double, double)
#if defined(SLOPE_HALF)
SLOPE_VECTOR_NAMES(half, half)
SLOPE_MATRIX_NAMES(half, half)
#endif
#undef SLOPE_VECTOR_NAMES
#undef SLOPE_MATRIX_NAMES

// ---- Math. Each function takes scalars and, lane by lane, vectors.
#define SLOPE_MAP1(name)                                                \
  template <typename T, int N>                                          \
  __device__ inline auto name(const vec<T, N>& a) {                     \
    return make_vec<N>([&](int i) { return name(a[i]); });              \
  }
#define SLOPE_MAP2(name)                                                \
  template <typename T, int N>                                          \
  __device__ inline auto name(const vec<T, N>& a, const vec<T, N>& b) { \
    return make_vec<N>([&](int i) { return name(a[i], b[i]); });        \
  }
#define SLOPE_MAP3(name)                                                                     \
  template <typename T, int N>                                                               \
  __device__ inline auto name(const vec<T, N>& a, const vec<T, N>& b, const vec<T, N>& c) { \
    return make_vec<N>([&](int i) { return name(a[i], b[i], c[i]); });                       \
  }

#if defined(SLOPE_HALF)
#define SLOPE_HALF1(name, f) \
  __device__ inline half name(half x) { return __float2half(f(__half2float(x))); }
#define SLOPE_HALF2(name, f)                                               \
  __device__ inline half name(half x, half y) {                            \
    return __float2half(f(__half2float(x), __half2float(y)));              \
  }
#else
#define SLOPE_HALF1(name, f)
#define SLOPE_HALF2(name, f)
#endif

#define SLOPE_FLOAT1(name, f32, f64)                                \
  __device__ inline float name(float x) { return ::f32(x); }        \
  __device__ inline double name(double x) { return ::f64(x); }      \
  SLOPE_HALF1(name, ::f32)                                          \
  SLOPE_MAP1(name)
#define SLOPE_FLOAT2(name, f32, f64)                                          \
  __device__ inline float name(float x, float y) { return ::f32(x, y); }      \
  __device__ inline double name(double x, double y) { return ::f64(x, y); }   \
  SLOPE_HALF2(name, ::f32)                                                    \
  SLOPE_MAP2(name)

SLOPE_FLOAT1(sqrt, sqrtf, sqrt)
SLOPE_FLOAT1(floor, floorf, floor)
SLOPE_FLOAT1(ceil, ceilf, ceil)
SLOPE_FLOAT1(trunc, truncf, trunc)
SLOPE_FLOAT1(round_even, rintf, rint)
SLOPE_FLOAT1(exp, expf, exp)
SLOPE_FLOAT1(exp2, exp2f, exp2)
SLOPE_FLOAT1(log, logf, log)
SLOPE_FLOAT1(log2, log2f, log2)
SLOPE_FLOAT1(sin, sinf, sin)
SLOPE_FLOAT1(cos, cosf, cos)
SLOPE_FLOAT1(tan, tanf, tan)
SLOPE_FLOAT1(asin, asinf, asin)
SLOPE_FLOAT1(acos, acosf, acos)
SLOPE_FLOAT1(atan, atanf, atan)
SLOPE_FLOAT1(sinh, sinhf, sinh)
SLOPE_FLOAT1(cosh, coshf, cosh)
SLOPE_FLOAT1(tanh, tanhf, tanh)
SLOPE_FLOAT2(pow, powf, pow)
SLOPE_FLOAT2(atan2, atan2f, atan2)
SLOPE_FLOAT2(fmin_, fminf, fmin)
SLOPE_FLOAT2(fmax_, fmaxf, fmax)

__device__ inline float rsqrt(float x) { return 1.0f / ::sqrtf(x); }
__device__ inline double rsqrt(double x) { return 1.0 / ::sqrt(x); }
SLOPE_HALF1(rsqrt, rsqrt)
SLOPE_MAP1(rsqrt)

__device__ inline float fma(float a, float b, float c) { return ::fmaf(a, b, c); }
__device__ inline double fma(double a, double b, double c) { return ::fma(a, b, c); }
#if defined(SLOPE_HALF)
__device__ inline half fma(half a, half b, half c) { return __hfma(a, b, c); }
#endif
SLOPE_MAP3(fma)

template <typename T>
__device__ inline T frac(T x) { return x - floor(x); }
SLOPE_MAP1(frac)

// min and max: floats as fmin / fmax (a NaN operand gives the other), integers plainly.
__device__ inline float min(float a, float b) { return ::fminf(a, b); }
__device__ inline double min(double a, double b) { return ::fmin(a, b); }
__device__ inline float max(float a, float b) { return ::fmaxf(a, b); }
__device__ inline double max(double a, double b) { return ::fmax(a, b); }
#if defined(SLOPE_HALF)
__device__ inline half min(half a, half b) { return __float2half(::fminf(__half2float(a), __half2float(b))); }
__device__ inline half max(half a, half b) { return __float2half(::fmaxf(__half2float(a), __half2float(b))); }
#endif
#define SLOPE_INT_MINMAX(T)                                          \
  __device__ inline T min(T a, T b) { return b < a ? b : a; }        \
  __device__ inline T max(T a, T b) { return a < b ? b : a; }
SLOPE_INT_MINMAX(int8_t)
SLOPE_INT_MINMAX(uint8_t)
SLOPE_INT_MINMAX(int16_t)
SLOPE_INT_MINMAX(uint16_t)
SLOPE_INT_MINMAX(int)
SLOPE_INT_MINMAX(uint)
SLOPE_INT_MINMAX(int64_t)
SLOPE_INT_MINMAX(uint64_t)
#undef SLOPE_INT_MINMAX
SLOPE_MAP2(min)
SLOPE_MAP2(max)

template <typename T>
__device__ inline T clamp(T x, T lo, T hi) { return min(max(x, lo), hi); }
SLOPE_MAP3(clamp)

// abs: a signed integer's absolute value; an unsigned one is read as signed.
__device__ inline float abs(float x) { return ::fabsf(x); }
__device__ inline double abs(double x) { return ::fabs(x); }
#if defined(SLOPE_HALF)
__device__ inline half abs(half x) { return __habs(x); }
#endif
__device__ inline int8_t abs(int8_t x) { return int8_t(x < 0 ? -x : x); }
__device__ inline int16_t abs(int16_t x) { return int16_t(x < 0 ? -x : x); }
__device__ inline int abs(int x) { return x < 0 ? int(0u - uint(x)) : x; }
__device__ inline int64_t abs(int64_t x) { return x < 0 ? int64_t(0ull - uint64_t(x)) : x; }
__device__ inline uint8_t abs(uint8_t x) { return uint8_t(abs(int8_t(x))); }
__device__ inline uint16_t abs(uint16_t x) { return uint16_t(abs(int16_t(x))); }
__device__ inline uint abs(uint x) { return uint(abs(int(x))); }
__device__ inline uint64_t abs(uint64_t x) { return uint64_t(abs(int64_t(x))); }
SLOPE_MAP1(abs)

/// -1, 0 or 1 in the operand's type (a NaN gives 0).
template <typename T>
__device__ inline T sign(T x) { return x > T(0) ? T(1) : x < T(0) ? T(-1) : T(0); }
SLOPE_MAP1(sign)

/// a * (1 - t) + b * t, as SPIR-V's FMix.
template <typename T>
__device__ inline T lerp(T a, T b, T t) { return a * (T(1) - t) + b * t; }
SLOPE_MAP3(lerp)

template <typename T>
__device__ inline T saturate(T x) { return clamp(x, T(0), T(1)); }
SLOPE_MAP1(saturate)

template <typename T>
__device__ inline T step(T edge, T x) { return x < edge ? T(0) : T(1); }
SLOPE_MAP2(step)

template <typename T>
__device__ inline T smoothstep(T e0, T e1, T x) {
  T t = clamp((x - e0) / (e1 - e0), T(0), T(1));
  return t * t * (T(3) - T(2) * t);
}
SLOPE_MAP3(smoothstep)

__device__ inline b32 is_nan(float x) { return ::isnan(x); }
__device__ inline b32 is_nan(double x) { return ::isnan(x); }
__device__ inline b32 is_inf(float x) { return ::isinf(x); }
__device__ inline b32 is_inf(double x) { return ::isinf(x); }
#if defined(SLOPE_HALF)
__device__ inline b32 is_nan(half x) { return __hisnan(x); }
__device__ inline b32 is_inf(half x) { return __hisinf(x) != 0; }
#endif
SLOPE_MAP1(is_nan)
SLOPE_MAP1(is_inf)

// ---- Bits.
__device__ inline int count_bits(uint x) { return __popc(x); }
__device__ inline int count_bits(int x) { return __popc(uint(x)); }
__device__ inline int count_bits(uint64_t x) { return __popcll(x); }
__device__ inline int count_bits(int64_t x) { return __popcll(uint64_t(x)); }
SLOPE_MAP1(count_bits)
/// The highest set bit (-1 for 0); of a negative int, the highest clear bit.
__device__ inline int first_bit_high(uint x) { return x == 0 ? -1 : 31 - __clz(int(x)); }
__device__ inline int first_bit_high(int x) { return first_bit_high(uint(x < 0 ? ~x : x)); }
SLOPE_MAP1(first_bit_high)
__device__ inline int first_bit_low(uint x) { return __ffs(int(x)) - 1; }
__device__ inline int first_bit_low(int x) { return __ffs(x) - 1; }
SLOPE_MAP1(first_bit_low)
__device__ inline uint reverse_bits(uint x) { return __brev(x); }
__device__ inline int reverse_bits(int x) { return int(__brev(uint(x))); }
__device__ inline uint64_t reverse_bits(uint64_t x) { return __brevll(x); }
__device__ inline int64_t reverse_bits(int64_t x) { return int64_t(__brevll(uint64_t(x))); }
SLOPE_MAP1(reverse_bits)

#if defined(SLOPE_HALF)
/// The half nearest `x`, its bits in the low 16 bits.
__device__ inline uint f32tof16(float x) { return __half_as_ushort(__float2half_rn(x)); }
__device__ inline float f16tof32(uint x) {
  return __half2float(__ushort_as_half((unsigned short)(x & 0xFFFFu)));
}
SLOPE_MAP1(f32tof16)
SLOPE_MAP1(f16tof32)
#endif

// ---- Vector geometry.
template <typename T, int N>
__device__ inline T dot(const vec<T, N>& a, const vec<T, N>& b) {
  T sum = a[0] * b[0];
  for (int i = 1; i < N; ++i) sum = sum + a[i] * b[i];
  return sum;
}
template <typename T, int N>
__device__ inline T length(const vec<T, N>& v) { return sqrt(dot(v, v)); }
template <typename T>
__device__ inline T length(T v) { return abs(v); }
template <typename T, int N>
__device__ inline T distance(const vec<T, N>& a, const vec<T, N>& b) { return length(a - b); }
template <typename T>
__device__ inline T distance(T a, T b) { return abs(a - b); }
template <typename T, int N>
__device__ inline vec<T, N> normalize(const vec<T, N>& v) { return v * rsqrt(dot(v, v)); }
template <typename T>
__device__ inline vec<T, 3> cross(const vec<T, 3>& a, const vec<T, 3>& b) {
  return vec<T, 3>(a.y * b.z - b.y * a.z, a.z * b.x - b.z * a.x, a.x * b.y - b.x * a.y);
}
template <typename T, int N>
__device__ inline vec<T, N> reflect(const vec<T, N>& i, const vec<T, N>& n) {
  return i - T(2) * dot(n, i) * n;
}
template <typename T, int N>
__device__ inline vec<T, N> refract(const vec<T, N>& i, const vec<T, N>& n, T eta) {
  T d = dot(n, i);
  T k = T(1) - eta * eta * (T(1) - d * d);
  if (k < T(0)) return vec<T, N>(T(0));
  return eta * i - (eta * d + sqrt(k)) * n;
}
template <typename T, int N>
__device__ inline vec<T, N> faceforward(const vec<T, N>& n, const vec<T, N>& i,
                                        const vec<T, N>& nref) {
  return dot(nref, i) < T(0) ? n : -n;
}

// ---- Matrices.
template <typename T, int R, int C>
__device__ inline mat<T, C, R> transpose(const mat<T, R, C>& m) {
  mat<T, C, R> t;
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < C; ++c) t[c][r] = m[r][c];
  return t;
}
/// mul(m, v): v as a column.
template <typename T, int R, int C>
__device__ inline vec<T, R> mul(const mat<T, R, C>& m, const vec<T, C>& v) {
  return make_vec<R>([&](int r) { return dot(m[r], v); });
}
/// mul(v, m): v as a row.
template <typename T, int R, int C>
__device__ inline vec<T, C> mul(const vec<T, R>& v, const mat<T, R, C>& m) {
  vec<T, C> sum = v[0] * m[0];
  for (int r = 1; r < R; ++r) sum = sum + v[r] * m[r];
  return sum;
}
template <typename T, int R, int K, int C>
__device__ inline mat<T, R, C> mul(const mat<T, R, K>& a, const mat<T, K, C>& b) {
  mat<T, R, C> p;
  for (int r = 0; r < R; ++r) p[r] = mul(a[r], b);
  return p;
}
template <typename T, int R, int C>
__device__ inline mat<T, R, C> mul(T s, const mat<T, R, C>& m) {
  mat<T, R, C> p;
  for (int r = 0; r < R; ++r) p[r] = s * m[r];
  return p;
}
template <typename T, int N>
__device__ inline vec<T, N> mul(T s, const vec<T, N>& v) { return s * v; }
#define SLOPE_SCALAR_MUL(T) \
  __device__ inline T mul(T a, T b) { return T(a * b); }
SLOPE_SCALAR_MUL(int)
SLOPE_SCALAR_MUL(uint)
SLOPE_SCALAR_MUL(int64_t)
SLOPE_SCALAR_MUL(uint64_t)
SLOPE_SCALAR_MUL(float)
SLOPE_SCALAR_MUL(double)
#if defined(SLOPE_HALF)
SLOPE_SCALAR_MUL(half)
#endif
#undef SLOPE_SCALAR_MUL

template <typename T>
__device__ inline T determinant(const mat<T, 2, 2>& m) {
  return m[0][0] * m[1][1] - m[0][1] * m[1][0];
}
template <typename T>
__device__ inline T determinant(const mat<T, 3, 3>& m) {
  return m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) -
         m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
         m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
}
template <typename T>
__device__ inline T determinant(const mat<T, 4, 4>& m) {
  T sum = T(0);
  for (int c = 0; c < 4; ++c) {
    mat<T, 3, 3> minor;
    for (int r = 1; r < 4; ++r) {
      int k = 0;
      for (int j = 0; j < 4; ++j) {
        if (j != c) minor[r - 1][k++] = m[r][j];
      }
    }
    T term = m[0][c] * determinant(minor);
    sum = (c % 2 == 0) ? sum + term : sum - term;
  }
  return sum;
}

// ---- Thread ids.
__device__ inline uint3 dispatch_thread_id() {
  return uint3(blockIdx.x * blockDim.x + threadIdx.x, blockIdx.y * blockDim.y + threadIdx.y,
               blockIdx.z * blockDim.z + threadIdx.z);
}
__device__ inline uint3 group_thread_id() { return uint3(threadIdx.x, threadIdx.y, threadIdx.z); }
__device__ inline uint3 group_id() { return uint3(blockIdx.x, blockIdx.y, blockIdx.z); }
__device__ inline uint group_index() {
  return (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
}

// ---- Atomics: the value before the operation. 64-bit integers go through CUDA's
// unsigned long long forms (two's complement makes add, and, or, xor and exchange the
// same); min and max keep their signedness.
template <typename T>
__device__ inline T atomic_add(T* p, T v) { return atomicAdd(p, v); }
__device__ inline int64_t atomic_add(int64_t* p, int64_t v) {
  return int64_t(atomicAdd((unsigned long long*)p, (unsigned long long)v));
}
__device__ inline uint64_t atomic_add(uint64_t* p, uint64_t v) {
  return atomicAdd((unsigned long long*)p, (unsigned long long)v);
}
#define SLOPE_ATOMIC_BITS(name, cuda)                                                   \
  __device__ inline int name(int* p, int v) { return cuda(p, v); }                     \
  __device__ inline uint name(uint* p, uint v) { return cuda(p, v); }                  \
  __device__ inline int64_t name(int64_t* p, int64_t v) {                              \
    return int64_t(cuda((unsigned long long*)p, (unsigned long long)v));               \
  }                                                                                    \
  __device__ inline uint64_t name(uint64_t* p, uint64_t v) {                           \
    return cuda((unsigned long long*)p, (unsigned long long)v);                        \
  }
SLOPE_ATOMIC_BITS(atomic_and, atomicAnd)
SLOPE_ATOMIC_BITS(atomic_or, atomicOr)
SLOPE_ATOMIC_BITS(atomic_xor, atomicXor)
#undef SLOPE_ATOMIC_BITS
__device__ inline int atomic_min(int* p, int v) { return atomicMin(p, v); }
__device__ inline uint atomic_min(uint* p, uint v) { return atomicMin(p, v); }
__device__ inline int64_t atomic_min(int64_t* p, int64_t v) { return atomicMin((long long*)p, (long long)v); }
__device__ inline uint64_t atomic_min(uint64_t* p, uint64_t v) {
  return atomicMin((unsigned long long*)p, (unsigned long long)v);
}
__device__ inline int atomic_max(int* p, int v) { return atomicMax(p, v); }
__device__ inline uint atomic_max(uint* p, uint v) { return atomicMax(p, v); }
__device__ inline int64_t atomic_max(int64_t* p, int64_t v) { return atomicMax((long long*)p, (long long)v); }
__device__ inline uint64_t atomic_max(uint64_t* p, uint64_t v) {
  return atomicMax((unsigned long long*)p, (unsigned long long)v);
}
__device__ inline int atomic_exchange(int* p, int v) { return atomicExch(p, v); }
__device__ inline uint atomic_exchange(uint* p, uint v) { return atomicExch(p, v); }
__device__ inline float atomic_exchange(float* p, float v) { return atomicExch(p, v); }
__device__ inline int64_t atomic_exchange(int64_t* p, int64_t v) {
  return int64_t(atomicExch((unsigned long long*)p, (unsigned long long)v));
}
__device__ inline uint64_t atomic_exchange(uint64_t* p, uint64_t v) {
  return atomicExch((unsigned long long*)p, (unsigned long long)v);
}
/// Stores `v` when `*p` equals `compare`.
__device__ inline int atomic_compare_exchange(int* p, int compare, int v) { return atomicCAS(p, compare, v); }
__device__ inline uint atomic_compare_exchange(uint* p, uint compare, uint v) { return atomicCAS(p, compare, v); }
__device__ inline int64_t atomic_compare_exchange(int64_t* p, int64_t compare, int64_t v) {
  return int64_t(atomicCAS((unsigned long long*)p, (unsigned long long)compare, (unsigned long long)v));
}
__device__ inline uint64_t atomic_compare_exchange(uint64_t* p, uint64_t compare, uint64_t v) {
  return atomicCAS((unsigned long long*)p, (unsigned long long)compare, (unsigned long long)v);
}
__device__ inline float atomic_compare_exchange(float* p, float compare, float v) {
  return __int_as_float(atomicCAS((int*)p, __float_as_int(compare), __float_as_int(v)));
}

// ---- Wave (warp) operations over the active lanes.
__device__ inline uint lane_index() { return group_index() % kWaveSize; }
/// Lane `lane`'s `x` (any 1, 2, 4 or 8-byte scalar, or a vector of them).
template <typename T>
__device__ inline T shuffle(unsigned mask, T x, int lane) {
  if constexpr (sizeof(T) == 8) {
    return bit_cast<T>(__shfl_sync(mask, bit_cast<long long>(x), lane));
  } else if constexpr (sizeof(T) == 4) {
    return bit_cast<T>(__shfl_sync(mask, bit_cast<int>(x), lane));
  } else if constexpr (sizeof(T) == 2) {
    return bit_cast<T>((short)__shfl_sync(mask, (int)bit_cast<short>(x), lane));
  } else {
    return bit_cast<T>((char)__shfl_sync(mask, (int)bit_cast<char>(x), lane));
  }
}
template <typename T, int N>
__device__ inline vec<T, N> shuffle(unsigned mask, const vec<T, N>& x, int lane) {
  return make_vec<N>([&](int i) { return shuffle(mask, x[i], lane); });
}
__device__ inline bool shuffle(unsigned mask, bool x, int lane) {
  return __shfl_sync(mask, int(x), lane) != 0;
}
/// `op` over the active lanes' `x` in lane order; with `below`, only the lanes below this one
/// (`identity` when there are none).
template <typename T, typename Op>
__device__ inline T wave_fold(T x, T identity, Op op, bool below) {
  unsigned mask = __activemask();
  int self = int(lane_index());
  T acc = identity;
  for (int lane = 0; lane < kWaveSize; ++lane) {
    if (((mask >> lane) & 1u) == 0) continue;
    T v = shuffle(mask, x, lane);
    if (!below || lane < self) acc = op(acc, v);
  }
  return acc;
}
template <typename T>
__device__ inline T wave_sum(T x) { return wave_fold(x, T(0), [](T a, T b) { return a + b; }, false); }
template <typename T>
__device__ inline T wave_product(T x) { return wave_fold(x, T(1), [](T a, T b) { return a * b; }, false); }
template <typename T>
__device__ inline T wave_prefix_sum(T x) { return wave_fold(x, T(0), [](T a, T b) { return a + b; }, true); }
template <typename T>
__device__ inline T wave_prefix_product(T x) { return wave_fold(x, T(1), [](T a, T b) { return a * b; }, true); }
template <typename T>
__device__ inline T wave_first(T x) { return shuffle(__activemask(), x, __ffs(int(__activemask())) - 1); }
template <typename T>
__device__ inline T wave_min(T x) { return wave_fold(x, wave_first(x), [](T a, T b) { return min(a, b); }, false); }
template <typename T>
__device__ inline T wave_max(T x) { return wave_fold(x, wave_first(x), [](T a, T b) { return max(a, b); }, false); }
template <typename T>
__device__ inline T wave_and(T x) { return wave_fold(x, T(~T(0)), [](T a, T b) { return T(a & b); }, false); }
template <typename T>
__device__ inline T wave_or(T x) { return wave_fold(x, T(0), [](T a, T b) { return T(a | b); }, false); }
template <typename T>
__device__ inline T wave_xor(T x) { return wave_fold(x, T(0), [](T a, T b) { return T(a ^ b); }, false); }
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
// 32-bit integer folds give the same result in any order: one warp reduction each
// (redux.sync) instead of the lane-order loop, which floats keep.
__device__ inline int wave_sum(int x) { return __reduce_add_sync(__activemask(), x); }
__device__ inline uint wave_sum(uint x) { return __reduce_add_sync(__activemask(), x); }
__device__ inline int wave_min(int x) { return __reduce_min_sync(__activemask(), x); }
__device__ inline uint wave_min(uint x) { return __reduce_min_sync(__activemask(), x); }
__device__ inline int wave_max(int x) { return __reduce_max_sync(__activemask(), x); }
__device__ inline uint wave_max(uint x) { return __reduce_max_sync(__activemask(), x); }
__device__ inline uint wave_and(uint x) { return __reduce_and_sync(__activemask(), x); }
__device__ inline uint wave_or(uint x) { return __reduce_or_sync(__activemask(), x); }
__device__ inline uint wave_xor(uint x) { return __reduce_xor_sync(__activemask(), x); }
__device__ inline int wave_and(int x) { return int(__reduce_and_sync(__activemask(), uint(x))); }
__device__ inline int wave_or(int x) { return int(__reduce_or_sync(__activemask(), uint(x))); }
__device__ inline int wave_xor(int x) { return int(__reduce_xor_sync(__activemask(), uint(x))); }
#endif
template <typename T>
__device__ inline T wave_read_lane(T x, uint lane) { return shuffle(__activemask(), x, int(lane)); }
__device__ inline bool wave_is_first_lane() {
  return int(lane_index()) == __ffs(int(__activemask())) - 1;
}
__device__ inline bool wave_all(bool p) { return __all_sync(__activemask(), p) != 0; }
__device__ inline bool wave_any(bool p) { return __any_sync(__activemask(), p) != 0; }
template <typename T>
__device__ inline bool wave_all_equal(T x) {
  T first = wave_first(x);
  return wave_all(bool(x == first));
}
template <typename T, int N>
__device__ inline bool wave_all_equal(const vec<T, N>& x) {
  vec<T, N> first = wave_first(x);
  bool same = true;
  for (int i = 0; i < N; ++i) same = same && x[i] == first[i];
  return wave_all(same);
}
__device__ inline uint4 wave_ballot(bool p) { return uint4(__ballot_sync(__activemask(), p), 0u, 0u, 0u); }
__device__ inline uint wave_count_bits(bool p) { return uint(__popc(__ballot_sync(__activemask(), p))); }
__device__ inline uint wave_prefix_count_bits(bool p) {
  unsigned below = (1u << lane_index()) - 1u;
  return uint(__popc(__ballot_sync(__activemask(), p) & below));
}

// ---- TensorView: a PyTorch tensor as its data pointer, sizes and strides (in elements),
// as torch::PackedTensorAccessor lays them out, so a kernel can take one from a
// tensor's data_ptr(), sizes() and strides() unchanged.
template <typename T, int D = 4>
struct TensorView {
  T* data;
  int64_t sizes[D];
  int64_t strides[D];
  __device__ T& operator()(int64_t i) const { return data[i * strides[0]]; }
  __device__ T& operator()(int64_t i, int64_t j) const { return data[i * strides[0] + j * strides[1]]; }
  __device__ T& operator()(int64_t i, int64_t j, int64_t k) const {
    return data[i * strides[0] + j * strides[1] + k * strides[2]];
  }
  __device__ T& operator()(int64_t i, int64_t j, int64_t k, int64_t l) const {
    return data[i * strides[0] + j * strides[1] + k * strides[2] + l * strides[3]];
  }
  __device__ int64_t size(int d) const { return sizes[d]; }
  __device__ int64_t stride(int d) const { return strides[d]; }
};

#undef SLOPE_MAP1
#undef SLOPE_MAP2
#undef SLOPE_MAP3
#undef SLOPE_FLOAT1
#undef SLOPE_FLOAT2
#undef SLOPE_HALF1
#undef SLOPE_HALF2

}  // namespace slope
