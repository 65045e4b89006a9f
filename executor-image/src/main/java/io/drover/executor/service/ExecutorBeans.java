package io.drover.executor.service;

import io.agroal.api.AgroalDataSource;
import io.drover.executor.config.ExecutorSettings;
import io.drover.executor.store.BoundedCalls;
import io.drover.executor.store.FleetFigures;
import io.drover.executor.store.JobEnqueuer;
import io.drover.executor.store.JobQueries;
import io.drover.executor.store.LostConnections;
import io.drover.executor.store.Tables;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

/** The validated settings and the store objects, as CDI beans; the shared pool's sorter, given its pool. */
public class ExecutorBeans {
    @Produces
    @Singleton
    ExecutorSettings settings(DroverConfig config) {
        return SettingsFactory.from(config); // throws naming every bad setting; fails startup
    }

    @Produces
    @Singleton
    JobEnqueuer enqueuer(AgroalDataSource dataSource, ExecutorSettings settings) {
        return new JobEnqueuer(new BoundedCalls(dataSource, BoundedCalls.API), new Tables(settings.schema()));
    }

    @Produces
    @Singleton
    JobQueries queries(AgroalDataSource dataSource, ExecutorSettings settings) {
        return new JobQueries(new BoundedCalls(dataSource, BoundedCalls.API), new Tables(settings.schema()));
    }

    @Produces
    @Singleton
    FleetFigures fleetFigures(AgroalDataSource dataSource, ExecutorSettings settings) {
        return new FleetFigures(new BoundedCalls(dataSource, FleetFigures.CALL_BOUND), new Tables(settings.schema()));
    }

    /** The shared pool's sorter ({@link SharedPoolConfigurer}) acts on the pool's other connections from now on. */
    void watchSharedPool(@Observes StartupEvent event, AgroalDataSource dataSource) {
        LostConnections.watch(dataSource);
    }
}
