#!/usr/bin/env bash
# A java that records JFR from the JVM's launch into $JFRDIR/<pid>.jfr (JAVA= for drain.sh).
# From launch, because a recording started later with jcmd makes the JIT redo compiled code.
exec "${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}/bin/java" \
  "-XX:StartFlightRecording:settings=profile,jdk.CPUTimeSample#enabled=true,jdk.CPUTimeSample#throttle=1ms,jdk.Compilation#threshold=0ms,filename=$JFRDIR/$$.jfr,dumponexit=true" "$@"
