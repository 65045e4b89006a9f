package io.drover.executor.service;

import io.agroal.api.AgroalDataSource;
import io.drover.executor.config.ExecutorSettings;
import io.drover.executor.store.FleetFigures;
import io.drover.executor.store.JobEnqueuer;
import io.drover.executor.store.JobQueries;
import io.drover.executor.store.Tables;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

/** The validated settings and the store objects, as CDI beans. */
public class ExecutorBeans {
    @Produces
    @Singleton
    ExecutorSettings settings(DroverConfig config) {
        return SettingsFactory.from(config); // throws naming every bad setting; fails startup
    }

    @Produces
    @Singleton
    JobEnqueuer enqueuer(AgroalDataSource dataSource, ExecutorSettings settings) {
        return new JobEnqueuer(dataSource, new Tables(settings.schema()));
    }

    @Produces
    @Singleton
    JobQueries queries(AgroalDataSource dataSource, ExecutorSettings settings) {
        return new JobQueries(dataSource, new Tables(settings.schema()));
    }

    @Produces
    @Singleton
    FleetFigures fleetFigures(AgroalDataSource dataSource, ExecutorSettings settings) {
        return new FleetFigures(dataSource, new Tables(settings.schema()));
    }
}
