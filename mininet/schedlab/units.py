"""units.py - rates and durations read exactly as src/util/units.c reads them.

parse_rate_bps(text, allow_unlimited=False) -> int bit/s (> 0, <= 2^63, or
RATE_UNLIMITED) and parse_duration_ns(text) -> int ns (>= 0, <= 2^63) accept
the same texts as the C parsers, give the same values (the same decimal
scan, the same double arithmetic for the fraction, round half away from
zero) and raise ValueError with the C's message:
"'VALUE' is not a rate[: why] (accepted: ...)".  A plain number is bit/s for
a rate and seconds for a duration; "20mbps" is bytes/s as in tc(8) (160
Mbit/s); "20M", hex, inf, nan, signs and empty texts are refused.  The C has
no size parser, so neither has this module.

fmt_rate(bps) and fmt_duration(ns) print as the C's fmt_rate/fmt_duration.
"""
import math

UNITS_MAX = 1 << 63
RATE_UNLIMITED = (1 << 64) - 1          # the C's UINT64_MAX
_UINT64_MAX = (1 << 64) - 1
_FRAC_DIGITS_MAX = 17                   # as units.c: more cannot matter
_DIGITS_KEPT = 64                       # units.c's digits[64]
_VAL_QUOTE_MAX = 80
_SPACE = " \t\n\v\f\r"                  # C's isspace() in the "C" locale
_DIGIT = "0123456789"

RATE_SUFFIXES = {
    "": 1, "bit": 1, "kbit": 10 ** 3, "mbit": 10 ** 6, "gbit": 10 ** 9,
    "tbit": 10 ** 12, "kibit": 1 << 10, "mibit": 1 << 20, "gibit": 1 << 30,
    "tibit": 1 << 40,
    # tc(8): bps is BYTES per second
    "bps": 8, "kbps": 8 * 10 ** 3, "mbps": 8 * 10 ** 6, "gbps": 8 * 10 ** 9,
    "tbps": 8 * 10 ** 12, "kibps": 8 << 10, "mibps": 8 << 20,
    "gibps": 8 << 30, "tibps": 8 << 40,
}
DURATION_SUFFIXES = {
    "": 10 ** 9, "s": 10 ** 9, "sec": 10 ** 9, "secs": 10 ** 9,
    "ms": 10 ** 6, "msec": 10 ** 6, "msecs": 10 ** 6,
    "us": 10 ** 3, "usec": 10 ** 3, "usecs": 10 ** 3,
    "ns": 1, "nsec": 1, "nsecs": 1,
}
RATE_ACCEPTED = ("a number > 0 with bit, kbit, mbit, gbit, tbit, kibit..tibit, "
                 "or bps, kbps, mbps, gbps, tbps, kibps..tibps = bytes/s as in "
                 "tc; a plain number is bit/s")
DURATION_ACCEPTED = ("a number >= 0 with ns, us, ms, s (also nsec, usec, msec, "
                     "sec, secs); a plain number is seconds")

_SYNTAX, _OVERFLOW = "syntax", "overflow"


def _isdigit(c):
    """C's isdigit() on one character: ASCII 0-9 only ('' is not one)."""
    return len(c) == 1 and c in _DIGIT


def _ascii_lower(s):
    """s with A-Z lowered and nothing else changed (strncasecmp in the C
    locale: str.lower() would turn the Kelvin sign into 'k')."""
    return "".join(chr(ord(c) + 32) if "A" <= c <= "Z" else c for c in s)


def _c_round(x):
    """C's round() for x >= 0: halves away from zero (Python's round() goes
    to even, which would read "2.5bit" as 2 where the C reads 3)."""
    f = math.floor(x)
    return f + 1 if x - f >= 0.5 else f


def _scan(s, suffixes):
    """units.c's scan_number: (value, None) or (None, _SYNTAX | _OVERFLOW)."""
    n, p = len(s), 0
    digits, point, seen_digit, seen_point = [], 0, False, False
    while p < n and s[p] in _SPACE:
        p += 1
    while p < n:
        ch = s[p]
        if ch == "." and not seen_point:
            seen_point = True
        elif not _isdigit(ch):
            break
        else:
            seen_digit = True
            if not digits and ch == "0":
                point -= 1 if seen_point else 0     # leading zero
            elif len(digits) < _DIGITS_KEPT:
                digits.append(ord(ch) - 48)
                point += 0 if seen_point else 1
            elif not seen_point:
                point += 1                          # only the magnitude counts
        p += 1
    if not seen_digit:
        return None, _SYNTAX
    if s[p:p + 1] in ("e", "E") and (_isdigit(s[p + 1:p + 2]) or (
            s[p + 1:p + 2] in ("+", "-") and _isdigit(s[p + 2:p + 3]))):
        p += 1
        neg = s[p] == "-"
        p += s[p] in "+-"
        exp10 = 0
        while p < n and _isdigit(s[p]):
            if exp10 < 100000:
                exp10 = exp10 * 10 + ord(s[p]) - 48
            p += 1
        point += -exp10 if neg else exp10
    while p < n and s[p] in _SPACE:
        p += 1
    name = s[p:].rstrip(_SPACE)
    mult = suffixes.get(_ascii_lower(name))
    if mult is None:
        return None, _SYNTAX

    if point > 20:
        return None, _OVERFLOW
    ipart = 0
    for i in range(point):
        d = digits[i] if i < len(digits) else 0
        if ipart > (_UINT64_MAX - d) // 10:
            return None, _OVERFLOW
        ipart = ipart * 10 + d
    if ipart != 0 and mult > UNITS_MAX // ipart:
        return None, _OVERFLOW
    ipart *= mult
    if ipart > UNITS_MAX:
        return None, _OVERFLOW

    # The fraction in doubles, operation for operation as the C does it,
    # so that the rounding of the last bit/s or ns is the same.
    frac, scale = 0.0, 0.1
    if point < 0:
        for _ in range(-point):
            if scale <= 0.0:
                break
            scale /= 10.0
    first = max(point, 0)
    i = first
    while i < len(digits) and i - first < _FRAC_DIGITS_MAX:
        frac += digits[i] * scale
        scale /= 10.0
        i += 1
    rounded = _c_round(frac * float(mult))
    if float(UNITS_MAX - ipart) < rounded:
        return None, _OVERFLOW
    return ipart + int(rounded), None


