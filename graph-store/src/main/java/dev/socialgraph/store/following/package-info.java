/**
 * The following side: one {@code following_adjacency} row per follower and relation (sorted followee ids with their
 * follow times), read whole or in slices, and the writes that change it: an edge with its outbox row
 * ({@link dev.socialgraph.store.following.RelationEdges}) and the removal of follows a block forbids
 * ({@link dev.socialgraph.store.following.BlockedFollows}). Entry point:
 * {@link dev.socialgraph.store.following.FollowingRepository}.
 */
package dev.socialgraph.store.following;
