package dev.socialgraph.loadgen;

import dev.socialgraph.loadgen.Operation.Kind;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/** A target in the test JVM whose answers the test controls; the runners' tests drive it. */
record FakeTarget(Function<Operation, CompletableFuture<Target.Outcome>> answer) implements Target {

    @Override
    public String name() {
        return "fake";
    }

    @Override
    public boolean supports(Kind kind) {
        return true;
    }

    @Override
    public CompletableFuture<Outcome> execute(Operation operation) {
        return answer.apply(operation);
    }

    @Override
    public List<ServerProcess> processes() {
        return List.of();
    }

    @Override
    public void close() {
    }
}
