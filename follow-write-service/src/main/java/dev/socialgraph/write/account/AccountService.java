package dev.socialgraph.write.account;

import dev.socialgraph.common.event.AccountEvent;
import dev.socialgraph.common.shard.ShardUnavailableException;
import dev.socialgraph.store.account.AccountJob;
import dev.socialgraph.store.account.AccountJobRepository;
import dev.socialgraph.store.account.AccountStateRepository;
import dev.socialgraph.store.account.AccountStatus;
import dev.socialgraph.store.account.JobKind;
import dev.socialgraph.store.outbox.OutboxRepository;
import dev.socialgraph.write.follow.FollowingShards;
import dev.socialgraph.write.follow.UserInactiveException;
import dev.socialgraph.write.outbox.OutboxCommits;
import java.time.Clock;
import java.util.Optional;
import org.springframework.stereotype.Service;

/**
 * The account lifecycle's state changes and reads (docs/account-lifecycle.md). A change is one transaction in the
 * user's FOLLOWING shard: it locks the user's follow, block and mute rows (so it serializes with the user's own
 * writes, which lock one of them before they read the state; absent rows are created when the change will write),
 * reads the state row, and, unless the request repeats the current state, writes the next state ({@code version + 1},
 * {@code changed_at}, {@code job_id = "<userId>-<version>"}), queues the job ({@link AccountJobRunner} carries it out)
 * and appends the change's outbox row, so the change is an event of {@code follow-events} (an {@code AccountEvent},
 * which the change stream serves) exactly when it commits. After the commit the relay is nudged. Thread-safe.
 */
@Service
public class AccountService {

    private final FollowingShards shards;
    private final AccountStateRepository states = new AccountStateRepository();
    private final AccountJobRepository jobs = new AccountJobRepository();
    private final OutboxRepository outbox;
    private final OutboxCommits commits;
    private final Clock clock;

    AccountService(FollowingShards shards, OutboxRepository outbox, OutboxCommits commits, Clock clock) {
        this.shards = shards;
        this.outbox = outbox;
        this.commits = commits;
        this.clock = clock;
    }

    /**
     * Deactivates {@code userId}; a deactivated user's call changes nothing.
     *
     * @return the state after the call
     * @throws AccountConflictException  when the user is erased
     * @throws ShardUnavailableException when the user's following database cannot be reached; nothing was written
     */
    public AccountStatus deactivate(long userId) {
        return change(userId, JobKind.DEACTIVATE);
    }

    /**
     * Reactivates {@code userId}; an active user's call changes nothing.
     *
     * @return the state after the call
     * @throws AccountConflictException  when the user is erased
     * @throws ShardUnavailableException when the user's following database cannot be reached; nothing was written
     */
    public AccountStatus reactivate(long userId) {
        return change(userId, JobKind.REACTIVATE);
    }

    /**
     * Erases {@code userId} for good; an erased user's call changes nothing.
     *
     * @return the state after the call
     * @throws ShardUnavailableException when the user's following database cannot be reached; nothing was written
     */
    public AccountStatus erase(long userId) {
        return change(userId, JobKind.ERASE);
    }

    /**
     * The user's state: {@link AccountStatus#never} for a user no operator changed.
     *
     * @throws ShardUnavailableException when the user's following database cannot be reached
     */
    public AccountStatus state(long userId) {
        return shards.read(userId, connection -> states.find(connection, userId));
    }

    /**
     * A job, read in its user's following shard.
     *
     * @return the job, or empty when there is none of that id
     * @throws ShardUnavailableException when the user's following database cannot be reached
     */
    public Optional<AccountJob> job(JobId id) {
        return shards.read(id.userId(), connection -> jobs.find(connection, id.toString()));
    }

