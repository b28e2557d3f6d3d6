package dev.symbiont.io;

import dev.symbiont.core.reference.ReferenceBackend;
import dev.symbiont.fuzz.Corpus;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;

import static dev.symbiont.io.SafetensorsFixtures.raw;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Headers the reference implementation rejects must not load here either, and a hostile name
 * must not turn into a message of its own size. Each corpus file once loaded or flooded the log.
 */
class SafetensorsHostileInputTest {
    private static final String ENTRY = "{\"w\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}}";

    @TempDir Path dir;

    private static String rejected(Path file) {
        SafetensorsFormatException e = assertThrows(SafetensorsFormatException.class,
                () -> Safetensors.read(file, new ReferenceBackend()));
        assertEquals(file, e.file());
        assertTrue(e.getMessage().startsWith(file + ": "), e.getMessage());
        return e.getMessage().substring(file.toString().length() + 2);
    }

    private String rejected(String corpusFile) throws IOException {
        return rejected(Corpus.copy("safetensors", corpusFile, dir));
    }

    @Test
    void aValidHeaderStillLoads() throws IOException {
        SafetensorsFile read = Safetensors.read(raw(dir, ENTRY, new byte[] {0, 0, (byte) 0xc0, 0x3f}), new ReferenceBackend());
        assertEquals(1.5f, read.tensors().get("w").item());
    }

    @Test
    void aHeaderInUtf16OrUtf32IsRejectedAtItsFirstNulByte() throws IOException {
        assertEquals("header holds a NUL byte at file offset 9, which JSON text cannot contain"
                + " (is the header UTF-16 or UTF-32? it must be UTF-8)", rejected("header-utf16.safetensors"));
        assertEquals("header holds a NUL byte at file offset 9, which JSON text cannot contain"
                + " (is the header UTF-16 or UTF-32? it must be UTF-8)", rejected("header-utf32.safetensors"));
    }

    @Test
    void aHeaderMustStartWithABraceNotAByteOrderMarkOrWhitespace() throws IOException {
        assertEquals("header must start with '{' at file offset 8, but starts with a UTF-8 byte-order mark",
                rejected("header-bom.safetensors"));
        assertEquals("header must start with '{' at file offset 8, but starts with whitespace (byte 0x20)",
                rejected("header-leading-space.safetensors"));
    }

    @Test
    void trailingSpacesStillPadAHeader() throws IOException {
        SafetensorsFile read = Safetensors.read(raw(dir, ENTRY + "     \n", new byte[4]), new ReferenceBackend());
        assertEquals(0f, read.tensors().get("w").item());
    }

    @Test
    void aLongTensorNameIsCutInTheMessage() throws IOException {
        String message = rejected("long-name.safetensors");
        assertTrue(message.startsWith("tensor \"" + "x".repeat(60) + "...\" (2000 chars) "), message);
        assertTrue(message.length() < 300, message);

        String name = "n".repeat(300_000);
        String json = "{\"" + name + "\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]},"
                + "\"" + name + "\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}}";
        message = rejected(raw(dir, json, new byte[4]));
        assertTrue(message.startsWith("tensor \"" + "n".repeat(60) + "...\" (300000 chars) appears twice"), message);
        assertTrue(message.length() < 300, message);
    }

    @Test
    void longMetadataKeysAndValuesAreCutInTheMessage() throws IOException {
        String key = "k".repeat(300_000);
        String message = rejected(raw(dir, "{\"__metadata__\":{\"" + key + "\":7}}", new byte[0]));
        assertTrue(message.contains("the value for key \"" + "k".repeat(60) + "...\" (300000 chars) is 7"), message);
        assertTrue(message.length() < 300, message);

        message = rejected(raw(dir, "{\"__metadata__\":{\"" + key + "\":\"a\",\"" + key + "\":\"b\"}}", new byte[0]));
        assertTrue(message.contains("Duplicate field"), message);
        assertTrue(message.length() < 600, message);

        message = rejected(raw(dir, "{\"w\":{\"dtype\":\"" + key + "\",\"shape\":[1],\"data_offsets\":[0,4]}}", new byte[4]));
        assertTrue(message.length() < 300, message);
    }
}
