package io.drover.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.drover.contract.SettingDefaults;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;

/** Where the jobs live. Credentials come only from a Secret: they never appear in the CR. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(value = "!(self.sslMode in ['verify-ca', 'verify-full']) || has(self.caBundle)", fieldPath = ".caBundle",
        message = "sslMode verify-ca and verify-full need caBundle: the CA certificates that signed the server's certificate"
                + " (for RDS, the RDS CA bundle in a ConfigMap)")
public class DatabaseSpec {
    @Required
    @Size(min = 1, max = 253)
    @Pattern("^[A-Za-z0-9.:_-]+$")
    // A colon only in an IPv6 address: "db:5433" would end up in the JDBC URL, and "a:b:c" in the
    // NetworkPolicy's CIDR (host/128), which the API server refuses, and every later change with
    // it; digits and dots only must be an IPv4 address.
    @ValidationRule(value = "!self.contains(':') || isIP(self)",
            message = "database.host takes a host name or an IP address without a port: give the port in database.port")
    @ValidationRule(value = "!self.matches('^[0-9.]+$') || self.matches('^(" + OCTET + "[.]){3}" + OCTET + "$')",
            message = "database.host is digits and dots but not an IPv4 address")
    @JsonPropertyDescription("Host name or IP address of the PostgreSQL server, without a port (database.port), e.g. the RDS endpoint.")
    public String host;

    private static final String OCTET = "(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])";
    /** What Kubernetes allows as a Secret's or ConfigMap's name (a DNS subdomain). */
    static final String OBJECT_NAME = "^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$";
    /** What Kubernetes allows as a key of a Secret's or ConfigMap's data. */
    static final String DATA_KEY = "^[-._a-zA-Z0-9]+$";

    /** The port and sslMode a spec that names none gets: the CRD's defaults, and the operator's for a spec read before the server defaulted it. */
    public static final int DEFAULT_PORT = 5432;
    public static final String DEFAULT_SSL_MODE = "require";

    @Default("" + DEFAULT_PORT)
    @Min(1)
    @Max(65535)
    @JsonPropertyDescription("PostgreSQL port.")
    public Integer port;

    @Required
    @Size(min = 1, max = 63)
    @Pattern("^[A-Za-z0-9_-]+$")
    @JsonPropertyDescription("Database name.")
    public String name;

    /**
     * Default require: never plaintext unless asked for in writing. prefer and allow fall back
     * to plaintext silently; require encrypts but trusts any server certificate; verify-ca and
     * verify-full check it against caBundle (verify-full also checks the host name).
     */
    @Default(DEFAULT_SSL_MODE)
    @Pattern("^(disable|allow|prefer|require|verify-ca|verify-full)$")
    @JsonPropertyDescription("libpq sslmode of the executors' and KEDA's connections: disable, allow, prefer, require"
            + " (the default: encrypted, server not verified), verify-ca or verify-full (encrypted and the server verified"
            + " against caBundle; for RDS use verify-full with the RDS CA bundle).")
    public String sslMode;

    @JsonPropertyDescription("CA certificates (PEM) that signed the database server's certificate, from a ConfigMap or a"
            + " Secret of the ExecutorCluster's namespace; required by sslMode verify-ca and verify-full.")
    public CaBundle caBundle;

    @Required
    @JsonPropertyDescription("Secret with the database user name and password.")
    public CredentialsSecret credentialsSecret;

    @Min(2)
    @Max(1000)
    @JsonPropertyDescription("Connections of each executor node's pool for handlers and the API (QUARKUS_DATASOURCE_JDBC_MAX_SIZE). Executor default " + SettingDefaults.POOL_SIZE + ". With engine Drover each node also opens its engine's own pool of " + SettingDefaults.ENGINE_POOL_SIZE + ": budget max_connections as nodes x (maxPoolSize + " + SettingDefaults.ENGINE_POOL_SIZE + "). With engine Flowable this is the node's one pool, at least threads + " + io.drover.contract.FlowablePool.SPARE_CONNECTIONS + ".")
    public Integer maxPoolSize;

    public int portOrDefault() {
        return port == null ? DEFAULT_PORT : port;
    }

    public String sslModeOrDefault() {
        return sslMode == null ? DEFAULT_SSL_MODE : sslMode;
    }

    /** Where the CA bundle is: exactly one of configMap and secret. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    @ValidationRule(value = "has(self.configMap) != has(self.secret)",
            message = "give exactly one of configMap and secret")
    public static class CaBundle {
        @Size(min = 1, max = 253)
        @Pattern(OBJECT_NAME)
        @JsonPropertyDescription("Name of a ConfigMap holding the bundle.")
        public String configMap;

        @Size(min = 1, max = 253)
        @Pattern(OBJECT_NAME)
        @JsonPropertyDescription("Name of a Secret holding the bundle; like every Secret an ExecutorCluster uses, it must"
                + " carry the label drover.io/executor-secret=true.")
        public String secret;

        @Default("ca.crt")
        @Size(min = 1, max = 253)
        @Pattern(DATA_KEY)
        @JsonPropertyDescription("Key of the PEM bundle in the ConfigMap or Secret.")
        public String key;

        public String keyOrDefault() {
            return key == null || key.isEmpty() ? "ca.crt" : key;
        }
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public static class CredentialsSecret {
        @Required
        @Size(min = 1, max = 253)
        @Pattern(OBJECT_NAME)
        @JsonPropertyDescription("Name of the Secret, in the ExecutorCluster's namespace.")
        public String name;

        @Default("username")
        @Size(min = 1, max = 253)
        @Pattern(DATA_KEY)
        @JsonPropertyDescription("Key of the user name in the Secret.")
        public String usernameKey;

        @Default("password")
        @Size(min = 1, max = 253)
        @Pattern(DATA_KEY)
        @JsonPropertyDescription("Key of the password in the Secret.")
        public String passwordKey;

        /** The user name key, defaulted as the CRD defaults it (for objects built in code). */
        public String usernameKeyOrDefault() {
            return usernameKey == null || usernameKey.isEmpty() ? "username" : usernameKey;
        }

        public String passwordKeyOrDefault() {
            return passwordKey == null || passwordKey.isEmpty() ? "password" : passwordKey;
        }
    }
}
