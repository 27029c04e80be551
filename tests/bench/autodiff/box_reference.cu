// The baseline for box_filter_2d.slang's forward pass, written by hand in CUDA: nine
// clamped reads and a division per pixel, as the Slope kernel does. Compiled twice by
// autodiff_bench: with plain loads, and with SLOPE_BENCH_LDG defined, reading the image
// through the read-only data cache (__ldg). Same parameters, in the same order, as the
// kernels slopec writes for box_filter_2d.slang.
#define SIDE 4096
#ifdef SLOPE_BENCH_LDG
#define LOAD(p) __ldg(p)
#else
#define LOAD(p) (*(p))
#endif

extern "C" __global__ void __launch_bounds__(256)
forward(float* image, float* filtered, float* filteredGrad, float* imageGrad,
        unsigned long long, unsigned long long, unsigned long long, unsigned long long) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  float sum = 0.0f;
  for (int dy = -1; dy <= 1; ++dy) {
    int row = min(max(y + dy, 0), SIDE - 1) * SIDE;
    for (int dx = -1; dx <= 1; ++dx) sum += LOAD(image + row + min(max(x + dx, 0), SIDE - 1));
  }
  filtered[y * SIDE + x] = sum / 9.0f;
}
