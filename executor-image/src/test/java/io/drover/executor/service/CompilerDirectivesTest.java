package io.drover.executor.service;

import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The HotSpot compiler directives the image runs with (src/main/jvm/compiler-directives.json,
 * docs/benchmarks/profile.md): the JVM loads them (a file it cannot load stops it from starting),
 * and each names a method that exists in the libraries this build ships, so a driver upgrade that
 * renames one fails here instead of silently losing what the directive was measured to save.
 */
class CompilerDirectivesTest {
    private static final Path FILE = Path.of("src/main/jvm/compiler-directives.json");
    private static final Pattern MATCH = Pattern.compile("match:\\s*\"([\\w/$]+)\\.(\\w+)\"");

    @Test
    void theJvmLoadsThem() throws Exception {
        Path out = Files.createTempFile("directives", ".txt");
        Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:+UnlockDiagnosticVMOptions", "-XX:CompilerDirectivesFile=" + FILE.toAbsolutePath(),
                "-XX:+CompilerDirectivesPrint", "-version")
                .redirectErrorStream(true).redirectOutput(out.toFile()).start();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        String output = Files.readString(out);
        assertThat(p.exitValue()).as(output).isZero();
        for (String[] method : matches()) {
            // The JVM prints each directive as it understood it: C2 excluded, C1 left as it is.
            String matching = "matching: " + method[0] + "." + method[1];
            assertThat(output).contains(matching);
            String printed = output.substring(output.indexOf(matching));
            printed = printed.substring(0, printed.indexOf("Directive:"));
            String c2 = printed.substring(printed.indexOf("c2 directives:"));
            assertThat(c2).as(printed).contains("Exclude:true");
            assertThat(printed.substring(0, printed.indexOf("c2 directives:"))).as(printed).doesNotContain("Exclude:true");
        }
    }

    @Test
    void everyDirectiveIsOneThisTestReads() throws Exception {
        // A match this test cannot parse (quoted key, an array, a wildcard) would go unchecked.
        long keys = Pattern.compile("\\bmatch\\s*\"?\\s*:").matcher(Files.readString(FILE)).results().count();
        assertThat((long) matches().size()).isEqualTo(keys);
    }

    @Test
    void eachNamesAMethodOfTheShippedLibraries() throws Exception {
        List<String[]> matches = matches();
        assertThat(matches).isNotEmpty();
        for (String[] method : matches) {
            Class<?> type = Class.forName(method[0].replace('/', '.'));
            assertThat(Arrays.stream(type.getDeclaredMethods()).map(m -> m.getName()))
                    .as("%s in %s", method[1], type.getName())
                    .contains(method[1]);
        }
    }

    /** Each directive's class (internal name) and method, from its {@code match}. */
    private static List<String[]> matches() throws Exception {
        List<String[]> found = new ArrayList<>();
        Matcher m = MATCH.matcher(Files.readString(FILE));
        while (m.find()) {
            found.add(new String[] {m.group(1), m.group(2)});
        }
        return found;
    }
}
