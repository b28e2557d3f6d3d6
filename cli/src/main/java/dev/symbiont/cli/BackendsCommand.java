package dev.symbiont.cli;

import dev.symbiont.core.backend.Availability;
import dev.symbiont.core.backend.BackendProvider;
import dev.symbiont.core.backend.Backends;
import picocli.CommandLine.Command;

/**
 * Lists the backends found, whether each can run here (and why not), the devices of one that has
 * several, and the route of an available one that reports it (CUDA: driver, devices, BLAS).
 */
@Command(name = "backends", description = "List the compute backends found and whether each can run here.")
final class BackendsCommand implements Runnable {
    @Override
    public void run() {
        Backends.describe().forEach(System.out::println);
        for (BackendProvider provider : Backends.providers()) {
            Availability a = provider.availability();
            if (a.available() && !a.reason().equals(Availability.yes().reason())) {
                System.out.println("  " + provider.name() + " route: " + a.reason());
            }
        }
        System.out.println("default: " + Backends.defaultBackend().device());
    }
}
