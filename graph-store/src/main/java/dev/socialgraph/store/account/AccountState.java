package dev.socialgraph.store.account;

/**
 * The state of a user id (docs/account-lifecycle.md): every id is {@link #ACTIVE} until an operator changes it;
 * {@link #DEACTIVATED} is reversible, {@link #ERASED} is not. While not active, the user is invisible to reads and
 * every write by or of the user is refused.
 */
public enum AccountState {

    /** Code 0: visible; also what a user without an {@code account_states} row is. */
    ACTIVE(0, "active"),
    /** Code 1: hidden, edges kept, reversible. */
    DEACTIVATED(1, "deactivated"),
    /** Code 2: hidden for good; the job deletes every row naming the user, the state row stays as a tombstone. */
    ERASED(2, "erased");

    private final short code;
    private final String wireName;

    AccountState(int code, String wireName) {
        this.code = (short) code;
        this.wireName = wireName;
    }

    /** The {@code account_states.state} column's value. */
    public short code() {
        return code;
    }

    /** The API's name: {@code active}, {@code deactivated}, {@code erased}. */
    public String wireName() {
        return wireName;
    }

    /** Whether reads see the user and writes by or of the user are allowed. */
    public boolean isActive() {
        return this == ACTIVE;
    }

    /**
     * The state of a column value.
     *
     * @throws IllegalArgumentException for a code the schema's CHECK does not allow
     */
    public static AccountState ofCode(int code) {
        return switch (code) {
            case 0 -> ACTIVE;
            case 1 -> DEACTIVATED;
            case 2 -> ERASED;
            default -> throw new IllegalArgumentException("unknown account state code " + code);
        };
    }
}
