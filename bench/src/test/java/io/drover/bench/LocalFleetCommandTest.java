package io.drover.bench;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/** The local nodes' command line, which the page's settings row quotes: the JIT directives only when the build has them. */
class LocalFleetCommandTest {
    @Test
    void theNodesRunTheBuildsJitDirectivesWhenItHasThem(@TempDir Path app) throws Exception {
        Path jar = Files.createFile(app.resolve("quarkus-run.jar"));
        assertThat(LocalFleet.command(jar)).containsSequence("-Xmx384m", "-XX:+UseParallelGC", "-jar", jar.toString())
                .noneMatch(a -> a.startsWith("-XX:CompilerDirectivesFile"));

        Files.createDirectories(app.resolve("jvm"));
        Path directives = Files.writeString(app.resolve("jvm/compiler-directives.json"), "[]");
        assertThat(LocalFleet.command(jar)).contains("-XX:+UnlockDiagnosticVMOptions",
                "-XX:CompilerDirectivesFile=" + directives).endsWith("-jar", jar.toString());
    }
}
