package dev.socialgraph.web;

import io.micrometer.core.instrument.MeterRegistry;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.function.Supplier;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Answers 413 problem+json, before the service reads a byte of it, to a request whose body is larger than
 * {@code graph.web.max-request-size}, counted as {@code graph.web.rejected{reason=body-too-large}}.
 *
 * <p>Neither Tomcat nor Spring MVC bounds a JSON body: {@code maxPostSize} covers form posts only, and
 * {@code max-swallow-size} only limits what Tomcat discards after an answer. A body with a {@code Content-Length}
 * is judged by it (Tomcat never hands the application more than that). A chunked body has no length up front, so it
 * is read here, at most the limit plus one byte, and either refused or handed on from that buffer: the service
 * never holds more than the limit of any request, and a refused body has not reached it.
 */
final class BodySizeLimitFilter extends OncePerRequestFilter {

    private final BodyLimit limit;
    private final Supplier<Problems> tooLarge;

    /**
     * @param maxBytes largest accepted body, 1 byte to 1 GB
     * @param meters   where the rejections are counted
     */
    BodySizeLimitFilter(long maxBytes, MeterRegistry meters) {
        this.limit = new BodyLimit(maxBytes);
        this.tooLarge = BodyLimit.guardRefusal(maxBytes, meters);
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        switch (limit.judge(request.getContentLengthLong(), request.getHeader("Transfer-Encoding") != null)) {
            case REFUSE -> tooLarge.get().write(response);
            case READ -> {
                byte[] body = request.getInputStream().readNBytes((int) limit.maxBytes() + 1);
                if (body.length > limit.maxBytes()) {
                    tooLarge.get().write(response);
                } else {
                    chain.doFilter(new BufferedBody(request, body), response);
                }
            }
            case PASS -> chain.doFilter(request, response);
        }
    }

    /** A chunked request whose body was read completely, within the limit, by the filter. */
    private static final class BufferedBody extends HttpServletRequestWrapper {

        private final byte[] body;

        BufferedBody(HttpServletRequest request, byte[] body) {
            super(request);
            this.body = body;
        }

        @Override
        public ServletInputStream getInputStream() {
            ByteArrayInputStream in = new ByteArrayInputStream(body);
            return new ServletInputStream() {
                @Override
                public int read() {
                    return in.read();
                }

                @Override
                public int read(byte[] b, int off, int len) {
                    return in.read(b, off, len);
                }

                @Override
                public boolean isFinished() {
                    return in.available() == 0;
                }

                @Override
                public boolean isReady() {
                    return true;
                }

                @Override
                public void setReadListener(ReadListener listener) {
                    throw new IllegalStateException("the body was already read by the size limit filter");
                }
            };
        }

        @Override
        public BufferedReader getReader() {
            String encoding = getCharacterEncoding();
            Charset charset = encoding == null ? StandardCharsets.UTF_8 : Charset.forName(encoding);
            return new BufferedReader(new InputStreamReader(getInputStream(), charset));
        }

        @Override
        public int getContentLength() {
            return body.length;
        }

        @Override
        public long getContentLengthLong() {
            return body.length;
        }
    }
}
