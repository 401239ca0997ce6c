#!/usr/bin/env python3
"""Tiresias' discretized least-attained-service (Gu et al., NSDI'19), with preemption.

    schedlab run scenarios/quickstart.yaml \\
        --set scheduler.external.command='python3 scripts/python/examples/las.py' \\
        --set 'scheduler.external.options={thresholds: [3600, 36000]}'

A job's attained service is the GPU-seconds it has held over all its runs. Thresholds split
jobs into levels: level 0 below the first threshold, level 1 from it to the second, ...
The queue is ordered by (level, submit, id): a job that has had little service goes first.

At each tick, waiting jobs are walked in that order (skip-ahead: one that cannot start does
not block the rest):
  - if best fit places all its waiting tasks, it starts;
  - else, if running preemptible jobs of a higher level (more service) hold the GPUs it
    needs, they are preempted. Victims are chosen by a dry run on the mirror: the GPUs of
    jobs already stopping count as free; then jobs of a higher level are evicted, the
    highest level and most served first, until the job fits; then each victim whose GPUs
    turn out not to be needed is reprieved, the least served first (as Kubernetes'
    preemption reprieves). The job starts at a later tick, when schedlab reports its
    victims' GPUs free; until then the hosts it will use are kept from the jobs behind it.
A timer asks for a tick when the next running job crosses a threshold (only while jobs
wait: without a waiting job, a level change decides nothing).

Options (scheduler.external.options):
  thresholds: GPU-seconds, positive and increasing; default [3600, 7200, 18000], the
              built-in ``las`` queue's default (1, 2 and 5 GPU-hours).
"""

import bisect
import heapq
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from schedlab_policy import Policy, is_fractional, run  # noqa: E402

DEFAULT_THRESHOLDS = (3600.0, 7200.0, 18000.0)
# A timer lands this long after the computed crossing, so that the float sum of the
# attained service has surely reached the threshold when the tick comes.
TIMER_SLACK_S = 1e-6


