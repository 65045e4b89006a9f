package io.drover.executor.api;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import com.fasterxml.jackson.databind.deser.std.StdDeserializer;
import io.drover.executor.handler.PayloadJson;

import java.io.IOException;
import java.io.StringWriter;

/**
 * A job's payload as a request gave it, read token by token into its JSON text, never into a tree:
 * Jackson's tree of a 10 MB payload of empty objects ({@code [{},{},...]}) held 284 MB of heap, so
 * two such requests, each within the body limit and the bytes-in-flight budget, ended a node.
 * The text is what the tree's {@code toString()} gave (compact; numbers as {@link PayloadJson}
 * reads them: decimals as BigDecimal, written back as such), so stored payloads and idempotency
 * fingerprints are unchanged. The parser still applies the API's rules as it reads: a field given
 * twice, nesting depth, lengths of numbers and strings.
 *
 * @param text    what is stored: a JSON string's own text, any other value's JSON text, or null for a JSON null
 * @param textual true if the payload was a JSON string
 */
@JsonDeserialize(using = RequestPayload.Reader.class)
public record RequestPayload(String text, boolean textual) {
    /** "payload": null, given: nothing stored, as when left out; fingerprinted as null, as the tree's NullNode was. */
    static final RequestPayload JSON_NULL = new RequestPayload(null, false);

    /** The payload as JSON text (a string quoted), as the idempotency fingerprint reads it. */
    public String json() {
        return text == null ? "null" : textual ? PayloadJson.mapper().getNodeFactory().textNode(text).toString() : text;
    }

    static final class Reader extends StdDeserializer<RequestPayload> {
        Reader() {
            super(RequestPayload.class);
        }

        @Override
        public RequestPayload getNullValue(DeserializationContext ctx) {
            return JSON_NULL;
        }

        /** Left out: no payload at all (Jackson's default would take it for a JSON null). */
        @Override
        public Object getAbsentValue(DeserializationContext ctx) {
            return null;
        }

        @Override
        public RequestPayload deserialize(JsonParser p, DeserializationContext ctx) throws IOException {
            if (p.currentToken() == JsonToken.VALUE_STRING) {
                return new RequestPayload(p.getText(), true);
            }
            StringWriter out = new StringWriter();
            try (JsonGenerator g = PayloadJson.mapper().getFactory().createGenerator(out)) {
                copy(p, g);
            }
            return new RequestPayload(out.toString(), false);
        }

        /**
         * The decimal at the parser's token, if its stored text stays within the digits the parser
         * reads back. The text is BigDecimal's, which can have more digits than the number as
         * written: 996 digits at e-1001 (1,000 digits, within the limit) are stored as 0.000...,
         * 1,002 digits, which no handler's parser reads, so the job was dead-lettered at its
         * first run though the API had taken it.
         */
        private static java.math.BigDecimal storable(JsonParser p) throws IOException {
            java.math.BigDecimal d = p.getDecimalValue();
            int max = p.streamReadConstraints().getMaxNumberLength();
            // Its text has at most 10 digits more than its precision (an exponent, or up to 7 zeros
            // before them): only a number that close to the limit needs its text counted.
            if (d.precision() + 10 > max) {
                long digits = d.toString().chars().filter(c -> c >= '0' && c <= '9').count();
                if (digits > max) {
                    throw new com.fasterxml.jackson.core.exc.StreamConstraintsException(String.format(
                            "Number value length (%d, as stored) exceeds the maximum allowed (%d)", digits, max));
                }
            }
            return d;
        }

        /** Copies the value at the parser's token, leaving the parser on its last token. */
        private static void copy(JsonParser p, JsonGenerator g) throws IOException {
            int depth = 0;
            JsonToken t = p.currentToken();
            while (true) {
                switch (t) {
                    case START_OBJECT -> {
                        g.writeStartObject();
                        depth++;
                    }
                    case START_ARRAY -> {
                        g.writeStartArray();
                        depth++;
                    }
                    case END_OBJECT -> {
                        g.writeEndObject();
                        depth--;
                    }
                    case END_ARRAY -> {
                        g.writeEndArray();
                        depth--;
                    }
                    case FIELD_NAME -> g.writeFieldName(p.currentName());
                    case VALUE_STRING -> g.writeString(p.getText());
                    case VALUE_NUMBER_INT -> {
                        switch (p.getNumberType()) {
                            case INT -> g.writeNumber(p.getIntValue());
                            case LONG -> g.writeNumber(p.getLongValue());
                            default -> g.writeNumber(p.getBigIntegerValue());
                        }
                    }
                    case VALUE_NUMBER_FLOAT -> g.writeNumber(storable(p));
                    case VALUE_TRUE -> g.writeBoolean(true);
                    case VALUE_FALSE -> g.writeBoolean(false);
                    case VALUE_NULL -> g.writeNull();
                    default -> throw new IllegalStateException("unexpected JSON token " + t);
                }
                if (depth == 0) {
                    return;
                }
                t = p.nextToken();
                if (t == null) {
                    throw new com.fasterxml.jackson.core.JsonParseException(p, "Unexpected end-of-input in a payload");
                }
            }
        }
    }
}
