#!/usr/bin/env python3
"""peak_rss.py OUT CMD [ARG...]: runs CMD (stdin from /dev/null) and writes to OUT one line
"rc cpu_seconds peak_kib": its exit status (negative: killed by that signal), the CPU time
(user + system) and the peak resident memory of CMD, from getrusage of the child. CPU time,
unlike wall time, does not depend on how busy the machine is."""
import os, resource, subprocess, sys

out, cmd = sys.argv[1], sys.argv[2:]
rc = subprocess.call(cmd, stdin=subprocess.DEVNULL)
u = resource.getrusage(resource.RUSAGE_CHILDREN)
with open(out, "w") as f:
    f.write("%d %.3f %d\n" % (rc, u.ru_utime + u.ru_stime, u.ru_maxrss))