class Las(Policy):
    name = "las"

    def __init__(self, thresholds=DEFAULT_THRESHOLDS):
        super().__init__()
        self.thresholds = list(thresholds)
        self._at_level = [{} for _ in range(len(self.thresholds) + 1)]
        self._gpus_at_level = [0.0] * (len(self.thresholds) + 1)
        # Running preemptible jobs by level (id -> RunningJob), and a heap of the times at
        # which they cross their next threshold: kept as jobs start, stop and cross, so that
        # no tick walks every running job.
        self._level_of = {}
        self._crossings = []  # (time, job id, run number)
        self._run_no = {}     # job id -> its current run's number (older heap entries are stale)
        self._timers = set()  # timer times asked for and not yet due

    def on_hello(self, options):
        t = options.get("thresholds", self.thresholds)
        if not isinstance(t, list) or not t or not all(isinstance(x, (int, float)) and x > 0 for x in t) \
                or any(b <= a for a, b in zip(t, t[1:])):
            raise ValueError(f"options.thresholds: {t!r}: expected a list of positive, strictly increasing "
                             "GPU-seconds, e.g. [3600, 7200, 18000]")
        self.thresholds = [float(x) for x in t]
        self._at_level = [{} for _ in range(len(self.thresholds) + 1)]
        self._gpus_at_level = [0.0] * (len(self.thresholds) + 1)

    def level(self, job_id):
        return bisect.bisect_right(self.thresholds, self.attained(job_id))

    def queue_key(self, job):
        # A waiting job's service does not grow: its level is fixed while it waits.
        return (self.level(job["id"]), job["submit"])

    # --- keeping track of the running jobs' levels ---------------------------------------

    def _track(self, rj):
        if not rj.job.get("preemptible", True) or rj.gpus <= 0:
            return
        lvl = self.level(rj.id)
        self._level_of[rj.id] = lvl
        self._at_level[lvl][rj.id] = rj
        self._gpus_at_level[lvl] += rj.gpus
        self._run_no[rj.id] = n = self._run_no.get(rj.id, 0) + 1
        if lvl < len(self.thresholds):
            t = self.now + (self.thresholds[lvl] - self.attained(rj.id)) / rj.gpus
            # Never at or before now: a crossing that float rounding left a hair short is
            # looked at again a microsecond later, not in an endless loop now.
            t = max(t, self.now + TIMER_SLACK_S)
            heapq.heappush(self._crossings, (t, rj.id, n))

    def _untrack(self, job_id):
        lvl = self._level_of.pop(job_id, None)
        if lvl is not None:
            self._gpus_at_level[lvl] -= self._at_level[lvl].pop(job_id).gpus
            self._run_no[job_id] += 1  # its pending crossing is stale

    def _cross(self):
        """Moves the running jobs whose crossing time has come to their new level."""
        heap = self._crossings
        while heap and heap[0][0] <= self.now:
            _, jid, n = heapq.heappop(heap)
            if self._run_no.get(jid) == n:
                rj = self._at_level[self._level_of[jid]][jid]
                self._untrack(jid)
                self._track(rj)

    def on_end(self, job):
        self._untrack(job["id"])
        self._run_no.pop(job["id"], None)

    def on_gone(self, job):
        self.on_end(job)

    def on_stopped(self, job, cause):
        self._untrack(job["id"])

    def on_requeued(self, job):
        self._untrack(job["id"])

    def on_timer(self, at):
        self._timers.discard(at)

    # --- deciding ------------------------------------------------------------------------

    def schedule(self, now):
        self._cross()
        out = []
        reserved = set()  # host indices promised to jobs waiting for their victims' GPUs
        failed = set()    # (shape, level) that neither fit nor could make room this tick
        for job in self.queue():
            hosts = self.cluster.best_fit(job, avoid=reserved)
            if hosts is not None:
                out.append(self.start(job, hosts))
                self._track(self.running()[job["id"]])
                continue
            lvl = self.level(job["id"])
            key = (_shape(job), lvl)
            if key in failed:
                continue
            plan = self._make_room(job, lvl, reserved)
            if plan is None:
                failed.add(key)
                continue
            victims, hosts = plan
            for rj in victims:
                out.append(self.preempt(rj.id))
                self._untrack(rj.id)
            reserved.update(self.cluster.host(h).index for h in hosts)
        t = self._next_crossing()
        if t is not None:
            out.append(self.timer(t))
        return out

    def _make_room(self, job, lvl, reserved):
        """(victims, hosts): the running jobs to preempt (perhaps none, when GPUs being
        freed already suffice) and where the job would then go; None when it cannot fit.

        A dry run on the mirror: free what jobs already stopping hold; if the job still
        does not fit, evict jobs of a higher level, the highest level and most served
        first, until it fits; then reprieve each victim, the least served first, whose
        GPUs it turns out not to need (as Kubernetes' preemption reprieves)."""
        c = self.cluster
        stopping = list(self.stopping().values())
        # GPUs wholly free that it needs at least (a share may fit a GPU already shared).
        need_gpus = 0 if is_fractional(job) else job["tasks_left"] * (job.get("gpus_per_task") or 0)
        # The count first: no dry run when even all those GPUs would not be enough.
        could_free = sum(self._gpus_at_level[lvl + 1:]) + sum(rj.gpus for rj in stopping)
        if could_free == 0 or c.free_gpus_for(job) + could_free < need_gpus:
            return None
        candidates = sorted((rj for by_id in self._at_level[lvl + 1:] for rj in by_id.values()),
                            key=lambda rj: (-self._level_of[rj.id], -self.attained(rj.id), -rj.id))
        with c.trial():  # every change below is undone on leaving
            for rj in stopping:
                for s in rj.slots:
                    c.release_slot(s)
            victims = []
            fits = c.best_fit(job, avoid=reserved) is not None
            for rj in candidates:
                if fits:
                    break
                for s in rj.slots:
                    c.release_slot(s)
                victims.append(rj)
                # The count first: best fit only once enough GPUs could be free.
                fits = c.free_gpus_for(job) >= need_gpus and c.best_fit(job, avoid=reserved) is not None
            if not fits:
                return None
            needed = []
            for rj in reversed(victims):
                for s in rj.slots:
                    c.take_slot(s)
                if c.best_fit(job, avoid=reserved) is None:
                    for s in rj.slots:
                        c.release_slot(s)
                    needed.append(rj)
            hosts = c.best_fit(job, avoid=reserved)
        return needed, hosts

    def _next_crossing(self):
        """When the next preemptible running job crosses a threshold, if a tick is needed
        then and none is already asked for by that time."""
        now = self.now
        self._timers = {t for t in self._timers if t > now}
        heap = self._crossings
        while heap and self._run_no.get(heap[0][1]) != heap[0][2]:
            heapq.heappop(heap)  # stale: that run ended
        if not heap or not self.queue():
            return None
        t = round((max(heap[0][0], now) + TIMER_SLACK_S) * 1e6) / 1e6
        if any(x <= t for x in self._timers):
            return None
        self._timers.add(t)
        return t


def _shape(job):
    return (tuple(job.get("allowed_models") or ()), job["tasks_left"], job.get("gpus_per_task"),
            job.get("gpu_milli"), job.get("cpus_per_task"), job.get("mem_gb_per_task"))


if __name__ == "__main__":
    run(Las())
