"""The Python package `schedlab` (scripts/python/schedlab) against the real binary: each public
function on a small scenario, the dtypes of its frames, errors with schedlab's located message.
Run by ctest (python-api) with Debian's python3 and $SCHEDLAB_BIN set to the built binary."""

import os
import subprocess
import sys
import tempfile
import unittest
import warnings
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "scripts" / "python"))

import schedlab  # noqa: E402

QUICKSTART = REPO / "scenarios" / "quickstart.yaml"
SMALL_SWEEP = REPO / "tests" / "fixtures" / "sweeps" / "small.yaml"
GENERATED = REPO / "tests" / "fixtures" / "scenarios" / "generated.yaml"


def read_csv_column(path, name):
    import csv
    with open(path, newline="", encoding="utf-8") as f:
        return [row[name] for row in csv.DictReader(f)]


class RunTest(unittest.TestCase):
    def test_run_gives_summary_jobs_and_timeline_with_their_dtypes(self):
        r = schedlab.run(QUICKSTART, set={"scheduler.queue": "las", "scheduler.preemption": "reorder"})
        self.assertEqual(r.summary["scenario"], "quickstart")
        self.assertEqual(len(r.jobs), r.summary["jobs"])
        self.assertEqual(str(r.jobs["id"].dtype), "Int64")
        self.assertEqual(str(r.jobs["preemptions"].dtype), "Int64")
        self.assertEqual(str(r.jobs["jct_s"].dtype), "float64")
        self.assertEqual(str(r.jobs["state"].dtype), "category")
        self.assertEqual(str(r.jobs["user"].dtype), "string")
        self.assertFalse((r.jobs.dtypes == object).any(), "no column left as Python objects")
        self.assertAlmostEqual(r.jobs["jct_s"].mean(), r.summary["jct_mean_s"], delta=1e-6 * r.summary["jct_mean_s"])
        self.assertEqual(int(r.jobs["preemptions"].sum()), r.summary["preemptions"])
        self.assertGreater(r.summary["preemptions"], 0, "the --set reached the run (fifo never preempts)")
        self.assertTrue((r.timeline.dtypes != object).all())
        self.assertIsNone(r.folder)
        self.assertTrue(any(n.startswith("offered load") for n in r.notices), r.notices)

    def test_seed_and_set_reach_the_binary(self):
        a = schedlab.run(GENERATED, seed=1).summary["jct_mean_s"]
        b = schedlab.run(GENERATED, seed=2).summary["jct_mean_s"]
        self.assertNotEqual(a, b, "another seed draws another trace")
        self.assertEqual(a, schedlab.run(GENERATED, seed=1).summary["jct_mean_s"], "same seed, same result")
        self.assertEqual(schedlab.run(GENERATED, set={"workload.generate.jobs": 50}).summary["jobs"], 50)

    def test_out_keeps_the_folder_and_load_reads_it_back(self):
        with tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp) / "qs"
            r = schedlab.run(QUICKSTART, out=out)
            self.assertEqual(r.folder, out)
            again = schedlab.load(out)
            self.assertEqual(again.summary, r.summary)
            self.assertTrue(again.jobs.equals(r.jobs))
            self.assertEqual(list(again.jobs["user"]), read_csv_column(out / "jobs.csv", "user"))

    def test_a_temporary_folder_is_gone_after_the_run(self):
        before = set(os.listdir(tempfile.gettempdir()))
        schedlab.run(QUICKSTART)
        left = {n for n in set(os.listdir(tempfile.gettempdir())) - before if n.startswith("schedlab-py-")}
        self.assertEqual(left, set())


