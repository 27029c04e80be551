// The baseline for mlp.slang's backward pass: the gradient of the 3-layer MLP with
// respect to its input, written by hand in CUDA as one would write it without automatic
// differentiation. It runs the forward pass keeping each layer's input, then walks the
// layers back through the ReLU masks; weights are read again, never stored per thread.
// Same parameters, in the same order, as the kernels slopec writes for mlp.slang.
#define W 64
#define LAYER (W * W + W)

__device__ void dense(const float* __restrict__ weights, int base, const float* x, float* y,
                      bool relu) {
  for (int o = 0; o < W; ++o) {
    float sum = weights[base + W * W + o];
    for (int i = 0; i < W; ++i) sum += weights[base + o * W + i] * x[i];
    y[o] = relu ? fmaxf(sum, 0.0f) : sum;
  }
}

// dx = W^T (dy masked by the ReLU of y, when the layer has one).
__device__ void dense_backward(const float* __restrict__ weights, int base, const float* y,
                               float* dy, float* dx, bool relu) {
  if (relu) {
    for (int o = 0; o < W; ++o) dy[o] = y[o] > 0.0f ? dy[o] : 0.0f;
  }
  for (int i = 0; i < W; ++i) dx[i] = 0.0f;
  for (int o = 0; o < W; ++o) {
    for (int i = 0; i < W; ++i) dx[i] += weights[base + o * W + i] * dy[o];
  }
}

extern "C" __global__ void __launch_bounds__(64)
backward(float* weights, float* inputs, float* outputs, float* outputGrad, float* inputGrad,
         unsigned long long, unsigned long long, unsigned long long, unsigned long long,
         unsigned long long) {
  unsigned row = blockIdx.x * blockDim.x + threadIdx.x;
  float x[W], h1[W], h2[W], d2[W], d1[W];
  for (int i = 0; i < W; ++i) x[i] = inputs[row * W + i];
  dense(weights, 0, x, h1, true);
  dense(weights, LAYER, h1, h2, true);
  for (int i = 0; i < W; ++i) d2[i] = outputGrad[row * W + i];
  // Layer 3 has no ReLU: its input gradient is W3^T dy.
  dense_backward(weights, 2 * LAYER, h2, d2, d1, false);
  dense_backward(weights, LAYER, h2, d1, d2, true);
  dense_backward(weights, 0, h1, d2, d1, true);
  for (int i = 0; i < W; ++i) inputGrad[row * W + i] = d1[i];
}
