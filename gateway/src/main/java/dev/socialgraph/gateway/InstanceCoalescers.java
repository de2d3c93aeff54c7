package dev.socialgraph.gateway;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.function.Function;
import org.springframework.cloud.client.ServiceInstance;

/**
 * One {@link Coalescer} per check instance (by its id, as the balancer tells instances apart), built on first use,
 * with its meters: {@code <prefix>.batches} (batch calls sent), {@code <prefix>.<items>} (items sent in them: their
 * ratio is the mean batch size), {@code <prefix>.refused} (items answered without being sent: too many were waiting,
 * or one waited past {@code maxWait}) and the gauge {@code <prefix>.queued} (items waiting), each tagged
 * {@code check_instance}.
 *
 * @param <Q> an item of a batch
 * @param <A> one item's answer
 */
final class InstanceCoalescers<Q, A> implements Function<ServiceInstance, Coalescer<Q, A>> {

    /** The bounds of each instance's coalescer, as {@link Coalescer}'s constructor takes them. */
    record Bounds(int maxInFlight, int maxBatch, int maxQueued, Duration maxWait) {

        /**
         * The bounds as configured, where an unset longest wait is the gateway's response timeout.
         *
         * @param maxWait         {@code max-wait} as configured, or {@code null} when unset
         * @param responseTimeout {@code graph.gateway.response-timeout}
         * @return the bounds
         */
        static Bounds of(int maxInFlight, int maxBatch, int maxQueued, Duration maxWait, Duration responseTimeout) {
            return new Bounds(maxInFlight, maxBatch, maxQueued, maxWait != null ? maxWait : responseTimeout);
        }
    }

    private final Function<ServiceInstance, Coalescer.Transport<Q, A>> transports;
    private final Bounds bounds;
    private final String prefix;
    private final String items;
    private final String noun;
    private final MeterRegistry meters;
    private final Function<Q, Executor> flushOn;
    private final Map<String, Coalescer<Q, A>> coalescers = new ConcurrentHashMap<>();

    /**
     * @param transports each instance's batch call
     * @param bounds     each coalescer's bounds
     * @param prefix     the meters' name prefix, e.g. {@code graph.gateway.coalescer}
     * @param items      the name of the meter counting items sent, e.g. {@code checks}
     * @param noun       what an item is, for the meters' descriptions, e.g. {@code follow checks}
     * @param meters     where the meters are registered
     * @param flushOn    where the send of a batch an item opens runs ({@link Coalescer}): the event loop of the
     *                   item's request ({@link EventLoops#executor})
     */
    InstanceCoalescers(Function<ServiceInstance, Coalescer.Transport<Q, A>> transports, Bounds bounds, String prefix,
                       String items, String noun, MeterRegistry meters, Function<Q, Executor> flushOn) {
        this.transports = transports;
        this.bounds = bounds;
        this.prefix = prefix;
        this.items = items;
        this.noun = noun;
        this.meters = meters;
        this.flushOn = flushOn;
    }

    @Override
    public Coalescer<Q, A> apply(ServiceInstance instance) {
        String id = ShardAffineLoadBalancer.idOf(instance);
        Coalescer<Q, A> coalescer = coalescers.get(id);
        return coalescer != null ? coalescer : coalescers.computeIfAbsent(id, i -> create(i, instance));
    }

    private Coalescer<Q, A> create(String id, ServiceInstance instance) {
        Coalescer<Q, A> coalescer = new Coalescer<>(transports.apply(instance), bounds.maxInFlight(),
                bounds.maxBatch(), bounds.maxQueued(), bounds.maxWait().toNanos(), System::nanoTime, flushOn);
        Tags tags = Tags.of("check_instance", id);
        FunctionCounter.builder(prefix + ".batches", coalescer, Coalescer::batches).tags(tags)
                .description("batch calls of coalesced " + noun + " sent to the check instance").register(meters);
        FunctionCounter.builder(prefix + "." + items, coalescer, Coalescer::sent).tags(tags)
                .description(noun + " sent to the check instance in batch calls").register(meters);
        FunctionCounter.builder(prefix + ".refused", coalescer, Coalescer::refused).tags(tags)
                .description(noun + " answered without being sent: too many waiting, or waited too long")
                .register(meters);
        Gauge.builder(prefix + ".queued", coalescer, Coalescer::queued).tags(tags)
                .description(noun + " waiting for a batch call to the check instance").strongReference(true)
                .register(meters);
        return coalescer;
    }
}
