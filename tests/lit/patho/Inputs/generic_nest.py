"""Prints a kernel that copies a W<W<...W<float>...>> nested N deep (argv[1])."""
import sys

n = int(sys.argv[1])
t = "float"
for _ in range(n):
    t = "W<" + t + ">"
print("RWStructuredBuffer<float> outBuf;")
print("StructuredBuffer<float> inBuf;")
print("struct W<T> { T a; T b; };")
print("T copy<T>(T x) { T y = x; return y; }")
print("[numthreads(1, 1, 1)]")
print("void computeMain() {")
print("  %s w;" % t)
print("  %s u = copy(w);" % t)
print("  outBuf[0] = inBuf[0];")
print("}")
