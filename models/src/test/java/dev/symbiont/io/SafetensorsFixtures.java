package dev.symbiont.io;

import dev.symbiont.core.DType;
import dev.symbiont.core.Layout;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.backend.Backend;
import dev.symbiont.core.backend.Backends;
import dev.symbiont.core.backend.Storage;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.concurrent.atomic.AtomicInteger;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** Hand-built files and tensors for the safetensors tests. */
final class SafetensorsFixtures {
    private SafetensorsFixtures() {}

    static Backend backend() {
        return Backends.current();
    }

    static Tensor tensor(DType dtype, Object hostArray, int... shape) {
        return Tensor.of(backend().upload(dtype, hostArray), shape);
    }

    /** A file made of the 8-byte length of {@code header}, the header, and {@code data}. */
    static Path raw(Path dir, String header, byte[] data) throws IOException {
        byte[] json = header.getBytes(StandardCharsets.UTF_8);
        return raw(dir, json.length, concat(json, data));
    }

    /** A file made of an arbitrary length prefix followed by {@code rest}. */
    static Path raw(Path dir, long prefix, byte[] rest) throws IOException {
        Path file = dir.resolve("model.safetensors");
        Files.write(file, concat(le(prefix), rest));
        return file;
    }

    static byte[] le(long value) {
        return ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(value).array();
    }

    static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] p : parts) out.writeBytes(p);
        return out.toByteArray();
    }

    /** A float32 tensor whose backend fails when asked for its data, as a disk or device error would. */
    static Tensor failingTensor(int n) {
        Backend failing = (Backend) Proxy.newProxyInstance(Backend.class.getClassLoader(), new Class<?>[] {Backend.class},
                (proxy, method, args) -> switch (method.getName()) {
                    case "name" -> "failing";
                    case "download" -> throw new IllegalStateException("device lost while downloading");
                    case "toString" -> "failing backend";
                    case "hashCode" -> System.identityHashCode(proxy);
                    case "equals" -> proxy == args[0];
                    default -> throw new UnsupportedOperationException(method.getName());
                });
        Storage storage = new Storage() {
            @Override public Backend backend() { return failing; }
            @Override public DType dtype() { return DType.FLOAT32; }
            @Override public long size() { return n; }
            @Override public void release() {}
        };
        return new Tensor(storage, Layout.contiguous(n));
    }

    /**
     * {@code inner} with every call passed through, except that uploads are counted and each one
     * after the first {@code allowed} throws OutOfMemoryError, as a full device would.
     */
    static Backend limitedUploads(Backend inner, int allowed, AtomicInteger uploads) {
        return (Backend) Proxy.newProxyInstance(Backend.class.getClassLoader(), new Class<?>[] {Backend.class},
                (proxy, method, args) -> {
                    if (method.getName().equals("upload") && uploads.incrementAndGet() > allowed) {
                        throw new OutOfMemoryError("simulated: device full");
                    }
                    try {
                        return method.invoke(inner, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }
}
