package dev.symbiont.core.distributed.mpi;

import dev.symbiont.core.DType;
import dev.symbiont.core.distributed.Reduction;
import org.junit.jupiter.api.Test;
import org.opentest4j.TestAbortedException;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Finding the MPI library, telling the implementations apart, and Open MPI's handles. The tests
 * that open the real library (without initialising MPI) are skipped where Open MPI is not installed.
 */
class MpiLibraryTest {
    @Test
    void openMpisSonameIsTriedFirstUnlessThePropertyNamesALibrary() {
        assertEquals(List.of("libmpi.so.40", "libmpi.so"), MpiLibrary.candidates(null));
        assertEquals(List.of("libmpi.so.40", "libmpi.so"), MpiLibrary.candidates("  "));
        assertEquals(List.of("/opt/ompi/lib/libmpi.so"), MpiLibrary.candidates(" /opt/ompi/lib/libmpi.so "));
    }

    @Test
    void aMissingLibraryNamesWhatWasTriedAndSaysToInstallOpenMpi() {
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> MpiLibrary.open(List.of("/nonexistent/libmpi.so", "libsymbiont-no-such-mpi.so")));
        for (String f : List.of("/nonexistent/libmpi.so", "libsymbiont-no-such-mpi.so", "apt-get install openmpi-bin", "-Dsymbiont.mpi.library")) {
            assertTrue(e.getMessage().contains(f), "'" + e.getMessage() + "' does not mention " + f);
        }
    }

    @Test
    void implementationsAreToldApartByTheirVersionString() {
        assertEquals("Open MPI", OpenMpiHandles.implementationOf("Open MPI v4.1.4, package: Debian OpenMPI, ident: 4.1.4, repo rev: v4.1.4, May 26, 2022"));
        assertEquals("MPICH", OpenMpiHandles.implementationOf("MPICH Version:      4.0\nMPICH Release date: Fri Jan 21 10:42:29 CST 2022"));
        assertEquals("Intel MPI", OpenMpiHandles.implementationOf("Intel(R) MPI Library 2021.6 for Linux* OS"));
        assertEquals("MVAPICH", OpenMpiHandles.implementationOf("MVAPICH2 Version      :\t2.3.7"));
        assertEquals("an unknown MPI", OpenMpiHandles.implementationOf(""));
    }

    @Test
    void aLibraryThatIsNotOpenMpiIsRefusedNamingWhatItIs() {
        MpiLibrary library = installedOpenMpi();
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> OpenMpiHandles.resolve(library, "MPICH Version:      4.0\nMPICH Release date: Fri Jan 21"));
        for (String f : List.of("is MPICH", "MPICH Version:      4.0", "not Open MPI", "openmpi-bin", library.name())) {
            assertTrue(e.getMessage().contains(f), "'" + e.getMessage() + "' does not mention " + f);
        }
        assertTrue(!e.getMessage().contains("Release date"), "only the version string's first line is quoted: " + e.getMessage());
    }

    @Test
    void openMpisHandlesAreDistinctGlobalsOfItsLibrary() {
        MpiLibrary library = installedOpenMpi();
        String version = new MpiCalls(library).libraryVersion();
        assertTrue(version.startsWith("Open MPI"), version);
        OpenMpiHandles h = OpenMpiHandles.resolve(library, version);
        List<Long> addresses = List.of(h.commWorld(), h.float32(), h.int32(), h.int64(), h.float64(), h.sum(), h.max(), h.min(), h.errorsReturn())
                .stream().map(s -> s.address()).toList();
        assertEquals(addresses.size(), addresses.stream().distinct().count(), "handles share an address: " + addresses);
        for (long a : addresses) assertNotEquals(0L, a);
        assertSame(h.float32(), h.datatype(DType.FLOAT32));
        assertSame(h.int64(), h.datatype(DType.INT64));
        assertSame(h.sum(), h.op(Reduction.AVG), "AVG is a SUM divided afterwards");
        assertSame(h.min(), h.op(Reduction.MIN));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> h.datatype(DType.BFLOAT16));
        assertTrue(e.getMessage().contains("bfloat16"), e.getMessage());
    }

    private static MpiLibrary installedOpenMpi() {
        MpiLibrary library;
        try {
            library = MpiLibrary.open();
        } catch (IllegalStateException e) {
            if (MpiJobs.required()) throw e;
            throw new TestAbortedException("Open MPI's libmpi is not installed (apt-get install openmpi-bin): " + e.getMessage());
        }
        return library;
    }
}
