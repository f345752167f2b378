#!/usr/bin/env python3
"""Generates .tc modules of a given size for the compile-time scaling
benchmark (scripts/bench.sh): N fields, N kernels, or one kernel of N
statements. Usage: gen_module.py fields|kernels|statements N > out.tc"""
import sys

kind, n = sys.argv[1], int(sys.argv[2])
out = ["module scale;"]
if kind == "fields":
    # N small dense fields (C accessors for each) and a kernel using a few.
    for i in range(n):
        out.append(f"field f{i}: f32[64];")
    out.append("kernel k() {")
    out.append("  for i in f0 {")
    for i in range(min(n, 8)):
        out.append(f"    f{i}[i] = f{i}[i] + 1.0;")
    out.append("  }")
    out.append("}")
elif kind == "kernels":
    out.append("field x: f32[1024];")
    for i in range(n):
        out.append(f"kernel k{i}(a: f32) {{")
        out.append(f"  for i in x {{ x[i] = a * x[i] + {i}.5; }}")
        out.append("}")
elif kind == "statements":
    out.append("field x: f32[64];")
    out.append("kernel k(a: f32) {")
    out.append("  var s = a;")
    for i in range(n):
        out.append(f"  s = s * 1.0001 + {i}.5;")
    out.append("  x[0] = s;")
    out.append("}")
else:
    sys.exit(f"unknown kind '{kind}' (fields, kernels or statements)")
print("\n".join(out))
