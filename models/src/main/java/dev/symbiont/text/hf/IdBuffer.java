package dev.symbiont.text.hf;

import java.util.Arrays;

/** A growing array of ids, the output of an encode. */
final class IdBuffer {
    private int[] ids = new int[16];
    private int size;

    void add(int id) {
        if (size == ids.length) ids = Arrays.copyOf(ids, size * 2);
        ids[size++] = id;
    }

    void addAll(int[] more) {
        if (size + more.length > ids.length) ids = Arrays.copyOf(ids, Math.max(ids.length * 2, size + more.length));
        System.arraycopy(more, 0, ids, size, more.length);
        size += more.length;
    }

    int[] toArray() { return Arrays.copyOf(ids, size); }
}
