#!/usr/bin/env python3
"""The JIT compilations inside a drain's window, from HotSpot compile logs (docs/benchmarks/profile.md).

usage: compile-log.py T0 T1 LOG...   (T0 T1: epoch seconds, target/profile/LABEL/window.txt;
       LOG: files of -XX:+UnlockDiagnosticVMOptions -XX:+LogCompilation -XX:LogFile=DIR/comp-%p.log,
       one per node JVM, complete once the JVMs have exited)
Prints the compile tasks' wall time by tier, the methods that took most (compiles, tier, OSR),
the uncommon traps and the methods made not entrant in the window.
"""
import collections
import html
import re
import sys

TASK = re.compile(r"<task compile_id='(\d+)'(?: compile_kind='(\w+)')? method='([^']*)'[^>]*?"
                  r"(?:level='(\d)' )?stamp='([\d.]+)'.*?<task_done[^>]*stamp='([\d.]+)'", re.S)
TRAP = re.compile(r"<uncommon_trap thread='\d+' reason='([^']*)' action='([^']*)'[^>]*?stamp='([\d.]+)'")
NOT_ENTRANT = re.compile(r"<make_not_entrant[^>]*method='([^']*)'[^>]*stamp='([\d.]+)'")


def main(t0, t1, files):
    took, count, tier = collections.Counter(), collections.Counter(), collections.Counter()
    traps, not_entrant = collections.Counter(), collections.Counter()
    for f in files:
        text = open(f, errors='replace').read()
        start = int(re.search(r"time_ms='(\d+)'", text).group(1)) / 1000  # the JVM's start, epoch ms
        lo, hi = t0 - start, t1 - start  # the window in the log's stamps (seconds since start)
        for m in TASK.finditer(text):
            _, kind, method, level, began, ended = m.groups()
            if lo <= float(began) <= hi:
                key = (html.unescape(method), level or '4', kind or '')  # C2 tasks carry no level
                took[key] += float(ended) - float(began)
                count[key] += 1
                tier[level or '4'] += float(ended) - float(began)
        for m in TRAP.finditer(text):
            if lo <= float(m.group(3)) <= hi:
                traps[(m.group(1), m.group(2))] += 1
        for m in NOT_ENTRANT.finditer(text):
            if lo <= float(m.group(2)) <= hi:
                not_entrant[html.unescape(m.group(1))] += 1
    print(f"compile tasks' wall time in the window: {sum(tier.values()):.2f} s; by tier:",
          {k: round(v, 2) for k, v in sorted(tier.items())})
    for (method, level, kind), seconds in took.most_common(30):
        print(f"{seconds:6.3f} s x{count[(method, level, kind)]:2d} tier {level} {kind:3s} {method}")
    print("uncommon traps:", traps.most_common(15))
    print("made not entrant:", sum(not_entrant.values()), not_entrant.most_common(15))


if __name__ == '__main__':
    main(float(sys.argv[1]), float(sys.argv[2]), sys.argv[3:])
