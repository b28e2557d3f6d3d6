"""What the *_table.py scripts share: reading a benchmark's `<who> <key...> <ms> <ms> ...` lines and the
torch / symbiont ratio (above 1: symbiont is faster)."""


def lines(path):
    """The file's lines and, when it cannot be read, no lines and a note saying why."""
    try:
        return open(path, encoding="utf-8", errors="replace").readlines(), []
    except OSError as e:
        return [], [f"# cannot read {path}: {e}"]


def is_note(line):
    """A comment, an error or a timeout's exit line: shown above the table."""
    return line.startswith("#") or "Exception" in line or "Error" in line or "exited" in line


def read(path, who, width, key):
    """Rows of `width` fields starting with `who`, keyed by key(fields), valued by fields 4 and 5 as
    floats ("-" for none); the comment and error lines as notes."""
    rows = {}
    text, notes = lines(path)
    for line in text:
        parts = line.split()
        if len(parts) == width and parts[0] == who:
            rows[key(parts)] = tuple(None if p == "-" else float(p) for p in parts[4:6])
        elif is_note(line):
            notes.append(line.rstrip())
    return rows, notes


def ratio(t, s):
    return f"{t / s:.2f}" if t and s else "-"
