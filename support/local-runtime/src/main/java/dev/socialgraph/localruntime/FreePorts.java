package dev.socialgraph.localruntime;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;

/**
 * Free TCP ports on the loopback interface. A port is free when asked; another process may take it
 * before the caller binds it, which in practice happens only on a crowded machine.
 */
public final class FreePorts {

    private FreePorts() {
    }

    /**
     * Picks {@code count} distinct free ports, holding all sockets open until every port is chosen so
     * that the operating system cannot hand out the same port twice.
     *
     * @param count how many ports, at least 1
     * @return the ports, from the operating system's ephemeral range
     * @throws UncheckedIOException when no port can be bound
     */
    public static int[] pick(int count) {
        ServerSocket[] sockets = new ServerSocket[count];
        try {
            int[] ports = new int[count];
            for (int i = 0; i < count; i++) {
                sockets[i] = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
                ports[i] = sockets[i].getLocalPort();
            }
            return ports;
        } catch (IOException e) {
            throw new UncheckedIOException("No free TCP port on the loopback interface", e);
        } finally {
            for (ServerSocket socket : sockets) {
                closeQuietly(socket);
            }
        }
    }

    /**
     * Picks one free port.
     *
     * @return a port from the operating system's ephemeral range
     * @throws UncheckedIOException when no port can be bound
     */
    public static int pick() {
        return pick(1)[0];
    }

    /**
     * Whether a server socket can be bound to {@code 127.0.0.1:port} right now.
     *
     * @param port a TCP port, 1..65535
     * @return {@code true} when nothing listens there
     */
    public static boolean isFree(int port) {
        try (ServerSocket socket = new ServerSocket()) {
            socket.setReuseAddress(true);
            socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static void closeQuietly(ServerSocket socket) {
        if (socket == null) {
            return;
        }
        try {
            socket.close();
        } catch (IOException ignored) {
            // Nothing listens on it any more either way.
        }
    }
}
