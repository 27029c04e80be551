// Reverse-mode cost on CUDA, each figure a ratio measured in the same run:
// - the 2-D box filter (3x3, 4096x4096, box_filter_2d.slang): bwd_diff's time over the
//   forward pass's, and the forward pass's bandwidth (reading the image and writing the
//   result once) as a fraction of a device-to-device copy of the same bytes;
// - the hand-written CUDA forward pass of box_reference.cu, for comparison;
// - accumulation under contention (contention.slang, 16M threads adding to one element,
//   then to eight): one atomic per thread over the core library's AccumulateWaveReduced.
// Through the ptx target and the cuda target (NVRTC). Results are checked against the
// host. Exit 77 without a GPU.
//
//   autodiff_bench [DIR]     DIR: where the .slang files are (tests/bench/autodiff)

#include <algorithm>
#include <cmath>
#include <cstring>
#include <cstdio>
#include <string>
#include <vector>

#include "runtime/cuda/cuda_device.h"
#include "tests/bench/cuda_bench.h"

namespace {

namespace rt = slope::runtime;
using slope::driver::Target;

constexpr int kSide = 4096;
constexpr int kRuns = 10;

float Pixel(int x, int y) { return std::sin(0.01f * x) + 0.5f * std::cos(0.013f * y); }
float PixelGrad(int x, int y) { return 0.25f + 0.001f * static_cast<float>((x * 7 + y * 3) % 97); }

int Clamp(int v) { return v < 0 ? 0 : (v >= kSide ? kSide - 1 : v); }

/// The host's forward pass at (x, y).
float HostBox(const std::vector<float>& image, int x, int y) {
  float sum = 0;
  for (int dy = -1; dy <= 1; ++dy)
    for (int dx = -1; dx <= 1; ++dx) sum += image[Clamp(y + dy) * kSide + Clamp(x + dx)];
  return sum / 9.0f;
}

/// The host's gradient at pixel (x, y): the transpose of the box (clamped reads).
double HostGrad(const std::vector<float>& grad, int x, int y) {
  double sum = 0;
  for (int oy = y - 1; oy <= y + 1; ++oy)
    for (int ox = x - 1; ox <= x + 1; ++ox) {
      if (ox < 0 || oy < 0 || ox >= kSide || oy >= kSide) continue;
      // Output (ox, oy) reads (x, y) once per neighbour that clamps to it.
      for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx)
          if (Clamp(ox + dx) == x && Clamp(oy + dy) == y) sum += grad[oy * kSide + ox] / 9.0;
    }
  return sum;
}


}  // namespace

