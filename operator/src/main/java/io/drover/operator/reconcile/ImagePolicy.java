package io.drover.operator.reconcile;

import java.util.List;

/**
 * Which executor images ExecutorClusters may name ({@code drover.operator.allowed-images}; the
 * chart's {@code executorImage.allowedImages}, which also installs a ValidatingAdmissionPolicy
 * with the same rule). An ExecutorCluster author picks the image, and the image runs with the
 * database credentials: in a cluster where authors are not fully trusted, list the images.
 * An entry matches the image itself, the image with any tag or digest ({@code repo} matches
 * {@code repo:1.2} and {@code repo@sha256:...}), or, ending in '/', everything under it. A tag
 * or digest has no '/': {@code registry.example.com} does not match
 * {@code registry.example.com:5000/miner}, which is another registry's image. An entry that
 * carries a tag or a digest itself matches only itself: {@code repo:1.0} matched
 * {@code repo:1.0@sha256:<any>}, and the runtime pulls by the digest, so whoever could push to
 * the repository chose what ran. No entries: any image.
 */
final class ImagePolicy {
    private final List<String> allowed;

    ImagePolicy(List<String> allowed) {
        this.allowed = allowed.stream().map(String::trim).filter(a -> !a.isEmpty()).toList();
    }

    /** @param image spec.image, or null for the operator's default image (always allowed) */
    boolean allows(String image) {
        if (image == null || allowed.isEmpty()) {
            return true;
        }
        return allowed.stream().anyMatch(a -> image.equals(a) || (a.endsWith("/") && image.startsWith(a))
                || (!pinned(a) && (image.startsWith(a + ":") || image.startsWith(a + "@"))
                && !image.substring(a.length()).contains("/")));
    }

    /** An entry with a tag or a digest: ':' or '@' after its last '/' (a registry's port comes before one). */
    private static boolean pinned(String entry) {
        String last = entry.substring(entry.lastIndexOf('/') + 1);
        return last.contains(":") || last.contains("@");
    }

    String describe() {
        return String.join(", ", allowed);
    }
}
