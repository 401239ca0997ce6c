"""The Python examples against schedlab's built-in scheduler, through the schedlab binary:
the same scenario, run once with the built-in parts and once with the example as an
external policy, must write byte-identical jobs.csv files.

    python3 -m unittest discover -s tests/python -v      (from the repository root)

The binary is $SCHEDLAB_BIN, else build/schedlab; without one the tests are skipped.
(fifo_best_fit.py's equivalence is checked by tests/e2e/run_e2e.sh.)
"""

import csv
import os
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "scripts" / "python" / "examples"


def schedlab_binary():
    path = os.environ.get("SCHEDLAB_BIN") or str(ROOT / "build" / "schedlab")
    return path if os.path.isfile(path) and os.access(path, os.X_OK) else None


BIN = schedlab_binary()


@unittest.skipIf(BIN is None, "no schedlab binary (set SCHEDLAB_BIN, or build build/schedlab)")
class BuiltinEquivalenceTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="schedlab-equiv-")
        self.addCleanup(self.tmp.cleanup)

    def run_schedlab(self, name, scenario, *args):
        out = Path(self.tmp.name) / name
        p = subprocess.run([BIN, "run", str(ROOT / scenario), "-q", "-o", str(out), *args], cwd=ROOT,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=300)
        self.assertEqual(p.returncode, 0, f"schedlab run {scenario} {' '.join(args)}: exit {p.returncode}\n"
                                          f"{p.stderr[-2000:]}")
        return out / "jobs.csv"

    def assert_same_jobs(self, builtin, python):
        a, b = builtin.read_bytes(), python.read_bytes()
        if a == b:
            return
        ra = list(csv.reader(a.decode().splitlines()))
        rb = list(csv.reader(b.decode().splitlines()))
        for i, (x, y) in enumerate(zip(ra, rb)):
            if x != y:
                self.fail(f"jobs.csv differs first at line {i + 1}:\n  built-in: {','.join(x)}\n  python:   {','.join(y)}")
        self.fail(f"jobs.csv: {len(ra)} lines built-in, {len(rb)} from the policy")

    def preemptions(self, jobs_csv):
        with open(jobs_csv, newline="") as f:
            return sum(int(r["preemptions"]) for r in csv.DictReader(f))

    def test_las_equals_builtin_las_reorder(self):
        builtin = self.run_schedlab("builtin", "scenarios/quickstart.yaml",
                                    "--set", "scheduler.queue=las", "--set", "scheduler.preemption=reorder")
        python = self.run_schedlab("python", "scenarios/quickstart.yaml",
                                   "--scheduler-cmd", f"{sys.executable} {EXAMPLES / 'las.py'}")
        self.assertGreater(self.preemptions(builtin), 0, "the scenario exercises no preemption")
        self.assert_same_jobs(builtin, python)

    def test_las_options_equal_builtin_args(self):
        # Other thresholds, the wall-time service and a minimum run, given to both sides.
        builtin = self.run_schedlab("builtin", "scenarios/quickstart.yaml",
                                    "--set", "scheduler.queue=las", "--set", "scheduler.preemption=reorder",
                                    "--set", "scheduler.args.las.thresholds=[600, 3000]",
                                    "--set", "scheduler.args.las.service=time",
                                    "--set", "scheduler.args.reorder.min_run_s=300")
        python = self.run_schedlab("python", "scenarios/quickstart.yaml",
                                   "--scheduler-cmd", f"{sys.executable} {EXAMPLES / 'las.py'}",
                                   "--set", "scheduler.external.options={thresholds: [600, 3000], service: time, "
                                            "min_run_s: 300}")
        self.assertGreater(self.preemptions(builtin), 0, "the scenario exercises no preemption")
        self.assert_same_jobs(builtin, python)


if __name__ == "__main__":
    unittest.main()
