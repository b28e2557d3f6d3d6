package dev.symbiont.cli;

import dev.symbiont.core.backend.Backends;
import picocli.CommandLine.Command;

/** Lists the backends found, whether each can run here, and the devices of one that has several. */
@Command(name = "backends", description = "List the compute backends found and whether each can run here.")
final class BackendsCommand implements Runnable {
    @Override
    public void run() {
        Backends.describe().forEach(System.out::println);
        System.out.println("default: " + Backends.defaultBackend().device());
    }
}
