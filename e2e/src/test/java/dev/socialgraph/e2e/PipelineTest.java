package dev.socialgraph.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.socialgraph.cdc.CdcConsumerApplication;
import dev.socialgraph.write.FollowWriteServiceApplication;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class PipelineTest {

    @Test
    void ownConfig_pointsEachServiceAtTheApplicationYmlBesideItsClasses() throws IOException {
        String write = Pipeline.ownConfig(FollowWriteServiceApplication.class);
        String cdc = Pipeline.ownConfig(CdcConsumerApplication.class);

        assertThat(write).isNotEqualTo(cdc).endsWith("application.yml");
        assertThat(read(write)).contains("name: follow-write-service");
        assertThat(read(cdc)).contains("name: cdc-consumer");
    }

    private static String read(String url) throws IOException {
        try (InputStream in = URI.create(url).toURL().openStream()) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
