package dev.symbiont.core.backend;

import org.junit.jupiter.api.Test;

import java.util.concurrent.CompletableFuture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/** Which deliberate transfer a thread is inside: scopes nest, closing restores the outer one, other threads see none. */
class HostTransferScopeTest {
    @Test
    void theInnermostOpenScopeNamesTheTransferAndClosingRestoresTheOuterOne() throws Exception {
        assertNull(HostTransfer.active());
        try (var outer = HostTransfer.EVALUATION.allow()) {
            assertEquals(HostTransfer.EVALUATION, HostTransfer.active());
            try (var inner = HostTransfer.BATCH.allow()) {
                assertEquals(HostTransfer.BATCH, HostTransfer.active());
                assertNull(CompletableFuture.supplyAsync(HostTransfer::active).get(), "another thread is outside every scope");
            }
            assertEquals(HostTransfer.EVALUATION, HostTransfer.active());
        }
        assertNull(HostTransfer.active());
    }
}
