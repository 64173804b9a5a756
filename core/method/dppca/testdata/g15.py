#!/usr/bin/env python3
"""Rule G15 (docs/RESULTS.md, dppca eighteenth attempt) on a TestSimDesign
log (the default first; argv[2], if given, names the variant judged,
else the log's second): reads each family's rows of mean
± sd per ε and the paired d ± SE per ε, prints the table and the verdict.
With --strict-spread (rule G18, g18.py): clause (a)'s spread arm must
exceed its own noise: per cell the drop of the sd over seeds, delta_c =
sd_default - sd_variant, whose mean over the cells must be more than 2 SE
(the sd of the delta_c over sqrt(cells)); G15-G17 took any drop of the
mean sd.
Usage: python3 g15.py [--strict-spread] LOG [VARIANT]"""
import math, re, sys

strict = '--strict-spread' in sys.argv
if strict:
    sys.argv.remove('--strict-spread')
want = sys.argv[2] if len(sys.argv) > 2 else None
rows, paired = {}, {}
for line in open(sys.argv[1]):
    line = re.sub(r'^\s*(\S+\.go:\d+: )?', '', line.rstrip())
    m = re.match(r'(\S+)\s+(\S*)\s+paired vs "[^"]*":(.*)$', line)
    if m and (want is None or m.group(2) == want):
        paired[m.group(1)] = [(float(e), float(d), float(s)) for e, d, s in
                              re.findall(r'ε(\S+?) ([+-]\d+\.\d+)±(\d+\.\d+)', m.group(3))]
        continue
    m = re.match(r'(\S+)\s+(\S*?)\s*((?:-?\d\.\d+±\d\.\d+\(.*)+)$', line)
    if m and (m.group(2) == '' or want is None or m.group(2) == want):
        sds = [float(x) for x in re.findall(r'\d\.\d+±(\d\.\d+)\(', m.group(3))]
        rows.setdefault(m.group(1), []).append(sds)
cells, sd0, sd1 = [], [], []
ok_b, ok_c = True, True
print('| family | ' + ' | '.join('ε %g' % e for e, _, _ in next(iter(paired.values()))) + ' | D_f ± SE_f | D_f + 2·SE_f |')
for fam, ps in paired.items():
    sd0 += rows[fam][0]; sd1 += rows[fam][1]
    cells += ps
    df = sum(d for _, d, _ in ps) / len(ps)
    sef = math.sqrt(sum(s * s for _, _, s in ps)) / len(ps)
    fmt = []
    for _, d, s in ps:
        t = '%+.3f ± %.3f' % (d, s) if (d, s) != (0, 0) else '0'
        if abs(d) > 2 * s:
            t = '**' + t + '**'
        if d < -0.10 and d + 2 * s < 0:
            ok_c = False
        fmt.append(t)
    if df + 2 * sef < -0.02:
        ok_b = False
    print('| %s | %s | %+.3f ± %.3f | %+.3f |' % (fam, ' | '.join(fmt), df, sef, df + 2 * sef))
D = sum(d for _, d, _ in cells) / len(cells)
SE = math.sqrt(sum(s * s for _, _, s in cells)) / len(cells)
m0, m1 = sum(sd0) / len(sd0), sum(sd1) / len(sd1)
spread = D + SE >= 0 and m1 < m0
if strict:
    dl = [a - b for a, b in zip(sd0, sd1)]
    dm = sum(dl) / len(dl)
    dse = math.sqrt(sum((x - dm) ** 2 for x in dl) / (len(dl) - 1) / len(dl))
    spread = D + SE >= 0 and dm > 2 * dse
ok_a = spread or D > 2 * SE
low = min(cells, key=lambda c: c[1])
print('\n%d cells: D %+.4f ± %.4f; mean sd over seeds: default %.4f, variant %.4f' % (len(cells), D, SE, m0, m1))
if strict:
    print('sd drop per cell: %+.4f ± %.4f (spread arm %s; mean arm %s)' % (dm, dse, spread, D > 2 * SE))
print('(a) %s  (b) %s  (c) %s  -> %s' % (ok_a, ok_b, ok_c, 'PASS' if ok_a and ok_b and ok_c else 'FAIL'))
print('lowest cell d %+.3f ± %.3f at ε %g' % (low[1], low[2], low[0]))
