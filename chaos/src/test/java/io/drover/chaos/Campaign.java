package io.drover.chaos;

import java.nio.file.Path;

/** What every scenario shares: the database, the receiver, the executor and handler jars, a work directory. */
record Campaign(Database database, Receiver receiver, Path executorJar, Path handlersDir, Path workDir) {
}
