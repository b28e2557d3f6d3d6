package dev.symbiont.cli;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** generate prints each token's text as it arrives, holding back a character split between tokens until it is whole. */
class GenerateTextStreamTest {
    /** Byte-level tokens: id b is byte b; decoding makes UTF-8 of them, an incomplete sequence U+FFFD. */
    private static String bytes(int[] ids) {
        byte[] b = new byte[ids.length];
        for (int i = 0; i < ids.length; i++) b[i] = (byte) ids[i];
        return new String(b, StandardCharsets.UTF_8);
    }

    @Test
    void each_token_is_printed_when_it_arrives_and_a_split_character_when_it_is_complete() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        GenerateCommand.TextStream stream = new GenerateCommand.TextStream(GenerateTextStreamTest::bytes, out);
        stream.accept('a');
        assertEquals("a", bytes.toString(StandardCharsets.UTF_8), "printed at once");
        stream.accept(0xC3);                                       // the first byte of é
        assertEquals("a", bytes.toString(StandardCharsets.UTF_8), "half a character waits");
        stream.accept(0xA9);
        assertEquals("aé", bytes.toString(StandardCharsets.UTF_8));
        stream.accept(0xE2);                                       // a sequence the output ends in the middle of
        stream.finish();
        assertEquals("aé\uFFFD", bytes.toString(StandardCharsets.UTF_8), "what is left is printed at the end");
    }
}
