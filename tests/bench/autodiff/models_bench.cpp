// Reverse mode against hand-written CUDA, each figure a ratio measured in the same run:
// - mlp.slang: a 3-layer MLP of width 64 per thread (262,144 threads); forward and
//   bwd_diff (the input's gradient) through the ptx and the cuda targets, against the
//   hand-written backward pass of mlp_reference.cu;
// - loop.slang: 256 steps of x += 0.01 sin(a x + 0.05 k) per thread (1M threads); forward
//   and bwd_diff (d/dx0 and d/da), against loop_reference.cu, which keeps every step.
// The hand-written kernels take the same parameters as slopec's and go through NVRTC
// (else nvcc). Every result is checked against the same computation in double on the
// host at sample threads. Exit 77 without a GPU.
//
//   models_bench [DIR]     DIR: where the .slang and .cu files are (tests/bench/autodiff)

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "runtime/cuda/cuda_device.h"
#include "tests/bench/cuda_bench.h"

namespace {

namespace rt = slope::runtime;
using slope::driver::Target;

constexpr int kRuns = 10;
constexpr int kWidth = 64;
constexpr int kLayer = kWidth * kWidth + kWidth;
constexpr uint32_t kRows = 1u << 18;
constexpr uint32_t kThreads = 1u << 20;
constexpr int kSteps = 256;

/// Deterministic values in [lo, hi).
struct Random {
  uint64_t state;
  float Next(float lo, float hi) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return lo + (hi - lo) * static_cast<float>((state >> 40) & 0xffffff) / 16777216.0f;
  }
};


/// The hand-written CUDA kernel `entry` of `cu_path` (parameters as slopec's `entry`).
std::unique_ptr<rt::Kernel> BuildReference(rt::Device& device, const std::string& cu_path,
                                           const std::string& path, const std::string& source,
                                           const std::string& entry, int sm) {
  std::string cu = slope::bench::ReadSource(cu_path);
  if (cu.empty()) return nullptr;
  return slope::bench::BuildHandWritten(device, cu, path, source, entry, sm);
}

bool Close(double got, double want, double tolerance) {
  return std::fabs(got - want) <= tolerance * std::max(1.0, std::fabs(want));
}

// ---- the MLP ---------------------------------------------------------------------

/// Layer `layer` of the host MLP in double: y = W x + b, then ReLU unless last.
std::vector<double> HostDense(const std::vector<float>& w, int layer, const std::vector<double>& x,
                              bool relu) {
  std::vector<double> y(kWidth);
  int base = layer * kLayer;
  for (int o = 0; o < kWidth; ++o) {
    double sum = w[base + kWidth * kWidth + o];
    for (int i = 0; i < kWidth; ++i) sum += w[base + o * kWidth + i] * x[i];
    y[o] = relu ? std::max(sum, 0.0) : sum;
  }
  return y;
}

/// The host's input gradient of row `row`: W1^T M1 W2^T M2 W3^T dy.
std::vector<double> HostMlpGrad(const std::vector<float>& w, const std::vector<float>& in,
                                const std::vector<float>& dout, uint32_t row) {
  std::vector<double> x(kWidth), g(kWidth);
  for (int i = 0; i < kWidth; ++i) {
    x[i] = in[size_t{row} * kWidth + i];
    g[i] = dout[size_t{row} * kWidth + i];
  }
  std::vector<double> h1 = HostDense(w, 0, x, true), h2 = HostDense(w, 1, h1, true);
  const std::vector<double>* masks[3] = {&h1, &h2, nullptr};
  for (int layer = 2; layer >= 0; --layer) {
    std::vector<double> next(kWidth, 0.0);
    int base = layer * kLayer;
    for (int o = 0; o < kWidth; ++o) {
      for (int i = 0; i < kWidth; ++i) next[i] += w[base + o * kWidth + i] * g[o];
    }
    if (layer > 0) {
      for (int i = 0; i < kWidth; ++i) next[i] = (*masks[layer - 1])[i] > 0 ? next[i] : 0.0;
    }
    g = next;
  }
  return g;
}

