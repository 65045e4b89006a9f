package io.drover.executor.store;

import io.agroal.api.AgroalDataSource;
import io.agroal.api.configuration.AgroalConnectionPoolConfiguration;
import io.agroal.api.configuration.supplier.AgroalDataSourceConfigurationSupplier;
import io.agroal.api.security.NamePrincipal;
import io.agroal.api.security.SimplePassword;

import java.sql.SQLException;
import java.time.Duration;

/**
 * A connection pool for running the engine outside Quarkus (benchmark tool, tests, demo).
 * Inside the service Quarkus configures the same pool (Agroal) from quarkus.datasource.*.
 */
public final class PooledDataSource {
    private PooledDataSource() {
    }

    public static AgroalDataSource create(String jdbcUrl, String user, String password, int maxSize) {
        var config = new AgroalDataSourceConfigurationSupplier()
                .connectionPoolConfiguration(pool -> pool
                        .maxSize(maxSize)
                        .acquisitionTimeout(Duration.ofSeconds(30))
                        // A connection broken by a failover or a terminated backend is detected on
                        // borrow and replaced, not handed out again. (Agroal's default validator
                        // accepts everything; this one calls Connection.isValid.)
                        .validateOnBorrow(true)
                        .connectionValidator(AgroalConnectionPoolConfiguration.ConnectionValidator.defaultValidator())
                        .connectionFactoryConfiguration(factory -> factory
                                .jdbcUrl(jdbcUrl)
                                .principal(new NamePrincipal(user))
                                .credential(new SimplePassword(password == null ? "" : password))));
        try {
            return AgroalDataSource.from(config);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot create a connection pool for " + jdbcUrl, e);
        }
    }
}
