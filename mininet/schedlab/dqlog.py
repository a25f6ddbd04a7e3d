"""schedlab/dqlog.py - the Dual Queue paper's measures from a run's records.

Hayes, Rumsewicz and Andrew (1999) §4.3 and §5.1: a packet receives good
service when its delay is under 120 ms; a session is degraded in a
measurement period when one of its packets is not (Fig. 4).  Here a
session is a source (a user on its own host: its inner source address),
the delay is the packet's time in the bottleneck's scheduler (the
sender's `sojourn_ns`: the forward path has no other queue or
propagation), and a packet the scheduler dropped counts as not in good
service (it is retransmitted later, if at all).

degraded(sender_log, t0_ns, t1_ns, period_ns, users, map_users) streams
the sender's packet log and returns, over the periods [t0 + k period,
t0 + (k+1) period) inside [t0, t1):
  active       (source, period) pairs with at least one departure or drop
               of the source's data (TCP towards the sink);
  degraded     those with a packet over 120 ms or dropped;
  fraction     degraded / active;
  per_period   the degraded fraction of each period (None when idle);
  drops        the scheduler's drops in the window, by reason;
  map          for the sources map_users (addresses), one string each, a
               character per period: ' ' idle, '.' good, '#' degraded
               (the paper's Fig. 4 for 10 sources).
eq2(sender_records, t0_ns, t1_ns) is the paper's eq. 2 over the bursts
that started in the window (schedlab.websess.summarise), and
effective_bps(sink_records, t0_ns, t1_ns) the sink's payload bytes of the
bursts that ended in the window, over its length.

Pure: no Mininet, no root.  A bad log line raises DqLogError naming
FILE:LINE.
"""
from schedlab import websess
from schedlab.pktlog import COL, LogError, col_int, stream

GOOD_NS = 120_000_000        # §4.3: good service is a delay under 120 ms


class DqLogError(ValueError):
    """A log or record file that cannot be measured."""


def degraded(sender_log, t0_ns, t1_ns, period_ns, dst_port, map_users=()):
    """The window's degraded sessions (module doc); dst_port: the sink's
    port, so that only the web data counts."""
    if not t1_ns - t0_ns >= period_ns > 0:
        raise DqLogError("window [%d, %d) ns in periods of %d ns: not one whole "
                         "period (accepted: t1 - t0 >= period > 0)" % (t0_ns, t1_ns,
                                                                        period_ns))
    port = str(dst_port)
    nper = (t1_ns - t0_ns) // period_ns
    end = t0_ns + nper * period_ns
    state = {}                  # (src, k) -> True when degraded
    drops = {}
    try:
        for n, row in stream(sender_log):
            ev = row[COL["event"]]
            if ev not in ("dep", "drop") or row[COL["dport"]] != port:
                continue
            t = col_int(sender_log, n, row, "t_ns")
            if not t0_ns <= t < end:
                continue
            key = (row[COL["src"]], (t - t0_ns) // period_ns)
            if ev == "drop":
                bad = True
                why = row[COL["reason"]]
                drops[why] = drops.get(why, 0) + 1
            else:
                bad = col_int(sender_log, n, row, "sojourn_ns") >= GOOD_NS
            state[key] = state.get(key, False) or bad
    except (OSError, LogError) as e:
        raise DqLogError(str(e)) from None
    per = []
    for k in range(nper):
        ks = [v for (s, kk), v in state.items() if kk == k]
        per.append(round(sum(ks) / len(ks), 6) if ks else None)
    active = len(state)
    bad = sum(state.values())
    maps = {}
    for u in map_users:
        maps[u] = "".join(" " if (u, k) not in state else "#" if state[(u, k)] else "."
                          for k in range(nper))
    return {"periods": nper, "period_s": period_ns / 1e9, "active": active,
            "degraded": bad, "fraction": bad / active if active else None,
            "per_period": per, "drops": dict(sorted(drops.items())), "map": maps}


def eq2(sender_records, t0_ns, t1_ns):
    """websess.summarise over the bursts that started in [t0, t1)."""
    return websess.summarise([r for r in sender_records if t0_ns <= r["start_ns"] < t1_ns])


def effective_bps(sink_records, t0_ns, t1_ns):
    """Payload bit/s of the bursts whose last byte reached the sink in the window."""
    if not t1_ns > t0_ns:
        raise DqLogError("window [%d, %d) ns: empty" % (t0_ns, t1_ns))
    b = sum(r["bytes"] for r in sink_records if t0_ns <= r["last_ns"] < t1_ns)
    return b * 8 / ((t1_ns - t0_ns) / 1e9)
