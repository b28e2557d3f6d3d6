"""What the *_table.py scripts share: reading a benchmark's `<who> <key...> <ms> <ms> ...` lines and the
torch / symbiont ratio (above 1: symbiont is faster)."""


def read(path, who, width, key):
    """Rows of `width` fields starting with `who`, keyed by key(fields), valued by fields 4 and 5 as
    floats ("-" for none); the comment and error lines as notes."""
    rows, notes = {}, []
    try:
        lines = open(path, encoding="utf-8", errors="replace").readlines()
    except OSError as e:
        return rows, [f"# cannot read {path}: {e}"]
    for line in lines:
        parts = line.split()
        if len(parts) == width and parts[0] == who:
            rows[key(parts)] = tuple(None if p == "-" else float(p) for p in parts[4:6])
        elif line.startswith("#") or "Exception" in line or "Error" in line:
            notes.append(line.rstrip())
    return rows, notes


def ratio(t, s):
    return f"{t / s:.2f}" if t and s else "-"
