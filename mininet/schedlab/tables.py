"""tables.py - Markdown tables of repeated runs, and the redraw check.

render() turns run records (records.py) into one table row per point:
the chosen parameters, n valid runs, each class's mean +- the 95 %
half-width, its theory and the error against it with its interval, and
the discarded runs with their reasons.  The output depends only on the
set of records: points are sorted by their parameter columns (then key),
runs by repetition, numbers have fixed decimals; so the same records give
the same bytes, and redraw_check() can tell whether a committed table
still follows from the committed records.
"""
from schedlab import repeats

CLASSES = ("ef", "af", "cs0")
NOTE = ("Mean over the valid runs ± the half-width of the 95 % Student-t interval "
        "(t(0.975, n - 1) * sd / sqrt(n)); n = 1 has no interval. Error = measured "
        "- theory per run, relative to the theory (absolute in Mbit/s where the "
        "theory is 0), with its own interval. Discarded runs (the sender stalled) "
        "are not in the means.")


def _sort_value(v):
    if isinstance(v, bool) or v is None or not isinstance(v, (int, float)):
        return (1, "" if v is None else str(v))
    return (0, v)


def _cell(text):
    return str(text).replace("|", "\\|").replace("\n", " ")


def _value(s):
    if s is None:
        return "n/a"
    if s.half_width is None:
        return "%.3f (%s)" % (s.mean, s.note)
    return "%.3f ± %.3f" % (s.mean, s.half_width)


def error_text(err):
    """An error against theory (repeats.error_against_theory) with its
    interval: relative in % where no run's theory is 0, else absolute in
    Mbit/s; '' without a theory."""
    if err is None:
        return ""
    if err["rel"] is not None:
        s, scale, unit, fmt = err["rel"], 100.0, " %", "%+.1f"
    else:
        s, scale, unit, fmt = err["abs"], 1.0, " Mbit/s", "%+.3f"
    text = (fmt % (s.mean * scale)) + unit
    if s.half_width is None:
        return text + " (%s)" % repeats.NO_INTERVAL
    return text + " [" + fmt % (s.lo * scale) + ", " + fmt % (s.hi * scale) + "]"


def _discarded(disc):
    if not disc:
        return "0"
    return "%d: %s" % (len(disc), "; ".join(
        "rep %d: %s" % (rep, ", ".join(reasons)) for rep, reasons in disc))


def render(recs, columns, classes=CLASSES, title=None):
    """The Markdown text (ending in a newline) of the points in recs.

    columns: [(heading, params field)], the parameters shown and sorted
    on.  ValueError when two records of one key disagree on params."""
    groups = repeats.group_by_key(recs)
    rows = []
    for key, runs in groups.items():
        params = runs[0]["params"]
        for r in runs[1:]:
            if r["params"] != params:
                raise ValueError("tables: key %s: runs %d and %d have different params "
                                 "(a key names one point)" % (key[:12], runs[0]["rep"], r["rep"]))
        sort = tuple(_sort_value(params.get(f)) for _, f in columns) + ((1, key),)
        rows.append((sort, params, repeats.point_stats(runs, classes)))
    rows.sort(key=lambda x: x[0])
    head = [h for h, _ in columns] + ["n"]
    for c in classes:
        u = c.upper()
        head += [u, u + " theory", u + " error"]
    head.append("discarded")
    out = []
    if title:
        out += ["# " + title, ""]
    out += [NOTE, "", "| " + " | ".join(head) + " |",
            "|" + "|".join("---" if i < len(columns) else "--:" for i in range(len(head) - 1))
            + "|---|"]
    for _, params, st in rows:
        cells = [_cell(params.get(f, "")) for _, f in columns] + [str(st["n"])]
        for c in classes:
            cs = st["classes"][c]
            th = cs["theory_mbps"]
            cells += [_value(cs["measured"]), "none" if th is None else "%.3f" % th,
                      error_text(cs["error"])]
        cells.append(_cell(_discarded(st["discarded"])))
        out.append("| " + " | ".join(cells) + " |")
    return "\n".join(out) + "\n"


def first_difference(committed_path, regenerated):
    """None when the file holds exactly `regenerated` (text), else a line
    "FILE:LINE: committed '...', regenerated '...'" for the first
    differing line (a missing line shows as <end of file>)."""
    with open(committed_path, "rb") as f:
        old = f.read()
    new = regenerated.encode("utf-8")
    if old == new:
        return None
    a, b = old.split(b"\n"), new.split(b"\n")
    for i in range(max(len(a), len(b))):
        x = a[i] if i < len(a) else None
        y = b[i] if i < len(b) else None
        if x != y:
            def show(s):
                return "<end of file>" if s is None else repr(s.decode("utf-8", "replace"))
            return "%s:%d: committed %s, regenerated %s" % (committed_path, i + 1,
                                                            show(x), show(y))
    return "%s: differs" % committed_path       # not reached: equal lines, equal bytes


def redraw_check(recs, committed_path, columns, classes=CLASSES, title=None):
    """render() the records and compare with the committed table byte for
    byte: None when equal, else first_difference()'s line."""
    return first_difference(committed_path, render(recs, columns, classes, title))
