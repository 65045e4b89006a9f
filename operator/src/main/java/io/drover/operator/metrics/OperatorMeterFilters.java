package io.drover.operator.metrics;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.config.MeterFilter;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

/**
 * The operator SDK's reconciliation metrics (JOSDK MicrometerMetricsV2) count resource events
 * with an {@code action} tag and timer events (rescheduled reconciliations) without one.
 * Prometheus needs one tag set per meter name; the second registration would fail, and in
 * the SDK that failure escapes from the timer thread, killing every later rescheduling. Giving
 * timer events {@code action="none"} keeps both series and the timer alive.
 */
@ApplicationScoped
public class OperatorMeterFilters {
    static final String EVENTS_RECEIVED = "events.received";

    @Produces
    @Singleton
    MeterFilter uniformEventTags() {
        return new MeterFilter() {
            @Override
            public Meter.Id map(Meter.Id id) {
                if (id.getName().equals(EVENTS_RECEIVED) && id.getTag("action") == null) {
                    return id.withTag(io.micrometer.core.instrument.Tag.of("action", "none"));
                }
                return id;
            }
        };
    }
}
