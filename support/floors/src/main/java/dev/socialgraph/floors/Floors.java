package dev.socialgraph.floors;

import dev.socialgraph.floors.bare.BareGatewayApplication;
import dev.socialgraph.floors.hello.HelloApplication;
import java.util.Arrays;

/**
 * The runnable jar's entry point: {@code java -jar floors-<version>-exec.jar <floor> [--property=value …]} starts one
 * floor of the gateway hop benchmark, the rest of the arguments being Spring Boot command-line properties:
 * <ul>
 *   <li>{@value #BARE_GATEWAY}: {@link BareGatewayApplication}, Spring Cloud Gateway with one route to the check
 *       service's single check;</li>
 *   <li>{@value #HELLO}: {@link HelloApplication}, a constant answer on the check service's server stack.</li>
 * </ul>
 * HopBench (support/benchmarks) starts them as child processes; nothing deploys them. Exit status 2 for an unknown floor.
 */
public final class Floors {

    /** The argument that starts {@link BareGatewayApplication}. */
    public static final String BARE_GATEWAY = "bare-gateway";

    /** The argument that starts {@link HelloApplication}. */
    public static final String HELLO = "hello";

    private Floors() {
    }

    /** Starts the floor named by the first argument; see the class comment. */
    public static void main(String[] args) {
        String floor = args.length == 0 ? "" : args[0];
        String[] properties = Arrays.copyOfRange(args, Math.min(1, args.length), args.length);
        switch (floor) {
            case BARE_GATEWAY -> BareGatewayApplication.run(properties);
            case HELLO -> HelloApplication.run(properties);
            default -> {
                System.err.println("usage: java -jar floors.jar " + BARE_GATEWAY + "|" + HELLO
                        + " [--property=value ...]; was '" + floor + "'");
                System.exit(2);
            }
        }
    }
}