int RunMlp(rt::Device& device, const std::string& dir, int sm) {
  std::string path = dir + "/mlp.slang", source = slope::bench::ReadSource(path);
  if (source.empty()) return 1;
  Random random{12345};
  std::vector<float> w(3 * kLayer), in(size_t{kRows} * kWidth), dout(in.size()), zeros(in.size());
  for (int layer = 0; layer < 3; ++layer) {
    for (int k = 0; k < kLayer; ++k) {
      bool bias = k >= kWidth * kWidth;
      w[layer * kLayer + k] = bias ? random.Next(-0.1f, 0.1f) : random.Next(-0.3f, 0.3f);
    }
  }
  for (size_t i = 0; i < in.size(); ++i) {
    in[i] = random.Next(-1.0f, 1.0f);
    dout[i] = random.Next(-1.0f, 1.0f);
  }
  auto b_w = slope::bench::Upload(device, w), b_in = slope::bench::Upload(device, in);
  auto b_out = slope::bench::Upload(device, zeros), b_dout = slope::bench::Upload(device, dout);
  auto b_din = slope::bench::Upload(device, zeros);
  if (!b_w || !b_in || !b_out || !b_dout || !b_din) return 1;
  std::vector<rt::BufferBinding> bindings = {{"weights", b_w.get()},
                                             {"inputs", b_in.get()},
                                             {"outputs", b_out.get()},
                                             {"outputGrad", b_dout.get()},
                                             {"inputGrad", b_din.get()}};
  rt::GroupCount groups{kRows / 64, 1, 1};
  std::printf("mlp: 3 layers of width 64 per thread, %u threads, best of %d runs\n", kRows, kRuns);

  // Checks the input gradients at sample rows; counts the wrong values.
  auto check_grad = [&](const char* what) {
    std::vector<float> got = slope::bench::Download(device, *b_din);
    size_t wrong = got.empty() ? 1 : 0;
    for (uint32_t row = 0; !got.empty() && row < kRows; row += 4099) {
      std::vector<double> want = HostMlpGrad(w, in, dout, row);
      for (int i = 0; i < kWidth; ++i) {
        if (!Close(got[size_t{row} * kWidth + i], want[i], 1e-3)) ++wrong;
      }
    }
    if (wrong != 0) std::printf("mlp %s: FAILED (%zu wrong gradients)\n", what, wrong);
    return wrong == 0;
  };

  int status = 0;
  auto reference = BuildReference(device, dir + "/mlp_reference.cu", path, source, "backward", sm);
  double ref_ms = reference ? slope::bench::TimeDispatch(device, *reference, bindings, groups, kRuns) : -1;
  if (ref_ms <= 0 || !check_grad("hand-written backward")) return 1;
  std::printf("mlp hand-written CUDA backward: %.3f ms (results checked)\n", ref_ms);
  for (auto [target, name] : {std::pair{Target::Ptx, "ptx"}, std::pair{Target::Cuda, "cuda"}}) {
    auto fwd = slope::bench::BuildKernel(device, path, source, "forward", target, sm);
    auto bwd = slope::bench::BuildKernel(device, path, source, "backward", target, sm);
    if (!fwd || !bwd) {
      std::printf("mlp %s: FAILED to build\n", name);
      status = 1;
      continue;
    }
    double fwd_ms = slope::bench::TimeDispatch(device, *fwd, bindings, groups, kRuns);
    std::vector<float> out = slope::bench::Download(device, *b_out);
    size_t wrong = out.empty() ? 1 : 0;
    for (uint32_t row = 0; !out.empty() && row < kRows; row += 4099) {
      std::vector<double> x(kWidth);
      for (int i = 0; i < kWidth; ++i) x[i] = in[size_t{row} * kWidth + i];
      std::vector<double> y = HostDense(w, 2, HostDense(w, 1, HostDense(w, 0, x, true), true), false);
      for (int i = 0; i < kWidth; ++i) wrong += Close(out[size_t{row} * kWidth + i], y[i], 1e-3) ? 0 : 1;
    }
    double bwd_ms = slope::bench::TimeDispatch(device, *bwd, bindings, groups, kRuns);
    if (fwd_ms <= 0 || bwd_ms <= 0 || wrong != 0 || !check_grad(name)) {
      std::printf("mlp %s: FAILED (%zu wrong outputs)\n", name, wrong);
      status = 1;
      continue;
    }
    std::printf("mlp %s: forward %.3f ms, backward %.3f ms = %.2fx forward, %.2fx the hand-written "
                "backward (target <= 2x; results checked)\n",
                name, fwd_ms, bwd_ms, bwd_ms / fwd_ms, bwd_ms / ref_ms);
  }
  return status;
}

// ---- the loop --------------------------------------------------------------------

struct LoopGrad {
  double x_end, dx0, da;
};

LoopGrad HostLoop(double x0, double a, double dout) {
  std::vector<double> xs(kSteps);
  double x = x0;
  for (int k = 0; k < kSteps; ++k) {
    xs[k] = x;
    x = x + 0.01 * std::sin(a * x + 0.05 * k);
  }
  double dx = dout, da = 0;
  for (int k = kSteps - 1; k >= 0; --k) {
    double c = 0.01 * std::cos(a * xs[k] + 0.05 * k);
    da += dx * c * xs[k];
    dx *= 1.0 + c * a;
  }
  return {x, dx, da};
}

