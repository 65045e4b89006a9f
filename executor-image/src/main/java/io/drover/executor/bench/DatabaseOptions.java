package io.drover.executor.bench;

import picocli.CommandLine.Option;

/** Where the benchmark's PostgreSQL is: shared by every command that connects to one. */
public final class DatabaseOptions {
    @Option(names = "--jdbc-url", required = true, paramLabel = "URL", description = "the jobs database")
    String jdbcUrl;

    @Option(names = "--user", defaultValue = "postgres")
    String user;

    // No picocli default: --help must not print the password it would read from the environment.
    @Option(names = "--password", description = "default: $PGPASSWORD, or empty")
    String password;

    /** @throws IllegalArgumentException (a usage error) when --jdbc-url is given empty */
    public Database database() {
        if (jdbcUrl.isBlank()) {
            throw new IllegalArgumentException("--jdbc-url is required");
        }
        String pass = password != null ? password : System.getenv().getOrDefault("PGPASSWORD", "");
        return new Database(jdbcUrl, user, pass);
    }
}
