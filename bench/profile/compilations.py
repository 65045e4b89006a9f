"""What the JIT compiled within a time window (JFR jdk.Compilation, recorded with threshold 0):
compile time by package and by method, and by tier. usage: compilations.py T0 T1 file.jfr..."""
import collections
import datetime
import json
import os
import subprocess
import sys

JFR = os.path.join(os.environ.get("JAVA_HOME", "/usr/lib/jvm/temurin-25-jdk-amd64"), "bin", "jfr")
t0, t1 = float(sys.argv[1]), float(sys.argv[2])
by_package, count, by_tier, by_method = (collections.Counter() for _ in range(4))
for f in sys.argv[3:]:
    out = subprocess.run([JFR, "print", "--json", "--events", "jdk.Compilation", f],
                         capture_output=True, text=True, check=True).stdout
    for e in json.loads(out)["recording"]["events"]:
        v = e["values"]
        if not t0 <= datetime.datetime.fromisoformat(v["startTime"]).timestamp() <= t1:
            continue
        d = v["duration"]  # ISO-8601, e.g. PT0.0123S
        seconds = float(d[2:-1]) if d.endswith("S") else 0
        name = v["method"]["type"]["name"].replace("/", ".")
        package = ".".join(name.split(".")[:3])
        by_package[package] += seconds
        count[package] += 1
        by_tier[v["compileLevel"]] += seconds
        by_method[name + "." + v["method"]["name"]] += seconds
print("compile s by tier", {k: round(v, 2) for k, v in by_tier.items()},
      "total", round(sum(by_package.values()), 2), "compilations", sum(count.values()))
for k, v in by_package.most_common(14):
    print(f"{v * 1000:7.0f} ms {count[k]:4d}  {k}")
print("-- methods")
for k, v in by_method.most_common(15):
    print(f"{v * 1000:7.0f} ms  {k}")
