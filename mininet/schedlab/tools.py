"""tools.py - where the schedtun binaries are.

One rule for every front end (geo.py, reproduce, SchedtunLink, the
examples): the path given, else $SCHEDTUN (for schedtun itself), else the
repository's build-rel/ (the -O2 build the experiments use), else PATH.
The repository is found from this file, never from the working directory.
"""
import os
import shutil

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD_HINT = "cmake -S . -B build-rel -DCMAKE_BUILD_TYPE=RelWithDebInfo && cmake --build build-rel"


class ToolError(Exception):
    """No usable binary; the message says what was tried."""


def find_tool(given=None, name="schedtun"):
    """The absolute path of binary `name`: `given` (which must be an
    executable file), else $SCHEDTUN when name is schedtun, else
    ROOT/build-rel/NAME, else NAME on PATH; ToolError otherwise."""
    env = os.environ.get("SCHEDTUN") if name == "schedtun" else None
    for cand, what in ((given, "'%s'" % given), (env, "$SCHEDTUN '%s'" % env)):
        if cand:
            if os.path.isfile(cand) and os.access(cand, os.X_OK):
                return os.path.abspath(cand)
            raise ToolError("%s: not an executable file" % what)
    cand = os.path.join(ROOT, "build-rel", name)
    if os.path.isfile(cand) and os.access(cand, os.X_OK):
        return cand
    found = shutil.which(name)
    if found:
        return os.path.abspath(found)
    raise ToolError("no %s binary: give its path, or build build-rel (%s)" % (name, BUILD_HINT))
