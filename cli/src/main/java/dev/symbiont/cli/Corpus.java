package dev.symbiont.cli;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Arrays;

/** The training text: a file, or the public-domain corpus shipped in the jar (see its README). */
final class Corpus {
    static final String SHIPPED = "/dev/symbiont/corpus/sonnets-psalms-proverbs.txt";

    private Corpus() {}

    /** The text of {@code file} (null: the shipped corpus); a missing, non-UTF-8 or empty file throws saying which. */
    static String read(Path file) throws IOException {
        if (file == null) {
            try (InputStream in = Corpus.class.getResourceAsStream(SHIPPED)) {
                if (in == null) throw new IOException("the shipped corpus " + SHIPPED + " is missing from the jar");
                return decode(in.readAllBytes(), SHIPPED);
            }
        }
        if (Files.isDirectory(file)) throw new IOException("corpus " + file + " is a directory, not a text file");
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            throw new IOException("corpus file " + file + " does not exist", e);
        }
        String text = decode(bytes, file.toString());
        if (text.isBlank()) throw new IOException("corpus " + file + " is empty: it holds no text to train on");
        return text;
    }

    private static String decode(byte[] bytes, String name) throws IOException {
        CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT).onUnmappableCharacter(CodingErrorAction.REPORT);
        ByteBuffer in = ByteBuffer.wrap(bytes);
        CharBuffer out = CharBuffer.allocate(bytes.length);
        CoderResult result = decoder.decode(in, out, true);
        if (result.isError()) {
            throw new IOException(String.format("corpus %s is not UTF-8 text: invalid byte 0x%02x at offset %d",
                    name, bytes[in.position()] & 0xff, in.position()));
        }
        decoder.flush(out);
        return out.flip().toString();
    }

    /**
     * Cross-entropy (nats per token) of {@code eval} under the training text's token frequencies
     * (add-one smoothed): what a model that ignores context scores, the bar to clear.
     */
    static double unigramLoss(int[] train, int[] eval, int vocab) {
        double[] counts = new double[vocab];
        Arrays.fill(counts, 1);
        for (int id : train) counts[id]++;
        double total = train.length + vocab, loss = 0;
        for (int id : eval) loss -= Math.log(counts[id] / total);
        return loss / eval.length;
    }
}
