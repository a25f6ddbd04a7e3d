"""figlist.py - the PSS paper's figures: name -> runs and drawing.

FIGURES maps a name to {"title", "ready", "runs", "draw"} (and "var": True
for section 4.2's varying link, whose runs are longer: whole periods of C):
  runs() -> [Run]            the points of the sweep (figures.Run; figprep
                             adds their parameters before they run)
  draw(runs, points, timing, results, name) -> [paths]
                             draws from the records (figdata.collect's
                             points; a point without runs is shown as
                             such), writes results/<name>.png and .md
In the paper's order (reproduce.py lists and runs them in it).  The only
module that imports both the runs and the drawings, so that none of them
imports another in a circle.
"""
import figures
import figvar
from figplot import draw_compare, draw_sweep
from figvarplot import draw_series, draw_var_sweep

_PARTS = (
    ("fig5", figures.fig5_runs, draw_sweep, False),
    ("fig6", figures.fig6_runs, draw_sweep, False),
    ("fig7", figvar.fig7_runs, draw_var_sweep, True),
    ("fig8", figvar.fig8_runs, draw_series, True),
    ("fig9", figvar.fig9_runs, draw_var_sweep, True),
    ("fig10", figvar.fig10_runs, draw_series, True),
    ("fig11", figvar.fig11_runs, draw_var_sweep, True),
    ("fig12", figvar.fig12_runs, draw_var_sweep, True),
    ("compare", figures.compare_runs, draw_compare, False),
)

FIGURES = {}
for _name, _runs, _draw, _var in _PARTS:
    FIGURES[_name] = {"title": figures.TITLES[_name], "ready": True, "runs": _runs,
                      "draw": _draw}
    if _var:
        FIGURES[_name]["var"] = True
