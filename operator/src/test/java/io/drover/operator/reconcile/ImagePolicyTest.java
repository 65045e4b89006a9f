package io.drover.operator.reconcile;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class ImagePolicyTest {
    private final ImagePolicy policy = new ImagePolicy(List.of("123456789012.dkr.ecr.eu-west-1.amazonaws.com/drover/",
            "ghcr.io/acme/drover-executor", "quay.io/acme/exact:1.2"));

    @Test
    void anEntryMatchesItsRepositoryTagsDigestsOrWhatIsUnderIt() {
        assertThat(policy.allows("123456789012.dkr.ecr.eu-west-1.amazonaws.com/drover/executor:0.2")).isTrue();
        assertThat(policy.allows("ghcr.io/acme/drover-executor:0.2")).isTrue();
        assertThat(policy.allows("ghcr.io/acme/drover-executor@sha256:abc")).isTrue();
        assertThat(policy.allows("ghcr.io/acme/drover-executor")).isTrue();
        assertThat(policy.allows("quay.io/acme/exact:1.2")).isTrue();
        assertThat(policy.allows(null)).as("the operator's own default").isTrue();
    }

    @Test
    void aLookAlikeIsNotAMatch() {
        assertThat(policy.allows("ghcr.io/acme/drover-executor-evil:1")).isFalse();
        assertThat(policy.allows("123456789012.dkr.ecr.eu-west-1.amazonaws.com/drover-x/executor:1")).isFalse();
        assertThat(policy.allows("quay.io/acme/exact:1.3")).isFalse();
        assertThat(policy.allows("quay.io/acme/exact:1.2@sha256:0a1b")).as("a pinned entry with any digest").isFalse();
        assertThat(policy.allows("docker.io/library/busybox")).isFalse();
        // A registry on another port is another registry, not a tag of the entry.
        ImagePolicy bare = new ImagePolicy(List.of("registry.example.com", "ghcr.io/acme/drover-executor"));
        assertThat(bare.allows("registry.example.com:5000/miner:1")).isFalse();
        assertThat(bare.allows("registry.example.com@evil/x")).isFalse();
        assertThat(bare.allows("ghcr.io/acme/drover-executor:1/../miner")).isFalse();
        assertThat(bare.allows("ghcr.io/acme/drover-executor:0.3@sha256:0a1b")).as("a tag and a digest").isTrue();
    }

    @Test
    void noEntriesAllowAnyImage() {
        assertThat(new ImagePolicy(List.of()).allows("docker.io/library/busybox")).isTrue();
    }
}
