package dev.symbiont.cuda.jcuda;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

class LoadFailuresTest {
    /** The shape of JCuda's LibUtils message: both load attempts' stack traces inside one error. */
    private static final String JCUDA_MESSAGE = """
            Error while loading native library "JCudaDriver-12.6.0-linux-x86_64"
            Operating system name: Linux
            ---(start of nested stack traces)---
            Stack trace from the attempt to load the library as a file:
            java.lang.UnsatisfiedLinkError: no JCudaDriver-12.6.0-linux-x86_64 in java.library.path: /usr/lib
            \tat java.base/java.lang.ClassLoader.loadLibrary(ClassLoader.java:2285)
            Stack trace from the attempt to load the library as a resource:
            java.lang.UnsatisfiedLinkError: /tmp/libJCudaDriver-12.6.0-linux-x86_64.so: libcuda.so.1: cannot open shared object file: No such file or directory
            \tat java.base/jdk.internal.loader.NativeLibraries.load(Native Method)
            ---(end of nested stack traces)---
            """;

    @Test
    void jcudasNestedTracesBecomeOneLineNamingTheMissingLibrary() {
        assertEquals("UnsatisfiedLinkError: Error while loading native library \"JCudaDriver-12.6.0-linux-x86_64\": "
                        + "/tmp/libJCudaDriver-12.6.0-linux-x86_64.so: libcuda.so.1: cannot open shared object file: No such file or directory",
                LoadFailures.describe(new UnsatisfiedLinkError(JCUDA_MESSAGE)));
    }

    @Test
    void aFailedStaticInitialiserShowsItsCause() {
        var failed = new NoClassDefFoundError("Could not initialize class jcuda.jcublas.JCublas2");
        failed.initCause(new UnsatisfiedLinkError(JCUDA_MESSAGE));
        assertEquals("NoClassDefFoundError: Could not initialize class jcuda.jcublas.JCublas2: "
                        + "UnsatisfiedLinkError: Error while loading native library \"JCudaDriver-12.6.0-linux-x86_64\": "
                        + "/tmp/libJCudaDriver-12.6.0-linux-x86_64.so: libcuda.so.1: cannot open shared object file: No such file or directory",
                LoadFailures.describe(failed));
        assertEquals("IllegalStateException: plain", LoadFailures.describe(new IllegalStateException("plain")));
    }
}
