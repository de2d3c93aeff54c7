package dev.socialgraph.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Arrays;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The public API of {@link FollowCheckClient} is the one it had as a single class: every method (declared on it, or
 * inherited from the sealed {@link FollowChecks}, {@link FollowLists} and {@link FollowWrites}), every builder option,
 * and the value types under their old qualified names, so callers compile unchanged; and the change stream's methods
 * ({@link FollowChanges}) added since.
 */
class FollowCheckClientApiTest {

    private static String signatures(Class<?> type) {
        return Arrays.stream(type.getMethods())
                .filter(m -> m.getDeclaringClass() != Object.class)
                .map(FollowCheckClientApiTest::signature)
                .sorted()
                .collect(Collectors.joining("\n"));
    }

    private static String signature(Method m) {
        return (Modifier.isStatic(m.getModifiers()) ? "static " : "") + m.getName()
                + Arrays.stream(m.getParameterTypes()).map(Class::getSimpleName)
                        .collect(Collectors.joining(", ", "(", ")"));
    }

    @Test
    void everyMethodOfTheSingleClass_isStillCallable() {
        assertThat(signatures(FollowCheckClient.class)).isEqualTo(String.join("\n",
                "acceptFollowRequest(long, long)", "accountJob(String)", "accountState(long)", "allBlocking(long, int)",
                "allCommonFollowing(long, long, int)", "allFollowers(long, int)", "allFollowing(long, int)",
                "allMuting(long, int)", "areFollowing(long, long[])", "areFollowing(long, long[], String)",
                "block(long, long)", "blocking(long, int, String)", "changes(String, ChangeFilter, int, int)",
                "changesHead()", "close()",
                "commonFollowing(long, long, int, String)", "counts(long)", "deactivate(long)",
                "declineFollowRequest(long, long)", "erase(long)",
                "follow(long, long)", "followRequests(long, boolean, int, String)", "followers(long, int, String)",
                "following(long, int, String)",
                "hidden(long, long[])", "hidden(long, long[], String)", "instanceFor(long, int)", "instanceIds()",
                "isFollowing(long, long)", "isFollowing(long, long, String)", "knownFollowers(long, long, int, String)",
                "mute(long, long)",
                "muting(long, int, String)", "ownChanges(long, String, ChangeFilter, int, int)",
                "protect(long)", "reactivate(long)", "relationship(long, long)",
                "relationship(long, long, String)", "relationshipSeenBy(long, long, long, String)",
                "static builder()", "suggestions(long, int)", "unblock(long, long)", "unfollow(long, long)",
                "unmute(long, long)", "unprotect(long)", "watchChanges(String, ChangeFilter, ChangeListener)",
                "watchOwnChanges(long, String, ChangeFilter, ChangeListener)"));
    }

    @Test
    void everyBuilderOption_isStillThere() {
        assertThat(signatures(FollowCheckClient.Builder.class)).isEqualTo(String.join("\n",
                "batchSize(int)", "build()", "connectTimeout(Duration)", "followTokenTtl(Duration)",
                "instance(String, URI)", "logicalShardCount(int)", "maxAttempts(int)",
                "maxConnectionsPerInstance(int)", "readYourWrites(boolean)", "requestTimeout(Duration)",
                "retryWait(Duration)", "serviceToken(String)", "writeBalancing(WriteBalancing)",
                "writeInstance(URI)"));
    }

    @Test
    void theValueTypesAndHeaderNames_keepTheirQualifiedNames() {
        FollowCheckClient.Relationship relationship =
                FollowCheckClient.Relationship.of(true, false, false, true, false);
        FollowCheckClient.Counts counts = new FollowCheckClient.Counts(1, 2);
        FollowCheckClient.Followed followed = new FollowCheckClient.Followed(3, null);
        FollowCheckClient.Related related = new FollowCheckClient.Related(4, null);
        FollowCheckClient.Suggestion suggestion = new FollowCheckClient.Suggestion(5, 1);
        FollowCheckClient.Hidden hidden = new FollowCheckClient.Hidden(new long[0], new long[0], new long[0]);
        FollowCheckClient.ChangeFilter filter = FollowCheckClient.ChangeFilter.ALL.withKinds("follow");

        assertThat(relationship.blocked()).isTrue();
        assertThat(counts.following()).isEqualTo(2);
        assertThat(followed.userId() + related.userId() + suggestion.userId()).isEqualTo(12);
        assertThat(hidden.isEmpty()).isTrue();
        assertThat(filter.kinds()).containsExactly("follow");
        assertThat(FollowCheckClient.SERVICE_TOKEN_HEADER).isEqualTo("X-Service-Token");
        assertThat(FollowCheckClient.FOLLOW_TOKEN_HEADER).isEqualTo("X-Follow-Token");
        assertThat(FollowCheckClient.VIEWER_HEADER).isEqualTo("X-Viewer-Id");
    }

    @Test
    void thePartsOfTheApi_haveNoOtherImplementation() {
        for (Class<?> part : new Class<?>[] {FollowChecks.class, FollowLists.class, FollowWrites.class,
                FollowChanges.class}) {
            assertThat(part.isSealed()).as(part.getSimpleName()).isTrue();
            assertThat(part.getPermittedSubclasses()).containsExactly(FollowCheckClient.class);
        }
    }
}
