package dev.socialgraph.write.follow;

import dev.socialgraph.common.shard.ShardUnavailableException;
import dev.socialgraph.store.account.ProtectionRepository;
import dev.socialgraph.store.following.FollowingRepository;
import java.time.Clock;
import org.springframework.stereotype.Service;

/**
 * Protected accounts (docs/decisions/0064-follow-requests.md): whether a user's new followers need the user's approval.
 * A change is one transaction on the user's following shard, after the user's following row's lock, which the user's
 * follows, answers to requests and state changes take too; the followee's protection is what a follow reads before
 * its own transaction ({@link FollowService#follow}).
 *
 * <p>Making an account public again leaves its pending requests pending: accepting them all is the job of a later
 * change, and until it exists they are answered one by one ({@link FollowService#accept}). Thread-safe.
 */
@Service
public class ProtectionService {

    private final FollowingShards shards;
    private final FollowingRepository following;
    private final ProtectionRepository protection = new ProtectionRepository();
    private final Clock clock;

    ProtectionService(FollowingShards shards, FollowingRepository following,
                      Clock clock) {
        this.shards = shards;
        this.following = following;
        this.clock = clock;
    }

    /**
     * Makes {@code userId}'s account protected, or public again. Idempotent: setting what is set writes nothing and
     * answers the protection as it is.
     *
     * @param userId  the user, positive
     * @param protect whether the account is to be protected
     * @return the protection after the call, and whether the call changed it
     * @throws UserInactiveException     if the user is deactivated or erased
     * @throws ShardUnavailableException if the user's following database cannot be reached
     */
    public ProtectionRepository.Change set(long userId, boolean protect) {
        return shards.inTransaction(userId, connection -> {
            following.lockOrCreate(connection, userId);
            shards.requireActive(connection, userId, "userId");
            return protection.set(connection, userId, protect, clock.millis());
        });
    }
}
