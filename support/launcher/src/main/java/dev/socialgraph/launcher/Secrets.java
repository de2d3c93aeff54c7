package dev.socialgraph.launcher;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.Map;

/**
 * The fleet's shared secrets: the gateway's HS256 JWT key ({@code GRAPH_JWT_SECRET}), the follow-token HMAC key
 * shared by the write and check services ({@code GRAPH_TOKEN_SECRET}), the list-cursor key of the check
 * instances ({@code GRAPH_CURSOR_KEY}) and the service credential every service requires as
 * {@code X-Service-Token} and the gateway sends ({@code GRAPH_SERVICE_TOKEN}). Each comes from its environment
 * variable when that is set (so external clients can mint their own tokens), otherwise from a file in the data
 * directory, generated on first use (48 random bytes from {@link SecureRandom}, base64url: 64 characters) and
 * readable by the owner only.
 *
 * @param jwtSecret    the gateway's HS256 key, at least 32 bytes
 * @param tokenSecret  the follow-token key, at least 32 bytes
 * @param cursorKey    the cursor key, at least 32 bytes
 * @param serviceToken the service credential, at least 32 bytes
 */
public record Secrets(String jwtSecret, String tokenSecret, String cursorKey, String serviceToken) {

    static final String JWT_ENV = "GRAPH_JWT_SECRET";
    static final String TOKEN_ENV = "GRAPH_TOKEN_SECRET";
    static final String CURSOR_ENV = "GRAPH_CURSOR_KEY";
    static final String SERVICE_TOKEN_ENV = "GRAPH_SERVICE_TOKEN";
    /** The service token's file in the data directory; loadgen reads it too. */
    static final String SERVICE_TOKEN_FILE = "service-token";

    /**
     * Loads or creates the secrets of a data directory.
     *
     * @param dataDir the fleet's data directory (created if missing)
     * @param env     the environment to read overrides from (normally {@link System#getenv()})
     * @return the secrets
     * @throws IllegalArgumentException when an environment variable is set but shorter than 32 bytes
     * @throws IOException              when a secret file cannot be read or written
     */
    public static Secrets load(Path dataDir, Map<String, String> env) throws IOException {
        return new Secrets(
                secret(dataDir.resolve("jwt-secret"), JWT_ENV, env),
                secret(dataDir.resolve("token-secret"), TOKEN_ENV, env),
                secret(dataDir.resolve("cursor-key"), CURSOR_ENV, env),
                secret(dataDir.resolve(SERVICE_TOKEN_FILE), SERVICE_TOKEN_ENV, env));
    }

    @Override
    public String toString() {
        return "Secrets[(hidden)]"; // a record's default toString would print every secret
    }

    /** The variables the services read them from. */
    public Map<String, String> environment() {
        return Map.of(JWT_ENV, jwtSecret, TOKEN_ENV, tokenSecret, CURSOR_ENV, cursorKey, SERVICE_TOKEN_ENV, serviceToken);
    }

    private static String secret(Path file, String variable, Map<String, String> env) throws IOException {
        String fromEnv = env.get(variable);
        if (fromEnv != null && !fromEnv.isEmpty()) {
            if (fromEnv.getBytes(StandardCharsets.UTF_8).length < 32) {
                throw new IllegalArgumentException(variable + " must be at least 32 bytes");
            }
            return fromEnv;
        }
        if (Files.exists(file)) {
            String stored = Files.readString(file, StandardCharsets.UTF_8).strip();
            if (stored.length() >= 32) {
                return stored;
            }
        }
        byte[] random = new byte[48];
        new SecureRandom().nextBytes(random);
        String generated = Base64.getUrlEncoder().withoutPadding().encodeToString(random);
        Files.createDirectories(file.getParent());
        Files.deleteIfExists(file);
        try {
            Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        } catch (UnsupportedOperationException e) {
            Files.createFile(file); // not a POSIX file system
        }
        Files.writeString(file, generated + "\n", StandardCharsets.UTF_8, StandardOpenOption.TRUNCATE_EXISTING);
        return generated;
    }
}
