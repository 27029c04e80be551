// The baseline for loop.slang's backward pass, written by hand in CUDA: the forward loop
// keeps the state of every step in a per-thread array, then the reverse loop walks the
// steps back, accumulating d(x_end)/dx and d(x_end)/da. Same parameters, in the same
// order, as the kernels slopec writes for loop.slang.
#define MAX_STEPS 256

extern "C" __global__ void __launch_bounds__(256)
backward(float* start, float* rate, int* steps, float* result, float* resultGrad,
         float* startGrad, float* rateGrad, unsigned long long, unsigned long long,
         unsigned long long, unsigned long long, unsigned long long, unsigned long long,
         unsigned long long) {
  unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  float a = rate[t];
  int n = min(steps[0], MAX_STEPS);
  float xs[MAX_STEPS];
  float x = start[t];
  for (int k = 0; k < n; ++k) {
    xs[k] = x;
    x = x + 0.01f * sinf(a * x + 0.05f * float(k));
  }
  float dx = resultGrad[t], da = 0.0f;
  for (int k = n - 1; k >= 0; --k) {
    float c = 0.01f * cosf(a * xs[k] + 0.05f * float(k));
    da += dx * c * xs[k];
    dx = dx * (1.0f + c * a);
  }
  startGrad[t] = dx;
  rateGrad[t] = da;
}
