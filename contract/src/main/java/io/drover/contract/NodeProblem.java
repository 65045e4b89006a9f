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
    DatabaseReadOnly(Passes.NO, When.BOTH),
    DatabaseAuthenticationFailed(Passes.NO, When.BOTH),
    DatabaseNotFound(Passes.NO, When.BOTH),
    DatabasePermissionDenied(Passes.NO, When.BOTH),
    /** Out of connections, memory or disk. */
    DatabaseOutOfResources(Passes.YES, When.BOTH),
    /** No connection, or the session ended: also what a restart or a failover looks like. */
    DatabaseUnreachable(Passes.YES, When.BOTH),
    /** Statements run past their timeout. */
    DatabaseTimeout(Passes.YES, When.BOTH),
    /** The database refuses the engine's statements for another reason. */
    DatabaseError(Passes.NO, When.RUNNING),
    /** The engine fails with something that is not the database's. */
    ExecutorError(Passes.NO, When.RUNNING),
    /** A node cannot start: the schema's migration fails for a reason not named above. */
    MigrationFailed(Passes.NO, When.STARTING),
    /** A node cannot start for a reason that is not the database's. */
    StartupFailed(Passes.NO, When.STARTING);

    private enum Passes { YES, NO }

    /** Where the executor writes the word: a node that cannot start, a running node, or both. */
    private enum When { STARTING, RUNNING, BOTH }

    private final boolean passesOnItsOwn;
    private final When when;

    NodeProblem(Passes passes, When when) {
        this.passesOnItsOwn = passes == Passes.YES;
        this.when = when;
    }

    /**
     * Whether the problem is what a database restart or failover looks like for a minute, so it
     * may pass without anyone acting; the others need someone to (a credential, a grant, the
     * host).
     */
    public boolean passesOnItsOwn() {
        return passesOnItsOwn;
    }

    /**
     * The problem a node that cannot start names in its termination message ("Reason: cause"),
     * if the word is one of those. Only these are taken from a crashed container's message: with
     * FallbackToLogsOnError it may be a cut log tail, whose first line could start with any word.
     */
    public static Optional<NodeProblem> atStartup(String word) {
        return of(word).filter(p -> p.when != When.RUNNING);
    }

    /** The problem a running node names in its figures' {@code problem}, if the word is one of those. */
    public static Optional<NodeProblem> whileRunning(String word) {
        return of(word).filter(p -> p.when != When.STARTING);
    }

    /** The problem a word names, if it is one of these. */
    private static Optional<NodeProblem> of(String word) {
        return Arrays.stream(values()).filter(p -> p.name().equals(word)).findFirst();
    }
}
