package io.drover.executor.service;

import io.drover.executor.handler.HttpHandler;
import io.drover.executor.handler.NoopHandler;
import io.drover.executor.handler.SleepHandler;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

import java.util.List;

/** Makes the built-in handlers CDI beans, beside any handler beans the user adds. */
public class BuiltInHandlers {
    @Produces
    @Singleton
    NoopHandler noop() {
        return new NoopHandler();
    }

    @Produces
    @Singleton
    SleepHandler sleep() {
        return new SleepHandler();
    }

    @Produces
    @Singleton
    HttpHandler http(DroverConfig config) {
        return new HttpHandler(HttpHandler.configuredUrl(config.http().url()), config.http().timeout(), config.http().allowedHosts().orElse(List.of()));
    }
}