    /**
     * Makes {@code userId}'s account protected (docs/decisions/0064-follow-requests.md): a follow of it by someone who
     * does not follow it yet becomes a follow request. A protected account's call changes nothing. The change takes the
     * row's next version and is a {@code protect} event; it starts no job.
     *
     * @return the row after the call
     * @throws UserInactiveException     when the user is deactivated or erased; nothing was written
     * @throws ShardUnavailableException when the user's following database cannot be reached; nothing was written
     */
    public AccountStatus protect(long userId) {
        return protection(userId, true);
    }

    /**
     * Makes {@code userId}'s account public again; a public account's call changes nothing. The change takes the row's
     * next version, is an {@code unprotect} event, and queues the {@code accept-requests} job of that version, which
     * accepts every follow request then pending ({@link AccountJobRunner}, after the jobs' start delay, so the
     * requests written just before the change have reached the account's follower side).
     *
     * @return the row after the call; its {@code jobId} names the job
     * @throws UserInactiveException     when the user is deactivated or erased; nothing was written
     * @throws ShardUnavailableException when the user's following database cannot be reached; nothing was written
     */
    public AccountStatus unprotect(long userId) {
        return protection(userId, false);
    }

    private AccountStatus protection(long userId, boolean protect) {
        boolean[] wrote = {false};
        AccountStatus after = shards.inTransaction(userId, connection -> {
            wrote[0] = false;
            // The lock a follow and a request of the user take, so a protection change serializes with them.
            states.lockUserRows(connection, userId, true);
            AccountStatus current = states.find(connection, userId);
            if (!current.state().isActive()) {
                throw new UserInactiveException(userId, "userId");
            }
            if (current.protectedAccount() == protect) {
                return current;
            }
            long version = current.version() + 1;
            long now = clock.millis();
            String jobId = protect ? current.jobId() : new JobId(userId, version).toString();
            AccountStatus next = new AccountStatus(userId, current.state(), version, now, jobId, protect);
            states.write(connection, next);
            if (!protect) {
                jobs.insert(connection, jobId, userId, version, JobKind.ACCEPT_REQUESTS, now);
            }
            outbox.appendAccount(connection, protect ? AccountEvent.Type.PROTECT : AccountEvent.Type.UNPROTECT,
                    userId, now, version);
            wrote[0] = true;
            return next;
        });
        if (wrote[0]) {
            commits.committed(userId);
        }
        return after;
    }

    private AccountStatus change(long userId, JobKind request) {
        boolean[] wrote = {false};
        AccountStatus after = shards.inTransaction(userId, connection -> {
            wrote[0] = false;
            states.lockUserRows(connection, userId, false);
            AccountStatus current = states.find(connection, userId);
            if (Transitions.of(current.state(), request) == Transitions.Outcome.CHANGE) {
                // About to write: create the rows a first write of the user would create, and decide again, since a
                // concurrent change may have held them meanwhile.
                states.lockUserRows(connection, userId, true);
                current = states.find(connection, userId);
            }
            switch (Transitions.of(current.state(), request)) {
                case UNCHANGED:
                    return current;
                case CONFLICT:
                    throw new AccountConflictException(userId, current.state(), request);
                default:
                    long version = current.version() + 1;
                    String jobId = new JobId(userId, version).toString();
                    long now = clock.millis();
                    AccountStatus next = new AccountStatus(userId, Transitions.target(request), version, now, jobId,
                            current.protectedAccount());
                    states.write(connection, next);
                    jobs.insert(connection, jobId, userId, version, request, now);
                    outbox.appendAccount(connection, event(request), userId, now, version);
                    wrote[0] = true;
                    return next;
            }
        });
        if (wrote[0]) {
            commits.committed(userId);
        }
        return after;
    }

    private static AccountEvent.Type event(JobKind request) {
        return switch (request) {
            case DEACTIVATE -> AccountEvent.Type.DEACTIVATE;
            case REACTIVATE -> AccountEvent.Type.REACTIVATE;
            case ERASE -> AccountEvent.Type.ERASE;
            case ACCEPT_REQUESTS -> throw new IllegalArgumentException("not a state change: " + request);
        };
    }
}
