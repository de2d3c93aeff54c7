package dev.socialgraph.web;

import org.apache.catalina.core.StandardHost;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.tomcat.TomcatContextCustomizer;
import org.springframework.boot.webmvc.autoconfigure.error.ErrorMvcAutoConfiguration;
import org.springframework.boot.webmvc.error.ErrorController;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * problem+json for the errors no {@link ProblemAdvice} sees: {@link ProblemErrorController} in place of Spring Boot's
 * {@code /error} page (before {@link ErrorMvcAutoConfiguration}, whose {@code BasicErrorController} backs off when
 * an {@link ErrorController} exists); {@link ProblemBodyAdvice}, which gives every problem a servlet service
 * writes its type and the caller's path; and, on Tomcat, {@link ProblemErrorReportValve} for what Tomcat answers
 * before Spring sees the request.
 */
@AutoConfiguration(before = ErrorMvcAutoConfiguration.class)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
public class ProblemAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean(ErrorController.class)
    ProblemErrorController problemErrorController() {
        return new ProblemErrorController();
    }

    @Bean
    ProblemBodyAdvice problemBodyAdvice() {
        return new ProblemBodyAdvice();
    }

    /** Tomcat's own error page (a 400 for an encoded NUL or slash in the path) as problem+json. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass({StandardHost.class, TomcatContextCustomizer.class})
    static class TomcatProblems {

        @Bean
        TomcatContextCustomizer problemErrorReportValve() {
            return context -> {
                if (context.getParent() instanceof StandardHost host) {
                    host.setErrorReportValveClass(ProblemErrorReportValve.class.getName());
                }
            };
        }
    }
}
