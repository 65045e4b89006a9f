package io.drover.executor.bench;

import java.net.URI;

/** Where the benchmark's PostgreSQL is, as a JDBC URL and credentials. */
public record Database(String jdbcUrl, String user, String password) {

    /** host, port and database name, for pgbench. */
    String host() {
        return uri().getHost();
    }

    int port() {
        return uri().getPort() < 0 ? 5432 : uri().getPort();
    }

    String name() {
        return uri().getPath().substring(1);
    }

    private URI uri() {
        return URI.create(jdbcUrl.substring("jdbc:".length()));
    }
}
