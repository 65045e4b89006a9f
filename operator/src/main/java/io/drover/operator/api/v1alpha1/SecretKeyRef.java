package io.drover.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;

/** One key of a Secret in the ExecutorCluster's namespace. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class SecretKeyRef {
    @Required
    @Size(min = 1, max = 253)
    @Pattern(DatabaseSpec.OBJECT_NAME)
    @JsonPropertyDescription("Secret name.")
    public String name;

    @Required
    @Size(min = 1, max = 253)
    @Pattern(DatabaseSpec.DATA_KEY)
    @JsonPropertyDescription("Key within the Secret.")
    public String key;
}
