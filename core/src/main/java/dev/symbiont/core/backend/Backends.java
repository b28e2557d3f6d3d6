package dev.symbiont.core.backend;

import dev.symbiont.core.Scope;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.StringJoiner;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Finds backends with {@link ServiceLoader} and picks one: the one named by
 * {@code -Dsymbiont.backend=} or {@code SYMBIONT_BACKEND}, else the available one with the
 * highest priority. New tensors go to {@link #current()}; {@link #use(Backend)} changes it for
 * a block.
 *
 * <p>Everywhere a backend is named, a device string is accepted ({@link Device#parse}):
 * {@code cuda:1} is ordinal 1 of the provider named {@code cuda}, {@code cuda} its ordinal 0.
 * One backend instance is created per (provider, ordinal) and kept. {@code cpu:0} is the CPU
 * backend itself (PyTorch accepts {@code torch.device("cpu:0")} too); an ordinal past a
 * provider's {@link BackendProvider#deviceCount()} is an error.
 */
public final class Backends {
    public static final String PROPERTY = "symbiont.backend";
    public static final String ENVIRONMENT = "SYMBIONT_BACKEND";

    private static final System.Logger LOG = System.getLogger(Backends.class.getName());
    /** The backends created so far, by provider name and ordinal ({@code cuda:0}, never bare {@code cuda}). */
    private static final Map<Device, Backend> CREATED = new ConcurrentHashMap<>();
    /** Providers added with {@link #register}, as if ServiceLoader had found them. */
    private static final List<BackendProvider> REGISTERED = new CopyOnWriteArrayList<>();
    private static final ThreadLocal<Backend> SCOPED = new ThreadLocal<>();
    private static volatile Backend defaultBackend;

    private Backends() {}

    /** Every provider on the class path, available or not, highest priority first. */
    public static List<BackendProvider> providers() {
        List<BackendProvider> found = new ArrayList<>();
        var it = ServiceLoader.load(BackendProvider.class).iterator();
        while (true) {
            try {
                if (!it.hasNext()) break;
                found.add(it.next());
            } catch (ServiceConfigurationError e) {
                // A provider whose classes cannot load must not hide the others.
                LOG.log(System.Logger.Level.WARNING, "skipping backend provider: " + e.getMessage());
            }
        }
        found.addAll(REGISTERED);
        found.sort(Comparator.comparingInt(BackendProvider::priority).reversed());
        return found;
    }

    /**
     * Adds {@code provider} to {@link #providers()} until the scope closes, which also forgets
     * the backends created from it. A seam for tests of selection and devices: a provider with
     * several devices, without a service file that every other test would see.
     */
    static Scope register(BackendProvider provider) {
        REGISTERED.add(provider);
        return () -> {
            REGISTERED.remove(provider);
            CREATED.keySet().removeIf(d -> d.type().equals(provider.name()));
        };
    }

    /**
     * The backend of a device string ({@code "cpu"}, {@code "cuda:1"}, see {@link Device#parse}),
     * created once; throws saying why when it cannot run here, and naming the device and the
     * provider's device count when the ordinal is out of range.
     */
    public static Backend get(String device) { return get(Device.parse(device)); }

    /** The backend of {@code device} ({@code cuda} means {@code cuda:0}), created once. */
    public static Backend get(Device device) {
        Device key = new Device(device.type(), device.ordinal());
        Backend existing = CREATED.get(key);
        if (existing != null) return existing;
        List<BackendProvider> all = providers();
        for (BackendProvider p : all) {
            if (!p.name().equals(device.type())) continue;
            Availability a = p.availability();
            if (!a.available()) {
                throw new IllegalStateException("backend '" + p.name() + "' cannot run here: " + a.reason());
            }
            int count = deviceCount(p);
            if (key.index() >= count) {
                throw new IllegalArgumentException("no device '" + device + "': backend '" + p.name() + "' has "
                        + devices(p.name(), count));
            }
            return CREATED.computeIfAbsent(key, k -> create(p, k.index(), count));
        }
        throw new IllegalArgumentException("no backend named '" + device.type() + "'"
                + (device.hasIndex() ? " (device '" + device + "')" : "") + "; found: "
                + all.stream().map(BackendProvider::name).toList());
    }

    /**
     * One line per provider: name, priority and whether it can run here (or why not); a provider
     * with several devices lists them ({@code available, 2 devices: cuda:0, cuda:1}).
     */
    public static List<String> describe() {
        return providers().stream().map(p -> {
            Availability a = p.availability();
            String head = p.name() + " (priority " + p.priority() + "): ";
            if (!a.available()) return head + "unavailable, " + a.reason();
            try {
                int count = deviceCount(p);
                return head + "available" + (count > 1 ? ", " + devices(p.name(), count) : "");
            } catch (RuntimeException e) {
                return head + "unavailable, " + e.getMessage(); // a broken count must not hide the other providers
            }
        }).toList();
    }

    private static int deviceCount(BackendProvider p) {
        int count = p.deviceCount();
        if (count < 1) {
            throw new IllegalStateException("backend provider '" + p.name() + "' reports " + count + " devices; it must offer at least 1");
        }
        return count;
    }

    /** "1 device: cpu" or "2 devices: cuda:0, cuda:1". */
    private static String devices(String name, int count) {
        if (count == 1) return "1 device: " + name;
        StringJoiner all = new StringJoiner(", ", count + " devices: ", "");
        for (int i = 0; i < count; i++) all.add(new Device(name, i).toString());
        return all.toString();
    }

    /** Creates ordinal {@code ordinal}; a provider with several devices must give each backend its own device. */
    private static Backend create(BackendProvider p, int ordinal, int count) {
        Backend created = p.create(ordinal);
        Device expected = new Device(p.name(), ordinal);
        if (count > 1 && !expected.equals(created.device())) {
            throw new IllegalStateException("backend provider '" + p.name() + "' created a backend whose device() is "
                    + created.device() + " for ordinal " + ordinal + "; a provider with " + count
                    + " devices must create backends that report " + expected);
        }
        return created;
    }

    /** The backend chosen by property, environment or priority, decided once. */
    public static Backend defaultBackend() {
        Backend b = defaultBackend;
        if (b == null) {
            synchronized (Backends.class) {
                if (defaultBackend == null) defaultBackend = choose();
                b = defaultBackend;
            }
        }
        return b;
    }

    /** The backend new tensors are created on in this thread. */
    public static Backend current() {
        Backend scoped = SCOPED.get();
        return scoped != null ? scoped : defaultBackend();
    }

    /** Makes {@code backend} current in this thread until the scope closes. */
    public static Scope use(Backend backend) {
        Backend previous = SCOPED.get();
        SCOPED.set(backend);
        return () -> SCOPED.set(previous);
    }

    private static Backend choose() {
        return choose(System.getProperty(PROPERTY), System.getenv(ENVIRONMENT));
    }

    /**
     * The property wins over the environment (either a device string, {@code cuda:1}); with
     * neither, ordinal 0 of the highest-priority available provider.
     */
    static Backend choose(String property, String environment) {
        boolean fromProperty = property != null && !property.isBlank();
        String forced = fromProperty ? property : environment;
        if (forced != null && !forced.isBlank()) {
            String source = (fromProperty ? "-D" + PROPERTY : ENVIRONMENT) + "=" + forced + ": ";
            try {
                return get(forced);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(source + e.getMessage(), e);
            } catch (IllegalStateException e) {
                throw new IllegalStateException(source + e.getMessage(), e);
            }
        }
        for (BackendProvider p : providers()) {
            Availability a = p.availability();
            if (a.available()) return get(p.name());
            LOG.log(System.Logger.Level.DEBUG, "backend " + p.name() + " skipped: " + a.reason());
        }
        throw new IllegalStateException("no backend can run here; providers: " + describe());
    }
}
