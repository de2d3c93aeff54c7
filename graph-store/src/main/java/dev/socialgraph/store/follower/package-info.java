/**
 * The follower side: one {@code follower_adjacency} row per followee and relation, and for a celebrity its followers in
 * celebrity pages instead: their layout and threshold rule, the live write of a batch of changes
 * ({@link dev.socialgraph.store.follower.FollowerSideWriter}, the entry point for writers), the repair plan of a
 * diverged row, and newest-first reads across row and pages. The page layout's placement rules are package-private.
 */
package dev.socialgraph.store.follower;
