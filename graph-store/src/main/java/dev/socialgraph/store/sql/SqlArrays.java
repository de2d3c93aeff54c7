package dev.socialgraph.store.sql;

import java.sql.Array;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import org.postgresql.PGConnection;

/**
 * Conversion between {@code long[]} and PostgreSQL {@code BIGINT[]}, for repositories here and in the services. pgjdbc encodes a primitive {@code long[]}
 * directly (no boxing) when it is passed to {@link PGConnection#createArrayOf(String, Object)}; decoding yields
 * {@code Long[]}, which is copied out once.
 */
public final class SqlArrays {

    /**
     * The empty array an empty or NULL column decodes to, shared by the empty following and follower rows; never
     * written to.
     */
    public static final long[] EMPTY = new long[0];

    private SqlArrays() {
    }

    /** A {@code BIGINT[]} parameter holding {@code values}, encoded without boxing. */
    public static Array bigintArray(Connection connection, long[] values) throws SQLException {
        return connection.unwrap(PGConnection.class).createArrayOf("int8", values);
    }

    /** The {@code BIGINT[]} column {@code column} of the current row; empty for SQL NULL. */
    public static long[] longs(ResultSet rs, String column) throws SQLException {
        return longs(rs.getArray(column));
    }

    /** The values of a {@code BIGINT[]}; empty for {@code null}. Frees the array. */
    public static long[] longs(Array array) throws SQLException {
        if (array == null) {
            return EMPTY;
        }
        try {
            Object raw = array.getArray();
            if (raw instanceof long[] primitive) {
                return primitive;
            }
            Long[] boxed = (Long[]) raw;
            long[] out = new long[boxed.length];
            for (int i = 0; i < boxed.length; i++) {
                out[i] = boxed[i];
            }
            return out;
        } finally {
            array.free();
        }
    }
}
