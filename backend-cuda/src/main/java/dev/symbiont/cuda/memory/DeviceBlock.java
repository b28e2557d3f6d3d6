package dev.symbiont.cuda.memory;

/** A block of device memory from a {@link DeviceAllocator}: its address and usable size in bytes. */
public interface DeviceBlock {
    long address();

    long bytes();
}
