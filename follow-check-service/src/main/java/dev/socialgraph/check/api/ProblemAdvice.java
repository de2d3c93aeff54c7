package dev.socialgraph.check.api;

import org.springframework.web.bind.annotation.RestControllerAdvice;

/**
 * The check service's errors: graph-web's {@link dev.socialgraph.web.ProblemAdvice} (problem+json naming the bad
 * input in {@code parameter}, 503 with {@code Retry-After} for an unavailable shard); the reads have no errors of
 * their own.
 */
@RestControllerAdvice
class ProblemAdvice extends dev.socialgraph.web.ProblemAdvice {
}
