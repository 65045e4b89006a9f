package io.drover.executor.service;

import io.agroal.api.configuration.supplier.AgroalDataSourceConfigurationSupplier;
import io.drover.executor.store.LostConnections;
import io.quarkus.agroal.runtime.JdbcDriver;
import io.quarkus.arc.Unremovable;
import io.quarkus.jdbc.postgresql.runtime.PostgreSQLAgroalConnectionConfigurer;
import jakarta.annotation.Priority;
import jakarta.enterprise.inject.Alternative;
import jakarta.inject.Singleton;

/**
 * Quarkus configures the shared pool (the API's, the gauges' and the handlers' connections) for
 * PostgreSQL with this bean; it is Quarkus's own but for the exception sorter. Quarkus's (Agroal's
 * PostgreSQL sorter) discards a connection only on an 08 error; the engine's pool's
 * ({@link LostConnections}) also on a session the server ended or one that takes no writes, and
 * then checks or drops the pool's other connections. Without it a failover that left the shared
 * pool on the old primary, back as a replica, had every enqueue answered 503 for up to the
 * connections' 30-minute lifetime, while readiness stayed up. ExecutorBeans gives the sorter its
 * pool once Quarkus has made it.
 */
@Alternative
@Priority(1)
@JdbcDriver("postgresql")
@Singleton
@Unremovable // looked up by Quarkus's datasource code at run time, which the build's bean pruning does not see
public class SharedPoolConfigurer extends PostgreSQLAgroalConnectionConfigurer {
    @Override
    public void setExceptionSorter(String databaseKind, AgroalDataSourceConfigurationSupplier dataSourceConfiguration) {
        dataSourceConfiguration.connectionPoolConfiguration().exceptionSorter(new LostConnections());
    }
}
