"""Results folders as Python values: a run's (jobs.csv, timeline.csv, summary.json), a compare's
long-form table (compare-long.csv) and a sweep's (sweep.csv, sweep-summary.csv)."""

import json
from dataclasses import dataclass, field
from pathlib import Path

# Counts and ids in jobs.csv: whole numbers, nullable where a cell may be empty (Int64), so that
# one empty cell does not turn a column of counts into floats.
_JOB_INTEGERS = {"id", "trace_id", "tasks", "gpus_per_task", "gpu_milli", "gpus", "hosts", "racks",
                 "preemptions", "failures", "restarts", "cpus_per_task"}
# Text with few values: categories (cheap, and groupby shows every state).
_JOB_CATEGORIES = {"state", "kind", "drop_reason"}


def _read_csv(path, integers=(), categories=()):
    import pandas as pd

    # Empty cells are missing values; no other text is (a user called "NA" stays "NA").
    frame = pd.read_csv(path, keep_default_na=False, na_values=[""], low_memory=False)
    for column in frame.columns:
        if column in categories:
            frame[column] = frame[column].astype("string").astype("category")
        elif column in integers:
            frame[column] = pd.to_numeric(frame[column]).astype("Int64")
        elif frame[column].dtype == object:
            frame[column] = frame[column].astype("string")
    return frame


@dataclass
class RunResult:
    """One run's results: ``summary`` (summary.json), ``jobs`` and ``timeline`` (DataFrames),
    ``notices`` (what schedlab said on the way), ``folder`` (None when the run wrote to a
    temporary folder that is gone)."""

    summary: dict
    jobs: "object"
    timeline: "object"
    folder: "Path | None" = None
    notices: list = field(default_factory=list)

    def __repr__(self):
        where = f" in {self.folder}" if self.folder else ""
        return (f"<schedlab.RunResult {self.summary.get('scenario', '?')}: {len(self.jobs)} jobs, "
                f"mean JCT {self.summary.get('jct_mean_s', float('nan')):.1f} s{where}>")


@dataclass
class SweepResult:
    """A sweep's results: ``cells`` (sweep.csv, one row per cell, seed and metric), ``summary``
    (sweep-summary.csv: n, mean, sd and the 95% confidence interval over seeds per grid point)."""

    cells: "object"
    summary: "object"
    folder: "Path | None" = None
    notices: list = field(default_factory=list)


def load_run(folder, notices=()):
    folder = Path(folder)
    with open(folder / "summary.json", encoding="utf-8") as f:
        summary = json.load(f)
    jobs = _read_csv(folder / "jobs.csv", _JOB_INTEGERS, _JOB_CATEGORIES)
    timeline = _read_csv(folder / "timeline.csv")
    return RunResult(summary, jobs, timeline, folder, list(notices))


def load_compare(folder):
    frame = _read_csv(Path(folder) / "compare-long.csv", categories={"variant"})
    frame.attrs["folder"] = str(folder)
    return frame


def load_sweep(folder, notices=()):
    folder = Path(folder)
    return SweepResult(_read_csv(folder / "sweep.csv"), _read_csv(folder / "sweep-summary.csv"), folder,
                       list(notices))


def load(folder):
    """An existing results folder: a run's gives a RunResult, a compare's the long-form table
    (DataFrame: variant, metric, value), a sweep's (collected) a SweepResult."""
    folder = Path(folder)
    if (folder / "compare-long.csv").is_file():
        return load_compare(folder)
    if (folder / "sweep.csv").is_file():
        return load_sweep(folder)
    if (folder / "summary.json").is_file() and (folder / "jobs.csv").is_file():
        return load_run(folder)
    if (folder / "cells.csv").is_file():
        raise FileNotFoundError(f"{folder}: a sweep not collected yet (run `schedlab sweep collect {folder}`)")
    raise FileNotFoundError(f"{folder}: not a schedlab results folder (no summary.json and jobs.csv, "
                            "compare-long.csv or sweep.csv)")
