"""CPU per thread kind between two /proc task snapshots (drain.sh): where a drain's CPU goes,
the JIT's compiler threads apart from the executor's own. Thread names ending in digits are
grouped (drover-worker-3 -> drover-worker-#)."""
import collections
import re
import sys


def load(path):
    threads = {}
    for line in open(path):
        pid, tid, name, cpu = line.split()
        user, system, _ = (int(x) for x in cpu.split("_"))
        threads[(pid, tid)] = (name, user + system)
    return threads


before, after = load(sys.argv[1]), load(sys.argv[2])
ticks = collections.Counter()
for key, (name, cpu) in after.items():
    ticks[re.sub(r"\d+$", "#", name)] += cpu - before.get(key, (name, 0))[1]
total = max(sum(ticks.values()), 1)
for name, t in ticks.most_common(12):
    print(f"{name:24s} {t:6d} ticks {100 * t / total:5.1f}%")
jit = sum(t for name, t in ticks.items() if "CompilerThre" in name)
print(f"JIT compiler threads {100 * jit / total:.1f}% of {total} ticks")
