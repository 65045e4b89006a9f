package io.drover.bench;

import io.drover.executor.bench.DatabaseOptions;
import io.drover.executor.bench.HelpOption;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

import java.util.concurrent.Callable;

/** {@code matrix}: the benchmark matrix against a PostgreSQL of the user's (see {@link BenchMatrix}). */
@Command(name = "matrix", showDefaultValues = true,
        description = "Every configuration and the SQL floor against one PostgreSQL, with local nodes.")
final class MatrixCommand implements Callable<Integer> {
    @Mixin
    HelpOption help;

    @Mixin
    DatabaseOptions database;

    @Mixin
    MatrixOptions matrix;

    @Override
    public Integer call() throws Exception {
        return BenchMatrix.run(database.database(), matrix);
    }
}
