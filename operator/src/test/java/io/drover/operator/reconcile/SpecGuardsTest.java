package io.drover.operator.reconcile;

import io.drover.operator.api.v1alpha1.ExecutorClusterSpec;
import io.drover.operator.api.v1alpha1.ExtraEnvVar;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The operator's own check of the trust guards, for clusters whose CRD predates a rule; the
 * same cases as ExecutorClusterSchemaTest's rows, which the API server judges.
 */
class SpecGuardsTest {

    @ParameterizedTest
    @ValueSource(strings = {"-javaagent:/opt/agent.jar", "-agent\"\"lib:jdwp=transport=dt_socket,address=evil:5432",
            "-D%prod.drover.api.token=known", "-Dcom.sun.management.jmxremote.port=9010", "-Xmx1g -XX:OnError=sh",
            "-Xmx1g -XX:+StartAttachListener", "-Xmx1g $(QUARKUS_DATASOURCE_PASSWORD)", "-Xmx1g\u000b-javaagent:x.jar",
            "-Dquarkus.datasource.jdbc.url=x", "-Xmx0", "-Xms0512m", "-Xss0"})
    void refusedJvmOptions(String options) {
        ExecutorClusterSpec spec = new ExecutorClusterSpec();
        spec.jvmOptions = options;
        assertThat(SpecGuards.refusal(spec)).hasValueSatisfying(m -> assertThat(m).startsWith("spec.jvmOptions: "));
    }

    @ParameterizedTest
    @ValueSource(strings = {"-XX:MaxRAMPercentage=70 -Duser.timezone=Europe/Paris -Xss512k -Xlog:gc*:file=/tmp/gc.log -XX:+UseZGC",
            "-Xmx1500m -XX:+UseSerialGC", "-XX:+UseSerialGC -XX:TieredStopAtLevel=1", ""})
    void acceptedJvmOptions(String options) {
        ExecutorClusterSpec spec = new ExecutorClusterSpec();
        spec.jvmOptions = options;
        assertThat(SpecGuards.refusal(spec)).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(strings = {"_PROD_DROVER_API_TOKEN", "drover.api.readToken", "DROVER_API_TOKEN", "DROVER_NODENAME", "drover.threads", "Quarkus_Datasource_Password",
            "QUARKUS_PROFILE", "SMALLRYE_CONFIG_LOCATIONS", "QUARKUS_CONFIG_LOG_VALUES", "quarkus.config.profile.parent", "JAVA_TOOL_OPTIONS"})
    void refusedEnv(String name) {
        ExecutorClusterSpec spec = new ExecutorClusterSpec();
        spec.env = List.of(new ExtraEnvVar("DROVER_HTTP_URL", "http://x"), new ExtraEnvVar(name, "v"));
        assertThat(SpecGuards.refusal(spec)).hasValueSatisfying(m -> assertThat(m).startsWith("spec.env[1].name: "));
    }

    /** The API's settings but its tokens, and the shared pool's socket timeout (docs/configuration.md), are the writer's. */
    @ParameterizedTest
    @ValueSource(strings = {"DROVER_API_MAXBATCH", "drover.api.maxBodyBytesInFlight", "QUARKUS_DATASOURCE_JDBC_ADDITIONAL_JDBC_PROPERTIES_SOCKETTIMEOUT"})
    void acceptedEnv(String name) {
        ExecutorClusterSpec spec = new ExecutorClusterSpec();
        spec.env = List.of(new ExtraEnvVar(name, "100"));
        assertThat(SpecGuards.refusal(spec)).isEmpty();
    }

    /** Log settings that could write callers' tokens or ship logs away: refused with their own reason. */
    @ParameterizedTest
    @ValueSource(strings = {"QUARKUS_HTTP_ACCESS_LOG_PATTERN", "quarkus.log.syslog.endpoint", "QUARKUS_LOG_HANDLER_SOCKET__X__ENABLED"})
    void refusedLoggingEnv(String name) {
        ExecutorClusterSpec spec = new ExecutorClusterSpec();
        spec.env = List.of(new ExtraEnvVar(name, "v"));
        assertThat(SpecGuards.refusal(spec)).hasValue("spec.env[0].name: " + name + ": " + ExtraEnvVar.LOGGING_MESSAGE);
    }

    /** The CRD in place may predate the rule that requires spec (has(self.spec)). */
    @org.junit.jupiter.api.Test
    void aClusterWithoutSpecIsRefusedNamingSpec() {
        assertThat(SpecGuards.refusal(null)).hasValueSatisfying(m -> assertThat(m).startsWith("spec: required"));
    }

    /**
     * The executor's configuration expands ${name} in every value it reads: an env value or a job
     * type holding one handed the author another setting's value (the API token, the password).
     */
    @Test
    void valuesTheExecutorsConfigurationWouldExpandAreRefused() {
        ExecutorClusterSpec spec = new ExecutorClusterSpec();
        spec.env = List.of(new ExtraEnvVar("DROVER_HTTP_URL", "https://x.example/?t=${drover.api.token}"));
        assertThat(SpecGuards.refusal(spec)).hasValue("spec.env[0].value: " + ExtraEnvVar.EXPRESSION_MESSAGE);
        spec.env = List.of(new ExtraEnvVar("DROVER_HTTP_URL", "https://x.example/?t=$5{}"));
        spec.jobTimeouts = java.util.Map.of("r${quarkus.datasource.password}", "1m");
        assertThat(SpecGuards.refusal(spec)).hasValueSatisfying(m -> assertThat(m).startsWith("spec.jobTimeouts: "));
        spec.jobTimeouts = java.util.Map.of("report", "1m");
        assertThat(SpecGuards.refusal(spec)).isEmpty();
    }

    /**
     * A Flowable cluster applied when the pool needed threads + 8 keeps that value under the new
     * CRD (ratcheting): rolled out, every new pod would refuse to start, so it is refused here.
     */
    @Test
    void aFlowablePoolTooSmallForItsThreadsIsRefusedNamingTheField() {
        ExecutorClusterSpec spec = new ExecutorClusterSpec();
        spec.engine = io.drover.operator.api.v1alpha1.Engine.Flowable;
        spec.threads = 16;
        spec.database = new io.drover.operator.api.v1alpha1.DatabaseSpec();
        spec.database.maxPoolSize = 24;
        assertThat(SpecGuards.refusal(spec)).hasValue("spec.database.maxPoolSize: must be at least threads + 9 = 25 with"
                + " engine Flowable (each running job holds a connection)");
        spec.database.maxPoolSize = 25;
        assertThat(SpecGuards.refusal(spec)).isEmpty();
        spec.database.maxPoolSize = null; // the operator sizes it
        assertThat(SpecGuards.refusal(spec)).isEmpty();
        spec.threads = null; // the default threads, 8
        spec.database.maxPoolSize = 16;
        assertThat(SpecGuards.refusal(spec)).hasValueSatisfying(m -> assertThat(m).contains("= 17 "));
        spec.engine = io.drover.operator.api.v1alpha1.Engine.Drover;
        assertThat(SpecGuards.refusal(spec)).isEmpty();
    }
}
