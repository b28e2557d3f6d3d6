package dev.symbiont.core.backend;

import dev.symbiont.core.Scope;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Finds backends with {@link ServiceLoader} and picks one: the one named by
 * {@code -Dsymbiont.backend=} or {@code SYMBIONT_BACKEND}, else the available one with the
 * highest priority. New tensors go to {@link #current()}; {@link #use(Backend)} changes it for
 * a block.
 */
public final class Backends {
    public static final String PROPERTY = "symbiont.backend";
    public static final String ENVIRONMENT = "SYMBIONT_BACKEND";

    private static final System.Logger LOG = System.getLogger(Backends.class.getName());
    private static final Map<String, Backend> CREATED = new ConcurrentHashMap<>();
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
        found.sort(Comparator.comparingInt(BackendProvider::priority).reversed());
        return found;
    }

    /** The backend with this name, created once; throws saying why when it cannot run here. */
    public static Backend get(String name) {
        String key = name.toLowerCase(Locale.ROOT).strip();
        Backend existing = CREATED.get(key);
        if (existing != null) return existing;
        List<BackendProvider> all = providers();
        for (BackendProvider p : all) {
            if (!p.name().equals(key)) continue;
            Availability a = p.availability();
            if (!a.available()) {
                throw new IllegalStateException("backend '" + key + "' cannot run here: " + a.reason());
            }
            return CREATED.computeIfAbsent(key, k -> p.create());
        }
        throw new IllegalArgumentException("no backend named '" + name + "'; found: "
                + all.stream().map(BackendProvider::name).toList());
    }

    /** One line per provider: name, priority and whether it can run here (or why not). */
    public static List<String> describe() {
        return providers().stream().map(p -> {
            Availability a = p.availability();
            return p.name() + " (priority " + p.priority() + "): " + (a.available() ? "available" : "unavailable, " + a.reason());
        }).toList();
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

    /** The property wins over the environment; with neither, the highest-priority available provider. */
    static Backend choose(String property, String environment) {
        String forced = property == null || property.isBlank() ? environment : property;
        if (forced != null && !forced.isBlank()) return get(forced);
        for (BackendProvider p : providers()) {
            Availability a = p.availability();
            if (a.available()) return get(p.name());
            LOG.log(System.Logger.Level.INFO, "backend " + p.name() + " skipped: " + a.reason());
        }
        throw new IllegalStateException("no backend can run here; providers: " + describe());
    }
}
