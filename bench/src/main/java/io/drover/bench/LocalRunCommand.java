package io.drover.bench;

import io.agroal.api.AgroalDataSource;
import io.drover.executor.bench.Database;
import io.drover.executor.bench.HelpOption;
import io.drover.executor.bench.RunOptions;
import io.drover.executor.store.PooledDataSource;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.util.concurrent.Callable;

/**
 * {@code run}: one scenario on {@code --nodes} executor processes started here, with the
 * options of the image's {@code bench run}; prints the human text, then the result JSON.
 * PostgreSQL's CPU per job is reported when the server runs on this machine.
 */
@Command(name = "run", showDefaultValues = true,
        description = "Start local executor nodes, seed one scenario and time the drain.")
final class LocalRunCommand implements Callable<Integer> {
    @Mixin
    HelpOption help;

    @Mixin
    RunOptions run;

    @Option(names = "--executor-jar", required = true, paramLabel = "PATH",
            description = "the packaged executor (quarkus-run.jar) the nodes run")
    Path executorJar;

    @Option(names = "--logs", defaultValue = "target/bench-logs", paramLabel = "DIR", description = "the nodes' logs")
    Path logs;

    @Option(names = "--first-drain", defaultValue = "0", paramLabel = "JOBS",
            description = "jobs the fresh nodes drain first, not measured (a node that has been running, as make bench measures)")
    int firstDrainJobs;

    @Override
    public Integer call() throws Exception {
        Database db = run.database();
        try (AgroalDataSource ds = PooledDataSource.create(db.jdbcUrl(), db.user(), db.password(), 4)) {
            run.publish(LocalFleet.measure(ds, db, run.schema(), run.scenario(), firstDrainJobs, executorJar, logs,
                    PostgresCpu.of(ds)).result());
        }
        return 0;
    }
}