int RunLoop(rt::Device& device, const std::string& dir, int sm) {
  std::string path = dir + "/loop.slang", source = slope::bench::ReadSource(path);
  if (source.empty()) return 1;
  Random random{777};
  std::vector<float> start(kThreads), rate(kThreads), dout(kThreads), zeros(kThreads);
  for (uint32_t i = 0; i < kThreads; ++i) {
    start[i] = random.Next(-1.0f, 1.0f);
    rate[i] = random.Next(0.5f, 2.0f);
    dout[i] = random.Next(0.5f, 1.5f);
  }
  float steps_bits = 0;
  int32_t steps = kSteps;
  std::memcpy(&steps_bits, &steps, 4);
  auto b_start = slope::bench::Upload(device, start), b_rate = slope::bench::Upload(device, rate);
  auto b_steps = slope::bench::Upload(device, std::vector<float>{steps_bits});
  auto b_result = slope::bench::Upload(device, zeros), b_dout = slope::bench::Upload(device, dout);
  auto b_dstart = slope::bench::Upload(device, zeros), b_drate = slope::bench::Upload(device, zeros);
  if (!b_start || !b_rate || !b_steps || !b_result || !b_dout || !b_dstart || !b_drate) return 1;
  std::vector<rt::BufferBinding> bindings = {
      {"start", b_start.get()},   {"rate", b_rate.get()},         {"steps", b_steps.get()},
      {"result", b_result.get()}, {"resultGrad", b_dout.get()},   {"startGrad", b_dstart.get()},
      {"rateGrad", b_drate.get()}};
  rt::GroupCount groups{kThreads / 256, 1, 1};
  std::printf("loop: %d steps per thread, %u threads, best of %d runs\n", kSteps, kThreads, kRuns);

  auto check_grad = [&](const char* what) {
    std::vector<float> dx0 = slope::bench::Download(device, *b_dstart);
    std::vector<float> da = slope::bench::Download(device, *b_drate);
    size_t wrong = dx0.empty() || da.empty() ? 1 : 0;
    for (uint32_t t = 0; wrong == 0 && t < kThreads; t += 10007) {
      LoopGrad want = HostLoop(start[t], rate[t], dout[t]);
      wrong += Close(dx0[t], want.dx0, 1e-3) ? 0 : 1;
      wrong += Close(da[t], want.da, 1e-3) ? 0 : 1;
    }
    if (wrong != 0) std::printf("loop %s: FAILED (wrong gradients)\n", what);
    return wrong == 0;
  };

  int status = 0;
  auto reference = BuildReference(device, dir + "/loop_reference.cu", path, source, "backward", sm);
  double ref_ms = reference ? slope::bench::TimeDispatch(device, *reference, bindings, groups, kRuns) : -1;
  if (ref_ms <= 0 || !check_grad("hand-written backward")) return 1;
  std::printf("loop hand-written CUDA backward: %.3f ms (results checked)\n", ref_ms);
  for (auto [target, name] : {std::pair{Target::Ptx, "ptx"}, std::pair{Target::Cuda, "cuda"}}) {
    auto fwd = slope::bench::BuildKernel(device, path, source, "forward", target, sm);
    auto bwd = slope::bench::BuildKernel(device, path, source, "backward", target, sm);
    if (!fwd || !bwd) {
      std::printf("loop %s: FAILED to build\n", name);
      status = 1;
      continue;
    }
    double fwd_ms = slope::bench::TimeDispatch(device, *fwd, bindings, groups, kRuns);
    std::vector<float> result = slope::bench::Download(device, *b_result);
    size_t wrong = result.empty() ? 1 : 0;
    for (uint32_t t = 0; wrong == 0 && t < kThreads; t += 10007) {
      wrong += Close(result[t], HostLoop(start[t], rate[t], dout[t]).x_end, 1e-4) ? 0 : 1;
    }
    double bwd_ms = slope::bench::TimeDispatch(device, *bwd, bindings, groups, kRuns);
    if (fwd_ms <= 0 || bwd_ms <= 0 || wrong != 0 || !check_grad(name)) {
      std::printf("loop %s: FAILED\n", name);
      status = 1;
      continue;
    }
    std::printf("loop %s: forward %.3f ms, backward %.3f ms = %.2fx forward, %.2fx the hand-written "
                "backward (target <= 1.2x; results checked)\n",
                name, fwd_ms, bwd_ms, bwd_ms / fwd_ms, bwd_ms / ref_ms);
  }
  return status;
}

}  // namespace

int main(int argc, char** argv) {
  std::string dir = argc > 1 ? argv[1] : "tests/bench/autodiff";
  std::string error;
  auto device = rt::CreateDevice(rt::Backend::Cuda, -1, &error, {});
  if (device == nullptr) {
    std::printf("models_bench: skipped: %s\n", error.c_str());
    return 77;
  }
  int sm = rt::cuda::CudaComputeCapability(-1);
  std::printf("device: %s (sm_%d)\n", device->Name().c_str(), sm);
  int status = RunMlp(*device, dir, sm);
  status |= RunLoop(*device, dir, sm);
  return status;
}
