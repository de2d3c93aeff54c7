package dev.socialgraph.check.accounts;

import dev.socialgraph.common.shard.ShardGroup;
import dev.socialgraph.common.shard.ShardUnavailableException;
import dev.socialgraph.store.account.AccountState;
import dev.socialgraph.store.account.AccountStateRepository;
import dev.socialgraph.store.shard.ShardDataSources;
import dev.socialgraph.store.sql.SqlErrors;
import java.sql.SQLException;

/**
 * One user's account state read from its state row in the user's following shard: what a read with that user's
 * follow token consults instead of the view, which may be one poll behind the state the token's write set.
 */
public final class AccountStates {

    private final ShardDataSources dataSources;
    private final AccountStateRepository states = new AccountStateRepository();

    /**
     * @param dataSources the shard databases
     */
    public AccountStates(ShardDataSources dataSources) {
        this.dataSources = dataSources;
    }

    /**
     * {@code userId}'s state, read from its following shard.
     *
     * @param userId positive
     * @return the state; {@link AccountState#ACTIVE} when the user has no state row
     * @throws ShardUnavailableException when that database is down
     */
    public AccountState state(long userId) {
        try {
            return dataSources.readUser(ShardGroup.FOLLOWING, userId, c -> states.state(c, userId));
        } catch (SQLException e) {
            throw SqlErrors.translate(e, "shard database of user " + userId, "account state read for user " + userId);
        }
    }
}
