package io.drover.executor.bench;

import io.drover.executor.acquire.LockMode;
import io.drover.executor.config.Durations;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

import java.time.Duration;
import java.util.function.Function;

/**
 * The executor's own parsers as picocli converters, so a bad value reads as the executor would
 * word it ("Invalid value for option '--lockMode': lockMode must be one of ...") and exits 2.
 */
final class Converters {
    private Converters() {
    }

    static final class Kind implements ITypeConverter<JobKind> {
        @Override
        public JobKind convert(String text) {
            return parse(JobKind::parse, text);
        }
    }

    static final class Lock implements ITypeConverter<LockMode> {
        @Override
        public LockMode convert(String text) {
            return parse(LockMode::parse, text);
        }
    }

    static final class Time implements ITypeConverter<Duration> {
        @Override
        public Duration convert(String text) {
            return parse(t -> Durations.parse("the value", t), text);
        }
    }

    private static <T> T parse(Function<String, T> parser, String text) {
        try {
            return parser.apply(text);
        } catch (IllegalArgumentException e) {
            throw new TypeConversionException(e.getMessage());
        }
    }
}
