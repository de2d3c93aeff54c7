package dev.socialgraph.write.account;

import dev.socialgraph.common.id.InvalidUserIdException;
import dev.socialgraph.common.id.UserIds;
import dev.socialgraph.web.BadParameterException;

/**
 * The id of an account job, {@code "<userId>-<version>"}: the state version that queued it, so the id routes to the
 * user's following shard where the job lives.
 *
 * @param userId  positive user id
 * @param version positive state version
 */
public record JobId(long userId, long version) {

    /** The request field a job id comes in. */
    public static final String FIELD = "jobId";

    /** @throws IllegalArgumentException when either part is not positive */
    public JobId {
        if (userId <= 0 || version <= 0) {
            throw new IllegalArgumentException("job id parts must be positive: " + userId + "-" + version);
        }
    }

    /**
     * Parses the canonical text: two canonical positive decimals ({@link UserIds#parse}) joined by one {@code -}.
     *
     * @throws BadParameterException naming {@value #FIELD} for anything else
     */
    public static JobId parse(String text) {
        int dash = text == null ? -1 : text.indexOf('-');
        if (dash < 0) {
            throw malformed(text);
        }
        try {
            return new JobId(UserIds.parse(text.substring(0, dash), FIELD), UserIds.parse(text.substring(dash + 1),
                    FIELD));
        } catch (InvalidUserIdException e) {
            throw malformed(text);
        }
    }

    private static BadParameterException malformed(String text) {
        String shown = text == null ? "null" : text.length() > 40 ? text.substring(0, 40) + "..." : text;
        return new BadParameterException(FIELD, FIELD + " must be <userId>-<version> (two positive decimals), was '"
                + shown + "'");
    }

    /** {@code "<userId>-<version>"}. */
    @Override
    public String toString() {
        return userId + "-" + version;
    }
}
