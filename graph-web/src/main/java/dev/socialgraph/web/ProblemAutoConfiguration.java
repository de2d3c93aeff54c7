package dev.socialgraph.web;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.webmvc.autoconfigure.error.ErrorMvcAutoConfiguration;
import org.springframework.boot.webmvc.error.ErrorController;
import org.springframework.context.annotation.Bean;

/**
 * problem+json for the errors no {@link ProblemAdvice} sees: {@link ProblemErrorController} in place of Spring Boot's
 * {@code /error} page (before {@link ErrorMvcAutoConfiguration}, whose {@code BasicErrorController} backs off when
 * an {@link ErrorController} exists); and {@link ProblemBodyAdvice}, which gives every problem a servlet service
 * writes its type and the caller's path.
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
}
