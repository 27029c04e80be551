#version 450
// The GLSL equivalent of check_small.slang.
layout(local_size_x = 64) in;
struct Params { float scale; float bias; };
float apply(Params p, float x) { return x * p.scale + p.bias; }
layout(std430, binding = 0) readonly buffer In { float input_data[]; };
layout(std430, binding = 1) buffer Out { float output_data[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    Params p = Params(2.0, 1.0);
    float acc = 0.0;
    for (int k = -2; k <= 2; k++) {
        int j = clamp(int(i) + k, 0, 1023);
        acc += input_data[j];
    }
    float v = apply(p, acc / 5.0);
    if (v < 0.0) v = -v;
    output_data[i] = sqrt(v);
}
