package io.drover.operator.api.v1alpha1;

/** How executor nodes coordinate acquisition; the executor's {@code lockMode} values. */
public enum LockMode {
    Global, Optimistic, SkipLocked
}
