package io.drover.bench.core;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLWarning;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A plain VACUUM of an engine's tables before a benchmark's seed, so that every drain starts
 * without the dead rows of the drains before it (a benchmark reuses its schema from run to run)
 * whichever engine it measures. Plain, not FULL: it waits for no row lock, so a running fleet
 * carries on. It can fall short without failing, and then says why, so a run's log shows it: a
 * table the role does not own is skipped (the server warns), and rows deleted after the oldest
 * snapshot still open (a long transaction, a standby's feedback, a replication slot) stay.
 */
public final class Vacuum {
    /** VERBOSE's per-table line, PostgreSQL 14 to 17: "tuples: 0 removed, 5 remain, 3 are dead but not yet removable". */
    private static final Pattern NOT_REMOVABLE = Pattern.compile("(\\d+) are dead but not yet removable");

    private Vacuum() {
    }

    /**
     * @param tables qualified, quoted as needed
     * @return what the VACUUM could not do, in the server's words, or null when it did all
     */
    public static String tables(Connection c, Collection<String> tables) throws SQLException {
        c.setAutoCommit(true); // VACUUM cannot run inside a transaction block
        try (Statement s = c.createStatement()) {
            s.execute("vacuum (verbose) " + String.join(", ", tables));
            List<String> problems = new ArrayList<>();
            long notRemovable = 0;
            for (SQLWarning w = s.getWarnings(); w != null; w = w.getNextWarning()) {
                // VERBOSE's reports come as INFO (SQLSTATE class 00); what went wrong as WARNING (01).
                if (w.getSQLState() != null && w.getSQLState().startsWith("00")) {
                    Matcher m = NOT_REMOVABLE.matcher(String.valueOf(w.getMessage()));
                    while (m.find()) {
                        notRemovable += Long.parseLong(m.group(1));
                    }
                } else {
                    problems.add(w.getMessage());
                }
            }
            if (notRemovable > 0) {
                problems.add(notRemovable + " dead row versions could not be removed: an older snapshot still sees them"
                        + " (a long transaction, a standby's feedback or a replication slot)");
            }
            return problems.isEmpty() ? null : String.join("; ", problems);
        }
    }
}
