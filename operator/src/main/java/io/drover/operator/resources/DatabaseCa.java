package io.drover.operator.resources;

import io.drover.operator.api.v1alpha1.DatabaseSpec;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.VolumeMountBuilder;

import java.util.Optional;

/**
 * The database's CA bundle ({@code spec.database.caBundle}) in the executor pod: a volume from
 * the ConfigMap or Secret, mounted read-only, and the JDBC driver pointed at it with
 * {@code sslrootcert}. The volume is mounted as a directory (no subPath), so a renewed bundle
 * reaches running pods without a restart; the driver reads the file on each new connection.
 */
public final class DatabaseCa {
    static final String VOLUME = "database-ca";
    static final String DIRECTORY = "/etc/drover/database-ca";
    static final String FILE = "ca.crt";

    private DatabaseCa() {
    }

    /** The file the driver reads, when the cluster has a bundle. */
    public static Optional<String> path(DatabaseSpec db) {
        return db.caBundle == null ? Optional.empty() : Optional.of(DIRECTORY + "/" + FILE);
    }

    static Optional<Volume> volume(DatabaseSpec db) {
        DatabaseSpec.CaBundle ca = db.caBundle;
        if (ca == null) {
            return Optional.empty();
        }
        VolumeBuilder v = new VolumeBuilder().withName(VOLUME);
        if (ca.configMap != null) {
            v.withNewConfigMap().withName(ca.configMap)
                    .addNewItem().withKey(ca.keyOrDefault()).withPath(FILE).endItem()
                    .withDefaultMode(0444).endConfigMap();
        } else {
            v.withNewSecret().withSecretName(ca.secret)
                    .addNewItem().withKey(ca.keyOrDefault()).withPath(FILE).endItem()
                    .withDefaultMode(0444).endSecret();
        }
        return Optional.of(v.build());
    }

    static Optional<VolumeMount> volumeMount(DatabaseSpec db) {
        return db.caBundle == null ? Optional.empty()
                : Optional.of(new VolumeMountBuilder().withName(VOLUME).withMountPath(DIRECTORY).withReadOnly(true).build());
    }
}
