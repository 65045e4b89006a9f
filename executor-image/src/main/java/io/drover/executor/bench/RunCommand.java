package io.drover.executor.bench;

import io.drover.bench.core.BenchResult;
import io.agroal.api.AgroalDataSource;
import io.drover.executor.store.Migrations;
import io.drover.executor.store.PooledDataSource;
import picocli.CommandLine.Command;
import picocli.CommandLine.Help.Visibility;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.net.URI;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code bench run}: seeds one scenario into the schema of a fleet that is already running and
 * times the drain, reading the nodes' metrics. Prints the human text, then the result JSON.
 */
@Command(name = "run", showDefaultValues = true,
        description = "Seed one scenario into a running fleet and time the drain.")
final class RunCommand implements Callable<Integer> {
    @Mixin
    HelpOption help;

    @Mixin
    RunOptions run;

    // A plain string, split by hand: an empty value (a fleet without pods) means no metrics.
    @Option(names = "--metrics-urls", defaultValue = "", showDefaultValue = Visibility.NEVER, paramLabel = "URL,...",
            description = "the running nodes' /q/metrics endpoints")
    String metricsUrls;

    @Override
    public Integer call() throws Exception {
        Database db = run.database();
        Scenario scenario = run.scenario();
        String schema = run.schema();
        List<URI> metrics = Arrays.stream(metricsUrls.split(",")).filter(s -> !s.isBlank()).map(URI::create).toList();
        BenchResult result;
        try (AgroalDataSource ds = PooledDataSource.create(db.jdbcUrl(), db.user(), db.password(), 4)) {
            Migrations.migrate(ds, schema);
            System.out.println("Seeding " + scenario.jobs() + " jobs into the running fleet (" + schema + ") ...");
            result = BenchRun.run(ds, schema, scenario, metrics, CpuMeter.NONE, System.out::println);
        }
        run.publish(result);
        return 0;
    }
}
