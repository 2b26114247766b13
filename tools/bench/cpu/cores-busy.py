"""Are all cores busy? Runs a command and samples its CPU time from /proc (Linux), every --interval seconds.

  python3 tools/bench/cpu/cores-busy.py [--interval 1] [--window 10] -- node packages/cli/bin/virnucpro.js embed ...

Prints one JSON line on stderr when the command ends:
  wallSeconds, cpuSeconds (user + system, all threads), peakRssMiB (VmHWM);
  busiestWindow: the most cores the process kept busy over --window seconds (CPU seconds / wall seconds of that
    window): on an otherwise idle machine the compute phase of a process that uses every core reads ~nproc;
  machineBusyInWindow: how busy ALL cores of the machine were in that window (from /proc/stat, 0..nproc): when it
    reads ~nproc while ours reads less, other processes took the rest (a shared machine), not idle threads of ours;
  runnableThreads: in that window, the mean number of our threads running or waiting for a core (state R at each
    sample): the cores the process asks for, which a shared machine does not lower;
  timeline: [start s, our cores busy, runnable threads, machine busy, [cores busy of each main thread]] per --window
    seconds, one after another (model loading, then the compute phase); the main threads are those of `threads`;
  threads: CPU seconds of each thread with >= 5 % of the total (the compute threads: each ~ equal = work is spread).
The command's own output goes through unchanged.
"""
import json, os, resource, subprocess, sys, time

args = sys.argv[1:]
interval, window = 1.0, 10.0
while args and args[0] != "--":
    flag, value = args[0], float(args[1])
    if flag == "--interval":
        interval = value
    elif flag == "--window":
        window = value
    else:
        raise SystemExit(f"unknown option {flag}")
    args = args[2:]
command = args[1:]
if not command:
    raise SystemExit(__doc__)

TICK = os.sysconf("SC_CLK_TCK")
CORES = os.cpu_count()


def cpu_of(stat_path):
    """utime + stime in seconds from a /proc/.../stat line (fields after the parenthesised name)."""
    with open(stat_path) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def machine_busy():
    """Busy and total jiffies of all cores (/proc/stat's first line)."""
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    idle = v[3] + v[4]
    return sum(v) - idle, sum(v)


def threads_of(pid):
    """{tid: (name, cpu seconds, state letter)}"""
    out = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/stat") as f:
                text = f.read()
            name, rest = text.split("(", 1)[1].rsplit(")", 1)
            fields = rest.split()
            out[tid] = (name, (int(fields[11]) + int(fields[12])) / TICK, fields[0])
        except (FileNotFoundError, ProcessLookupError):
            pass
    return out


start = time.time()
child = subprocess.Popen(command)
samples = []  # (t, process cpu, runnable threads, machine busy jiffies, machine total jiffies)
per_thread = []  # {tid: cpu seconds} at each sample
threads, peak = {}, 0
while child.poll() is None:
    try:
        cpu = cpu_of(f"/proc/{child.pid}/stat")
        now = threads_of(child.pid)
        for tid, (name, seconds, _) in now.items():
            threads[tid] = (name, seconds)
        with open(f"/proc/{child.pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    peak = max(peak, int(line.split()[1]) // 1024)
        per_thread.append({tid: seconds for tid, (_, seconds, _) in now.items()})
        samples.append((time.time(), cpu, sum(state == "R" for _, _, state in now.values()), *machine_busy()))
    except (FileNotFoundError, ProcessLookupError):
        break
    time.sleep(interval)
child.wait()
wall = time.time() - start
r = resource.getrusage(resource.RUSAGE_CHILDREN)  # the command's CPU time and peak RSS, from the kernel
best = None
for i, (t0, c0, _, b0, n0) in enumerate(samples):
    for j in range(i + 1, len(samples)):
        t1, c1, _, b1, n1 = samples[j]
        if t1 - t0 >= window:
            busy = (c1 - c0) / (t1 - t0)
            if best is None or busy > best[0]:
                runnable = sum(s[2] for s in samples[i:j + 1]) / (j + 1 - i)
                best = (busy, CORES * (b1 - b0) / max(1, n1 - n0), t0 - start, runnable)
            break
main_threads = sorted((tid for tid, (_, c) in threads.items() if c >= 0.05 * (sum(c for _, c in threads.values()) or 1)), key=lambda t: -threads[t][1])
timeline, i = [], 0
while i < len(samples):
    j = next((j for j in range(i + 1, len(samples)) if samples[j][0] - samples[i][0] >= window), None)
    if j is None:
        break
    (t0, c0, _, b0, n0), (t1, c1, _, b1, n1) = samples[i], samples[j]
    timeline.append([round(t0 - start), round((c1 - c0) / (t1 - t0), 2), round(sum(s[2] for s in samples[i:j]) / (j - i), 2),
                     round(CORES * (b1 - b0) / max(1, n1 - n0), 2),
                     [round((per_thread[j].get(t, 0) - per_thread[i].get(t, 0)) / (t1 - t0), 2) for t in main_threads]])
    i = j
print(json.dumps({
    "command": " ".join(command)[:200], "exit": child.returncode, "cores": CORES, "wallSeconds": round(wall, 1),
    "cpuSeconds": round(r.ru_utime + r.ru_stime, 1), "peakRssMiB": max(peak, r.ru_maxrss // 1024),
    "busiestWindow": None if best is None else {"seconds": window, "startsAt": round(best[2], 1), "ourCoresBusy": round(best[0], 2),
                                                "machineBusyInWindow": round(best[1], 2), "runnableThreads": round(best[3], 2)},
    "timeline": timeline,
    "threads": [[threads[t][0], round(threads[t][1], 1)] for t in main_threads],
}), file=sys.stderr)
sys.exit(child.returncode)
