"""Top frames (self and total) of one JFR event's samples within a time window.
usage: hot.py T0 T1 EVENT file.jfr...   (T0 T1: epoch seconds, e.g. drain.sh's window.txt;
EVENT: jdk.CPUTimeSample, jdk.ExecutionSample, jdk.ObjectAllocationSample)"""
import collections
import datetime
import json
import os
import subprocess
import sys

JFR = os.path.join(os.environ.get("JAVA_HOME", "/usr/lib/jvm/temurin-25-jdk-amd64"), "bin", "jfr")
t0, t1, event = float(sys.argv[1]), float(sys.argv[2]), sys.argv[3]
own, total, threads, n = collections.Counter(), collections.Counter(), collections.Counter(), 0
for f in sys.argv[4:]:
    out = subprocess.run([JFR, "print", "--json", "--stack-depth", "64", "--events", event, f],
                         capture_output=True, text=True, check=True).stdout
    for e in json.loads(out)["recording"]["events"]:
        v = e["values"]
        if not t0 <= datetime.datetime.fromisoformat(v["startTime"]).timestamp() <= t1:
            continue
        frames = [fr["method"]["type"]["name"] + "." + fr["method"]["name"]
                  for fr in (v.get("stackTrace") or {}).get("frames", [])]
        if not frames:
            continue
        n += 1
        thread = (v.get("sampledThread") or v.get("eventThread") or {}).get("javaName", "?")
        threads[thread.rstrip("0123456789")] += 1
        own[frames[0]] += 1
        for fr in set(frames):
            total[fr] += 1
print(f"{n} samples")
print("threads:", ", ".join(f"{k} {100 * c / max(n, 1):.0f}%" for k, c in threads.most_common(6)))
print("-- self")
for k, c in own.most_common(25):
    print(f"{100 * c / n:5.1f}% {k}")
print("-- total")
for k, c in total.most_common(40):
    print(f"{100 * c / n:5.1f}% {k}")
