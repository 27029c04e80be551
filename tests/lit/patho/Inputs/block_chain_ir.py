"""A function of N vars stored in the entry block, then N blocks in a chain that only
branch on, and at the end a load of every var, added up: block_chain_ir.py N."""
import sys

n = int(sys.argv[1])
out = ["func @long(%a: f32) -> f32 {", "^0:"]
out += ["  %%v%d = var : ptr<function, f32>" % i for i in range(n)]
out += ["  store %%v%d, %%a" % i for i in range(n)]
out.append("  br ^1")
for i in range(1, n):
    out += ["^%d:" % i, "  br ^%d" % (i + 1)]
out += ["^%d:" % n, "  %s0 = load %v0 : f32"]
for i in range(1, n):
    out += ["  %%l%d = load %%v%d : f32" % (i, i), "  %%s%d = add %%s%d, %%l%d : f32" % (i, i - 1, i)]
out += ["  ret %%s%d" % (n - 1), "}"]
print("\n".join(out))
