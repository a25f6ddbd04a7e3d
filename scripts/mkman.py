#!/usr/bin/python3
"""mkman.py - a man page from its template (docs/man/*.in) and what the
programs print of themselves, so that no page keeps a hand-made copy of an
option or a key.

    mkman.py TEMPLATE OUT --version V [--options FILE] [--keys FILE]

@VERSION@ and @DATE@ are filled in (the date from SOURCE_DATE_EPOCH when
set, for reproducible packages, else today); @OPTIONS@ becomes the text of
--options FILE (a program's --help output), verbatim inside the template's
literal display; @KEYS@ becomes the configuration reference of --keys FILE
(`schedtun --help-conf-tsv`: "@section<TAB>NAME<TAB>TITLE" lines, then
"KEY<TAB>ACCEPTED<TAB>DEFAULT<TAB>MEANING" lines), one tagged list per
section.  A placeholder without its input, an input without its
placeholder, or a malformed line is an error (exit 1).
"""
import argparse
import datetime
import os
import sys


def esc(text):
    """Text safe on an mdoc text line: backslashes escaped, a leading
    period or apostrophe (a request) neutralised, non-ASCII as \\[uXXXX]."""
    text = text.replace("\\", "\\e")
    if text.startswith((".", "'")):
        text = "\\&" + text
    # groff reads bytes: any other character by its Unicode name
    return "".join(c if ord(c) < 128 else f"\\[u{ord(c):04X}]" for c in text)


def keys_mdoc(tsv):
    """The reference as mdoc: .Ss per section, a tagged list of keys."""
    out, in_section, open_list = [], False, False

    def close():
        if open_list:
            out.append(".El")
        elif in_section:
            out.append("No keys of its own.")

    for n, line in enumerate(tsv.splitlines(), 1):
        if not line:
            continue
        f = line.split("\t")
        if f[0] == "@section":
            if len(f) != 3:
                raise ValueError(f"keys line {n}: @section needs a name "
                                 f"and a title: {line!r}")
            close()
            out += [f".Ss {esc(f[1])}", esc(f[2][:1].upper() + f[2][1:]) +
                    "."]
            in_section, open_list = True, False
            continue
        if len(f) != 4 or not in_section:
            raise ValueError(f"keys line {n}: expected KEY, ACCEPTED, "
                             f"DEFAULT, MEANING after a @section: {line!r}")
        if not open_list:
            out.append(".Bl -tag -width Ds")
            open_list = True
        key, accepted, default, meaning = f
        out.append(f".It Cm {key}")
        text = f"Accepted: {accepted}"
        text += f"; default: {default}." if default else "."
        out.append(esc(text))
        if meaning:
            out.append(esc(meaning[:1].upper() + meaning[1:] + "."))
    close()
    return "\n".join(out)


def literal(text):
    """Program output for a -literal display, line by line."""
    return "\n".join(esc(l) if l else "" for l in text.rstrip("\n").split("\n"))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("template")
    ap.add_argument("out")
    ap.add_argument("--version", required=True)
    ap.add_argument("--options", help="a program's --help output")
    ap.add_argument("--keys")
    a = ap.parse_args()
    page = open(a.template, encoding="utf-8").read()
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    day = (datetime.datetime.fromtimestamp(int(epoch), datetime.timezone.utc)
           if epoch else datetime.datetime.now(datetime.timezone.utc))
    fill = {"@VERSION@": a.version,
            "@DATE@": f"{day:%B} {day.day}, {day.year}"}
    if a.options:
        fill["@OPTIONS@"] = literal(open(a.options, encoding="utf-8").read())
    if a.keys:
        fill["@KEYS@"] = keys_mdoc(open(a.keys, encoding="utf-8").read())
    for ph in ("@OPTIONS@", "@KEYS@"):
        if (ph in page) != (ph in fill):
            raise SystemExit(f"mkman: {a.template}: {ph} "
                             f"{'has no input' if ph in page else 'is not in the template'}")
    for ph, value in fill.items():
        page = page.replace(ph, value)
    with open(a.out, "w", encoding="utf-8") as f:
        f.write(page)


if __name__ == "__main__":
    try:
        main()
    except ValueError as e:
        print(f"mkman: {e}", file=sys.stderr)
        sys.exit(1)
