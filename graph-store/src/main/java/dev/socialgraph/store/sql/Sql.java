package dev.socialgraph.store.sql;

import dev.socialgraph.common.relation.Relation;

/** SQL text shared by the repositories and by other shard SQL of the project (the bulk importer's staging merges). */
public final class Sql {

    /** The placeholder for a relation's code in a statement template. */
    public static final String RELATION = ":relation";

    private Sql() {
    }

    /**
     * A statement of one relation: {@value #RELATION} replaced by its code. The code is a constant from
     * {@link Relation}, never user input, so it is safe as literal text; binding it instead would shift every
     * statement's parameter positions.
     *
     * @param template SQL with {@value #RELATION} where the relation's code goes
     * @param relation the relation
     * @return the statement
     */
    public static String forRelation(String template, Relation relation) {
        return template.replace(RELATION, Short.toString(relation.code()));
    }
}
