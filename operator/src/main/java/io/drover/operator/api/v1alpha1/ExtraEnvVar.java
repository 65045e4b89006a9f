package io.drover.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;

/**
 * One extra environment variable of the executor container: a plain value, or one key of a Secret
 * ({@code valueFrom.secretKeyRef}, e.g. the URL of a webhook, which carries its secret in its path,
 * or a handler's credentials). A Secret named here is used only if it carries the opt-in label
 * {@code drover.io/executor-secret=true}, as the database's and the API token's must: the operator
 * checks it, and fingerprints the value so that a rotation rolls the executors
 * (ReferencedSecrets). The API server refuses the other sources of {@code valueFrom} (a ConfigMap,
 * the pod's fields) and the variables the operator owns: the executor
 * settings that have their own field, the database connection, the API tokens and the JVM's option variables
 * (which would bypass the checks of {@code jvmOptions}), and the node's name (DROVER_NODENAME,
 * HOSTNAME): two pods with one name would release each other's locks. Names starting with '_'
 * are refused too: Quarkus reads _PROD_X as the profile property %prod.x, which wins over X; so
 * are the settings of how configuration is read, SMALLRYE_CONFIG_* and Quarkus's names for them,
 * QUARKUS_CONFIG_* (QUARKUS_CONFIG_LOG_VALUES, with SmallRye Config's log category at DEBUG,
 * logged every setting as it was read, the API tokens and the database password among them). And
 * the log settings that would write what callers send, or send logs off the node: an access log
 * pattern of {@code %{i,Authorization}} wrote every producer's API token into the pod's log (read
 * by anyone with pods/log) and, with a syslog or socket handler, to a host of the writer's choosing.
 * {@link #refused(String)} is the same rule in Java, for the operator's own check (a CRD
 * installed before a rule was added does not carry it). Names are compared as the executor's
 * configuration reads them: case-insensitive, with '.' and '-' as '_'.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(value = "!(has(self.value) && has(self.valueFrom))", fieldPath = ".valueFrom",
        message = "give either value or valueFrom.secretKeyRef, not both")
@ValidationRule(value = "!(self.name.upperAscii().replace('.', '_').replace('-', '_') in " + ExtraEnvVar.OWNED + ")"
        + " && (!self.name.upperAscii().replace('.', '_').replace('-', '_').startsWith('QUARKUS_DATASOURCE_')"
        + " || self.name.upperAscii().replace('.', '_').replace('-', '_') == '" + ExtraEnvVar.SOCKET_TIMEOUT + "')"
        + " && !self.name.upperAscii().replace('.', '_').replace('-', '_').startsWith('SMALLRYE_CONFIG_')"
        + " && !self.name.upperAscii().replace('.', '_').replace('-', '_').startsWith('QUARKUS_CONFIG_')"
        + " && !self.name.upperAscii().startsWith('LD_')"
        + " && !self.name.startsWith('_')",
        fieldPath = ".name",
        message = "this variable is set by the operator from the ExecutorCluster's own fields (executor settings, database,"
                + " API tokens, jvmOptions) or would change how the executor reads them (profiles, config sources):"
                + " set the field instead")
@ValidationRule(value = "!self.name.upperAscii().replace('.', '_').replace('-', '_').startsWith('QUARKUS_HTTP_ACCESS_LOG_')"
        + " && !self.name.upperAscii().replace('.', '_').replace('-', '_').startsWith('QUARKUS_LOG_SYSLOG_')"
        + " && !self.name.upperAscii().replace('.', '_').replace('-', '_').startsWith('QUARKUS_LOG_SOCKET_')"
        + " && !self.name.upperAscii().replace('.', '_').replace('-', '_').startsWith('QUARKUS_LOG_HANDLER_')",
        fieldPath = ".name", message = ExtraEnvVar.LOGGING_MESSAGE)
@ValidationRule(value = "!has(self.value) || !self.value.contains('${')", fieldPath = ".value",
        message = ExtraEnvVar.EXPRESSION_MESSAGE)
public class ExtraEnvVar {
    /**
     * The executor's configuration expands {@code ${name}} in every value it reads, environment
     * variables included: a value such as {@code https://x/?t=${drover.api.token}} handed the
     * cluster's API token, or the database password, to whoever wrote the ExecutorCluster,
     * through an http job's URL or a start-up error's termination message. ({@code $(VAR)}, the
     * kubelet's form, is written as a literal: {@code ExecutorStatefulSet.literal}.)
     */
    public static final String EXPRESSION_MESSAGE = "values may not contain '${': the executor's configuration would"
            + " expand it to another setting's value (the API token, the database password)";

    /** Why the log settings that could write callers' tokens, or ship logs away, are refused. */
    public static final String LOGGING_MESSAGE = "this variable would have the executor log what callers send (an access"
            + " log pattern can write their API tokens) or send its logs off the node (syslog, socket or named log"
            + " handlers): not settable; executors log to the console (QUARKUS_LOG_CONSOLE_* may be set) for the"
            + " cluster's log pipeline";

    /** Whether a value holds an expression the executor's configuration would expand. */
    public static boolean expands(String value) {
        return value != null && value.contains("${");
    }

    /**
     * Names the operator sets, normalized (upper case, '_' for '.' and '-'): the executor
     * settings of the pod template (ExecutorEnvironment), JAVA_TOOL_OPTIONS (jvmOptions) and the other
     * variables the JVM reads options from (JDK_AOT_VM_OPTIONS: the JVM that writes an AOT cache at
     * exit reads it as JAVA_TOOL_OPTIONS), and the API's two tokens (from the cluster's Secret; the
     * API's other settings, api.maxBatch and api.maxBodyBytesInFlight, are the writer's to give).
     * QUARKUS_DATASOURCE_* and LD_* are refused as prefixes: every LD_ variable is the dynamic loader's (LD_PRELOAD, LD_LIBRARY_PATH, LD_AUDIT
     * load a library of the author's choosing, e.g. a file mounted from a ConfigMap, into the JVM). ExecutorClusterSchemaTest.everyVariableTheOperatorSetsIsRefusedInEnv keeps this
     * in step with what the operator writes.
     */
    static final String OWNED = "['DROVER_LOCKMODE', 'DROVER_THREADS', 'DROVER_VIRTUALTHREADS', 'DROVER_QUEUESIZE',"
            + " 'DROVER_ACQUIREPAGESIZE', 'DROVER_ACQUIREINTERVAL', 'DROVER_GLOBALLOCKWAITTIME', 'DROVER_GLOBALLOCKPOLLINTERVAL',"
            + " 'DROVER_GLOBALLOCKMAXHOLD', 'DROVER_LOCKEXPIRY', 'DROVER_MAXATTEMPTS', 'DROVER_RETRYBACKOFF',"
            + " 'DROVER_RETRYBACKOFFMAX', 'DROVER_COMPLETIONBATCHSIZE', 'DROVER_SHUTDOWNGRACEPERIOD', 'DROVER_JOBTIMEOUT',"
            + " 'DROVER_JOBTIMEOUTS', 'DROVER_MAXCRASHES', 'DROVER_STARTUPTIMEOUT', 'DROVER_SCHEMA',"
            + " 'DROVER_NODENAME', 'DROVER_API_TOKEN', 'DROVER_API_READTOKEN', 'HOSTNAME', 'POD_NAMESPACE', 'QUARKUS_PROFILE', 'QUARKUS_CONFIG_LOCATIONS', 'QUARKUS_HTTP_PORT',"
            + " 'DROVER_TERMINATIONMESSAGEPATH', 'DROVER_HANDLERSDIR', 'DROVER_FLOWABLE_PROCESSESDIR', 'JAVA_TOOL_OPTIONS', 'JDK_JAVA_OPTIONS', '_JAVA_OPTIONS', 'JAVA_OPTS', 'JDK_AOT_VM_OPTIONS']";

    @Required
    @Size(min = 1, max = 256)
    @Pattern("^[A-Za-z_][A-Za-z0-9_.-]*$")
    @JsonPropertyDescription("Variable name, e.g. DROVER_HTTP_URL.")
    public String name;

    @Size(max = 32768)
    @JsonPropertyDescription("Its value.")
    public String value;

    @JsonPropertyDescription("Its value from a key of a Secret in the ExecutorCluster's namespace (secretKeyRef only). The"
            + " Secret must carry the label drover.io/executor-secret=true; a change of the value rolls the executors.")
    public ValueFrom valueFrom;

    /** Where a value comes from: one key of a Secret, nothing else (no ConfigMap, no field of the pod). */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public static class ValueFrom {
        @Required
        @JsonPropertyDescription("A key of a Secret in the ExecutorCluster's namespace, labelled drover.io/executor-secret=true.")
        public SecretKeyRef secretKeyRef;
    }

    /**
     * The one QUARKUS_DATASOURCE_ variable allowed: the shared pool's socket timeout (300 s in the
     * image), which docs/configuration.md tells users with handler queries longer than that to
     * raise; under the operator it was refused with the rest of the prefix, so they could not.
     */
    static final String SOCKET_TIMEOUT = "QUARKUS_DATASOURCE_JDBC_ADDITIONAL_JDBC_PROPERTIES_SOCKETTIMEOUT";

    /** Prefixes refused, normalized, as the first CEL name rule above lists them. */
    private static final java.util.List<String> REFUSED_PREFIXES = java.util.List.of("QUARKUS_DATASOURCE_",
            "SMALLRYE_CONFIG_", "QUARKUS_CONFIG_", "LD_");
    /** The log settings refused, normalized, as the second CEL name rule lists them ({@link #LOGGING_MESSAGE}). */
    private static final java.util.List<String> LOGGING_PREFIXES = java.util.List.of("QUARKUS_HTTP_ACCESS_LOG_",
            "QUARKUS_LOG_SYSLOG_", "QUARKUS_LOG_SOCKET_", "QUARKUS_LOG_HANDLER_");

    private static String normalized(String name) {
        return name.toUpperCase(java.util.Locale.ROOT).replace('.', '_').replace('-', '_');
    }

    /** The second name rule in Java: a log setting that could write callers' tokens or ship logs away. */
    public static boolean refusedLogging(String name) {
        String n = normalized(name);
        return LOGGING_PREFIXES.stream().anyMatch(n::startsWith);
    }

    private static final java.util.Set<String> OWNED_NAMES = java.util.Set.copyOf(java.util.Arrays.stream(
            OWNED.replaceAll("[\\[\\]' ]", "").split(",")).toList());

    /** The API server's rule in Java: whether the operator refuses this name. */
    public static boolean refused(String name) {
        String n = normalized(name);
        return OWNED_NAMES.contains(n) || !n.equals(SOCKET_TIMEOUT) && REFUSED_PREFIXES.stream().anyMatch(n::startsWith)
                || name.startsWith("_");
    }

    public ExtraEnvVar() {
    }

    public ExtraEnvVar(String name, String value) {
        this.name = name;
        this.value = value;
    }
}
