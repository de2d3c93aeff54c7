package dev.socialgraph.write.account;

import dev.socialgraph.store.account.AccountState;
import dev.socialgraph.store.account.JobKind;

/** A state change the user's state forbids (deactivating or reactivating an erased user): 409 {@code conflict}. */
public final class AccountConflictException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    AccountConflictException(long userId, AccountState state, JobKind request) {
        super("user " + userId + " is " + state.wireName() + "; cannot " + request.wireName());
    }
}
