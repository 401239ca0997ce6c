#!/usr/bin/env python3
"""Shortest job first (by the traced ``duration``, an oracle), each job's tasks packed into
as few hosts and racks as possible (Cluster.rack_pack), with skip-ahead: a job that does
not fit now does not block the shorter-to-longer walk; the jobs behind it may start.

    schedlab run scenarios/quickstart.yaml \\
        --set scheduler.external.command='python3 scripts/python/examples/sjf_rack_pack.py'

Jobs start whole (all their waiting tasks at once), gang or not. Ties in duration go to
the earlier submit, then the lower id. Options: none.
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from schedlab.policy import Policy, is_fractional, run  # noqa: E402


def shape(job):
    """What decides whether a job fits: two jobs of one shape fit or fail alike."""
    return (tuple(job.get("allowed_models") or ()), job["tasks_left"], job.get("gpus_per_task"),
            job.get("gpu_milli"), job.get("cpus_per_task"), job.get("mem_gb_per_task"))


class SjfRackPack(Policy):
    name = "sjf-rack-pack"

    def queue_key(self, job):
        return (job["duration"], job["submit"])

    def schedule(self, now):
        out = []
        cluster = self.cluster
        # Within a tick the cluster only fills up, so a shape that did not fit will not fit
        # later in the tick: skipping its other jobs keeps a long queue's tick cheap.
        failed = set()
        for job in self.queue():
            s = shape(job)
            if s in failed:
                continue
            if not is_fractional(job) and \
                    cluster.free_gpus_for(job) < job["tasks_left"] * (job.get("gpus_per_task") or 0):
                failed.add(s)  # not enough free GPUs of its models, wherever they are
                continue
            hosts = cluster.rack_pack(job)
            if hosts is None:
                failed.add(s)
                continue
            out.append(self.start(job, hosts))
        return out


if __name__ == "__main__":
    run(SjfRackPack())
