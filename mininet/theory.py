"""theory.py - mininet/schedlab/theory.py under its old name.

The PSS paper's equations, the rate specifications and the per-class
theory live in schedlab.theory (one copy); geo.py, geo*.py and fig*.py
keep their `import theory`, which works wherever mininet/ is on sys.path
and so schedlab is importable too.  New code imports schedlab.theory.
"""
from schedlab.theory import *  # noqa: F401,F403
from schedlab.theory import __all__  # noqa: F401