def _quote(s):
    """The value as the C quotes it: at most 80 characters, then '...'."""
    return s[:_VAL_QUOTE_MAX] + ("..." if len(s) > _VAL_QUOTE_MAX else "")


def _text(s, what):
    """The text a C caller would hand over; ValueError for what C cannot get."""
    if not isinstance(s, str):
        raise ValueError("'%s' is not a %s: not a text (accepted: a string)"
                         % (s, what))
    return s


def parse_rate_bps(s, allow_unlimited=False):
    """A rate text -> bit/s, an int in 1..2^63, or RATE_UNLIMITED for
    "unlimited" (any case, blanks around) when allow_unlimited.

    ValueError("'S' is not a rate[: why] (accepted: ...)") otherwise, word
    for word the C's message.  A text with a NUL character is refused: the
    C would read it only up to the NUL.
    """
    s = _text(s, "rate")
    why = ""
    if "\0" not in s:
        body = s.lstrip(_SPACE)
        if _ascii_lower(body[:9]) == "unlimited" and not body[9:].strip(_SPACE):
            if allow_unlimited:
                return RATE_UNLIMITED
            why = ': "unlimited" is not allowed here'
        else:
            v, err = _scan(body, RATE_SUFFIXES)
            if err is None and v > 0:
                return v
            why = (": it must be above 0" if err is None else
                   ": larger than 2^63 bit/s" if err == _OVERFLOW else "")
    raise ValueError("'%s' is not a rate%s (accepted: %s%s)" % (
        _quote(s), why, RATE_ACCEPTED,
        '; or "unlimited"' if allow_unlimited else ""))


def parse_duration_ns(s):
    """A duration text -> ns, an int in 0..2^63 (a plain number is seconds).

    ValueError("'S' is not a duration[: why] (accepted: ...)") otherwise.
    """
    s = _text(s, "duration")
    v, err = (None, _SYNTAX) if "\0" in s else _scan(s, DURATION_SUFFIXES)
    if err is None:
        return v
    raise ValueError("'%s' is not a duration%s (accepted: %s)" % (
        _quote(s), ": larger than 2^63 ns" if err == _OVERFLOW else "",
        DURATION_ACCEPTED))


def _fmt_scaled(v, unit, name):
    """v/unit with up to three decimals, trailing zeros removed (units.c)."""
    if v % unit == 0:
        return "%d%s" % (v // unit, name)
    if v > UNITS_MAX - unit // 1000:
        # as the C: rounding up here would print a value the parsers refuse
        num = "%d.%03d" % (v // unit, v % unit // (unit // 1000))
    else:
        num = "%.3f" % (float(v) / float(unit))
    num = num.rstrip("0").rstrip(".")
    return num + name


def fmt_rate(bps):
    """"20Mbit", "1.5Mbit", "unlimited": the largest SI unit not above bps."""
    if bps == RATE_UNLIMITED:
        return "unlimited"
    for unit, name in ((10 ** 12, "Tbit"), (10 ** 9, "Gbit"), (10 ** 6, "Mbit"),
                       (10 ** 3, "Kbit")):
        if bps >= unit:
            return _fmt_scaled(bps, unit, name)
    return _fmt_scaled(bps, 1, "bit")


def fmt_duration(ns):
    """"250ms", "1.5s", "0s"; 2^64 - 1 (the C's 'never') is "never"."""
    if ns == _UINT64_MAX:
        return "never"
    if ns == 0 or ns >= 10 ** 9:
        return _fmt_scaled(ns, 10 ** 9, "s")
    for unit, name in ((10 ** 6, "ms"), (10 ** 3, "us")):
        if ns >= unit:
            return _fmt_scaled(ns, unit, name)
    return _fmt_scaled(ns, 1, "ns")
