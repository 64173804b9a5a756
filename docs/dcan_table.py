#!/usr/bin/env python3
"""Table of docs/dcan_real.sh's runs: ARI and NMI mean ± sample sd per data
set and configuration (usage: python3 docs/dcan_table.py /tmp/dcan_real.tsv)."""
import json
import statistics as st
import sys
from collections import defaultdict

runs = defaultdict(list)
order = []
for line in open(sys.argv[1] if len(sys.argv) > 1 else "/tmp/dcan_real.tsv"):
    data, conf, epochs, seed, js = line.rstrip("\n").split("\t", 4)
    s = json.loads(js)
    key = (data, conf, epochs)
    if key not in runs:
        order.append(key)
    if any(r[0] == int(seed) for r in runs[key]):
        continue  # a seed run twice (two sweeps): keep the first
    runs[key].append((int(seed), s))

def ms(v):
    v = [x for x in v if x is not None]
    if not v:
        return "—"
    if len(v) == 1:
        return "%.3f" % v[0]
    return "%.3f ± %.3f" % (st.mean(v), st.stdev(v))

print("| data | configuration | epochs | seeds | ARI | NMI | ε spent (RDP) | guarantee | s per run |")
print("|---|---|---|---|---|---|---|---|---|")
for key in order:
    rs = sorted(runs[key], key=lambda r: r[0])
    ss = [s for _, s in rs]
    eps = [s.get("epsilon", {}).get("RDP") for s in ss]
    eps = [e for e in eps if e is not None]
    errs = [s.get("error") for s in ss if s.get("error")]
    print("| %s | %s | %s | %s | %s | %s | %s | %s | %.0f |%s" % (
        key[0], key[1], key[2], ",".join(str(r[0]) for r in rs),
        ms([s.get("ari") for s in ss]), ms([s.get("nmi") for s in ss]),
        ("%.2f" % max(eps)) if eps else "—", ss[0].get("guarantee", ""),
        st.mean([s.get("seconds") or 0 for s in ss]), (" errors: " + "; ".join(errs)) if errs else ""))
