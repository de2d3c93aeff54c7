package dev.socialgraph.wire;

/**
 * The HTTP headers the fleet's own API defines, one home for their names: the gateway sets them, the services read
 * them, {@code graph-client} sends them.
 */
public final class Headers {

    /**
     * The service credential every request on a service's API port carries (graph-web's guard checks it; the gateway,
     * {@code graph-client}, the launcher and the tools send it).
     */
    public static final String SERVICE_TOKEN = "X-Service-Token";

    /**
     * The follow token of a caller's newest write (from the write's answer), sent on its next reads so they see that
     * write at once (read-your-writes).
     */
    public static final String FOLLOW_TOKEN = "X-Follow-Token";

    /** The user on whose behalf the gateway reads (the bearer token's subject): what a relationship shows depends on it. */
    public static final String VIEWER_ID = "X-Viewer-Id";

    /** The request's id: kept when the caller sends one (1-128 printable ASCII characters), else generated; returned. */
    public static final String REQUEST_ID = "X-Request-Id";

    /**
     * The path the caller sent to the gateway ({@code /v1/me/following/42}), set by the gateway on every request it
     * passes on, whose own path is internal ({@code /internal/v1/users/12/following/42}): a service's problem answer
     * names it as its {@code instance}, so a caller sees its own path.
     */
    public static final String PUBLIC_PATH = "X-Public-Path";

    /** The check instance that answered a read (its {@code graph.check.affinity.instance-id}); the gateway passes it on. */
    public static final String SERVED_BY = "X-Served-By";

    /**
     * A reconnecting server-sent-events client's last event id (the HTML standard's event-stream processing): for the
     * change stream, the cursor after the last event it received.
     */
    public static final String LAST_EVENT_ID = "Last-Event-ID";

    private Headers() {
    }
}
