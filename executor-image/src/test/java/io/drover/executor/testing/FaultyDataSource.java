package io.drover.executor.testing;

import io.drover.executor.store.ProxiedDataSource;

import javax.sql.DataSource;

/**
 * A data source over a real database that a test makes fail in chosen ways: subclasses hand out
 * proxies of the real connections ({@link #invoke} calls through to them); the rest is delegated.
 */
abstract class FaultyDataSource extends ProxiedDataSource {
    protected FaultyDataSource(DataSource real) {
        super(real);
    }
}
