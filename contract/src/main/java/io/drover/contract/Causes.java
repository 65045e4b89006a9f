package io.drover.contract;

import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;

/**
 * A failure's cause chain, walked with an end. {@code Throwable.initCause} refuses only a
 * throwable naming itself: two wrappers can name each other, and a subclass can override
 * {@code getCause}. A loop such as {@code for (t = e; t != null; t = t.getCause())} then never
 * ends, and the thread that diagnoses a failure (an engine loop, a health check, a reconciliation)
 * spins forever without saying so. Every walk of a chain in Drover goes through here.
 */
public final class Causes {
    /** Deeper than any real chain (driver, pool, transaction and framework wrappers). */
    static final int MAX_DEPTH = 32;

    private Causes() {
    }

    /**
     * The failure, then its causes, outermost first; ends at the first throwable already in the
     * list, or after {@value #MAX_DEPTH}. Empty for null.
     */
    public static List<Throwable> chain(Throwable failure) {
        List<Throwable> chain = new ArrayList<>();
        Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        for (Throwable t = failure; t != null && chain.size() < MAX_DEPTH && seen.add(t); t = t.getCause()) {
            chain.add(t);
        }
        return chain;
    }

    /** The first throwable of the given type in the chain, or null. */
    public static <T extends Throwable> T find(Throwable failure, Class<T> type) {
        for (Throwable t : chain(failure)) {
            if (type.isInstance(t)) {
                return type.cast(t);
            }
        }
        return null;
    }

    /** Whether the chain holds a throwable of any of the given types. */
    @SafeVarargs
    public static boolean has(Throwable failure, Class<? extends Throwable>... types) {
        for (Throwable t : chain(failure)) {
            for (Class<? extends Throwable> type : types) {
                if (type.isInstance(t)) {
                    return true;
                }
            }
        }
        return false;
    }

    /** The innermost cause the walk reaches (the failure itself when it has none); null for null. */
    public static Throwable root(Throwable failure) {
        List<Throwable> chain = chain(failure);
        return chain.isEmpty() ? null : chain.get(chain.size() - 1);
    }
}
