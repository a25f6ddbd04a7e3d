"""pytools.py - the binaries the Python unit tests run (one rule for all).

tool(var, name): the path environment variable `var` names (ctest always
sets it: SCHEDTUN, SCHEDTUN_SIM), else the first of ../../build-test,
build, build-rel that holds `name`.  Neither: an AssertionError naming
both, so that a test run without the binary fails rather than skips
(docs/testing.md: a test that cannot run fails).
"""
import os

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def tool(var, name):
    """The executable `name` (see the module docstring)."""
    path = os.environ.get(var)
    if path:
        if not (os.path.isfile(path) and os.access(path, os.X_OK)):
            raise AssertionError("%s='%s': not an executable file" % (var, path))
        return path
    for tree in ("build-test", "build", "build-rel"):
        cand = os.path.join(ROOT, tree, name)
        if os.access(cand, os.X_OK):
            return cand
    raise AssertionError("no %s: set %s=/path/to/%s (ctest sets it) or build "
                         "build-test/" % (name, var, name))