int main(int argc, char** argv) {
  std::string dir = argc > 1 ? argv[1] : "tests/bench/autodiff";
  std::string box_path = dir + "/box_filter_2d.slang", contention_path = dir + "/contention.slang";
  std::string box_source = slope::bench::ReadSource(box_path);
  std::string contention_source = slope::bench::ReadSource(contention_path);
  if (box_source.empty() || contention_source.empty()) return 1;

  std::string error;
  auto device = rt::CreateDevice(rt::Backend::Cuda, -1, &error, {});
  if (device == nullptr) {
    std::printf("autodiff_bench: skipped: %s\n", error.c_str());
    return 77;
  }
  int sm = rt::cuda::CudaComputeCapability(-1);
  size_t n = size_t{kSide} * kSide;
  std::printf("device: %s (sm_%d); box filter 3x3 on %dx%d floats, best of %d runs\n",
              device->Name().c_str(), sm, kSide, kSide, kRuns);

  std::vector<float> image(n), grad(n), zeros(n, 0.0f);
  for (int y = 0; y < kSide; ++y)
    for (int x = 0; x < kSide; ++x) {
      image[static_cast<size_t>(y) * kSide + x] = Pixel(x, y);
      grad[static_cast<size_t>(y) * kSide + x] = PixelGrad(x, y);
    }
  auto b_image = slope::bench::Upload(*device, image);
  auto b_grad = slope::bench::Upload(*device, grad);
  auto b_out = slope::bench::Upload(*device, zeros);
  auto b_image_grad = slope::bench::Upload(*device, zeros);
  auto b_copy = slope::bench::Upload(*device, zeros);
  if (!b_image || !b_grad || !b_out || !b_image_grad || !b_copy) return 1;

  // The forward pass moves 2n floats at best (read the image once, write the result).
  float copy_ms = 1e30f;
  for (int r = 0; r <= kRuns; ++r) {
    float ms = -1;
    if (!rt::cuda::TimedDeviceCopy(*device, *b_image, *b_copy, n * sizeof(float), &ms, &error)) {
      std::fprintf(stderr, "autodiff_bench: %s\n", error.c_str());
      return 1;
    }
    if (r > 0 && ms > 0) copy_ms = std::min(copy_ms, ms);
  }
  double copy_gbs = 2.0 * n * sizeof(float) / (copy_ms * 1e6);
  std::printf("device-to-device copy of the image: %.3f ms, %.1f GB/s\n", copy_ms, copy_gbs);

  int status = 0;
  std::vector<rt::BufferBinding> bindings = {{"image", b_image.get()},
                                             {"filtered", b_out.get()},
                                             {"filteredGrad", b_grad.get()},
                                             {"imageGrad", b_image_grad.get()}};
  // The hand-written forward pass (box_reference.cu), with plain loads and with __ldg.
  std::string reference = slope::bench::ReadSource(dir + "/box_reference.cu");
  for (auto [prefix, what] : {std::pair{"", "plain loads"}, std::pair{"#define SLOPE_BENCH_LDG 1\n", "__ldg"}}) {
    auto kernel = reference.empty() ? nullptr
                                    : slope::bench::BuildHandWritten(*device, prefix + reference, box_path,
                                                                     box_source, "forward", sm);
    double ms = kernel ? slope::bench::TimeDispatch(*device, *kernel, bindings, {kSide / 16, kSide / 16, 1}, kRuns)
                       : -1;
    std::vector<float> out = slope::bench::Download(*device, *b_out);
    size_t wrong = out.empty() ? 1 : 0;
    for (size_t i = 0; !out.empty() && i < n; i += 9973) {
      int x = static_cast<int>(i % kSide), y = static_cast<int>(i / kSide);
      if (std::fabs(out[i] - HostBox(image, x, y)) > 1e-5f) ++wrong;
    }
    if (ms <= 0 || wrong != 0) {
      std::printf("box filter, hand-written CUDA forward (%s): FAILED\n", what);
      status = 1;
      continue;
    }
    double gbs = 2.0 * n * sizeof(float) / (ms * 1e6);
    std::printf("box filter, hand-written CUDA forward (%s), 16x16 groups: %.3f ms (%.1f GB/s = %.3f "
                "of the copy; results checked)\n", what, ms, gbs, gbs / copy_gbs);
  }
  struct Shape {
    const char* forward;
    const char* backward;
    const char* what;
    rt::GroupCount groups;
  };
  const Shape shapes[] = {{"forward", "backward", "16x16 groups", {kSide / 16, kSide / 16, 1}},
                          {"forwardRows", "backwardRows", "32x8 groups", {kSide / 32, kSide / 8, 1}}};
  for (const Shape& shape : shapes) {
  for (auto [target, target_name] : {std::pair{Target::Ptx, "ptx"}, std::pair{Target::Cuda, "cuda"}}) {
    std::string label = std::string(target_name) + ", " + shape.what;
    const char* name = label.c_str();
    rt::GroupCount groups = shape.groups;
    auto fwd = slope::bench::BuildKernel(*device, box_path, box_source, shape.forward, target, sm);
    auto bwd = slope::bench::BuildKernel(*device, box_path, box_source, shape.backward, target, sm);
    if (!fwd || !bwd || !device->WriteBuffer(*b_image_grad, 0,
                                             std::span<const std::byte>(
                                                 reinterpret_cast<const std::byte*>(zeros.data()),
                                                 n * sizeof(float)),
                                             &error)) {
      std::printf("box filter %s: FAILED to build\n", name);
      status = 1;
      continue;
    }
    double fwd_ms = slope::bench::TimeDispatch(*device, *fwd, bindings, groups, kRuns);
    double bwd_ms = slope::bench::TimeDispatch(*device, *bwd, bindings, groups, kRuns);
    std::vector<float> out = slope::bench::Download(*device, *b_out);
    std::vector<float> got = slope::bench::Download(*device, *b_image_grad);
    size_t wrong = 0;
    for (size_t i = 0; fwd_ms > 0 && bwd_ms > 0 && !out.empty() && !got.empty() && i < n;
         i += 9973) {
      int x = static_cast<int>(i % kSide), y = static_cast<int>(i / kSide);
      if (std::fabs(out[i] - HostBox(image, x, y)) > 1e-5f) ++wrong;
      // kRuns + 1 backward passes accumulated.
      double want = (kRuns + 1) * HostGrad(grad, x, y);
      if (std::fabs(got[i] - want) > 1e-4 * std::max(1.0, std::fabs(want))) ++wrong;
    }
    for (int edge : {0, kSide - 1}) {  // the clamped corners
      size_t i = size_t{static_cast<unsigned>(edge)} * kSide + edge;
      double want = (kRuns + 1) * HostGrad(grad, edge, edge);
      if (!got.empty() && std::fabs(got[i] - want) > 1e-4 * std::max(1.0, std::fabs(want))) ++wrong;
    }
    if (fwd_ms <= 0 || bwd_ms <= 0 || out.empty() || got.empty() || wrong != 0) {
      std::printf("box filter %s: FAILED (%zu wrong values)\n", name, wrong);
      status = 1;
      continue;
    }
    double fwd_gbs = 2.0 * n * sizeof(float) / (fwd_ms * 1e6);
    std::printf("box filter %s: forward %.3f ms (%.1f GB/s = %.3f of the copy), backward %.3f ms "
                "= %.2fx forward (results checked)\n",
                name, fwd_ms, fwd_gbs, fwd_gbs / copy_gbs, bwd_ms, bwd_ms / fwd_ms);
  }

  }

  // Contention: 16M threads add 1, 2 or 3 to one uint, then to eight.
  size_t threads = size_t{1} << 24;
  std::vector<float> values_bits(threads);
  std::vector<uint64_t> per_run(8, 0), per_run_one(1, 0);
  for (size_t i = 0; i < threads; ++i) {
    uint32_t v = 1 + static_cast<uint32_t>(i % 3);
    per_run[i % 8] += v;
    per_run_one[0] += v;
    std::memcpy(&values_bits[i], &v, sizeof(v));
  }
  auto b_values = slope::bench::Upload(*device, values_bits);
  auto b_total = slope::bench::Upload(*device, std::vector<float>(8, 0.0f));
  if (!b_values || !b_total) return 1;
  std::vector<rt::BufferBinding> cbind = {{"values", b_values.get()}, {"total", b_total.get()}};
  rt::GroupCount cgroups{static_cast<uint32_t>(threads / 256), 1, 1};
  struct Case {
    const char* what;
    const char* entries[2];
    const std::vector<uint64_t>* want;
  };
  const Case cases[] = {{"one element", {"naive", "reduced"}, &per_run_one},
                        {"eight elements", {"naive8", "reduced8"}, &per_run}};
  for (auto [target, name] : {std::pair{Target::Ptx, "ptx"}, std::pair{Target::Cuda, "cuda"}}) {
    for (const Case& c : cases) {
      double ms[2] = {-1, -1};
      for (int k = 0; k < 2; ++k) {
        auto kernel = slope::bench::BuildKernel(*device, contention_path, contention_source, c.entries[k], target, sm);
        std::vector<uint32_t> zero(8, 0);
        if (!kernel || !device->WriteBuffer(*b_total, 0,
                                            std::span<const std::byte>(
                                                reinterpret_cast<const std::byte*>(zero.data()), 32),
                                            &error)) {
          continue;
        }
        ms[k] = slope::bench::TimeDispatch(*device, *kernel, cbind, cgroups, kRuns);
        std::vector<float> total = slope::bench::Download(*device, *b_total);
        for (size_t e = 0; e < c.want->size(); ++e) {
          uint32_t got = 0;
          if (total.size() > e) std::memcpy(&got, &total[e], 4);
          auto want = static_cast<uint32_t>((*c.want)[e] * (kRuns + 1));
          if (got != want) {
            std::printf("contention %s %s: FAILED: element %zu is %u, expected %u\n", name,
                        c.entries[k], e, got, want);
            ms[k] = -1;
            break;
          }
        }
      }
      if (ms[0] <= 0 || ms[1] <= 0) {
        status = 1;
        continue;
      }
      std::printf("contention on %s, %s: one atomic per thread %.3f ms, AccumulateWaveReduced "
                  "%.3f ms: %.2fx (results checked)\n",
                  c.what, name, ms[0], ms[1], ms[0] / ms[1]);
    }
  }
  return status;
}
