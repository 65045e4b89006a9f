package io.drover.contract;

import java.util.Arrays;
import java.util.Optional;

/**
 * Why an executor node cannot work, in the one word both sides use: the executor writes it (a
 * node that cannot start, in its termination message "Reason: cause"; a running node that takes
 * no jobs, as its figures' and readiness's {@code problem}), and the operator shows it as the
 * ExecutorCluster's condition reason. Declared once so that a word the executor learns is one
 * the operator accepts: the operator takes only these words from a pod, because a crashed
 * container's termination message may be its last log lines, any of which could look like
 * "Word: text".
 *
 * <p>The names are the words (as {@code LockMode}'s are the CRD's values).
 */
public enum NodeProblem {
    /** The database takes only reads: a replica as host, or a role or database defaulting to read-only. */
    DatabaseReadOnly(false),
    DatabaseAuthenticationFailed(false),
    DatabaseNotFound(false),
    DatabasePermissionDenied(false),
    /** Out of connections, memory or disk. */
    DatabaseOutOfResources(true),
    /** No connection, or the session ended: also what a restart or a failover looks like. */
    DatabaseUnreachable(true),
    /** Statements run past their timeout. */
    DatabaseTimeout(true),
    /** The database refuses the engine's statements for another reason. */
    DatabaseError(false),
    /** The engine fails with something that is not the database's. */
    ExecutorError(false),
    /** A node cannot start: the schema's migration fails for a reason not named above. */
    MigrationFailed(false),
    /** A node cannot start for a reason that is not the database's. */
    StartupFailed(false);

    private final boolean passesOnItsOwn;

    NodeProblem(boolean passesOnItsOwn) {
        this.passesOnItsOwn = passesOnItsOwn;
    }

    /**
     * Whether the problem is what a database restart or failover looks like for a minute, so it
     * may pass without anyone acting; the others need someone to (a credential, a grant, the
     * host).
     */
    public boolean passesOnItsOwn() {
        return passesOnItsOwn;
    }

    /** The problem a word names, if it is one of these. */
    public static Optional<NodeProblem> of(String word) {
        return Arrays.stream(values()).filter(p -> p.name().equals(word)).findFirst();
    }
}
