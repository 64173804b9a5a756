#!/usr/bin/env python3
"""Rule G23 (docs/RESULTS.md, dppca twenty-ninth attempt) and its
development screen on one or more TestSimDesign logs: G19's clauses
(g19.py: g15.py with --strict-spread) over the cells of all the logs
pooled, each log's families named FAMILY@i so that no cell of one log
replaces another's. With one log it is g19.py.
Usage: python3 g23.py VARIANT LOG [LOG ...]"""
import os, re, runpy, sys, tempfile

variant, logs = sys.argv[1], sys.argv[2:]
out = tempfile.NamedTemporaryFile('w', suffix='.log', delete=False)
for i, path in enumerate(logs):
    for line in open(path):
        line = re.sub(r'^\s*(\S+\.go:\d+: )?', '', line.rstrip())
        m = re.match(r'(\S+)(\s.*)$', line)
        if m and ('paired vs' in line or '±' in line):
            line = '%s@%d%s' % (m.group(1), i, m.group(2)) if len(logs) > 1 else line
        out.write(line + '\n')
out.close()
sys.argv = [sys.argv[0], '--strict-spread', out.name, variant]
runpy.run_path(os.path.join(os.path.dirname(os.path.abspath(__file__)), 'g15.py'), run_name='__main__')
