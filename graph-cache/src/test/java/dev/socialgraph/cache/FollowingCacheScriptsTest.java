package dev.socialgraph.cache;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class FollowingCacheScriptsTest {

    @Test
    void sha1_isTheLowerCaseHexDigestRedisNamesAScriptBy() {
        // Computed independently: sha1("return 1") with Python's hashlib.
        assertThat(FollowingCacheScripts.sha1("return 1")).isEqualTo("e0e1f9fabfc9d4800c877a703b823ac0578ff8db");
    }

    @Test
    void scriptDigests_matchTheirScripts() {
        assertThat(FollowingCacheScripts.APPLY_SHA1).isEqualTo(FollowingCacheScripts.sha1(FollowingCacheScripts.APPLY))
                .hasSize(40).isNotEqualTo(FollowingCacheScripts.FILL_SHA1);
    }
}
