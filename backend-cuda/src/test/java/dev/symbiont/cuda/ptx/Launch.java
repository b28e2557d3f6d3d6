package dev.symbiont.cuda.ptx;

import dev.symbiont.cuda.driver.Dim3;

import java.lang.foreign.MemorySegment;

/** What a kernel launch runs with: the kernel, its parameter bytes, grid and block, memory. */
record Launch(Decoded kernel, MemorySegment params, Dim3 grid, Dim3 block, int staticShared, int dynamicShared,
              DeviceMemory memory, java.util.function.LongConsumer counter) {

    void count(long instructions) { counter.accept(instructions); }

    /** Runs every block, one after another. */
    void run() {
        for (int z = 0; z < grid.z(); z++)
            for (int y = 0; y < grid.y(); y++)
                for (int x = 0; x < grid.x(); x++) new Block(this, x, y, z).run();
    }
}
