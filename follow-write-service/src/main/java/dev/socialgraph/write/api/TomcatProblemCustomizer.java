package dev.socialgraph.write.api;

import org.apache.catalina.core.StandardHost;
import org.springframework.boot.tomcat.TomcatContextCustomizer;
import org.springframework.stereotype.Component;

/** Installs {@link ProblemErrorReportValve} as the embedded Tomcat host's error report valve. */
@Component
class TomcatProblemCustomizer implements TomcatContextCustomizer {

    @Override
    public void customize(org.apache.catalina.Context context) {
        if (context.getParent() instanceof StandardHost host) {
            host.setErrorReportValveClass(ProblemErrorReportValve.class.getName());
        }
    }
}
