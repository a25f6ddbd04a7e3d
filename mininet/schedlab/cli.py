"""schedlab/cli.py - what the traffic sources' command lines share.

mininet/websess.py, onoff.py and tfrc.py each run until a signal, write
their records as JSON lines to --out (a file, or "-": stdout) and say
what they did on stderr, one line prefixed with the program's name.
"""
import argparse
import json
import os
import signal
import sys
import threading


def parser(prog, doc, serve):
    """(ap, serve_parser, send_parser): prog's argparse parser, described
    by doc's first paragraph, with the two subcommands (dest "cmd",
    required) every source has: `serve` (the receiving side's name) with
    --listen (required) and --out (default "-"), then "send" with --to
    (required).  The caller adds their other options after these."""
    ap = argparse.ArgumentParser(prog=prog, description=doc.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    rv = sub.add_parser(serve)
    rv.add_argument("--listen", required=True)
    rv.add_argument("--out", default="-")
    sd = sub.add_parser("send")
    sd.add_argument("--to", required=True)
    return ap, rv, sd


def stop_event():
    """A threading.Event that SIGINT and SIGTERM set from now on (their
    handlers are replaced; call it from the main thread)."""
    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda signum, frame: stop.set())
    return stop


def jsonl_writer(path):
    """(emit, close) writing one JSON line per record (keys sorted) to path
    ("-": stdout, through a copy of fd 1 that close() closes), flushed per
    line so a killed run keeps what it wrote.  open()'s OSError passes
    through."""
    f = open(path, "w") if path != "-" else os.fdopen(os.dup(1), "w")

    def emit(rec):
        f.write(json.dumps(rec, sort_keys=True) + "\n")
        f.flush()
    return emit, f.close


def recorder(path):
    """(emit, records, close): jsonl_writer(path) whose emit(rec) also
    appends rec to the list records (for the summary), under a lock: a
    source may emit from several threads."""
    write, close = jsonl_writer(path)
    records = []
    lock = threading.Lock()

    def emit(rec):
        with lock:
            records.append(rec)
            write(rec)
    return emit, records, close


def say(prog, text):
    """Writes "PROG: text" on stderr at once."""
    print("%s: %s" % (prog, text), file=sys.stderr, flush=True)


def say_summary(prog, summary):
    """Writes "PROG: {json}" on stderr: the summary dict, keys sorted."""
    say(prog, json.dumps(summary, sort_keys=True))
