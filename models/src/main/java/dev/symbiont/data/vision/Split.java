package dev.symbiont.data.vision;

/** The two splits of MNIST-style data sets, with the file-name prefix each has in the original release. */
public enum Split {
    TRAIN("train"),
    TEST("t10k");

    private final String filePrefix;

    Split(String filePrefix) { this.filePrefix = filePrefix; }

    /** The images file's name without {@code .gz}: {@code train-images-idx3-ubyte}, {@code t10k-images-idx3-ubyte}. */
    public String imagesFile() { return filePrefix + "-images-idx3-ubyte"; }

    /** The labels file's name without {@code .gz}. */
    public String labelsFile() { return filePrefix + "-labels-idx1-ubyte"; }
}
