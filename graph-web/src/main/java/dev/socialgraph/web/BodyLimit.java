package dev.socialgraph.web;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.function.Supplier;

/**
 * The request body limit both guards apply ({@link BodySizeLimitFilter} on servlet services,
 * {@link RequestBodyLimitWebFilter} on Reactor Netty servers): which requests are refused from their headers, which
 * must be read to be judged, and the guard's counted 413.
 */
final class BodyLimit {

    /** What to do with a request before the application reads its body. */
    enum Verdict {
        /** No body, or one whose declared length is within the limit (the server holds it to that length). */
        PASS,
        /** A declared length over the limit: refuse without reading a byte. */
        REFUSE,
        /** No declared length but a transfer coding (chunked): read at most the limit plus one byte, then judge. */
        READ
    }

    private final long maxBytes;

    /**
     * @param maxBytes largest accepted body, 1 byte to 1 GB
     * @throws IllegalArgumentException outside that range
     */
    BodyLimit(long maxBytes) {
        if (maxBytes < 1 || maxBytes > ServiceGuardProperties.Web.CEILING.toBytes()) {
            throw new IllegalArgumentException("maxBytes must be between 1 and 1 GB, was " + maxBytes);
        }
        this.maxBytes = maxBytes;
    }

    /** The largest accepted body, bytes. */
    long maxBytes() {
        return maxBytes;
    }

    /**
     * Judges a request from its headers.
     *
     * @param declaredLength  its {@code Content-Length}, or a negative number when it has none
     * @param transferEncoded whether it has a {@code Transfer-Encoding}
     * @return the verdict
     */
    Verdict judge(long declaredLength, boolean transferEncoded) {
        if (declaredLength > maxBytes) {
            return Verdict.REFUSE;
        }
        return declaredLength < 0 && transferEncoded ? Verdict.READ : Verdict.PASS;
    }

    /**
     * The service guard's refusal of a body over {@code maxBytes}: its 413 problem ({@link Problems#bodyTooLarge}),
     * each call counted as {@code graph.web.rejected{reason=body-too-large}}.
     */
    static Supplier<Problems> guardRefusal(long maxBytes, MeterRegistry meters) {
        Problems tooLarge = Problems.bodyTooLarge(maxBytes);
        Counter rejected = Rejections.counter(meters, "body-too-large");
        return () -> {
            rejected.increment();
            return tooLarge;
        };
    }
}
