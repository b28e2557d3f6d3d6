package dev.symbiont.cuda.nccl;

import dev.symbiont.core.distributed.LocalCommunicator;
import dev.symbiont.cuda.CudaBackend;
import dev.symbiont.cuda.ptx.InterpretedDriver;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Where {@code libnccl.so.2} is looked for, and the message when it is nowhere. */
class NcclLibraryTest {
    @Test
    void theWheelsLibFolderIsSearchedBeforeTheLoadersCache(@TempDir Path tmp) throws Exception {
        Path site = tmp.resolve("lib/python3.12/site-packages");
        Path wheel = Files.createDirectories(site.resolve("nvidia/nccl/lib"));
        Files.writeString(wheel.resolve("libnccl.so.2"), "");
        NcclLibrary search = NcclLibrary.of(null, List.of(tmp.resolve("empty")), List.of(site));
        assertEquals(List.of(wheel.resolve("libnccl.so.2").toAbsolutePath().toString(), "libnccl.so.2"), search.candidates());
        assertTrue(search.searched().toString().contains(wheel.toString()), search.searched().toString());
    }

    @Test
    void thePropertyNamesTheOnlyCandidate() {
        NcclLibrary search = NcclLibrary.of(" /opt/nccl/libnccl.so.2 ", List.of(Path.of("/usr/lib")), List.of());
        assertEquals(List.of("/opt/nccl/libnccl.so.2"), search.candidates());
        assertEquals(List.of("-Dsymbiont.nccl.library=/opt/nccl/libnccl.so.2"), search.searched());
    }

    @Test
    void noLibraryIsAnErrorNamingEveryCandidateAndThePlacesSearched(@TempDir Path tmp) {
        Path missing = tmp.resolve("libnccl.so.2");
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> NcclLibrary.of(missing.toString(), List.of(), List.of()).open());
        assertTrue(e.getMessage().contains("NCCL library not found") && e.getMessage().contains(missing.toString())
                && e.getMessage().contains("-Dsymbiont.nccl.library"), e.getMessage());
    }

    @Test
    void creatingTheCommunicatorWithoutTheLibraryFailsNamingWhatWasSearched(@TempDir Path tmp) {
        Path missing = tmp.resolve("no-nccl/libnccl.so.2");
        String before = System.getProperty(NcclLibrary.PROPERTY);
        System.setProperty(NcclLibrary.PROPERTY, missing.toString());
        try {
            CudaBackend device = new CudaBackend(new InterpretedDriver(), 0);
            IllegalStateException e = assertThrows(IllegalStateException.class,
                    () -> NcclCommunicator.create(LocalCommunicator.group(1).getFirst(), device));
            assertTrue(e.getMessage().contains("rank 0") && e.getMessage().contains(missing.toString())
                    && e.getMessage().contains("searched [-Dsymbiont.nccl.library="), e.getMessage());
        } finally {
            if (before == null) System.clearProperty(NcclLibrary.PROPERTY);
            else System.setProperty(NcclLibrary.PROPERTY, before);
        }
    }
}
