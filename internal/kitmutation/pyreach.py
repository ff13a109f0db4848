"""Runs a Python program and records which lines of the kit it executes,
for cmd/kitmutate's reach: a mutant on a line no judge executes is a
survivor not reached, and is not judged.

    python3 pyreach.py OUT_DIR FILE_SUFFIX (SCRIPT | -m MODULE) ARGS...

writes OUT_DIR/<pid>.json, the executed line numbers of the files whose
name ends with FILE_SUFFIX, every 20 ms while they grow and
when the program exits: the harness may end a kernel with a signal, which
no exit handler sees.
"""

import atexit
import json
import os
import runpy
import sys
import threading
import time

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


written = [0]


def dump():
    n = len(lines)
    if n == written[0]:
        return
    tmp = os.path.join(out, "%d.tmp" % os.getpid())
    with open(tmp, "w") as f:
        json.dump(sorted(set(lines)), f)
    os.replace(tmp, os.path.join(out, "%d.json" % os.getpid()))
    written[0] = n


def keep_dumping():
    while True:
        time.sleep(0.02)
        dump()


atexit.register(dump)
threading.Thread(target=keep_dumping, daemon=True).start()

# os._exit skips the exit handlers, and the line that calls it never gets
# its 20 ms: the kit ends a kernel with it after shutdown, so without this
# that line, reached in every run, read as never reached and its mutants
# went unjudged.
_exit = os._exit


def exit_after_dump(code):
    dump()
    _exit(code)


os._exit = exit_after_dump
threading.settrace(trace)
sys.settrace(trace)
if sys.argv[3] == "-m":
    sys.argv = [sys.argv[4]] + sys.argv[5:]
    runpy.run_module(sys.argv[0], run_name="__main__", alter_sys=True)
else:
    sys.argv = sys.argv[3:]
    runpy.run_path(sys.argv[0], run_name="__main__")
