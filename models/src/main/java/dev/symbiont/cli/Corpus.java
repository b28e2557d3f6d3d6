package dev.symbiont.cli;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** The training text: a file, or the public-domain corpus shipped in the jar (see its README). */
final class Corpus {
    static final String SHIPPED = "/dev/symbiont/corpus/sonnets-psalms-proverbs.txt";

    private Corpus() {}

    static String read(Path file) throws IOException {
        if (file != null) return Files.readString(file, StandardCharsets.UTF_8);
        try (InputStream in = Corpus.class.getResourceAsStream(SHIPPED)) {
            if (in == null) throw new IOException("the shipped corpus " + SHIPPED + " is missing from the jar");
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    /**
     * Cross-entropy (nats per token) of {@code eval} under the training text's token frequencies
     * (add-one smoothed): what a model that ignores context scores, the bar to clear.
     */
    static double unigramLoss(int[] train, int[] eval, int vocab) {
        double[] counts = new double[vocab];
        java.util.Arrays.fill(counts, 1);
        for (int id : train) counts[id]++;
        double total = train.length + vocab, loss = 0;
        for (int id : eval) loss -= Math.log(counts[id] / total);
        return loss / eval.length;
    }
}
