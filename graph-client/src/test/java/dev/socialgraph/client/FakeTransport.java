package dev.socialgraph.client;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;

/**
 * A {@link Transport} with no network: it records each call and answers the body its function gives for the request
 * (a function that throws stands for a failed call).
 */
final class FakeTransport implements Transport {

    /**
     * One call.
     *
     * @param user    the user whose instance a read would go to; {@code 0} for a write or a read of any instance
     * @param write   whether it was a write
     * @param request the request
     */
    record Call(long user, boolean write, Request request) {

        /** The request's body as text, or {@code null}. */
        String body() {
            return request.body() == null ? null : new String(request.body(), StandardCharsets.UTF_8);
        }
    }

    private final List<Call> calls = new CopyOnWriteArrayList<>();
    private final Function<Request, String> answers;

    FakeTransport(Function<Request, String> answers) {
        this.answers = answers;
    }

    /** A transport answering {@code body} to every request. */
    static FakeTransport answering(String body) {
        return new FakeTransport(r -> body);
    }

    List<Call> calls() {
        return List.copyOf(calls);
    }

    @Override
    public byte[] read(long user, Request request) {
        calls.add(new Call(user, false, request));
        return answers.apply(request).getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public byte[] readAny(Request request) {
        calls.add(new Call(0, false, request));
        return answers.apply(request).getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public byte[] write(Request request) {
        calls.add(new Call(0, true, request));
        return answers.apply(request).getBytes(StandardCharsets.UTF_8);
    }
}
