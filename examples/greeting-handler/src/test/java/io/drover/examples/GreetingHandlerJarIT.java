package io.drover.examples;

import io.drover.executor.handler.HandlerJars;
import io.drover.executor.handler.HandlerRegistry;
import io.drover.executor.handler.InvalidPayloadException;
import io.drover.executor.handler.JobContext;
import io.drover.executor.handler.JobHandler;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The packaged example jar, dropped into a handlers directory, is found and runs. */
class GreetingHandlerJarIT {
    @Test
    void theExecutorLoadsTheHandlerFromAJarInItsHandlersDirectory() throws Exception {
        Path dir = Files.createTempDirectory("handlers");
        Path jar = Path.of(System.getProperty("handler.jar"));
        Files.copy(jar, dir.resolve(jar.getFileName()));

        List<JobHandler> loaded = HandlerJars.load(dir, JobHandler.class.getClassLoader());
        HandlerRegistry registry = HandlerRegistry.of(loaded);
        assertThat(registry.types()).containsExactly("greeting");

        JobHandler greeting = registry.find("greeting").orElseThrow();
        assertThat(greeting.getClass().getClassLoader()).as("loaded from the jar, not the test classpath")
                .isNotSameAs(GreetingHandlerJarIT.class.getClassLoader());
        greeting.execute(new JobContext(1, "greeting", "{\"name\":\"Ada\"}", 1, 3, Instant.now()));
        assertThatThrownBy(() -> greeting.execute(new JobContext(2, "greeting", "{}", 1, 3, Instant.now())))
                .isInstanceOf(InvalidPayloadException.class).hasMessageContaining("needs a non-empty \"name\"");
    }

    @Test
    void aMissingDirectoryMeansNoExtraHandlers() {
        assertThat(HandlerJars.load(Path.of("/nonexistent/handlers"), getClass().getClassLoader())).isEmpty();
    }
}
