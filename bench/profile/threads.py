"""CPU and context switches per thread kind between two /proc task snapshots (drain.sh): where a
drain's CPU goes, the JIT's compiler threads apart from the executor's own, and how often each
kind of thread parked (voluntary switches: a wait on a lock, a queue or the socket) or was
preempted. Thread names ending in digits are grouped (drover-worker-3 -> drover-worker-#).

usage: threads.py BEFORE AFTER [JOBS]   (JOBS: also print switches per job)"""
import collections
import re
import sys


def load(path):
    threads = {}
    for line in open(path):
        pid, tid, name, stats = line.split()
        fields = [int(x) for x in stats.split("_")]
        user, system = fields[0], fields[1]
        voluntary, involuntary = (fields[3], fields[4]) if len(fields) >= 5 else (0, 0)
        threads[(pid, tid)] = (name, user + system, voluntary, involuntary)
    return threads


before, after = load(sys.argv[1]), load(sys.argv[2])
jobs = int(sys.argv[3]) if len(sys.argv) > 3 else 0
ticks, vol, invol = collections.Counter(), collections.Counter(), collections.Counter()
for key, (name, cpu, v, i) in after.items():
    kind = re.sub(r"\d+$", "#", name)
    _, cpu0, v0, i0 = before.get(key, (name, 0, 0, 0))
    ticks[kind] += cpu - cpu0
    vol[kind] += v - v0
    invol[kind] += i - i0
total = max(sum(ticks.values()), 1)
for name, t in ticks.most_common(12):
    per_job = f"  {vol[name] / jobs:6.3f} switches/job" if jobs else ""
    print(f"{name:24s} {t:6d} ticks {100 * t / total:5.1f}%  voluntary {vol[name]:8d} involuntary {invol[name]:7d}{per_job}")
jit = sum(t for name, t in ticks.items() if "CompilerThre" in name)
own = sum(t for name, t in ticks.items() if name.startswith("drover-"))
print(f"JIT compiler threads {100 * jit / total:.1f}% of {total} ticks; drover-* threads {own} ticks")
if jobs:
    print(f"voluntary switches per job, all threads: {sum(vol.values()) / jobs:.3f}")
