package io.drover.bench;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ProcStatTest {
    @Test
    void readsTheFieldsAfterANameWithSpacesAndParentheses() {
        // proc(5): pid (comm) state ppid pgrp session tty_nr tpgid flags minflt cminflt majflt cmajflt
        // utime stime cutime cstime ...
        ProcStat s = ProcStat.parse("4242 (Web (Content) 2)) S 17 4242 4242 0 -1 4194304 1200 30 0 0 "
                + "250 40 7 3 20 0 12 0 123456 1000000 500 18446744073709551615 0 0 0 0 0 0 0 0 0 0 0 0 17 1 0 0\n");
        assertThat(s.pid()).isEqualTo(4242);
        assertThat(s.name()).isEqualTo("Web (Content) 2)");
        assertThat(s.ppid()).isEqualTo(17);
        assertThat(s.cpuMicros()).isEqualTo((250 + 40) * 10_000L);
        assertThat(s.childrenCpuMicros()).isEqualTo((7 + 3) * 10_000L);
    }

    @Test
    void readsThisProcess() {
        ProcStat self = ProcStat.read(ProcessHandle.current().pid()).orElseThrow();
        assertThat(self.name()).isEqualTo("java");
        assertThat(self.ppid()).isEqualTo(ProcessHandle.current().parent().orElseThrow().pid());
        assertThat(self.cpuMicros()).isPositive();
    }

    @Test
    void aProcessThatIsGoneReadsEmpty() {
        assertThat(ProcStat.read(Long.MAX_VALUE)).isEmpty();
    }

    @Test
    void refusesALineWithoutAName() {
        assertThatThrownBy(() -> ProcStat.parse("garbage")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aJvmsJitCompilerThreadsAreFoundByName() throws Exception {
        long pid = ProcessHandle.current().pid();
        long before = ProcStat.jitMicros(pid);
        // Work the JIT compiles: many small distinct lambdas, called often enough to be compiled.
        long sum = 0;
        for (int i = 0; i < 2_000_000; i++) {
            sum += Long.toString(i).hashCode() ^ Integer.reverse(i);
        }
        assertThat(sum).isNotZero();
        assertThat(ProcStat.jitMicros(pid)).as("this JVM's compiler threads used CPU").isGreaterThanOrEqualTo(before)
                .isPositive();
        assertThat(ProcStat.jitMicros(-1)).as("no such process").isZero();
    }
}
