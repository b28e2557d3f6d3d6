package dev.symbiont.cpu.gemm;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class GemmSelectionTest {

    private static final VectorSupport.Status AVAILABLE = new VectorSupport.Status(true, "test: available");
    private static final VectorSupport.Status MISSING = new VectorSupport.Status(false, "test: no module");

    @Test
    void should_pick_vector_when_it_can_run_and_nothing_is_forced() {
        assertEquals(GemmPath.VECTOR, GemmSelection.choose(null, AVAILABLE).path());
        assertEquals(GemmPath.VECTOR, GemmSelection.choose(" ", AVAILABLE).path());
    }

    @Test
    void should_fall_back_to_ejml_with_the_reason_when_vector_cannot_run() {
        GemmSelection.Choice choice = GemmSelection.choose(null, MISSING);
        assertEquals(GemmPath.EJML, choice.path());
        assertTrue(choice.reason().contains("test: no module"), choice.reason());
    }

    @Test
    void should_warn_once_with_the_fix_only_when_the_jvm_left_the_vector_path_out() {
        GemmSelection.Choice fallback = GemmSelection.choose(null, MISSING);
        assertEquals(System.Logger.Level.WARNING, GemmSelection.level(fallback));
        assertTrue(GemmSelection.message(fallback).contains("--add-modules jdk.incubator.vector"), GemmSelection.message(fallback));
        assertTrue(GemmSelection.message(fallback).contains("50x slower"), GemmSelection.message(fallback));
        assertEquals(System.Logger.Level.DEBUG, GemmSelection.level(GemmSelection.choose("ejml", AVAILABLE)));
        assertEquals(System.Logger.Level.DEBUG, GemmSelection.level(GemmSelection.choose(null, AVAILABLE)));
    }

    @Test
    void should_honour_a_forced_path() {
        assertEquals(GemmPath.EJML, GemmSelection.choose("ejml", AVAILABLE).path());
        assertEquals(GemmPath.EJML, GemmSelection.choose("EJML", MISSING).path());
        assertEquals(GemmPath.VECTOR, GemmSelection.choose("vector", AVAILABLE).path());
        assertTrue(GemmSelection.choose("ejml", AVAILABLE).reason().contains("forced"));
    }

    @Test
    void should_refuse_to_force_vector_when_it_cannot_run_or_an_unknown_path() {
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> GemmSelection.choose("vector", MISSING));
        assertTrue(e.getMessage().contains("test: no module"), e.getMessage());
        IllegalStateException bad = assertThrows(IllegalStateException.class,
                () -> GemmSelection.choose("cublas", AVAILABLE));
        assertTrue(bad.getMessage().contains("vector, ejml"), bad.getMessage());
    }

    @Test
    void should_read_the_system_property() {
        String before = System.getProperty(GemmSelection.PROPERTY);
        try {
            System.setProperty(GemmSelection.PROPERTY, "ejml");
            assertEquals(GemmPath.EJML, GemmSelection.current().path());
            System.setProperty(GemmSelection.PROPERTY, "vector");
            assertEquals(GemmPath.VECTOR, GemmSelection.current().path());
        } finally {
            if (before == null) {
                System.clearProperty(GemmSelection.PROPERTY);
            } else {
                System.setProperty(GemmSelection.PROPERTY, before);
            }
        }
    }

    @Test
    void should_find_the_vector_module_in_this_jvm() {
        VectorSupport.Status status = VectorSupport.check();
        assertTrue(status.available(), status.reason());
        assertEquals(GemmSelection.choose(System.getProperty(GemmSelection.PROPERTY), status).path(),
                Gemm.fastest().path());
    }

    @Test
    void should_report_a_missing_module_cleanly() {
        VectorSupport.Status status = VectorSupport.check(ModuleLayer.boot(), "jdk.incubator.nonexistent",
                VectorSupport.KERNEL_CLASS);
        assertFalse(status.available());
        assertTrue(status.reason().contains("jdk.incubator.nonexistent"), status.reason());
        assertTrue(status.reason().contains("--add-modules"), status.reason());
    }

    @Test
    void should_report_a_kernel_class_that_does_not_load() {
        VectorSupport.Status status = VectorSupport.check(ModuleLayer.boot(), VectorSupport.MODULE,
                "dev.symbiont.cpu.gemm.NoSuchKernels");
        assertFalse(status.available());
        assertTrue(status.reason().contains("NoSuchKernels"), status.reason());
    }

    @Test
    void should_parse_path_names() {
        assertEquals(GemmPath.VECTOR, GemmPath.parse(" Vector "));
        assertEquals("ejml", GemmPath.EJML.id());
        assertThrows(IllegalArgumentException.class, () -> GemmPath.parse("blas"));
    }
}
