package io.drover.executor.service;

import io.drover.executor.bench.BenchMain;
import io.quarkus.runtime.Quarkus;
import io.quarkus.runtime.annotations.QuarkusMain;

import java.util.Arrays;

/**
 * One artifact, two programs: {@code java -jar quarkus-run.jar} runs the executor service;
 * {@code java -jar quarkus-run.jar bench run ...} measures a running fleet without starting the
 * service, so a Kubernetes Job can run the benchmark from the executor image.
 */
@QuarkusMain
public class DroverMain {
    public static void main(String... args) {
        if (args.length > 0 && args[0].equals("bench")) {
            System.exit(BenchMain.run(Arrays.copyOfRange(args, 1, args.length)));
        }
        Quarkus.run(args);
    }
}
