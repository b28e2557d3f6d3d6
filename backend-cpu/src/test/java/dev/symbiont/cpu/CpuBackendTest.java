package dev.symbiont.cpu;

import dev.symbiont.core.DType;
import dev.symbiont.core.Layout;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.backend.BackendProvider;
import dev.symbiont.core.backend.BinaryOp;
import dev.symbiont.core.backend.ReduceOp;
import dev.symbiont.core.backend.UnaryOp;
import dev.symbiont.cpu.gemm.GemmPath;
import dev.symbiont.cpu.kernels.KernelSupport;
import org.junit.jupiter.api.Test;

import java.util.ServiceLoader;

import static dev.symbiont.cpu.Differential.REF;
import static dev.symbiont.cpu.Differential.assertClose;
import static dev.symbiont.cpu.Differential.norm;
import static dev.symbiont.cpu.Differential.random;
import static dev.symbiont.cpu.Differential.read;
import static dev.symbiont.cpu.Differential.tensor;
import static dev.symbiont.cpu.Differential.upload;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The backend as a whole: discovery, naming, the scalar twin, memory accounting. */
class CpuBackendTest {

    @Test
    void isFoundByServiceLoaderAsCpuAboveTheReference() {
        BackendProvider cpu = ServiceLoader.load(BackendProvider.class).stream().map(ServiceLoader.Provider::get)
                .filter(p -> p.name().equals("cpu")).findFirst().orElseThrow();
        assertEquals(100, cpu.priority());
        assertTrue(cpu.availability().available());
        assertEquals("cpu", cpu.create().name());
    }

    @Test
    void usesVectorKernelsWhenTheModuleIsPresent() {
        // surefire starts the JVM with --add-modules jdk.incubator.vector
        assertTrue(KernelSupport.status().available(), KernelSupport.status().reason());
        CpuBackend cpu = new CpuBackend();
        assertTrue(cpu.vectorKernels());
        assertEquals(GemmPath.VECTOR, cpu.gemmPath());
    }

    @Test
    void scalarTwinGivesTheSameAnswersWithoutTheVectorKernels() {
        CpuBackend scalar = new CpuBackend(GemmPath.EJML, false);
        assertFalse(scalar.vectorKernels());
        int rows = 9, cols = 31;
        float[] x = random(1, rows * cols, 3f);
        Layout l = Layout.contiguous(rows, cols);
        assertClose("exp", read(REF, REF.unary(UnaryOp.EXP, upload(REF, x), l), rows, cols),
                read(scalar, scalar.unary(UnaryOp.EXP, upload(scalar, x), l), rows, cols), 0, 0);
        assertClose("add", read(REF, REF.binary(BinaryOp.ADD, upload(REF, x), l, upload(REF, x), l), rows, cols),
                read(scalar, scalar.binary(BinaryOp.ADD, upload(scalar, x), l, upload(scalar, x), l), rows, cols), 0, 0);
        assertClose("sum", read(REF, REF.reduce(ReduceOp.SUM, upload(REF, x), l, new int[] {1}), rows, 1),
                read(scalar, scalar.reduce(ReduceOp.SUM, upload(scalar, x), l, new int[] {1}), rows, 1), 0, 0);
        assertClose("softmax", read(norm(REF).softmax(tensor(REF, x, l), 1)), read(norm(scalar).softmax(tensor(scalar, x, l), 1)), 0, 0);
        assertClose("matmul", read(REF, REF.matmul(upload(REF, x), l, upload(REF, x), l.transpose(0, 1)), rows, rows),
                read(scalar, scalar.matmul(upload(scalar, x), l, upload(scalar, x), l.transpose(0, 1)), rows, rows), 1e-5, 1e-5);
    }

    @Test
    void countsItsOutputsInItsMemoryStats() {
        CpuBackend cpu = new CpuBackend();
        long before = cpu.memory().allocatedBytes();
        int n = 10_000; // above the tracker's floor for small buffers
        var x = cpu.upload(DType.FLOAT32, random(2, n, 1f));
        var y = cpu.unary(UnaryOp.EXP, x, Layout.contiguous(n));
        Tensor t = Tensor.of(x, n / 10, 10);
        var sm = norm(cpu).softmax(t, 1);
        assertEquals(before + 3L * n * Float.BYTES, cpu.memory().allocatedBytes());
        y.release();
        sm.storage().release();
        x.release();
        assertEquals(before, cpu.memory().allocatedBytes());
    }
}
