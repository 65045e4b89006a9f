package io.drover.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.drover.contract.FlowablePool;
import io.drover.contract.SettingChecks;
import io.drover.contract.SettingDefaults;
import io.drover.contract.SettingLimits;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.fabric8.kubernetes.model.annotation.SpecReplicas;

import java.util.List;
import java.util.Map;

/**
 * Desired state of an executor fleet. Executor settings carry the executor's own names
 * (docs/configuration.md); a setting left out here takes the executor's default, except the
 * few defaulted below so that {@code kubectl get ec} shows them. Durations use the Kubernetes
 * form ("30s", "1m30s", "500ms") so CEL rules can compare them.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(value = "!has(self.acquirePageSize) || !has(self.queueSize) || self.acquirePageSize <= self.queueSize",
        message = "acquirePageSize must not exceed queueSize", fieldPath = ".acquirePageSize")
// In milliseconds, not whole seconds: getSeconds() dropped a fraction, so shutdownGracePeriod
// 30.9s with 40 left the node 9.1s. (getMilliseconds is the whole duration's.)
@ValidationRule(value = "!has(self.terminationGracePeriodSeconds) || self.terminationGracePeriodSeconds * 1000 >= "
        + "(has(self.shutdownGracePeriod) ? duration(self.shutdownGracePeriod).getMilliseconds() : has(self.maxJobDuration)"
        + " ? duration(self.maxJobDuration).getMilliseconds() + 10000 : 30000) + 10000",
        message = "terminationGracePeriodSeconds must exceed the shutdown grace period (shutdownGracePeriod; else maxJobDuration"
                + " plus 10s; else 30s) by at least 10s: after it a stopping node still writes its last outcomes and"
                + " releases its locks, or the kubelet kills it first",
        fieldPath = ".terminationGracePeriodSeconds")
// A terminationGracePeriodSeconds alone (engine Drover, neither shutdownGracePeriod nor
// maxJobDuration) caps the shutdown grace period the operator derives from the longest job
// timeout (GracePeriods): every scale-down, roll and drain would then cut the longer jobs and run
// them again elsewhere, with nothing in the spec saying so. 20s = GracePeriods' SHUTDOWN_MARGIN
// plus LEAST_TERMINATION_MARGIN. (A node with no long job still stops at once.)
@ValidationRule(value = "self.engine == 'Flowable' || !has(self.terminationGracePeriodSeconds) || has(self.shutdownGracePeriod)"
        + " || has(self.maxJobDuration) || (self.terminationGracePeriodSeconds * 1000 >= duration(has(self.jobTimeout) ? self.jobTimeout"
        + " : '" + SettingDefaults.JOB_TIMEOUT + "').getMilliseconds() + 20000 && (!has(self.jobTimeouts) || self.jobTimeouts.all(type,"
        + " self.terminationGracePeriodSeconds * 1000 >= duration(self.jobTimeouts[type]).getMilliseconds() + 20000)))",
        message = "terminationGracePeriodSeconds must exceed the longest job timeout (jobTimeout, executor default "
                + SettingDefaults.JOB_TIMEOUT + ", and every jobTimeouts entry) by at least 20s, or every scale-down, roll and drain"
                + " cuts the jobs that run longer: declare maxJobDuration (the longest a job runs), or set shutdownGracePeriod to"
                + " choose how long a stopping node lets its jobs run",
        fieldPath = ".terminationGracePeriodSeconds")
// Against the executor's default when retryBackoffMax is left out, as the executor checks it
// (it refuses to start otherwise); Flowable has no retryBackoffMax.
@ValidationRule(value = "self.engine == 'Flowable' || !has(self.retryBackoff) || duration(self.retryBackoff)"
        + " <= duration(has(self.retryBackoffMax) ? self.retryBackoffMax : '" + SettingDefaults.RETRY_BACKOFF_MAX + "')",
        message = "retryBackoff must not exceed retryBackoffMax (executor default " + SettingDefaults.RETRY_BACKOFF_MAX + ")",
        fieldPath = ".retryBackoff")
@ValidationRule(value = "!has(self.maxJobDuration) || !has(self.shutdownGracePeriod) || duration(self.shutdownGracePeriod) >= duration(self.maxJobDuration)",
        message = "shutdownGracePeriod must be at least maxJobDuration, or a stopping node (scale-down, roll, drain) cuts its running jobs",
        fieldPath = ".shutdownGracePeriod")
@ValidationRule(value = "!has(self.maxJobDuration) || !has(self.jobTimeout) || duration(self.jobTimeout) <= duration(self.maxJobDuration)",
        message = "jobTimeout must not exceed maxJobDuration: a job may run until its timeout, and a stopping node waits only maxJobDuration",
        fieldPath = ".jobTimeout")
@ValidationRule(value = "!has(self.maxJobDuration) || !has(self.jobTimeouts)"
        + " || self.jobTimeouts.all(type, duration(self.jobTimeouts[type]) <= duration(self.maxJobDuration))",
        // A static message: listing the offending types would cost the API server more than a CRD may
        // spend (map keys have no length bound), and the apiserver refuses such a CRD.
        message = "every jobTimeouts entry must be at most maxJobDuration: a job may run until its timeout, and a"
                + " stopping node waits only maxJobDuration",
        fieldPath = ".jobTimeouts")
@ValidationRule(value = "!self.autoscaling.enabled || !has(self.queueSize) || self.queueSize <= self.autoscaling.targetBacklogPerNode",
        message = "queueSize must not exceed autoscaling.targetBacklogPerNode: jobs queued on a node are held, so the backlog"
                + " KEDA sees does not count them, and a node could hide more than a node's worth of work from the autoscaler",
        fieldPath = ".queueSize")
@ValidationRule(value = "self.engine != 'Flowable' || self.lockMode != 'SkipLocked'",
        message = "lockMode SkipLocked is not available with engine Flowable (Flowable has no SKIP LOCKED acquisition):"
                + " use Global (Flowable's global acquire lock) or Optimistic", fieldPath = ".lockMode")
@ValidationRule(value = "self.engine != 'Flowable' || !has(self.virtualThreads)",
        message = ExecutorClusterSpec.FLOWABLE_HAS_NO + "virtualThreads", fieldPath = ".virtualThreads")
@ValidationRule(value = "self.engine != 'Flowable' || !has(self.retryBackoffMax)",
        message = ExecutorClusterSpec.FLOWABLE_HAS_NO + "retryBackoffMax (it waits retryBackoff before every retry)", fieldPath = ".retryBackoffMax")
@ValidationRule(value = "self.engine != 'Flowable' || !has(self.completionBatchSize)",
        message = ExecutorClusterSpec.FLOWABLE_HAS_NO + "completionBatchSize", fieldPath = ".completionBatchSize")
@ValidationRule(value = "self.engine != 'Flowable' || !has(self.jobTimeout)",
        message = ExecutorClusterSpec.FLOWABLE_HAS_NO + "jobTimeout", fieldPath = ".jobTimeout")
@ValidationRule(value = "self.engine != 'Flowable' || !has(self.jobTimeouts)",
        message = ExecutorClusterSpec.FLOWABLE_HAS_NO + "jobTimeouts", fieldPath = ".jobTimeouts")
@ValidationRule(value = "self.engine != 'Flowable' || !has(self.maxCrashes)",
        message = ExecutorClusterSpec.FLOWABLE_HAS_NO + "maxCrashes", fieldPath = ".maxCrashes")
@ValidationRule(value = "self.engine != 'Flowable' || !has(self.retryBackoff) || duration(self.retryBackoff) >= duration('1s')",
        message = "retryBackoff must be at least 1s with engine Flowable (Flowable waits whole seconds)", fieldPath = ".retryBackoff")
@ValidationRule(value = "self.engine != 'Flowable' || !has(self.retryBackoff) || duration(self.retryBackoff).getMilliseconds() % 1000 == 0",
        message = "retryBackoff must be whole seconds with engine Flowable (Flowable waits whole seconds)", fieldPath = ".retryBackoff")
@ValidationRule(value = "self.engine != 'Flowable' || !has(self.shutdownGracePeriod) || duration(self.shutdownGracePeriod).getMilliseconds() % 1000 == 0",
        message = "shutdownGracePeriod must be whole seconds with engine Flowable (Flowable waits whole seconds)", fieldPath = ".shutdownGracePeriod")
@ValidationRule(value = "self.engine != 'Flowable' || !has(self.retryBackoff) || duration(self.retryBackoff) <= duration('"
        + SettingLimits.MAX_FLOWABLE_RETRY_BACKOFF + "')",
        message = "retryBackoff must be at most " + SettingLimits.MAX_FLOWABLE_RETRY_BACKOFF + " with engine Flowable"
                + " (Flowable waits int seconds)", fieldPath = ".retryBackoff")
@ValidationRule(value = "self.engine != 'Flowable' || !has(self.database.maxPoolSize) || self.database.maxPoolSize >= self.threads + "
        + FlowablePool.SPARE_CONNECTIONS,
        message = "database.maxPoolSize must be at least threads + " + FlowablePool.SPARE_CONNECTIONS + " with engine Flowable:"
                + " each running Flowable job holds a connection (left out, the operator sizes the pool so)",
        fieldPath = ".database.maxPoolSize")
@ValidationRule(value = "(has(self.schema) ? self.schema : '" + SettingDefaults.SCHEMA + "') == (has(oldSelf.schema) ? oldSelf.schema : '"
        + SettingDefaults.SCHEMA + "')",
        message = "schema cannot change on an existing ExecutorCluster: the jobs waiting in the old schema's tables would"
                + " be left behind; create another cluster", fieldPath = ".schema")
@ValidationRule(value = "self.engine != 'Flowable' || !has(self.apiTokenSecret)",
        message = ExecutorClusterSpec.FLOWABLE_HAS_NO + "apiTokenSecret (the Flowable executor serves no job API: start processes through Flowable)",
        fieldPath = ".apiTokenSecret")
public class ExecutorClusterSpec {
    /** The start of the message of each Drover setting the Flowable engine has no equivalent for (docs/engines.md). */
    static final String FLOWABLE_HAS_NO = "not available with engine Flowable, which has no equivalent: ";

    /**
     * JVM options an ExecutorCluster author may set: an allow-list, since the JVM reads far more
     * than a deny-list can keep up with (agents, JMX remote, -XX:OnError commands, option files,
     * quotes it strips inside a token, %profile. properties). Heap and stack sizes (a size that
     * starts with 1-9: -Xmx0 starts no JVM; the JVM's own minimums, a few MB of heap and about
     * 200k of stack, are left to its message), -XX flags (except the ones in JVM_XX_REFUSED),
     * -Xlog, -Xshare and a few harmless -D properties; tokens separated by plain spaces. RE2 and java.util.regex read it alike (no backslashes: CEL would need
     * them doubled). ExecutorStatefulSet checks it again: Helm never upgrades a CRD.
     */
    public static final String JVM_OPTIONS_ALLOWED = "^ *((-Xm[sxn][1-9][0-9]*[kKmMgGtT]?|-Xss[1-9][0-9]*[kKmMgGtT]?"
            + "|-XX:[+-]?[A-Za-z][A-Za-z0-9_]*(=[A-Za-z0-9._:,/+-]*)?|-Xlog:[A-Za-z0-9_.:,=+*/-]*|-Xshare:(auto|off|on)"
            + "|-D(user[.]timezone|file[.]encoding|java[.]net[.]preferIPv4Stack|java[.]net[.]preferIPv6Addresses"
            + "|jdk[.]virtualThreadScheduler[.](parallelism|maxPoolSize))=[A-Za-z0-9._/+-]*)( +|$))*$";
    /**
     * -XX flags that run commands, read option files, open the JVM to other processes, load or
     * write class archives (AOT caches, CDS archives: a crafted archive, e.g. mounted from a
     * ConfigMap, is code the JVM runs), or load a JVMCI compiler (JVMCILibPath names a native
     * library).
     */
    public static final String JVM_XX_REFUSED = "-XX:[+-]?(OnError|OnOutOfMemoryError|Flags|VMOptionsFile|StartAttachListener"
            + "|EnableDynamicAgentLoading|CRaCCheckpointTo|CRaCRestoreFrom|AOT[A-Za-z]*|SharedArchiveFile|ArchiveClassesAtExit"
            + "|SharedClassListFile|SharedArchiveConfigFile|ExtraSharedClassListFile|DumpLoadedClassList|[A-Za-z]*JVMCI[A-Za-z]*)";
    /**
     * -XX flags the executor image's entrypoint sets on the java command line, which the JVM reads
     * after JAVA_TOOL_OPTIONS (jvmOptions): given here they would be ignored without a word.
     * Refused by the CRD only (the operator's SpecGuards, for trust, let them pass: they are
     * harmless, just without effect).
     */
    public static final String JVM_IMAGE_FLAGS = "-XX:[+-]?(MaxRAMPercentage|ExitOnOutOfMemoryError)([= ]|$)";
    public static final String JVM_IMAGE_FLAGS_MESSAGE = "jvmOptions may not set -XX:MaxRAMPercentage or -XX:ExitOnOutOfMemoryError:"
            + " the executor image's entrypoint sets them (75, on), and the JVM reads its command line after jvmOptions,"
            + " so they would have no effect; size the heap with -Xmx (which wins over the percentage), e.g. -Xmx3g";
    public static final String JVM_OPTIONS_MESSAGE = "jvmOptions may hold only heap and stack sizes (-Xms, -Xmx, -Xmn, -Xss, each a size that starts with 1-9, e.g. -Xmx2g),"
            + " -XX flags (not OnError, OnOutOfMemoryError, Flags, VMOptionsFile, StartAttachListener,"
            + " EnableDynamicAgentLoading, the AOT and CDS archive files, JVMCI), -Xlog, -Xshare and the properties -Duser.timezone, -Dfile.encoding,"
            + " -Djava.net.preferIPv4Stack, -Djava.net.preferIPv6Addresses and -Djdk.virtualThreadScheduler.*, separated"
            + " by spaces: no agents, commands, option files, quotes or other properties (use the ExecutorCluster's fields)";

    /**
     * A Kubernetes quantity without a sign: "500m", "2", "1.5", "4Gi", "1e3". The API server's
     * grammar, with the exponent an integer of at most three digits (its parser refuses a
     * fractional one); no backslash, so that it reads the same in a CEL string.
     */
    public static final String QUANTITY = "^(([0-9]+([.][0-9]*)?)|([.][0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE][+-]?[0-9]{1,3}))?$";

    /**
     * Go duration syntax, which CEL's duration() accepts: one or more number+unit pairs, each a
     * whole number of nanoseconds (at most 6 decimals of ms, 9 of s, 10 of m, 11 of h). A finer
     * fraction is refused: CEL (Go's time.ParseDuration) truncates it in floating point, which past
     * these decimals can part from the exact value by a nanosecond, and once the operator rounded it
     * (KubeDurations): "24h0.0000000006s" passed the 24h rule as 24h and reached the executor as
     * 24h plus 1ns, which it refused.
     */
    public static final String DURATION = "^([0-9]+(\\.[0-9]{1,6})?ms|[0-9]+(\\.[0-9]{1,9})?s|[0-9]+(\\.[0-9]{1,10})?m"
            + "|[0-9]+(\\.[0-9]{1,11})?h)+$";

    /**
     * The longest duration the executors take (SettingChecks.LONGEST: Go's longest, in whole
     * hours; their engines count deadlines in nanoseconds), the maximum of every duration setting
     * without a lower one of its own. Past it the executor refuses to start, which the API server
     * cannot see: the spec was admitted and the nodes crash-looped.
     */
    static final String LONGEST = SettingChecks.LONGEST;
    static final String LONGEST_MESSAGE = " must be at most " + LONGEST + " (the executor's longest duration)";

    /** The node count of a spec that names none (the CRD's default). */
    public static final int DEFAULT_REPLICAS = 2;

    @SpecReplicas
    @Default("" + DEFAULT_REPLICAS)
    @Min(0)
    @Max(1000)
    @JsonPropertyDescription("Number of executor nodes (pods). Ignored while autoscaling is enabled: the autoscaler then owns the count.")
    public Integer replicas;

    // The StatefulSet takes an image with surrounding whitespace, but its pods do not ("must not
    // have leading or trailing whitespace"): a roll deleted a pod and never made it again. CEL's
    // trim() is Go's strings.TrimSpace, which the API server's check uses.
    @Size(min = 1, max = 512)
    @ValidationRule(value = "self == self.trim()",
            message = "image must not begin or end with whitespace: the API server refuses a pod with such an image")
    @JsonPropertyDescription("Executor image. Defaults to the image the operator was released with.")
    public String image;

    @Pattern("^(Always|IfNotPresent|Never)$")
    @JsonPropertyDescription("Image pull policy of the executor container: Always, IfNotPresent or Never.")
    public String imagePullPolicy;

    @Default("Drover")
    @ValidationRule(value = "self == oldSelf", message = "engine cannot change on an existing ExecutorCluster: the jobs"
            + " waiting in one engine's tables would be left behind; create another cluster")
    @JsonPropertyDescription("The job engine the nodes run: Drover (its own job table) or Flowable (Flowable's async executor"
            + " over a Flowable process engine's job tables, the settings mapped onto Flowable's: docs/engines.md).")
    public Engine engine;

    @Default(SettingDefaults.LOCK_MODE)
    @JsonPropertyDescription("How nodes coordinate acquisition: Global (one node acquires at a time), Optimistic (version-checked claims), SkipLocked (FOR UPDATE SKIP LOCKED; engine Drover only).")
    public LockMode lockMode;

    @Default(SettingDefaults.THREADS)
    @Min(1)
    @Max(SettingLimits.MAX_THREADS)
    @JsonPropertyDescription("Worker threads per node.")
    public Integer threads;

    @JsonPropertyDescription("Run the worker threads as virtual threads (for I/O-bound handlers). Executor default " + SettingDefaults.VIRTUAL_THREADS + ".")
    public Boolean virtualThreads;

    @Default(SettingDefaults.QUEUE_SIZE)
    @Min(1)
    @Max(SettingLimits.MAX_QUEUE_SIZE)
    @JsonPropertyDescription("Jobs a node may hold acquired but not yet started.")
    public Integer queueSize;

    @Default(SettingDefaults.ACQUIRE_PAGE_SIZE)
    @Min(1)
    @Max(SettingLimits.MAX_ACQUIRE_PAGE_SIZE)
    @JsonPropertyDescription("Most jobs locked per acquisition cycle; must not exceed queueSize.")
    public Integer acquirePageSize;

    @Pattern(DURATION)
    @Size(max = 32)
    @JsonPropertyDescription("Longest idle sleep between acquisition cycles (bounds timer lateness). Executor default " + SettingDefaults.ACQUIRE_INTERVAL + ".")
    @ValidationRule(value = "duration(self) >= duration('1ms')", message = "acquireInterval must be at least 1ms")
    @ValidationRule(value = "duration(self) <= duration('" + SettingLimits.MAX_WAIT + "')", message = "acquireInterval must be at most "
            + SettingLimits.MAX_WAIT)
    public String acquireInterval;

    @Pattern(DURATION)
    @Size(max = 32)
    @JsonPropertyDescription("Global lockMode: how long a node waits for the acquire lock per cycle. Executor default " + SettingDefaults.GLOBAL_LOCK_WAIT_TIME + ".")
    @ValidationRule(value = "duration(self) >= duration('1ms')", message = "globalLockWaitTime must be at least 1ms")
    @ValidationRule(value = "duration(self) <= duration('" + SettingLimits.MAX_WAIT + "')", message = "globalLockWaitTime must be at most "
            + SettingLimits.MAX_WAIT)
    public String globalLockWaitTime;

    @Pattern(DURATION)
    @Size(max = 32)
    @JsonPropertyDescription("Global lockMode: pause between tries for the acquire lock. Executor default " + SettingDefaults.GLOBAL_LOCK_POLL_INTERVAL + ".")
    @ValidationRule(value = "duration(self) >= duration('1ms')", message = "globalLockPollInterval must be at least 1ms")
    @ValidationRule(value = "duration(self) <= duration('" + SettingLimits.MAX_WAIT + "')", message = "globalLockPollInterval must be at most "
            + SettingLimits.MAX_WAIT)
    public String globalLockPollInterval;

    @Pattern(DURATION)
    @Size(max = 32)
    @JsonPropertyDescription("Global lockMode: the database ends a lock holder idle or busy longer than this. Executor default " + SettingDefaults.GLOBAL_LOCK_MAX_HOLD + ".")
    @ValidationRule(value = "duration(self) >= duration('1ms')", message = "globalLockMaxHold must be at least 1ms")
    @ValidationRule(value = "duration(self) <= duration('" + SettingLimits.MAX_GLOBAL_LOCK_MAX_HOLD + "')",
            message = "globalLockMaxHold must be at most " + SettingLimits.MAX_GLOBAL_LOCK_MAX_HOLD
                    + " (it is PostgreSQL's statement_timeout of the global lock's holder)")
    public String globalLockMaxHold;

    @Pattern(DURATION)
    @Size(max = 32)
    @ValidationRule(value = "duration(self) >= duration('" + SettingLimits.MIN_LOCK_EXPIRY + "')",
            message = "lockExpiry must be at least " + SettingLimits.MIN_LOCK_EXPIRY)
    @ValidationRule(value = "duration(self) <= duration('" + SettingLimits.MAX_LOCK_EXPIRY + "')",
            message = "lockExpiry must be at most " + SettingLimits.MAX_LOCK_EXPIRY
                    + " (a dead node's jobs wait this long; half of it is PostgreSQL's statement_timeout of the engine's connections)")
    @JsonPropertyDescription("Lifetime of a job lock, renewed every lockExpiry/4; a crashed node's jobs run again after about this long. At least 4s. Executor default " + SettingDefaults.LOCK_EXPIRY + ".")
    public String lockExpiry;

    @Min(1)
    @Max(SettingLimits.MAX_ATTEMPTS)
    @JsonPropertyDescription("Attempts for jobs enqueued without their own maxAttempts. Executor default " + SettingDefaults.MAX_ATTEMPTS + ".")
    public Integer maxAttempts;

    @Pattern(DURATION)
    @Size(max = 32)
    @JsonPropertyDescription("First retry delay; doubles per attempt with jitter. Executor default " + SettingDefaults.RETRY_BACKOFF + ".")
    @ValidationRule(value = "duration(self) >= duration('1ms')", message = "retryBackoff must be at least 1ms")
    @ValidationRule(value = "duration(self) <= duration('" + LONGEST + "')", message = "retryBackoff" + LONGEST_MESSAGE)
    public String retryBackoff;

    @Pattern(DURATION)
    @Size(max = 32)
    @JsonPropertyDescription("Cap on the retry delay. Executor default " + SettingDefaults.RETRY_BACKOFF_MAX + ".")
    @ValidationRule(value = "duration(self) >= duration('1ms')", message = "retryBackoffMax must be at least 1ms")
    @ValidationRule(value = "duration(self) <= duration('" + LONGEST + "')", message = "retryBackoffMax" + LONGEST_MESSAGE)
    public String retryBackoffMax;

    @Min(1)
    @Max(SettingLimits.MAX_COMPLETION_BATCH_SIZE)
    @JsonPropertyDescription("Most job outcomes written per completion transaction. Executor default " + SettingDefaults.COMPLETION_BATCH_SIZE + ".")
    public Integer completionBatchSize;

    @Pattern(DURATION)
    @Size(max = 32)
    @JsonPropertyDescription("On shutdown, how long running jobs may take to finish. Must be at least 10s shorter than terminationGracePeriodSeconds (the stop may run 7s past it). Default maxJobDuration plus 10s; else, with engine Drover, the longest job timeout (jobTimeout, executor default " + SettingDefaults.JOB_TIMEOUT + ", and every jobTimeouts entry) plus 10s, within terminationGracePeriodSeconds if set, so that a scale-down never cuts a running job; else the executor's " + SettingDefaults.SHUTDOWN_GRACE_PERIOD + ".")
    @ValidationRule(value = "duration(self) >= duration('" + SettingLimits.MIN_SHUTDOWN_GRACE_PERIOD + "')",
            message = "shutdownGracePeriod must be at least " + SettingLimits.MIN_SHUTDOWN_GRACE_PERIOD)
    @ValidationRule(value = "duration(self) <= duration('" + LONGEST + "')", message = "shutdownGracePeriod" + LONGEST_MESSAGE)
    public String shutdownGracePeriod;

    @Pattern(DURATION)
    @Size(max = 32)
    @JsonPropertyDescription("The longest a job of this cluster runs. A stopping node (scale-down, roll, drain) lets its running jobs finish for this long: it sets the defaults of jobTimeout (the same; engine Drover), shutdownGracePeriod (10s more) and terminationGracePeriodSeconds (shutdownGracePeriod plus 30s).")
    @ValidationRule(value = "duration(self) >= duration('1ms')", message = "maxJobDuration must be at least 1ms")
    // shutdownGracePeriod defaults to maxJobDuration plus 10s (GracePeriods), which must fit too.
    @ValidationRule(value = "duration(self) <= duration('" + LONGEST + "') - duration('10s')",
            message = "maxJobDuration must be at most " + LONGEST + " less 10s: shutdownGracePeriod defaults to maxJobDuration"
                    + " plus 10s, and " + LONGEST + " is the executor's longest duration")
    public String maxJobDuration;

    @Pattern(DURATION)
    @Size(max = 32)
    @JsonPropertyDescription("Longest run of one job: past it the handler is interrupted and the run counts as a failed attempt; a handler that ignores the interrupt has its worker thread replaced. Default maxJobDuration, else the executor's " + SettingDefaults.JOB_TIMEOUT + ".")
    @ValidationRule(value = "duration(self) >= duration('1ms')", message = "jobTimeout must be at least 1ms")
    @ValidationRule(value = "duration(self) <= duration('" + LONGEST + "')", message = "jobTimeout" + LONGEST_MESSAGE)
    public String jobTimeout;

    @Size(max = 100)
    @ValidationRule(value = "self.all(type, duration(self[type]) >= duration('1ms'))", message = "every jobTimeouts entry must be at least 1ms")
    @ValidationRule(value = "self.all(type, duration(self[type]) <= duration('" + LONGEST + "'))",
            message = "every jobTimeouts entry" + LONGEST_MESSAGE)
    @JsonPropertyDescription("jobTimeout per job type, e.g. {report: 2h, http: 30s}; types not listed use jobTimeout.")
    public Map<String, @Pattern(DURATION) @Size(max = 32) String> jobTimeouts;

    @Min(1)
    @Max(SettingLimits.MAX_CRASHES)
    @JsonPropertyDescription("Node deaths during watched runs of one job (it is watched once a node died holding it) after which the job is dead-lettered as poison; its decisive run runs alone on its node. Executor default " + SettingDefaults.MAX_CRASHES + ".")
    public Integer maxCrashes;

    @Pattern(DURATION)
    @Size(max = 32)
    @JsonPropertyDescription("How long a starting node keeps retrying the database (connection, migrations) before it exits with the cause; meanwhile it is alive but not ready. Executor default " + SettingDefaults.STARTUP_TIMEOUT + ".")
    @ValidationRule(value = "duration(self) >= duration('" + SettingLimits.MIN_STARTUP_TIMEOUT + "')",
            message = "startupTimeout must be at least " + SettingLimits.MIN_STARTUP_TIMEOUT)
    @ValidationRule(value = "duration(self) <= duration('" + LONGEST + "')", message = "startupTimeout" + LONGEST_MESSAGE)
    public String startupTimeout;

    @Pattern("^[a-z_][a-z0-9_]{0,49}$")
    @JsonPropertyDescription("PostgreSQL schema of the job tables (lower-case identifier, at most 50 characters). Executor default " + SettingDefaults.SCHEMA + ".")
    public String schema;

    @Required
    @JsonPropertyDescription("The PostgreSQL database (e.g. Amazon RDS) the executors work from.")
    public DatabaseSpec database;

    @JsonPropertyDescription("Secret key holding the read-write bearer token of the executors' HTTP API. Without it the operator generates Secret <name>-api with a read-write token (key token) and a read-only one (key readToken); the API is closed to calls without a token.")
    public SecretKeyRef apiTokenSecret;

    // The schema's pattern (api/schema/QuantitySchema, which also bounds the maps and values so
    // that these rules fit the API server's cost budget) comes first in each rule: the API
    // server's quantity functions took over ten seconds on "1e99999999999", and CEL rules run even
    // when a value fails its pattern. isQuantity then decides what the pattern lets through.
    @ValidationRule(value = "!has(self.limits) || self.limits.all(r, !string(self.limits[r]).matches('" + QUANTITY + "')"
            + " || isQuantity(string(self.limits[r])))",
            message = "every resources.limits value must be a quantity such as 500m, 2 or 4Gi", fieldPath = ".limits")
    @ValidationRule(value = "!has(self.requests) || self.requests.all(r, !string(self.requests[r]).matches('" + QUANTITY + "')"
            + " || isQuantity(string(self.requests[r])))",
            message = "every resources.requests value must be a quantity such as 500m, 2 or 4Gi", fieldPath = ".requests")
    @ValidationRule(value = "!has(self.limits) || !has(self.requests) || self.requests.all(r, !(r in self.limits)"
            + " || !string(self.requests[r]).matches('" + QUANTITY + "') || !string(self.limits[r]).matches('" + QUANTITY + "')"
            + " || !isQuantity(string(self.requests[r])) || !isQuantity(string(self.limits[r]))"
            + " || quantity(string(self.requests[r])).compareTo(quantity(string(self.limits[r]))) <= 0)",
            message = "resources.requests must not exceed resources.limits for the same resource: the API server refuses"
                    + " such a pod, so no executor would start",
            fieldPath = ".requests")
    // Hugepages and extended resources (a name with a '/', e.g. example.com/gpu) cannot be
    // overcommitted: the API server refuses a pod whose request differs from its limit, or has no limit.
    @ValidationRule(value = "!has(self.requests) || self.requests.all(r, !(r.startsWith('hugepages-') || r.contains('/'))"
            + " || !string(self.requests[r]).matches('" + QUANTITY + "') || !isQuantity(string(self.requests[r]))"
            + " || (has(self.limits) && r in self.limits && (!string(self.limits[r]).matches('" + QUANTITY + "')"
            + " || !isQuantity(string(self.limits[r]))"
            + " || quantity(string(self.requests[r])).compareTo(quantity(string(self.limits[r]))) == 0)))",
            message = "resources.requests of hugepages and extended resources (e.g. hugepages-2Mi, example.com/gpu) must"
                    + " equal their resources.limits: the API server allows no overcommit of them, so no executor would start",
            fieldPath = ".requests")
    // Extended resources (a name with a '/') are counted devices: the API server refuses a
    // fractional amount ("must be an integer"), e.g. example.com/gpu: 500m.
    @ValidationRule(value = "!has(self.limits) || self.limits.all(r, !r.contains('/')"
            + " || !string(self.limits[r]).matches('" + QUANTITY + "') || !isQuantity(string(self.limits[r]))"
            + " || quantity(string(self.limits[r])).isInteger())",
            message = "resources.limits of extended resources (a name with a '/', e.g. example.com/gpu) must be whole"
                    + " numbers such as 1 or 2, not 500m: the API server refuses a fraction of a device",
            fieldPath = ".limits")
    @ValidationRule(value = "!has(self.requests) || self.requests.all(r, !r.contains('/')"
            + " || !string(self.requests[r]).matches('" + QUANTITY + "') || !isQuantity(string(self.requests[r]))"
            + " || quantity(string(self.requests[r])).isInteger())",
            message = "resources.requests of extended resources (a name with a '/', e.g. example.com/gpu) must be whole"
                    + " numbers such as 1 or 2, not 500m: the API server refuses a fraction of a device",
            fieldPath = ".requests")
    @JsonPropertyDescription("CPU and memory of each executor container: quantities such as 500m, 2, 4Gi. Default sized for one node per c5.2xlarge (8 vCPU, 16 GiB).")
    public ResourceRequirements resources;

    @Size(max = 4096)
    @ValidationRule(value = "self.matches('" + JVM_OPTIONS_ALLOWED + "') && !self.matches('" + JVM_XX_REFUSED + "')",
            message = JVM_OPTIONS_MESSAGE)
    @ValidationRule(value = "!self.matches('" + JVM_IMAGE_FLAGS + "')", message = JVM_IMAGE_FLAGS_MESSAGE)
    @JsonPropertyDescription("JVM options of the executor (JAVA_TOOL_OPTIONS), e.g. -Xmx3g -XX:+UseZGC: heap and stack sizes, -XX flags, -Xlog, -Xshare and a few -D properties (user.timezone, file.encoding, java.net.preferIPv4Stack/IPv6Addresses, jdk.virtualThreadScheduler.*).")
    public String jvmOptions;

    @Size(max = 100)
    @JsonPropertyDescription("Extra environment variables of the executor container, e.g. DROVER_HTTP_URL: a plain value, or valueFrom.secretKeyRef of a Secret labelled drover.io/executor-secret=true. The variables the operator sets are refused.")
    public List<ExtraEnvVar> env;

    @Default("{}")
    @JsonPropertyDescription("Where executor pods run. By default only on c5-class nodes, spread across nodes.")
    public PlacementSpec placement;

    @Default("{}")
    @JsonPropertyDescription("Scale the node count on the due-job backlog with KEDA.")
    public AutoscalingSpec autoscaling;

    @Default("{}")
    @JsonPropertyDescription("PodDisruptionBudget of the executor pods.")
    public DisruptionBudgetSpec disruptionBudget;

    @Default("{}")
    @JsonPropertyDescription("NetworkPolicy of the executor pods: who may reach their HTTP port, where they may connect.")
    public NetworkPolicySpec networkPolicy;

    @Min(1)
    @Max(86400)
    @JsonPropertyDescription("Seconds a stopping pod gets before it is killed: at least 10s more than the shutdown grace period, so running jobs finish and the node releases its locks (with engine Drover and neither maxJobDuration nor shutdownGracePeriod set, at least 20s more than the longest job timeout). Default shutdownGracePeriod plus 30s (with engine Drover and neither maxJobDuration nor shutdownGracePeriod set, 15m40s at the default jobTimeout).")
    public Long terminationGracePeriodSeconds;
}
