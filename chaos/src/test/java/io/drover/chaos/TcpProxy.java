package io.drover.chaos;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A TCP proxy in front of PostgreSQL that the campaign controls. {@link #blackHole} makes
 * every connection through it half-open, as after a failover or a partition without a reset:
 * the client's sockets stay open, bytes are taken and never delivered, nothing answers. Those
 * connections never recover on the client's side; the server's side of them is closed after a
 * while, as the server's TCP keepalive would find a vanished client (its sessions end, and with
 * them their locks). After {@link #heal()} new connections work again.
 */
final class TcpProxy implements AutoCloseable {
    private final ServerSocket server;
    private final int targetPort;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private final List<Socket> upstreams = new CopyOnWriteArrayList<>();
    private final Thread acceptor;
    private volatile boolean blackHole;
    /** Bumped at each black hole: connections from an earlier epoch than the last black hole are dead for good. */
    private volatile int deadBefore;
    private volatile int epoch;

    TcpProxy(int targetPort) throws IOException {
        this.targetPort = targetPort;
        this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        this.acceptor = Thread.ofPlatform().daemon().name("proxy-" + server.getLocalPort()).start(this::accept);
    }

    int port() {
        return server.getLocalPort();
    }

    /** @param serverNotices after this, the server's side of the dead connections is closed */
    void blackHole(java.time.Duration serverNotices) {
        blackHole = true; // first: a connection accepted meanwhile is black-holed, not left live
        epoch++;
        deadBefore = epoch;
        List<Socket> dead = List.copyOf(upstreams);
        Thread.ofPlatform().daemon().start(() -> {
            try {
                Thread.sleep(serverNotices.toMillis());
                for (Socket s : dead) {
                    s.close();
                }
            } catch (InterruptedException | IOException ignored) {
                // the proxy is closing
            }
        });
    }

    void heal() {
        blackHole = false;
        epoch++;
    }

    private void accept() {
        while (!server.isClosed()) {
            try {
                Socket client = server.accept();
                sockets.add(client);
                int born = epoch;
                if (blackHole) {
                    pump(client.getInputStream(), null, () -> true); // swallow, never answer
                    continue;
                }
                Socket upstream;
                try {
                    upstream = new Socket(InetAddress.getLoopbackAddress(), targetPort);
                } catch (IOException e) {
                    client.close(); // the server is down: connection refused, as without a proxy
                    continue;
                }
                sockets.add(upstream);
                upstreams.add(upstream);
                java.util.function.BooleanSupplier dead = () -> born < deadBefore;
                pump(client.getInputStream(), upstream.getOutputStream(), dead);
                pump(upstream.getInputStream(), client.getOutputStream(), dead);
            } catch (IOException e) {
                // closed
            }
        }
    }

    private void pump(InputStream in, OutputStream out, java.util.function.BooleanSupplier dead) {
        Thread.ofPlatform().daemon().start(() -> {
            byte[] buf = new byte[16384];
            try {
                int n;
                while ((n = in.read(buf)) >= 0) {
                    if (out != null && !dead.getAsBoolean()) {
                        out.write(buf, 0, n);
                        out.flush();
                    }
                }
                if (out != null && !dead.getAsBoolean()) {
                    out.close();
                }
            } catch (IOException e) {
                // one side closed
            }
        });
    }

    @Override
    public void close() throws IOException {
        server.close();
        for (Socket s : sockets) {
            s.close();
        }
    }
}
