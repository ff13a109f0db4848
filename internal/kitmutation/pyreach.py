"""Runs a Python program and records which lines of the kit it executes,
for cmd/kitmutate's reach: a mutant on a line no judge executes is a
survivor not reached, and is not judged.

    python3 pyreach.py OUT_DIR FILE_SUFFIX (SCRIPT | -m MODULE) ARGS...

writes OUT_DIR/<pid>.json, the executed line numbers of the files whose
name ends with FILE_SUFFIX, when the program exits.
"""

import atexit
import json
import os
import runpy
import sys
import threading

out, suffix = sys.argv[1], sys.argv[2]
lines = set()


def local(frame, event, arg):
    if event == "line":
        lines.add(frame.f_lineno)
    return local


def trace(frame, event, arg):
    if frame.f_code.co_filename.endswith(suffix):
        lines.add(frame.f_lineno)
        return local
    return None


def dump():
    with open(os.path.join(out, "%d.json" % os.getpid()), "w") as f:
        json.dump(sorted(lines), f)


atexit.register(dump)
threading.settrace(trace)
sys.settrace(trace)
if sys.argv[3] == "-m":
    sys.argv = [sys.argv[4]] + sys.argv[5:]
    runpy.run_module(sys.argv[0], run_name="__main__", alter_sys=True)
else:
    sys.argv = sys.argv[3:]
    runpy.run_path(sys.argv[0], run_name="__main__")
