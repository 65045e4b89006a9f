package io.drover.executor.service;

import io.drover.executor.handler.NoopHandler;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

/** Makes the built-in handlers CDI beans, beside any handler beans the user adds. */
public class BuiltInHandlers {
    @Produces
    @Singleton
    NoopHandler noop() {
        return new NoopHandler();
    }
}
