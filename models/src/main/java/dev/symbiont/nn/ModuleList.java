package dev.symbiont.nn;

import java.util.Iterator;
import java.util.List;

/** An indexed list of submodules named "0", "1", ... (torch.nn.ModuleList), e.g. a model's blocks. */
public final class ModuleList<M extends Module> extends Module implements Iterable<M> {
    private final List<M> items;

    public ModuleList(List<? extends M> items) {
        this.items = List.copyOf(items);
        for (int i = 0; i < this.items.size(); i++) module(Integer.toString(i), this.items.get(i));
    }

    public M get(int index) { return items.get(index); }

    public int size() { return items.size(); }

    @Override
    public Iterator<M> iterator() { return items.iterator(); }
}
