#!/usr/bin/env python3
# Runs a command and writes to FILE what it cost: its processes' user and system CPU seconds, their involuntary
# context switches (threads taken off a core that something else wanted: a busy or shared machine), voluntary ones
# (threads waiting: I/O, locks, the GPU), peak RSS, and the machine's 1-minute load average before and after. For
# telling a slow run that did more work from one that waited or was crowded out (ab-embed.sh prints it per run).
# Usage: python3 tools/device/rusage.py FILE CMD [ARG...]   (exits with CMD's status)
import os
import resource
import subprocess
import sys
import time

out, cmd = sys.argv[1], sys.argv[2:]
load_before = os.getloadavg()[0]
started = time.time()
status = subprocess.call(cmd)
wall = time.time() - started
r = resource.getrusage(resource.RUSAGE_CHILDREN)
with open(out, "w") as f:
    f.write(f"wall {wall:.2f} s, user {r.ru_utime:.2f} s, sys {r.ru_stime:.2f} s, involuntary {r.ru_nivcsw}, "
            f"voluntary {r.ru_nvcsw}, rss {r.ru_maxrss // 1024} MB, load {load_before:.1f} -> {os.getloadavg()[0]:.1f}\n")
sys.exit(status)
