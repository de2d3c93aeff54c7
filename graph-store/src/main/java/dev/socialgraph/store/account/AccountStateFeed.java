package dev.socialgraph.store.account;

import dev.socialgraph.store.shard.ShardDataSources;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Feeds {@link InactiveUsers} from the state rows themselves: every {@code interval} (250 ms), each shard database is
 * asked for the {@code account_states} rows changed since its previous poll, by that database's clock. The first poll
 * of a database reads all its rows (the view's load at start-up: {@link #loadNow} runs it before the service is
 * ready). Each poll looks back {@code overlap} (5 s) past the previous one: a state change's transaction takes its
 * {@code updated_at} when it starts and becomes visible when it commits, so a row may appear later than its time says;
 * applying a row twice is harmless.
 *
 * <p>Each database is polled by a task of its own, on a virtual thread: a database that is down holds its task for a
 * connection timeout and is skipped by the rounds until that task ends, while the others go on being polled every
 * interval. The rows a task read are applied to the view under one lock ({@link InactiveUsers} has one writer).
 *
 * <p>Why polling rather than a Kafka topic: a suspension must reach every reader even while the broker is down, and a
 * state row is the truth the feed needs; the poll is one indexed range read per database per interval, usually empty.
 * A database that fails its poll is retried at the next one from the same point, so nothing is skipped.
 */
public final class AccountStateFeed implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(AccountStateFeed.class);
    private static final OffsetDateTime BEGINNING = OffsetDateTime.parse("1970-01-01T00:00:00Z");
    private static final String CHANGED_SINCE = "SELECT user_id, state, protected FROM account_states WHERE updated_at >= ?";

    private final ShardDataSources dataSources;
    private final InactiveUsers view;
    private final Duration overlap;
    private final long intervalMillis;
    private final LongAdder failures = new LongAdder();
    /** Per database, the time its next poll reads from. */
    private final Map<DataSource, OffsetDateTime> since = new ConcurrentHashMap<>();
    /** The databases whose poll is running. */
    private final Set<DataSource> inFlight = ConcurrentHashMap.newKeySet();
    private final ExecutorService polls = Executors.newVirtualThreadPerTaskExecutor();
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "account-state-feed");
        t.setDaemon(true);
        return t;
    });

    /**
     * @param dataSources the shard databases (every database of the map is polled: state rows live in the following
     *                    group's, the others answer nothing)
     * @param view        what the rows are applied to
     * @param interval    time between polls, {@code > 0}
     * @param overlap     how far each poll looks back past the previous one, {@code >= 0}
     */
    public AccountStateFeed(ShardDataSources dataSources, InactiveUsers view, Duration interval, Duration overlap) {
        this.dataSources = dataSources;
        this.view = view;
        this.overlap = overlap;
        this.intervalMillis = interval.toMillis();
    }

    /**
     * Polls of a database that failed so far (each is retried from the same point).
     *
     * @return {@code >= 0}
     */
    public long failures() {
        return failures.sum();
    }

    /**
     * Loads every database's state rows now, on the caller's thread, then starts the periodic poll.
     *
     * @return whether every database answered (when not, the polls go on trying)
     */
    public boolean loadNow() {
        boolean complete = true;
        for (DataSource ds : dataSources.all().values()) {
            complete &= poll(ds);
        }
        timer.scheduleWithFixedDelay(this::round, intervalMillis, intervalMillis, TimeUnit.MILLISECONDS);
        return complete;
    }

    /** Starts a poll of every database whose previous poll has ended. */
    private void round() {
        try {
            for (DataSource ds : dataSources.all().values()) {
                if (inFlight.add(ds)) {
                    polls.execute(() -> {
                        try {
                            poll(ds);
                        } finally {
                            inFlight.remove(ds);
                        }
                    });
                }
            }
        } catch (RuntimeException e) {
            failures.increment();
            log.warn("Account state poll round failed", e);
        }
    }

    /** One poll of one database: reads its rows changed since its last poll, then applies them; false on failure. */
    boolean poll(DataSource ds) {
        OffsetDateTime from = since.getOrDefault(ds, BEGINNING);
        List<long[]> rows = new ArrayList<>();
        OffsetDateTime now;
        try (Connection c = ds.getConnection()) {
            try (PreparedStatement ps = c.prepareStatement("SELECT now()"); ResultSet rs = ps.executeQuery()) {
                rs.next();
                now = rs.getObject(1, OffsetDateTime.class);
            }
            try (PreparedStatement ps = c.prepareStatement(CHANGED_SINCE)) {
                ps.setObject(1, from);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        rows.add(new long[] {rs.getLong(1), rs.getShort(2), rs.getBoolean(3) ? 1 : 0});
                    }
                }
            }
        } catch (SQLException | RuntimeException e) {
            failures.increment();
            log.debug("Account state poll of a database failed; retried from the same point", e);
            return false;
        }
        synchronized (view) {
            for (long[] row : rows) {
                view.apply(row[0], AccountState.ofCode((int) row[1]), row[2] == 1);
            }
        }
        since.put(ds, now.minus(overlap));
        return true;
    }

    @Override
    public void close() {
        timer.shutdownNow();
        polls.shutdownNow();
    }
}
