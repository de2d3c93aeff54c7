package dev.socialgraph.write.follow;

import java.sql.SQLException;

/**
 * The follower's following database could not be reached ({@code SqlErrors.Kind.UNAVAILABLE}); nothing is known
 * to be written, and the caller may retry later (DESIGN.md 7: only users routed there get 503).
 */
public final class ShardUnavailableException extends RuntimeException {

    ShardUnavailableException(String database, SQLException cause) {
        super("following database " + database + " is unavailable", cause);
    }
}
