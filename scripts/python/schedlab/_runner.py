"""Running the schedlab binary: command lines, temporary folders, errors and notices."""

import json
import shutil
import subprocess
import tempfile
import warnings
from pathlib import Path

from ._binary import find_binary
from ._errors import SchedlabError, SchedlabWarning, error_line
from ._results import load_compare, load_run, load_sweep


def _value_text(value):
    """A --set value as schedlab reads it: YAML, so JSON's lists and maps are taken as they are."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple, dict)):
        return json.dumps(value)
    return str(value)


def _set_args(overrides):
    args = []
    for key, value in (overrides or {}).items():
        args += ["--set", f"{key}={_value_text(value)}"]
    return args


def _execute(args, binary):
    command = [find_binary(binary)] + [str(a) for a in args]
    proc = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          errors="replace", check=False)
    notices = []
    for line in proc.stderr.splitlines():
        for prefix in ("schedlab: notice: ", "schedlab: warning: "):
            if line.startswith(prefix):
                text = line[len(prefix):]
                notices.append(text)
                # The offered load is said at the start of every run: information, kept in
                # .notices. Every other notice (an overload, a part without effect, jobs dropped
                # because they never fit, ...) is something a result may not be read without.
                if not text.startswith("offered load "):
                    warnings.warn(text, SchedlabWarning, stacklevel=3)
    if proc.returncode != 0:
        raise SchedlabError(error_line(proc.stderr), proc.returncode, command, proc.stderr)
    return proc, notices


class _Folder:
    """The results folder: the caller's, or a temporary one removed once read."""

    def __init__(self, out):
        self.temp = None if out is not None else tempfile.mkdtemp(prefix="schedlab-py-")
        self.path = Path(out) if out is not None else Path(self.temp) / "results"

    @property
    def kept(self):
        """The folder as a result names it: the caller's, or None for a temporary one."""
        return None if self.temp else self.path

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if self.temp:
            shutil.rmtree(self.temp, ignore_errors=True)


def run(scenario, set=None, seed=None, out=None, binary=None, scheduler_cmd=None):  # noqa: A002
    """Runs ``schedlab run SCENARIO`` and returns its RunResult.

    set: {key.path: value} overrides, as --set (lists and maps as Python values);
    seed: replaces the scenario's seed; out: the results folder to write (kept; schedlab
    replaces only a folder it wrote), None for a temporary one; binary: the schedlab to run;
    scheduler_cmd: an external policy's command line. Raises SchedlabError on a refusal."""
    with _Folder(out) as folder:
        args = ["run", scenario, "--out", folder.path] + _set_args(set)
        if seed is not None:
            args += ["--seed", seed]
        if scheduler_cmd:
            args += ["--scheduler-cmd", scheduler_cmd]
        _, notices = _execute(args, binary)
        result = load_run(folder.path, notices)
        result.folder = folder.kept
        return result


def compare(scenario, variants=None, set=None, seed=None, out=None, binary=None, jobs=None):  # noqa: A002
    """Runs ``schedlab compare SCENARIO`` and returns the long-form table (a DataFrame with
    columns variant, metric, value; units as the metric's name says, docs/metrics.md).

    variants: {name: {key.path: value}} replaces the scenario's `variants:` list; set, seed,
    out, binary as for run(); jobs: variants run at once (default: one per core)."""
    with _Folder(out) as folder:
        args = ["compare", scenario, "--out", folder.path, "--quiet"] + _set_args(set)
        for name, overrides in (variants or {}).items():
            pairs = ",".join(f"{k}={_value_text(v)}" for k, v in overrides.items())
            args += ["--variant", f"{name}:{pairs}"]
        if seed is not None:
            args += ["--seed", seed]
        if jobs:
            args += ["--jobs", jobs]
        _execute(args, binary)
        table = load_compare(folder.path)
        table.attrs["folder"] = str(folder.kept) if folder.kept else None
        return table


def sweep(sweep_file, out=None, binary=None, jobs=None):
    """Runs ``schedlab sweep SWEEP_FILE`` (every cell not done yet, then collect) and returns its
    SweepResult. out: the sweep's folder (rerunning with the same folder resumes), None for a
    temporary one."""
    with _Folder(out) as folder:
        args = ["sweep", sweep_file, "--out", folder.path, "--quiet"]
        if jobs:
            args += ["--jobs", jobs]
        _, notices = _execute(args, binary)
        result = load_sweep(folder.path, notices)
        result.folder = folder.kept
        return result


def version(binary=None):
    """The schedlab binary's version line."""
    proc, _ = _execute(["--version"], binary)
    return proc.stdout.strip()

