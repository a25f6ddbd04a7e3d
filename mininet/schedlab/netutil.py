"""schedlab/netutil.py - the socket helpers the traffic sources share.

websess, onoff and tfrcnet name their peers by address literals
(A.B.C.D or an IPv6 address, never a host name: the hosts of an
experiment have no resolver), pick the socket family from the literal
and mark their packets with a DSCP.  The errors are the caller's own
class (WebError, OnOffError, TfrcError), so that each source keeps its
`what 'value': problem (accepted: ...)` refusals under one type.
"""
import socket

ADDR_ACCEPTED = "A.B.C.D:PORT or [IPv6]:PORT, port 1..65535"
DSCP_MAX = 63


def family(host):
    """socket.AF_INET6 for an IPv6 literal (it has a colon), else
    socket.AF_INET.  host is an address literal without brackets."""
    return socket.AF_INET6 if ":" in host else socket.AF_INET


def parse_addr(text, error=ValueError, listen=False):
    """("host", port) from "A.B.C.D:PORT" or "[IPv6]:PORT" (the brackets
    dropped); port 1..65535, and with listen also exactly "0" (the system
    picks one).  Anything else raises error("address 'TEXT': not HOST:PORT
    (accepted: ...)")."""
    host, sep, port = text.rpartition(":")
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    # isdecimal, not isdigit: int() refuses digits such as "²"
    ok = port.isdecimal() and (0 < int(port) < 65536 or (listen and port == "0"))
    if not (sep and host and ok):
        raise error("address '%s': not HOST:PORT (accepted: %s%s)"
                    % (text, ADDR_ACCEPTED, ", or 0 to listen on any" if listen else ""))
    return host, int(port)


def check_dscp(dscp, error=ValueError):
    """Raises error("dscp 'V': out of range (accepted: 0..63)") unless dscp
    is None (the system's default) or an int (not a bool) in 0..63."""
    if dscp is not None and not (isinstance(dscp, int) and not isinstance(dscp, bool)
                                 and 0 <= dscp <= DSCP_MAX):
        raise error("dscp '%s': out of range (accepted: 0..%d)" % (dscp, DSCP_MAX))


def set_dscp(sock, dscp):
    """Marks what sock sends with dscp (0..63, see check_dscp), the upper six
    bits of the IPv4 TOS (IP_TOS) or of the IPv6 traffic class
    (IPV6_TCLASS), as sock's family says; the two ECN bits are left 0.
    None leaves the socket as it is.  setsockopt's OSError passes through."""
    if dscp is None:
        return
    if sock.family == socket.AF_INET6:
        sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_TCLASS, dscp << 2)
    else:
        sock.setsockopt(socket.IPPROTO_IP, socket.IP_TOS, dscp << 2)
