package dev.socialgraph.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.core.env.MutablePropertySources;
import org.springframework.core.env.PropertySourcesPropertyResolver;
import org.springframework.core.io.ClassPathResource;

/**
 * A service's configuration as it ships, read from its {@code application*.yml} on the classpath with no environment
 * variable set: what a deployment gets when it sets nothing, for tests of the defaults (that no secret from the
 * repository is one, for instance).
 */
public final class ShippedConfiguration {

    private ShippedConfiguration() {
    }

    /**
     * A property of the given files, placeholders resolved against those files alone ({@code ${GRAPH_X:}} is empty).
     *
     * @param key   the property, e.g. {@code graph.check.token-secret}
     * @param files classpath resources, later ones winning as a profile's file wins over {@code application.yml},
     *              e.g. {@code application.yml}, {@code application-local.yml}
     * @return the value, or {@code null} when none of the files sets it
     * @throws UncheckedIOException when a file cannot be read
     */
    public static String property(String key, String... files) {
        MutablePropertySources sources = new MutablePropertySources();
        try {
            for (String file : files) {
                new YamlPropertySourceLoader().load(file, new ClassPathResource(file)).forEach(sources::addFirst);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return new PropertySourcesPropertyResolver(sources).getProperty(key);
    }
}
