package dev.socialgraph.web;

import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.catalina.connector.Request;
import org.apache.catalina.connector.Response;
import org.apache.catalina.valves.ErrorReportValve;
import org.apache.coyote.ActionCode;
import org.apache.tomcat.util.res.StringManager;
import org.springframework.http.ProblemDetail;

/**
 * Tomcat's last-resort error page as problem+json instead of HTML: Tomcat answers some requests itself before
 * Spring sees them, e.g. a 400 for a path with an encoded NUL or slash ({@code /users/%00/...}). The body is
 * {@code {type, title, status}} (the status' default type, Tomcat's reason phrase), encoded by graph-web's
 * {@link ProblemJson}. Installed on every servlet service's Tomcat host by {@link ProblemAutoConfiguration}.
 */
public class ProblemErrorReportValve extends ErrorReportValve {

    @Override
    protected void report(Request request, Response response, Throwable throwable) {
        int status = response.getStatus();
        if (status < 400 || response.getContentWritten() > 0) {
            return;
        }
        AtomicBoolean ioAllowed = new AtomicBoolean(true);
        response.getCoyoteResponse().action(ActionCode.IS_IO_ALLOWED, ioAllowed);
        if (!ioAllowed.get()) {
            return;
        }
        String title = StringManager.getManager(ErrorReportValve.class)
                .getString("http." + status + ".reason", "Error");
        ProblemDetail problem = ProblemDetail.forStatus(status);
        problem.setTitle(title);
        try {
            response.setContentType("application/problem+json");
            response.setCharacterEncoding("UTF-8");
            Writer writer = response.getReporter();
            if (writer != null) {
                // graph-web's encoder: the status' default type, the title, the status; nothing of the request.
                writer.write(new String(ProblemJson.of(problem), StandardCharsets.UTF_8));
                response.finishResponse();
            }
        } catch (IOException | IllegalStateException e) {
            // The client went away or the response was committed meanwhile; nothing more to say.
        }
    }
}
