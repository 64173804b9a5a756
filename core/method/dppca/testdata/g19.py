#!/usr/bin/env python3
"""Rule G19 (docs/RESULTS.md, dppca twenty-second attempt) on a
TestSimDesign log: rule G18's clauses, g15.py with --strict-spread, over
the families the log holds (G19: G18's 14 and simpollen, ε 1-16).
Usage: python3 g19.py LOG [VARIANT]"""
import os, runpy, sys

sys.argv = [sys.argv[0], '--strict-spread'] + sys.argv[1:]
runpy.run_path(os.path.join(os.path.dirname(os.path.abspath(__file__)), 'g15.py'), run_name='__main__')
