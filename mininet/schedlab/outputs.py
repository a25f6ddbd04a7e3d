"""schedlab/outputs.py - the files a run writes: rates.csv, credit.csv,
summary.json (their formats are geo.py's contract, mininet/README.md
"Outputs"), and readers for them.  Standard library only.
"""
import csv
import json
import math
import os


def write_rates_csv(path, rows):
    """Writes `t,class,mbps,source` rows (t: interval end, traffic time).

    rows: iterable of (t, class, mbps, source); sorted by source, class, t.
    Non-finite or None rates are left out.
    """
    good = [r for r in rows if r[2] is not None and math.isfinite(r[2])]
    good.sort(key=lambda r: (r[3], r[1], r[0]))
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["t", "class", "mbps", "source"])
        for t, c, mbps, src in good:
            w.writerow(["%.3f" % t, c, "%.6f" % mbps, src])


def read_rates_csv(path):
    """rates.csv -> [(t, class, mbps, source)]; ValueError on a bad header/row."""
    out = []
    with open(path, newline="", encoding="utf-8") as f:
        r = csv.reader(f)
        header = next(r, None)
        if header != ["t", "class", "mbps", "source"]:
            raise ValueError("%s: header %r, not t,class,mbps,source" % (path, header))
        for n, row in enumerate(r, 2):
            if len(row) != 4:
                raise ValueError("%s:%d: %d fields, not 4" % (path, n, len(row)))
            out.append((float(row[0]), row[1], float(row[2]), row[3]))
    return out


def write_credit_csv(path, points):
    """Writes `t,credit_bytes,prio` from [(t, credit, prio)] (traffic time)."""
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["t", "credit_bytes", "prio"])
        for t, credit, prio in points:
            w.writerow(["%.3f" % t, "%.1f" % credit, prio])


def read_summary_json(path):
    """summary.json as written by write_summary_json (a dict)."""
    with open(path) as f:
        return json.load(f)


def write_summary_json(path, summary):
    """Writes summary (a dict) as indented JSON; NaN/inf become null."""
    def clean(v):
        if isinstance(v, float) and not math.isfinite(v):
            return None
        if isinstance(v, dict):
            return {k: clean(x) for k, x in v.items()}
        if isinstance(v, (list, tuple)):
            return [clean(x) for x in v]
        return v
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(clean(summary), f, indent=2, allow_nan=False)
        f.write("\n")
    os.replace(tmp, path)
