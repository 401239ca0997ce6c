"""schedlab from Python: run, compare and sweep scenarios and read their results as pandas frames.

    import schedlab
    r = schedlab.run("scenarios/quickstart.yaml", set={"scheduler.queue": "las"}, seed=2)
    r.summary["jct_mean_s"]          # summary.json as a dict
    r.jobs                           # jobs.csv as a DataFrame (numbers as numbers, text as string)
    r.timeline                       # timeline.csv as a DataFrame
    table = schedlab.compare("scenarios/hetero-compare.yaml")   # long form: variant, metric, value
    s = schedlab.sweep("my-sweep.yaml", out="results/my-sweep")  # s.cells, s.summary
    schedlab.load("results/quickstart")                          # any results folder again

The package drives the schedlab binary (one self-contained file), found as ``binary=``, else
$SCHEDLAB_BIN, else ``schedlab`` on the PATH, else the build/schedlab of the repository this
package sits in. A refusal raises SchedlabError carrying schedlab's own located message
(``file:line: field: what is wrong``). Every figure has the meaning docs/metrics.md gives it.

``schedlab.policy`` (standard library only, no pandas) writes external scheduling policies.
"""

from ._binary import find_binary
from ._errors import SchedlabError, SchedlabNotFound, SchedlabWarning
from ._results import RunResult, SweepResult, load
from ._runner import compare, run, sweep, version

__all__ = ["run", "compare", "sweep", "load", "version", "find_binary", "RunResult", "SweepResult",
           "SchedlabError", "SchedlabNotFound", "SchedlabWarning"]
