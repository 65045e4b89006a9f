package io.drover.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * One process's line of /proc/PID/stat (proc(5)): its name, parent and CPU times. Times are in
 * clock ticks of USER_HZ, which the kernel fixes at 100 per second on every architecture a JDK
 * runs on.
 *
 * @param utime  user CPU of the process, all its threads
 * @param stime  system CPU of the process
 * @param cutime user CPU of its children that exited and were waited for
 * @param cstime system CPU of those children
 */
record ProcStat(long pid, String name, long ppid, long utime, long stime, long cutime, long cstime) {
    static final long MICROS_PER_TICK = 1_000_000 / 100;

    /**
     * Parses a stat line. The name, in parentheses, may hold spaces and parentheses itself, so the
     * fields are counted from the last ')'.
     */
    static ProcStat parse(String line) {
        int open = line.indexOf('(');
        int close = line.lastIndexOf(')');
        if (open < 0 || close < open) {
            throw new IllegalArgumentException("not a /proc/PID/stat line: " + line);
        }
        // After the name: field 3 (state) onwards; ppid is field 4, utime..cstime fields 14-17.
        String[] f = line.substring(close + 2).trim().split(" ");
        return new ProcStat(Long.parseLong(line.substring(0, open).trim()), line.substring(open + 1, close),
                Long.parseLong(f[1]), Long.parseLong(f[11]), Long.parseLong(f[12]), Long.parseLong(f[13]),
                Long.parseLong(f[14]));
    }

    /** The process's stat, empty when it is gone (or this is not Linux). */
    static Optional<ProcStat> read(long pid) {
        // No such process (it may exit between a listing of /proc and the read), or no /proc: empty.
        return read(Path.of("/proc", Long.toString(pid), "stat"));
    }

    /**
     * CPU microseconds of a JVM's JIT compiler threads (HotSpot names them "C1 CompilerThreadN"
     * and "C2 CompilerThreadN", which the kernel cuts to 15 characters), from
     * /proc/PID/task/TID/stat. A compiler thread the JVM stopped (it adds and removes them with
     * the compile queue) takes its CPU along, so this is a lower bound; 0 when the process is gone.
     */
    static long jitMicros(long pid) {
        try (var tasks = Files.list(Path.of("/proc", Long.toString(pid), "task"))) {
            return tasks.map(t -> read(t.resolve("stat")))
                    .flatMap(Optional::stream)
                    .filter(t -> t.name().startsWith("C1 CompilerThre") || t.name().startsWith("C2 CompilerThre"))
                    .mapToLong(ProcStat::cpuMicros).sum();
        } catch (IOException gone) {
            return 0;
        }
    }

    private static Optional<ProcStat> read(Path stat) {
        try {
            return Optional.of(parse(Files.readString(stat)));
        } catch (IOException gone) {
            return Optional.empty();
        }
    }

    /** The process's own CPU, microseconds. */
    long cpuMicros() {
        return (utime + stime) * MICROS_PER_TICK;
    }

    /** Its exited children's CPU, microseconds. */
    long childrenCpuMicros() {
        return (cutime + cstime) * MICROS_PER_TICK;
    }
}