class ErrorTest(unittest.TestCase):
    def test_a_bad_scenario_raises_with_file_and_line(self):
        with tempfile.TemporaryDirectory() as tmp:
            bad = Path(tmp) / "bad.yaml"
            text = QUICKSTART.read_text().replace("../", str(REPO) + "/")
            bad.write_text(text.replace("queue: fifo", "queue: fifoo", 1))
            self.assertIn("queue: fifoo", bad.read_text())
            with self.assertRaises(schedlab.SchedlabError) as caught:
                schedlab.run(bad)
            e = caught.exception
            self.assertEqual(e.exit_code, 2)
            self.assertEqual(e.file, str(bad))
            lines = bad.read_text().splitlines()
            self.assertIn("fifoo", lines[e.line - 1], "the line schedlab names holds the mistake")
            self.assertIn("did you mean 'fifo'", e.message)
            self.assertFalse(e.message.startswith("schedlab:"))

    def test_a_missing_binary_says_where_it_looked(self):
        with self.assertRaises(schedlab.SchedlabNotFound) as caught:
            schedlab.run(QUICKSTART, binary="/nonexistent/schedlab")
        self.assertIn("/nonexistent/schedlab", str(caught.exception))
        self.assertIsInstance(caught.exception, FileNotFoundError)

    def test_warnings_become_python_warnings(self):
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            schedlab.run(QUICKSTART, set={"workload.arrival_scale": 0.2})
        texts = [str(w.message) for w in seen if issubclass(w.category, schedlab.SchedlabWarning)]
        self.assertTrue(any(t.startswith("overloaded") and "arrival_scale" in t for t in texts), texts)
        self.assertFalse(any(t.startswith("offered load") for t in texts), "the offered load is information")


class CompareSweepTest(unittest.TestCase):
    def test_compare_returns_the_long_table(self):
        table = schedlab.compare(QUICKSTART, variants={
            "fifo": {}, "las": {"scheduler.queue": "las", "scheduler.preemption": "reorder"}})
        self.assertEqual(list(table.columns), ["variant", "metric", "value"])
        self.assertEqual(set(table["variant"]), {"fifo", "las"})
        self.assertEqual(str(table["value"].dtype), "float64")
        wide = table.pivot(index="metric", columns="variant", values="value")
        self.assertEqual(wide.loc["preemptions", "fifo"], 0)
        self.assertGreater(wide.loc["preemptions", "las"], 0)
        self.assertLess(wide.loc["jct_mean_s", "las"], wide.loc["jct_mean_s", "fifo"])

    def test_compare_folder_loads_as_the_same_table(self):
        with tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp) / "cmp"
            table = schedlab.compare(QUICKSTART, variants={"fifo": {}, "sjf": {"scheduler.queue": "sjf"}}, out=out)
            self.assertTrue(schedlab.load(out).equals(table))
            sjf = schedlab.load(out / "sjf")
            self.assertEqual(sjf.summary["jobs"], 1000)
            self.assertEqual(sjf.summary["jct_mean_s"], float(table.query("variant == 'sjf' and metric == 'jct_mean_s'")["value"].iloc[0]))

    def test_sweep_runs_and_collects(self):
        s = schedlab.sweep(SMALL_SWEEP, jobs=2)
        self.assertEqual(s.cells["cell"].nunique(), 12)
        self.assertEqual(set(s.cells["seed"]), {1, 2, 3})
        self.assertEqual(set(s.summary["n"]), {3})
        jct = s.summary[s.summary["metric"] == "jct_mean_s"]
        self.assertEqual(len(jct), 4)
        self.assertTrue((jct["ci95_low"] <= jct["mean"]).all() and (jct["mean"] <= jct["ci95_high"]).all())

    def test_load_refuses_what_is_not_a_results_folder(self):
        with tempfile.TemporaryDirectory() as tmp:
            with self.assertRaises(FileNotFoundError):
                schedlab.load(tmp)


class PackageTest(unittest.TestCase):
    def test_the_old_policy_import_gives_the_same_objects(self):
        import schedlab_policy
        import schedlab_policy.cluster
        from schedlab.policy import Policy, cluster
        self.assertIs(schedlab_policy.Policy, Policy)
        self.assertIs(schedlab_policy.cluster, cluster)

    def test_policies_need_no_pandas(self):
        code = "import sys, schedlab.policy, schedlab_policy; assert 'pandas' not in sys.modules"
        env = dict(os.environ, PYTHONPATH=str(REPO / "scripts" / "python"))
        subprocess.run([sys.executable, "-c", code], check=True, env=env)

    def test_import_works_from_any_folder_after_set_up(self):
        # scripts/setup.sh puts a .pth naming scripts/python in the user's site-packages.
        env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
        with tempfile.TemporaryDirectory() as tmp:
            out = subprocess.run([sys.executable, "-c", "import schedlab; print(schedlab.__file__)"], cwd=tmp,
                                 env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.assertEqual(out.returncode, 0, "run scripts/setup.sh first: " + out.stderr)
        self.assertTrue(out.stdout.strip().startswith(str(REPO / "scripts" / "python")), out.stdout)


if __name__ == "__main__":
    unittest.main()
