package io.drover.executor.testing;

import java.nio.file.Files;
import java.nio.file.Path;

/** Files of the repository that tests hold the executor to (docs, the chart), found above the module's directory. */
public final class RepoFiles {
    private RepoFiles() {
    }

    /** The repository file at {@code relative}, looked for from the working directory upwards. */
    public static Path resolve(String relative) {
        Path start = Path.of("").toAbsolutePath();
        for (Path dir = start; dir != null; dir = dir.getParent()) {
            if (Files.exists(dir.resolve(relative))) {
                return dir.resolve(relative);
            }
        }
        throw new IllegalStateException(relative + " not found above " + start);
    }
}
