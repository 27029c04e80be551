#version 450
// The small shader of the compile_small benchmark; small.slang is the same in Slang.
layout(local_size_x = 64, local_size_y = 1, local_size_z = 1) in;
layout(std430, set = 0, binding = 0) readonly buffer Input { float input_data[]; };
layout(std430, set = 0, binding = 1) buffer Output { float output_data[]; };

float smooth_at(int i, int n) {
    float sum = 0.0;
    for (int k = -2; k <= 2; k++) {
        int j = clamp(i + k, 0, n - 1);
        sum += input_data[j] * (3.0 - abs(float(k)));
    }
    return sum / 9.0;
}

void main() {
    int i = int(gl_GlobalInvocationID.x);
    if (i >= 1024) return;
    float v = smooth_at(i, 1024);
    output_data[i] = v > 0.0 ? sqrt(v) : -sqrt(-v);
}
