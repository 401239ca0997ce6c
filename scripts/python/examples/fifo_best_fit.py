#!/usr/bin/env python3
"""schedlab's built-in scheduler ``queue: fifo``, ``admission: [gang]``, ``placement:
best-fit``, ``backfill: none``, as an external policy, decision for decision.

    schedlab run scenarios/quickstart.yaml \\
        --set scheduler.external.command='python3 scripts/python/examples/fifo_best_fit.py'

At each tick, waiting jobs are walked by (submit, id); the first that cannot start blocks
the walk (strict FIFO: nothing behind it starts in that tick).
  - A gang (whole-GPU tasks) needs all its waiting tasks placed at once; a cheap count of
    the free GPUs of its allowed models comes first, as the built-in gang admission does.
    A gang of shares is all-or-nothing too, without the count.
  - Any other job starts as many of its waiting tasks as best fit places; if some remain
    waiting, it blocks what follows.

Two limits of protocol version 1, where decisions can differ from the built-in's (never
with gangs and whole hosts failing, as on the quickstart and Philly scenarios):
  - schedlab runs each start of a partly started job as a run of its own, whose GPUs are
    free when that run ends, but reports GPUs free only when the whole job ends (with
    state "full" the mirror catches up at the next tick, but no tick comes at the run's end);
  - a host with one failed GPU is reported down; the mirror cannot tell how many of its
    GPUs still work, and uses none.
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from schedlab.policy import Policy, is_fractional, run  # noqa: E402


class FifoBestFit(Policy):
    name = "fifo-best-fit"

    def schedule(self, now):
        out = []
        cluster = self.cluster
        for job in self.waiting():
            left = job["tasks_left"]
            gang = bool(job.get("gang"))
            if gang and not is_fractional(job):
                # Counted over every free GPU of the allowed models (not only the hosts
                # with room for a task), exactly as the built-in admission counts.
                if cluster.free_gpus_for(job) < left * job["gpus_per_task"]:
                    break
            hosts = cluster.best_fit(job, left, partial=not gang)
            if hosts is None:
                break
            out.append(self.start(job, hosts))
            if len(hosts) < left:
                break  # partly started: the rest waits, and blocks what follows
        return out


if __name__ == "__main__":
    run(FifoBestFit())
