package dev.symbiont.core.backend;

import dev.symbiont.core.DType;
import dev.symbiont.core.Layout;
import dev.symbiont.core.Scope;
import dev.symbiont.core.reference.ReferenceBackend;

/**
 * A provider with two devices of one heap kind, {@code twin:0} and {@code twin:1}, added through
 * {@link Backends#register} (not a service file, which every other test would see). Its priority
 * is below the reference's, so it is never the default.
 */
final class TwinProvider implements BackendProvider {
    static final String NAME = "twin";

    /** Registers a fresh provider until the scope closes. */
    static Scope register() { return Backends.register(new TwinProvider()); }

    /** The backend of ordinal {@code ordinal}, as Backends keeps it. */
    static TwinBackend twin(int ordinal) { return (TwinBackend) Backends.get(NAME + ":" + ordinal); }

    @Override public String name() { return NAME; }

    @Override public int priority() { return -1; }

    @Override public Availability availability() { return Availability.yes(); }

    @Override public int deviceCount() { return 2; }

    @Override public Backend create() { return create(0); }

    @Override public Backend create(int ordinal) { return new TwinBackend(ordinal); }

    /** A reference backend that is device {@code twin:ordinal} and counts its host transfers. */
    static final class TwinBackend extends ReferenceBackend {
        private final int ordinal;
        int uploads, downloads;

        TwinBackend(int ordinal) { this.ordinal = ordinal; }

        @Override public String name() { return NAME; }

        @Override public Device device() { return new Device(NAME, ordinal); }

        @Override
        public Storage upload(DType dtype, java.lang.foreign.MemorySegment source) {
            uploads++;
            return super.upload(dtype, source);
        }

        @Override
        public void download(Storage storage, Layout layout, java.lang.foreign.MemorySegment target) {
            downloads++;
            super.download(storage, layout, target);
        }

        int hostTransfers() { return uploads + downloads; }

        void resetCounts() { uploads = downloads = 0; }
    }
}
