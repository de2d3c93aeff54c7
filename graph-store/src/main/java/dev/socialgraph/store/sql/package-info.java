/**
 * The JDBC plumbing every repository of graph-store shares: transactions with bounded retries
 * ({@link dev.socialgraph.store.sql.Transactions}), the classification of database errors
 * ({@link dev.socialgraph.store.sql.SqlErrors}), both used by the services too; {@code BIGINT[]} conversion, relation
 * templates, the query loops and the row protocol both adjacency repositories run
 * ({@link dev.socialgraph.store.sql.AdjacencyRows}), graph-store's own, public only because its feature packages share
 * them.
 */
package dev.socialgraph.store.sql;
