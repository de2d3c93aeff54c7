package dev.socialgraph.faults;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A TCP proxy on the loopback interface in front of one PostgreSQL database, that can stop forwarding: a database
 * that hangs for its clients while the other databases of the same server go on answering. The local fleet runs one
 * PostgreSQL server for all its shard databases, so stopping the server's processes ({@code SIGSTOP}) hangs them all;
 * the fleet's services reach one database through this proxy ({@code graph.postgres.servers.<database>}), and
 * {@link #hang()} makes it hold every byte in both directions while keeping each connection open and accepting new
 * ones, as a stopped server or a partitioned network does (the kernel of a stopped server still completes the TCP
 * handshake). {@link #release()} forwards what was held and everything after it.
 *
 * <p>One pair of virtual threads per connection. Thread-safe.
 */
final class HangingProxy implements AutoCloseable {

    private final ServerSocket server;
    private final int upstreamPort;
    private final Object gate = new Object();
    private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
    private volatile boolean hung;
    private volatile boolean closed;

    /**
     * Listens on a free loopback port.
     *
     * @param upstreamPort the PostgreSQL server's port on 127.0.0.1
     * @throws IOException when no port can be bound
     */
    HangingProxy(int upstreamPort) throws IOException {
        this.upstreamPort = upstreamPort;
        this.server = new ServerSocket(0, 200, InetAddress.getLoopbackAddress());
        Thread.ofVirtual().name("proxy-accept").start(this::accept);
    }

    /** @return the port clients connect to */
    int port() {
        return server.getLocalPort();
    }

    /** Stops forwarding: every byte either way is held until {@link #release()}. */
    void hang() {
        hung = true;
    }

    /** Forwards again, what was held first. */
    void release() {
        synchronized (gate) {
            hung = false;
            gate.notifyAll();
        }
    }

    private void accept() {
        while (!closed) {
            try {
                Socket client = server.accept();
                Socket upstream = new Socket(InetAddress.getLoopbackAddress(), upstreamPort);
                sockets.add(client);
                sockets.add(upstream);
                Thread.ofVirtual().start(() -> pump(client, upstream));
                Thread.ofVirtual().start(() -> pump(upstream, client));
            } catch (IOException e) {
                if (closed) {
                    return;
                }
            }
        }
    }

    private void pump(Socket from, Socket to) {
        byte[] buffer = new byte[16 * 1024];
        try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
            int n;
            while ((n = in.read(buffer)) >= 0) {
                awaitForwarding();
                out.write(buffer, 0, n);
                out.flush();
            }
        } catch (IOException | InterruptedException e) {
            // The other side closed, or the proxy did: close both below.
        } finally {
            close(from);
            close(to);
        }
    }

    private void awaitForwarding() throws InterruptedException {
        synchronized (gate) {
            while (hung && !closed) {
                gate.wait();
            }
        }
    }

    private void close(Socket socket) {
        sockets.remove(socket);
        try {
            socket.close();
        } catch (IOException ignored) {
            // Already closed.
        }
    }

    @Override
    public void close() throws IOException {
        closed = true;
        release();
        server.close();
        sockets.forEach(this::close);
    }
}
