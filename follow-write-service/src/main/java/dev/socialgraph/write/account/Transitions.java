package dev.socialgraph.write.account;

import dev.socialgraph.store.account.AccountState;
import dev.socialgraph.store.account.JobKind;

/**
 * The state machine of docs/account-lifecycle.md: active → deactivated → active, and active or deactivated →
 * erased. A request for the state the user is in already changes nothing; deactivating or reactivating an erased
 * user is a conflict.
 */
final class Transitions {

    /** What a request does to a user in a state. */
    enum Outcome {
        /** Write the next state and queue its job. */
        CHANGE,
        /** Answer the current state; write nothing. */
        UNCHANGED,
        /** Refuse (409): the user is erased. */
        CONFLICT
    }

    private Transitions() {
    }

    /** What {@code request} does to a user in {@code current}. */
    static Outcome of(AccountState current, JobKind request) {
        return switch (request) {
            case DEACTIVATE -> switch (current) {
                case ACTIVE -> Outcome.CHANGE;
                case DEACTIVATED -> Outcome.UNCHANGED;
                case ERASED -> Outcome.CONFLICT;
            };
            case REACTIVATE -> switch (current) {
                case DEACTIVATED -> Outcome.CHANGE;
                case ACTIVE -> Outcome.UNCHANGED;
                case ERASED -> Outcome.CONFLICT;
            };
            case ERASE -> current == AccountState.ERASED ? Outcome.UNCHANGED : Outcome.CHANGE;
            case ACCEPT_REQUESTS -> throw new IllegalArgumentException("not a state change: " + request);
        };
    }

    /** The state a {@link Outcome#CHANGE} of {@code request} leads to. */
    static AccountState target(JobKind request) {
        return switch (request) {
            case DEACTIVATE -> AccountState.DEACTIVATED;
            case REACTIVATE -> AccountState.ACTIVE;
            case ERASE -> AccountState.ERASED;
            case ACCEPT_REQUESTS -> throw new IllegalArgumentException("not a state change: " + request);
        };
    }
}
