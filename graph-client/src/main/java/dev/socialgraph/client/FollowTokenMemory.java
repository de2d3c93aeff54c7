package dev.socialgraph.client;

import java.util.Base64;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * Read-your-writes for {@link FollowCheckClient} when it is asked for
 * ({@link FollowCheckClient.Builder#readYourWrites}): the newest follow token each actor got from a write through the
 * client, handed to that actor's next reads for {@code ttl}.
 *
 * <p>"Newest" is by the token's issue time, which the write service writes into the token's first 16 bytes
 * (graph-common's {@code FollowTokens}: actor id, then issue time in epoch ms, both big-endian, before the MAC): two
 * writes of one actor answered out of order keep the later token. A token that does not decode (another format) is
 * kept as the newest. The token is not verified here; the check service does that.
 *
 * <p>Entries older than {@code ttl} (by this process' clock, from when the write's answer arrived) are no longer
 * handed out, since the check service ignores a token past its {@code token-max-age} anyway; they are dropped when
 * read, and all expired ones when the map grows past {@code sweepAt} entries, so memory stays bounded by the
 * writes of one {@code ttl}. Thread-safe.
 */
final class FollowTokenMemory {

    /** One remembered token: the token, its issue time (or {@code Long.MIN_VALUE}), and when it was remembered. */
    private record Entry(String token, long issuedAtMillis, long rememberedAtNanos) {
    }

    /** Remembered actors past which expired tokens are swept: the memory a busy client's writes of one ttl need. */
    private static final int SWEEP_AT = 10_000;

    private final ConcurrentHashMap<Long, Entry> byActor = new ConcurrentHashMap<>();
    private final long ttlNanos;
    private final int sweepAt;
    private final LongSupplier nanoTime;

    /**
     * @param ttlNanos how long a token is handed out after its write, ns
     * @param sweepAt  entries past which expired ones are swept on the next write
     * @param nanoTime the monotonic clock, {@link System#nanoTime} outside tests
     */
    FollowTokenMemory(long ttlNanos, int sweepAt, LongSupplier nanoTime) {
        this.ttlNanos = ttlNanos;
        this.sweepAt = sweepAt;
        this.nanoTime = nanoTime;
    }

    /**
     * The memory a client with {@code settings} keeps: none unless it asked for read-your-writes.
     *
     * @return a memory sending tokens for {@code followTokenTtl} on {@link System#nanoTime}, or {@code null}
     */
    static FollowTokenMemory of(Settings settings) {
        return settings.readYourWrites()
                ? new FollowTokenMemory(settings.followTokenTtl().toNanos(), SWEEP_AT, System::nanoTime) : null;
    }

    /** Remembers {@code token} for {@code actor} unless a newer one is remembered already. */
    void remember(long actor, String token) {
        if (token == null || token.isEmpty()) {
            return;
        }
        long now = nanoTime.getAsLong();
        Entry fresh = new Entry(token, issuedAt(token), now);
        byActor.merge(actor, fresh, (old, neu) -> expired(old, now) || neu.issuedAtMillis == Long.MIN_VALUE
                || old.issuedAtMillis <= neu.issuedAtMillis ? neu : old);
        if (byActor.size() > sweepAt) {
            byActor.values().removeIf(e -> expired(e, now));
        }
    }

    /**
     * The token to send on {@code actor}'s read.
     *
     * @param actor    the user the read is about (the follower, viewer, {@code a} of a relationship)
     * @param explicit a token the caller passed, which wins
     * @return {@code explicit} when not {@code null}, else the actor's remembered token while young, else {@code null}
     */
    String tokenFor(long actor, String explicit) {
        if (explicit != null) {
            return explicit;
        }
        Entry e = byActor.get(actor);
        if (e == null) {
            return null;
        }
        if (expired(e, nanoTime.getAsLong())) {
            byActor.remove(actor, e);
            return null;
        }
        return e.token;
    }

    /** Actors remembered, expired ones not yet swept included. */
    int size() {
        return byActor.size();
    }

    private boolean expired(Entry e, long now) {
        return now - e.rememberedAtNanos >= ttlNanos;
    }

    /** The issue time a follow token carries, epoch ms, or {@code Long.MIN_VALUE} when it does not decode. */
    static long issuedAt(String token) {
        try {
            byte[] b = Base64.getUrlDecoder().decode(token);
            if (b.length < 16) {
                return Long.MIN_VALUE;
            }
            long t = 0;
            for (int i = 8; i < 16; i++) {
                t = (t << 8) | (b[i] & 0xff);
            }
            return t;
        } catch (IllegalArgumentException e) {
            return Long.MIN_VALUE;
        }
    }
}
