package dev.socialgraph.launcher;

import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.function.IntFunction;

/**
 * How many processes a fleet runs of each service that scales out ({@code --check-instances},
 * {@code --write-instances}, {@code --cdc-instances}); the gateway and the reconciler always run once. Remembered by
 * the data directory next to the stores' layout ({@code fleet.properties}), so a later {@code up} without the
 * options starts the same fleet again.
 *
 * @param check follow-check-service instances, 1..{@link PortPlan#MAX_CHECK_INSTANCES}: with more than one, instance
 *              {@code i} is {@code check-<i>} and owns the logical shards rendezvous hashing gives it
 * @param write follow-write-service instances, 1..{@link PortPlan#MAX_WRITE_INSTANCES}: the gateway sends writes to
 *              them round robin; every one runs outbox relays (one per database is active, by advisory lock)
 * @param cdc   cdc-consumer instances, 1..{@link PortPlan#MAX_CDC_INSTANCES}: one consumer group, over whose
 *              members Kafka spreads the topic's partitions
 */
record Instances(int check, int write, int cdc) {

    /** One of each: a fleet started without the options. */
    static final Instances STANDARD = new Instances(1, 1, 1);

    /** @throws IllegalArgumentException when a count is outside its range; the message names the option */
    Instances {
        requireWithin("--check-instances", check, PortPlan.MAX_CHECK_INSTANCES);
        requireWithin("--write-instances", write, PortPlan.MAX_WRITE_INSTANCES);
        requireWithin("--cdc-instances", cdc, PortPlan.MAX_CDC_INSTANCES);
    }

    private static void requireWithin(String option, int n, int max) {
        if (n < 1 || n > max) {
            throw new IllegalArgumentException(option + " must be within 1.." + max + ", was " + n);
        }
    }

    /** The check instances' names ({@link PortPlan#check}), in instance-id order. */
    List<String> checkNames() {
        return names(check, PortPlan::check);
    }

    /** The write instances' names ({@link PortPlan#write}); the first migrates the shard schema. */
    List<String> writeNames() {
        return names(write, PortPlan::write);
    }

    /** The cdc-consumers' names ({@link PortPlan#cdc}). */
    List<String> cdcNames() {
        return names(cdc, PortPlan::cdc);
    }

    /** Every service process of the fleet: the gateway, the instances and the reconciler. */
    List<String> serviceNames() {
        List<String> names = new ArrayList<>();
        names.add(PortPlan.GATEWAY);
        names.addAll(checkNames());
        names.addAll(writeNames());
        names.addAll(cdcNames());
        names.add(PortPlan.RECONCILER);
        return names;
    }

    /** The processes that open pools to the shard databases: every service but the gateway. */
    int shardClients() {
        return check + write + cdc + 1;
    }

    private static List<String> names(int n, IntFunction<String> name) {
        List<String> names = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            names.add(name.apply(i));
        }
        return List.copyOf(names);
    }

    /** Adds these counts to a fleet's {@code fleet.properties}. */
    void write(Properties p) {
        p.setProperty("check-instances", Integer.toString(check));
        p.setProperty("write-instances", Integer.toString(write));
        p.setProperty("cdc-instances", Integer.toString(cdc));
    }

    /**
     * The counts a {@code fleet.properties} records; 1 for each one it does not (a data directory recorded before
     * the counts were).
     *
     * @throws IllegalArgumentException when it records an impossible count
     */
    static Instances read(Properties p) {
        return new Instances(Integer.parseInt(p.getProperty("check-instances", "1")),
                Integer.parseInt(p.getProperty("write-instances", "1")),
                Integer.parseInt(p.getProperty("cdc-instances", "1")));
    }
}
