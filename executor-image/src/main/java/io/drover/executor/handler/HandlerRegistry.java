package io.drover.executor.handler;

import java.util.Collection;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.TreeMap;
import java.util.stream.Stream;

/** The handlers a node can run, by job type. Built once at startup; read-only afterwards. */
public final class HandlerRegistry {
    private final Map<String, JobHandler> byType;

    private HandlerRegistry(Map<String, JobHandler> byType) {
        this.byType = Map.copyOf(byType);
    }

    /**
     * @throws IllegalArgumentException if a handler names no type (start-up failed on a bare
     *     NullPointerException from the map, which did not say which handler), or if two handlers
     *     claim the same type: silently picking one would run jobs with code the user did not expect.
     */
    public static HandlerRegistry of(Collection<? extends JobHandler> handlers) {
        Map<String, JobHandler> map = new TreeMap<>();
        for (JobHandler handler : handlers) {
            String type = handler.type();
            if (type == null || type.isBlank()) {
                throw new IllegalArgumentException("handler " + handler.getClass().getName() + " names no job type: its"
                        + " type() returned " + (type == null ? "null" : "'" + type + "'")
                        + "; it must return the type of the jobs it runs");
            }
            JobHandler previous = map.putIfAbsent(type, handler);
            if (previous != null && previous.getClass() != handler.getClass()) {
                throw new IllegalArgumentException("two handlers for job type '" + handler.type() + "': "
                        + previous.getClass().getName() + " and " + handler.getClass().getName());
            }
        }
        return new HandlerRegistry(map);
    }

    /** The given handlers plus every {@link JobHandler} registered through ServiceLoader. */
    public static HandlerRegistry withServiceLoader(Collection<? extends JobHandler> handlers) {
        var loaded = ServiceLoader.load(JobHandler.class).stream().map(ServiceLoader.Provider::get);
        return of(Stream.concat(handlers.stream(), loaded).toList());
    }

    public Optional<JobHandler> find(String type) {
        return Optional.ofNullable(byType.get(type));
    }

    public Collection<String> types() {
        return byType.keySet();
    }
}
