#!/usr/bin/env python3
"""sweep.py BIN SEEDS -- ARGS... : run `BIN run --json ARGS --seed s` for each seed, print mean ± sd of every metric."""
import json, subprocess, sys, statistics as st
binp, seeds = sys.argv[1], [int(s) for s in sys.argv[2].split(",")]
args = sys.argv[sys.argv.index("--")+1:]
vals = {}
warn = []
for s in seeds:
    out = subprocess.run(["nice", "-n", "5", binp, "run", "--json", *args, "--seed", str(s)], capture_output=True, text=True)
    lines = [l for l in out.stdout.splitlines() if '"type":"summary"' in l]
    if not lines:
        print("seed", s, "FAILED:", out.stderr[-500:]); continue
    sm = json.loads(lines[-1])
    for k, v in (sm.get("metrics") or {}).items():
        vals.setdefault(k, []).append(v)
    warn.append((s, [w for w in sm.get("warnings", []) if "bandwidth" in w or "unchanged" in w]))
print("args:", " ".join(args), "seeds:", seeds)
for k, v in vals.items():
    sd = st.stdev(v) if len(v) > 1 else 0
    print(f"  {k:70s} {st.mean(v):.4f} ± {sd:.4f}  (n={len(v)})")
for s, w in warn[:3]:
    print("  seed", s, w)
