package dev.symbiont.core.backend;

import org.junit.jupiter.api.function.Executable;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Asserts an exception whose message names every fragment (the device, the count, the forms). */
final class Throws {
    private Throws() {}

    static <T extends Throwable> T mentioning(Class<T> type, Executable body, String... fragments) {
        T e = assertThrows(type, body);
        for (String f : fragments) {
            assertTrue(e.getMessage() != null && e.getMessage().contains(f), "message '" + e.getMessage() + "' does not mention '" + f + "'");
        }
        return e;
    }
}
