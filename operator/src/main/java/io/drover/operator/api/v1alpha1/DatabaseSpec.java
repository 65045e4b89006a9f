package io.drover.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;

/** Where the jobs live. Credentials come only from a Secret: they never appear in the CR. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class DatabaseSpec {
    @Required
    @Size(min = 1, max = 253)
    @Pattern("^[A-Za-z0-9.:_-]+$")
    @JsonPropertyDescription("Host name or IP of the PostgreSQL server, e.g. the RDS endpoint.")
    public String host;

    @Default("5432")
    @Min(1)
    @Max(65535)
    @JsonPropertyDescription("PostgreSQL port.")
    public Integer port;

    @Required
    @Size(min = 1, max = 63)
    @Pattern("^[A-Za-z0-9_-]+$")
    @JsonPropertyDescription("Database name.")
    public String name;

    @Default("prefer")
    @Pattern("^(disable|allow|prefer|require|verify-ca|verify-full)$")
    @JsonPropertyDescription("libpq sslmode: disable, allow, prefer, require, verify-ca or verify-full. Use require or stronger for RDS.")
    public String sslMode;

    @Required
    @JsonPropertyDescription("Secret with the database user name and password.")
    public CredentialsSecret credentialsSecret;

    @Min(2)
    @Max(1000)
    @JsonPropertyDescription("Connections per executor node (QUARKUS_DATASOURCE_JDBC_MAX_SIZE). Executor default 20.")
    public Integer maxPoolSize;

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public static class CredentialsSecret {
        @Required
        @Size(min = 1, max = 253)
        @JsonPropertyDescription("Name of the Secret, in the ExecutorCluster's namespace.")
        public String name;

        @Default("username")
        @Size(min = 1, max = 253)
        @JsonPropertyDescription("Key of the user name in the Secret.")
        public String usernameKey;

        @Default("password")
        @Size(min = 1, max = 253)
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
