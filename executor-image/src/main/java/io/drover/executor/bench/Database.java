package io.drover.executor.bench;

import java.net.URI;

/** Where the benchmark's PostgreSQL is, as a JDBC URL and credentials. */
public record Database(String jdbcUrl, String user, String password) {

    /** host, port and database name, for pgbench. */
    public String host() {
        return uri().getHost();
    }

    public int port() {
        return uri().getPort() < 0 ? 5432 : uri().getPort();
    }

    public String name() {
        return uri().getPath().substring(1);
    }

    private URI uri() {
        return URI.create(jdbcUrl.substring("jdbc:".length()));
    }
}
