package dev.symbiont.cuda.jcuda;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** JCuda's handle objects read and made as raw addresses, without its natives. */
class DeviceHandlesTest {
    @Test
    void aDevicePointerAtAnAddressIsJcudasNullPointerPlusThatOffset() {
        // JCuda hands the driver nativePointer + byteOffset; a device address is all offset.
        assertEquals("CUdeviceptr[nativePointer=0x0,byteOffset=" + 0x7f00_0000_1200L + "]",
                DeviceHandles.device(0x7f00_0000_1200L).toString());
    }

    @Test
    void hostMemoryAtAnAddressReadsBackTheSameAddress() {
        assertEquals(0x5000_0000L, new DeviceHandles.Host(0x5000_0000L).address());
        assertEquals(0, new DeviceHandles.Allocation().address(), "nothing allocated yet");
        assertEquals(0, new DeviceHandles.Stream(0).address(), "not created yet");
    }
}
