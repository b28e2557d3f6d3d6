package dev.symbiont.cuda.nccl;

import dev.symbiont.cuda.driver.Driver;
import dev.symbiont.cuda.ptx.InterpretedDriver;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.List;

/**
 * An interpreted device whose stream and event calls are recorded into a journal (shared with a
 * {@link FakeNccl}, so the order of driver and NCCL calls can be checked), and whose events can
 * be held back from completing, as those of a collective a peer never joins.
 */
final class RecordingDriver {
    /** A recorded driver call: {@code record} (stream, event), {@code waitEvent} (stream, event) or {@code isComplete} (event). */
    record Entry(String call, Driver.Stream stream, Driver.Event event) {}

    private final Driver driver;
    private volatile boolean eventsComplete = true;

    RecordingDriver(List<Object> journal) {
        InterpretedDriver device = new InterpretedDriver();
        this.driver = (Driver) Proxy.newProxyInstance(Driver.class.getClassLoader(), new Class<?>[] {Driver.class}, (proxy, method, args) -> {
            Object result;
            try {
                result = method.invoke(device, args);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
            switch (method.getName()) {
                case "record" -> journal.add(new Entry("record", (Driver.Stream) args[0], (Driver.Event) result));
                case "waitEvent" -> journal.add(new Entry("waitEvent", (Driver.Stream) args[0], (Driver.Event) args[1]));
                case "isComplete" -> {
                    journal.add(new Entry("isComplete", null, (Driver.Event) args[0]));
                    return eventsComplete;
                }
                default -> { }
            }
            return result;
        });
    }

    Driver driver() { return driver; }

    /** From now on, no event completes (false) or every event has (true). */
    void eventsComplete(boolean complete) { eventsComplete = complete; }
}
