package io.drover.executor.config;

import java.net.InetAddress;
import java.util.HexFormat;
import java.util.concurrent.ThreadLocalRandom;

/** Node identity: a stable name (the pod name in a StatefulSet) plus a per-boot suffix. */
public final class NodeNames {
    private NodeNames() {
    }

    /**
     * In a container HOSTNAME is set and unique (the pod name). Elsewhere several nodes may
     * share a host, so the pid is added: a node releases the locks of earlier runs of its own
     * name at startup, and that must never match a live sibling process.
     */
    static String defaultNodeName() {
        String host = System.getenv("HOSTNAME");
        if (host != null && !host.isBlank()) {
            return host;
        }
        String name;
        try {
            name = InetAddress.getLocalHost().getHostName();
        } catch (Exception e) {
            name = "drover-node";
        }
        return name + "-" + ProcessHandle.current().pid();
    }

    /**
     * The owner written into locked rows. The boot id makes it unique per process lifetime, so a
     * restarted pod with the same name can tell its dead predecessor's locks from its own.
     */
    public static String lockOwner(String nodeName) {
        byte[] boot = new byte[4];
        ThreadLocalRandom.current().nextBytes(boot);
        return nodeName + ":" + HexFormat.of().formatHex(boot);
    }
}
