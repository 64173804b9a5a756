#!/usr/bin/env python3
"""Rule G18 (docs/RESULTS.md, dppca twenty-first attempt) on a
TestSimDesign log: g15.py with --strict-spread (clause (a)'s spread arm
must exceed its own noise). Usage: python3 g18.py LOG [VARIANT]"""
import os, runpy, sys

sys.argv = [sys.argv[0], '--strict-spread'] + sys.argv[1:]
runpy.run_path(os.path.join(os.path.dirname(os.path.abspath(__file__)), 'g15.py'), run_name='__main__')
