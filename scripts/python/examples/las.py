#!/usr/bin/env python3
"""schedlab's built-in ``queue: las`` + ``preemption: reorder`` (with ``admission: [gang]``,
``placement: best-fit``, ``backfill: none``), as an external policy, decision for decision:
Tiresias' discretized least-attained-service (Gu et al., NSDI'19) with preemption.

    schedlab run scenarios/quickstart.yaml \\
        --scheduler-cmd 'python3 scripts/python/examples/las.py'

writes the jobs.csv of

    schedlab run scenarios/quickstart.yaml --set scheduler.queue=las --set scheduler.preemption=reorder

byte for byte (on the quickstart and Philly scenarios). It is a port of src/sched/queue_las.cpp,
preemption_reorder.cpp, builtin_preempt.cpp and the start pass of builtin_passes.cpp; the
comments name the C++ each part mirrors.

The queue. A job's attained service is the GPU-time (or wall time) it has held over all its
runs. Thresholds split it into queues: queue 0 below the first, 1 from it to the second, ...
A job's key is (2 x queue + 1 while it waits, 0 while it runs; the instant it entered that
queue), then its id: in a queue, running jobs stay ahead of waiting ones, and jobs keep the
order in which they entered it (a job enters queue 0 at its submit; a running job enters the
next queue at the exact microsecond its service reaches the threshold). Keys are recomputed
where the built-in recomputes them (Scheduler::rekey): at submit, after the pass that starts
a job, at a requeue, and at the instant a running job crosses a threshold (a timer).

Each tick, as the built-in's pass:
  1. the start pass: waiting jobs in key order, each started where best fit places all its
     waiting tasks (a gang: after the count of its models' free GPUs); the first that cannot
     start ends the pass (strict order, no backfill);
  2. the preemption pass: waiting jobs in key order again. A job that does not fit evicts
     running jobs it outranks (those of a later queue), worst key first (the highest id on
     ties): a dry run frees them one by one until the job places (a placement attempt only
     once the count of free GPUs could do), then reprieves the victims best first (the last
     freed is needed) while it still places without them. The rest are preempted and the job
     starts on their GPUs at once (when a checkpoint save holds them, the pass ends: the job
     waits for them); the pass goes on with the next job (which may now fit without victims).
     It ends at the first job that cannot place even with every job it outranks gone. A
     victim has run since an earlier instant (not started in this pass), is preemptible,
     has run min_run_s, and would keep some work if stopped (the thrash guard; the pass asks
     to be woken when a run becomes old enough).
  3. timers: the built-in runs a pass at every instant one of its timers is due (a running
     job reaching a threshold, stale or not, and the preemption pass's wake-ups). The policy
     keeps the same timers and asks schedlab for a tick at those of them where the pass may
     decide something (see Las._ask), so that it decides when, and as, the built-in does.

Options (scheduler.external.options): the built-in parts' args and the scenario's lifecycle,
under the same names; give the policy what the scenario gives the built-in.
  thresholds:    GPU-seconds (or seconds with service: time), positive and increasing;
                 default [3600, 7200, 18000]                 (scheduler.args.las.thresholds)
  service:       gpu-time (default) or time                   (scheduler.args.las.service)
  promote_after: a waiting job starved for this many times its attained run time goes back
                 to queue 0; 0 (default): never               (scheduler.args.las.promote_after)
  min_run_s:     a run is not preempted before it has run this long; default 0
                                                              (scheduler.args.reorder.min_run_s)
  grace_s:       how long a preempted job may keep its GPUs to save a checkpoint; default 0
                                                              (the scenario's preemption.grace_s)
  checkpoint:    {interval_s, save_s, restore_s}, default none (the scenario's checkpoint:)
A preempted job keeps its GPUs for min(grace_s, save_s) (0 without a grace): with 0, they are
free at once and the job it makes room for starts in the same decisions; else that job waits
for them, claiming them, as the built-in's does. The thrash guard (a run is not evicted before
a stop would keep some of its work beyond the checkpoint it resumed from) and the work a stop
keeps follow the checkpoint costs, as in sim/simulation.cpp.

Where it can differ from the built-in (never on the quickstart and Philly scenarios, nor with
the options above given as the scenario's):
  - performance models other than `trace` (the default): a run's work is counted at the traced
    speed, and checkpoint costs are the options' for every job (not a trace's ckpt columns, nor
    a model catalog's);
  - failures: a host with some GPUs failed is reported down whole (see the limits of protocol 1
    in docs/external-scheduler.md), and a failure during a checkpoint save is not modelled;
  - a job started in parts (not a gang): its runs that end before the job free GPUs that the
    policy learns of only at the job's end.
"""

import bisect
import heapq
import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from schedlab.policy import Policy, is_fractional, run  # noqa: E402

DEFAULT_THRESHOLDS = (3600, 7200, 18000)

TIME_MAX = (1 << 63) - 1  # engine::kTimeMax
TIME_MIN = -(1 << 63)


def _add_time(a, b):
    """util/checked.h add_time: saturating."""
    r = a + b
    if r > TIME_MAX:
        return TIME_MAX
    if r < TIME_MIN:
        return TIME_MIN
    return r


def _mul_time(a, k):
    r = a * k
    if r > TIME_MAX:
        return TIME_MAX
    if r < TIME_MIN:
        return TIME_MIN
    return r


def _from_double_clamped(us):
    """util/checked.h time_from_double_clamped."""
    if not us > 0:
        return 0
    if us >= 9.2e18:
        return TIME_MAX
    return int(us)


def _from_seconds(s):
    """engine::from_seconds: std::round (halves away from zero) of s x 1e6."""
    us = s * 1e6
    r = math.floor(abs(us) + 0.5)
    return int(r if us >= 0 else -r)


def _seconds_option(name, v):
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 <= v <= 100 * 365 * 86400:
        raise ValueError(f"options.{name}: {v!r}: expected seconds, 0 or more")
    return _from_seconds(float(v))


def _last_checkpoint(interval, done, restored):
    """workload/checkpoint.h last_checkpoint: the work a periodic checkpoint kept."""
    if interval <= 0:
        return done
    step = float(interval)
    periodic = math.floor(done / step) * step if done > 0 else 0.0
    return periodic if periodic > restored else restored


def _us(t):
    """A protocol time (seconds) as schedlab's microseconds."""
    return _from_seconds(float(t))


def _requested_gpus(job):
    """queue_service.h requested_gpus."""
    if is_fractional(job):
        return job["gpu_milli"] / 1000.0
    return float(job["tasks"] * job["gpus_per_task"])


class _Life:
    """What schedlab's ledger (sched::JobLife) knows of a job, as far as keys and victims
    read it: kept from the policy's own decisions and schedlab's events."""

    __slots__ = ("state", "pending_since", "run_start", "attained", "attained_gpu_us", "held_milli", "runs",
                 "work_done", "work_total", "fully_started", "started", "progress_from")

    def __init__(self, now, work_total):
        self.state = "pending"        # pending | running | stopping
        self.pending_since = now
        self.run_start = -1           # first start of the current run (attempt); -1 when none
        self.attained = 0             # wall microseconds, over ended runs
        self.attained_gpu_us = 0.0    # GPU-microseconds, over ended runs (a double, as in C++)
        self.held_milli = 0
        self.runs = []                # (start, milli, ready_at, work) of each start of this attempt
        self.work_done = 0.0          # work kept at the last stop (trace microseconds)
        self.work_total = float(work_total)
        self.fully_started = False
        self.started = False          # ever
        self.progress_from = 0        # when this attempt's work begins (after a checkpoint restore)


class _Track:
    """queue_las.cpp LasQueue::Track: the queue a job is in, since when, and the service it
    had at its last promotion."""

    __slots__ = ("queue", "entered", "base")

    def __init__(self, entered):
        self.queue = 0
        self.entered = entered
        self.base = 0.0


class _Keyed:
    """scheduler.h Scheduler::KeyState."""

    __slots__ = ("key", "version", "queued", "running", "gpus")

    def __init__(self):
        self.key = None
        self.version = 0
        self.queued = False
        self.running = False
        self.gpus = 0  # ActiveJob::gpus: whole GPUs plus one per share slot


class _View:
    """queue_service.h ServiceView."""

    __slots__ = ("before", "live", "run_start", "rate")

    def reaches(self, target):
        if self.before >= target:
            return self.run_start
        if not self.live or not self.rate > 0:
            return TIME_MAX
        return _add_time(self.run_start, _from_double_clamped(math.ceil((target - self.before) / self.rate)))

    def reached(self, target, now):
        return self.before >= target or self.reaches(target) <= now


class Las(Policy):
    name = "las-reorder"

    def __init__(self, thresholds=DEFAULT_THRESHOLDS, service="gpu-time", promote_after=0, min_run_s=0.0,
                 grace_s=0.0, checkpoint=None):
        super().__init__()
        self._configure(thresholds, service, promote_after, min_run_s, grace_s, checkpoint)
        self._life = {}       # id -> _Life
        self._track = {}      # id -> _Track
        self._ks = {}         # id -> _Keyed, for jobs waiting, running or stopping
        self._waitq = []      # sorted (primary, secondary, id) of waiting jobs (Scheduler::queue_)
        self._runq = []    # sorted (primary, secondary, id) of running jobs (running_by_key_)
        self._timers = []     # heap of the built-in's timers: (at, id, version); id -1: a wake-up
        self._instants = []   # heap of the instants of those timers, stale ones included
        self._asked = set()   # instants the policy asked schedlab for a tick at, not yet due
        self._asked_heap = []
        self._changes = 0     # Scheduler::changes_ and the allocation's release epoch, together
        self._block = None    # Scheduler::preempt_block_: (job, changes, retry_at)
        self._wake_at = TIME_MAX
        self._stopping_for = {}  # preemptor -> victims still saving a checkpoint
        self._mine = {}       # id -> events of a stop the policy made that are yet to come
        self._saving = {}     # id -> (save ends, work done, work restored) of a victim saving
        self.preemptions = 0

    def _configure(self, thresholds, service, promote_after, min_run_s, grace_s, checkpoint):
        t = thresholds
        if not isinstance(t, (list, tuple)) or not t or \
                not all(isinstance(x, (int, float)) and not isinstance(x, bool) and x > 0 for x in t):
            raise ValueError(f"options.thresholds: {t!r}: expected a list of positive, strictly increasing "
                             "GPU-seconds, e.g. [3600, 7200, 18000]")
        limits = [_from_seconds(float(x)) for x in t]
        if any(b <= a for a, b in zip(limits, limits[1:])):
            raise ValueError(f"options.thresholds: {t!r}: must be positive and strictly increasing")
        if service not in ("gpu-time", "time"):
            raise ValueError(f"options.service: {service!r}: expected gpu-time or time")
        if isinstance(promote_after, bool) or not isinstance(promote_after, int) or not 0 <= promote_after <= 10**6:
            raise ValueError(f"options.promote_after: {promote_after!r}: expected a whole number from 0 to 1000000")
        if isinstance(min_run_s, bool) or not isinstance(min_run_s, (int, float)) or not min_run_s >= 0:
            raise ValueError(f"options.min_run_s: {min_run_s!r}: expected seconds, 0 or more")
        grace = _seconds_option("grace_s", grace_s)
        checkpoint = {} if checkpoint is None else checkpoint
        if not isinstance(checkpoint, dict):
            raise ValueError(f"options.checkpoint: {checkpoint!r}: expected a map of interval_s, save_s, restore_s")
        for k in checkpoint:
            if k not in ("interval_s", "save_s", "restore_s"):
                raise ValueError(f"options.checkpoint.{k}: unknown; known: interval_s, save_s, restore_s")
        self.thresholds = [float(x) for x in limits]  # service microseconds, as doubles
        self.wall_time = service == "time"
        self.promote_after = promote_after
        self.min_run = _from_seconds(float(min_run_s))
        # The lifecycle (sim/simulation.cpp): a job's checkpoint costs, and how long a preempted
        # job keeps its GPUs to save (Simulation::stop_hold); 0: they are free at once.
        self.ckpt_interval = _seconds_option("checkpoint.interval_s", checkpoint.get("interval_s", 0))
        self.ckpt_save = _seconds_option("checkpoint.save_s", checkpoint.get("save_s", 0))
        self.ckpt_restore = _seconds_option("checkpoint.restore_s", checkpoint.get("restore_s", 0))
        self.grace = grace
        self.stop_hold = min(grace, self.ckpt_save) if grace > 0 else 0
        self.saves_on_preemption = grace > 0 and self.ckpt_save <= grace
        self.frees_at_once = self.stop_hold == 0

    def on_hello(self, options):
        known = ("thresholds", "service", "promote_after", "min_run_s", "grace_s", "checkpoint")
        for k in options:
            if k not in known:
                raise ValueError(f"options.{k}: unknown; known: {', '.join(known)}")
        self._configure(options.get("thresholds", DEFAULT_THRESHOLDS), options.get("service", "gpu-time"),
                        options.get("promote_after", 0), options.get("min_run_s", 0), options.get("grace_s", 0),
                        options.get("checkpoint"))

    # --- the queue order (queue_las.cpp) -------------------------------------------------

    def _view(self, jid, running, now):
        life, job = self._life[jid], self.jobs[jid]
        s = _View()
        s.live = life.run_start >= 0 or running
        s.run_start = life.run_start if life.run_start >= 0 else now
        if self.wall_time:
            s.before, s.rate = float(life.attained), 1.0
        else:
            s.before = life.attained_gpu_us
            s.rate = life.held_milli / 1000.0 if life.held_milli > 0 else _requested_gpus(job)
        s.before -= self._track[jid].base
        return s

    def _queue_of(self, s, now):
        q, th = 0, self.thresholds
        while q < len(th) and s.reached(th[q], now):
            q += 1
        return q

    def _promotion_due(self, life):
        return _add_time(life.pending_since, _mul_time(life.attained, self.promote_after))

    def _key(self, jid, running, now):
        """LasQueue::key: (primary, secondary); updates the job's track."""
        t, life = self._track[jid], self._life[jid]
        s = self._view(jid, running, now)
        q = self._queue_of(s, now)
        if q > 0 and not s.live and self.promote_after > 0:
            due = self._promotion_due(life)
            if due <= now:
                # Starved: back to the top queue, entered when it became due; service from 0.
                t.base += s.before
                t.queue = 0
                t.entered = due
                return (1, due)
        if q > t.queue:
            crossed = self.thresholds[q - 1]
            t.entered = s.reaches(crossed) if s.live and s.before < crossed else life.pending_since
            t.queue = q
        return (2 * q + (0 if running else 1), t.entered)

    def _next_change(self, jid, running, now):
        """LasQueue::next_change."""
        s = self._view(jid, running, now)
        q = self._queue_of(s, now)
        if s.live:
            return s.reaches(self.thresholds[q]) if q < len(self.thresholds) else TIME_MAX
        if q > 0 and self.promote_after > 0:
            due = self._promotion_due(self._life[jid])
            return due if due > now else TIME_MAX
        return TIME_MAX

    def _timer(self, at, jid, version):
        heapq.heappush(self._timers, (at, jid, version))
        heapq.heappush(self._instants, at)

    def _rekey(self, jid, now):
        """Scheduler::rekey."""
        ks = self._ks.get(jid)
        if ks is None or not (ks.queued or ks.running):
            return
        k = self._key(jid, ks.running, now)
        if k != ks.key:
            self._changes += 1
            if ks.queued:
                _remove(self._waitq, ks.key + (jid,))
                bisect.insort(self._waitq, k + (jid,))
            if ks.running:
                _remove(self._runq, ks.key + (jid,))
                bisect.insort(self._runq, k + (jid,))
            ks.key = k
        ks.version += 1
        t = self._next_change(jid, ks.running, now)
        if t != TIME_MAX:
            self._timer(max(t, now), jid, ks.version)

    def _enqueue(self, jid, now):
        """Scheduler::submit and requeue: the key of a job that (again) waits."""
        ks = self._ks[jid]
        if ks.queued:
            _remove(self._waitq, ks.key + (jid,))
        ks.queued = True
        ks.key = self._key(jid, False, now)
        bisect.insort(self._waitq, ks.key + (jid,))
        t = self._next_change(jid, False, now)
        if t != TIME_MAX:
            self._timer(max(t, now), jid, ks.version)

    def _requeue(self, jid, now):
        """Scheduler::requeue (the ledger shows the job pending since now)."""
        ks = self._ks[jid]
        ks.version += 1
        self._changes += 1
        self._enqueue(jid, now)

    def _drop_running(self, jid):
        """Scheduler::drop_running."""
        ks = self._ks.get(jid)
        if ks is None or not ks.running:
            return
        self._changes += 1
        _remove(self._runq, ks.key + (jid,))
        ks.running = False
        ks.gpus = 0

    def _unrun(self, jid):
        """Scheduler::unrun: neither running nor waiting."""
        self._drop_running(jid)
        ks = self._ks[jid]
        if ks.queued:
            _remove(self._waitq, ks.key + (jid,))
            ks.queued = False
        ks.version += 1

    # --- the ledger (sim/simulation.cpp) -------------------------------------------------

    def _stop_work(self, life, now, preempted):
        """Simulation::stop_job: the work a stop keeps (all of it when a graceful preemption
        saves it, else the last periodic checkpoint)."""
        done = self._work_done(life, now)
        periodic = _last_checkpoint(self.ckpt_interval, done, life.work_done)
        life.work_done = done if preempted and self.saves_on_preemption else periodic

    def _release_runs(self, jid, now):
        """Simulation::release_runs: the attempt ends now."""
        life = self._life[jid]
        if life.run_start < 0:
            return
        for start, milli, _, _ in life.runs:
            life.attained_gpu_us += milli / 1000.0 * float(now - start)
        life.runs = []
        life.held_milli = 0
        life.attained += now - life.run_start
        life.run_start = -1
        life.fully_started = False
        self._changes += 1  # the allocation's release epoch

    def _work_done(self, life, now):
        """Simulation::work_done under the `trace` performance model (speed 1: SimExecutor's
        progress of each run, from its start or the end of its checkpoint restore)."""
        if life.state != "running" or not life.fully_started or not life.runs:
            return life.work_done
        least = math.inf
        for start, _, ready_at, work in life.runs:
            frm = max(start, ready_at)
            remaining = work if now <= frm else max(work - float(now - frm), 0.0)
            least = min(least, work - remaining)
        return min(life.work_done + least, life.work_total)

    def _keeps_work_from(self, life, now):
        """Simulation::keeps_work_from: the earliest instant a stop keeps work beyond the
        checkpoint the run resumed from (the reorder part's thrash guard)."""
        if life.state != "running":
            return now
        if not life.fully_started:
            return TIME_MAX
        restored = life.work_done
        done = self._work_done(life, now)
        if done >= life.work_total:
            return now
        every_bit = self.saves_on_preemption or self.ckpt_interval <= 0
        target = restored + max(1.0, float(self.ckpt_restore) + float(self.stop_hold))
        if not every_bit:
            step = float(self.ckpt_interval)
            target = math.ceil(target / step) * step
        if target >= life.work_total:
            return TIME_MAX
        if done >= target:
            return now
        began = max(life.progress_from, now)
        rate = 1.0
        if now > life.progress_from and done > restored:
            rate = (done - restored) / float(now - life.progress_from)
        wait = _from_double_clamped(math.ceil((target - done) / rate))
        return max(_add_time(now, 1), _add_time(began, wait))

    # --- events --------------------------------------------------------------------------

    def on_submit(self, job):
        jid, now = job["id"], _us(self.now)
        self._life[jid] = _Life(now, _us(job.get("duration") or 0))
        self._track[jid] = _Track(_us(job["submit"]))
        self._ks[jid] = _Keyed()
        self._enqueue(jid, now)

    def on_end(self, job):
        jid = job["id"]
        self._drop_running(jid)
        self._changes += 1  # its GPUs are free
        self._forget_job(jid)

    def on_stopped(self, job, cause):
        jid = job["id"]
        if self._mine.get(jid) is not None:
            self._mine[jid].discard("stopped")
            return  # the policy's own preemption: done when it decided it
        # A failure or a kill: no checkpoint save, its GPUs are free in this same instant.
        now, life = _us(self.now), self._life[jid]
        self._unrun(jid)
        if life.state == "running":
            self._stop_work(life, now, preempted=False)
        self._release_runs(jid, now)
        life.state = "pending"

    def on_requeued(self, job):
        jid = job["id"]
        mine = self._mine.get(jid)
        if mine is not None:
            mine.discard("stopped")
            if "requeued" in mine:  # requeued already, when the policy preempted it
                del self._mine[jid]
                return
            del self._mine[jid]
        # After a checkpoint save (or a failure): the attempt ends now, and the job waits.
        now = _us(self.now)
        life = self._life[jid]
        saving = self._saving.pop(jid, None)
        if saving is not None and now < saving[0]:
            # A failure cut its save short: only its periodic checkpoint survives
            # (Simulation::fail_host on a stopping job).
            life.work_done = _last_checkpoint(self.ckpt_interval, saving[1], saving[2])
        self._release_runs(jid, now)
        life.state = "pending"
        life.pending_since = now
        self._requeue(jid, now)

    def on_gone(self, job):
        jid = job["id"]
        if jid in self._ks:
            self._unrun(jid)
        self._changes += 1
        self._forget_job(jid)

    def on_host_up(self, host):
        self._changes += 1  # repaired GPUs are freed capacity (the release epoch)

    def _forget_job(self, jid):
        self._ks.pop(jid, None)
        self._life.pop(jid, None)
        self._track.pop(jid, None)
        self._mine.pop(jid, None)
        self._saving.pop(jid, None)
        self._stopping_for.pop(jid, None)

    # --- the pass ------------------------------------------------------------------------

    def on_tick(self, now_s):
        # Timers due before this tick, at instants that had none (see _ask): there the
        # built-in's pass decided nothing, but its rekeys count (a job's queue and the instant
        # it entered it), each at its own instant and before this tick's events.
        self._due_timers(_us(now_s) - 1)

    def _due_timers(self, upto):
        heap = self._timers
        while heap and heap[0][0] <= upto:
            at, jid, version = heapq.heappop(heap)
            if self._valid(jid, version):
                self._rekey(jid, at)

    def schedule(self, now_s):
        now = _us(now_s)
        for heap in (self._asked_heap, self._instants):
            while heap and heap[0] <= now:
                self._asked.discard(heapq.heappop(heap))
        # Timers due now, handled after the instant's other events, as the engine orders them.
        self._due_timers(now)
        out, started, stops = [], [], []
        self._start_pass(now, out, started)
        self._preempt_pass(now, out, started, stops)
        # Simulation::apply_stops: a victim whose GPUs are free now waits again at once.
        for jid in stops:
            life = self._life[jid]
            done, restored = self._work_done(life, now), life.work_done
            self._stop_work(life, now, preempted=True)
            if self.frees_at_once:
                self._release_runs(jid, now)
                life.state = "pending"
                life.pending_since = now
                self._requeue(jid, now)
                self._mine[jid] = {"stopped", "requeued"}
            else:
                life.state = "stopping"  # it holds its GPUs (and accrues) until requeued
                self._mine[jid] = {"stopped"}
                self._saving[jid] = (_add_time(now, self.stop_hold), done, restored)
        # Simulation::start_decided, then Scheduler::starts_applied.
        for jid, milli in started:
            life = self._life[jid]
            if life.run_start < 0:
                # A restart from a checkpoint first restores it: GPUs held, no progress.
                life.state = "running"
                life.run_start = now
                restore = self.ckpt_restore if life.started and life.work_done > 0 else 0
                life.progress_from = _add_time(now, restore)
                life.started = True
            ready_at = _add_time(now, max(life.progress_from - now, 0))
            life.runs.append((now, milli, ready_at, life.work_total - life.work_done))
            life.held_milli += milli
            if self.jobs[jid]["tasks_left"] == 0:
                life.fully_started = True
        for jid in sorted({jid for jid, _ in started}):
            self._rekey(jid, now)
        self._ask(out, bool(stops))
        return out

    def _valid(self, jid, version):
        if jid < 0:
            return True  # a wake-up
        ks = self._ks.get(jid)
        return ks is not None and ks.version == version

    def _ask(self, out, preempted):
        """Ticks where the built-in's timers make it run a pass that may decide something.
        The built-in runs a pass at every instant one of its timers is due (rekeys, stale or
        not, and wake-ups). Such a pass changes nothing unless (a) the events of this tick's
        preemptions, which schedlab sends at its next pass, are still unseen: then the next
        such instant, whatever timer it has; or (b) jobs wait and a running job's key
        changes (a threshold crossed) or a wake-up is due: the next valid timer. Asked for
        at each tick, one instant ahead: a tick that comes sooner asks again."""
        want = []
        if preempted and self._instants:
            want.append(self._instants[0])
        if self._waitq:
            heap = self._timers
            while heap and not self._valid(heap[0][1], heap[0][2]):
                heapq.heappop(heap)  # stale for good: versions only grow
            if heap:
                want.append(heap[0][0])
        for at in want:
            if at not in self._asked:
                self._asked.add(at)
                heapq.heappush(self._asked_heap, at)
                out.append(self.timer(at / 1e6))

    def _try_start(self, job):
        """Scheduler::try_start under admission gang and placement best-fit: the hosts, or None."""
        left = job["tasks_left"]
        gang = bool(job.get("gang"))
        c = self.cluster
        if gang and not is_fractional(job) and c.free_gpus_for(job) < left * job["gpus_per_task"]:
            return None
        hosts = c.best_fit(job, left, partial=not gang)
        if hosts is None or len(hosts) < (left if gang else 1):
            return None
        return hosts

    def _record_start(self, job, hosts, out, started):
        """Scheduler::record_start."""
        jid = job["id"]
        need = self.cluster.need(job)
        out.append(self.start(job, hosts))
        self._changes += 1
        ks = self._ks[jid]
        ks.gpus += len(hosts) * (1 if need.fractional else need.g)
        started.append((jid, len(hosts) * (need.milli if need.fractional else need.g * 1000)))
        if not ks.running:
            ks.running = True
            bisect.insort(self._runq, ks.key + (jid,))
        if job["tasks_left"] == 0:
            self._stopping_for.pop(jid, None)
            _remove(self._waitq, ks.key + (jid,))
            ks.queued = False
            return True
        return False

    def _start_pass(self, now, out, started):
        """Scheduler::start_pass, strict order (backfill none). A job started whole leaves the
        queue: the next is at its head."""
        while self._waitq:
            job = self.jobs[self._waitq[0][-1]]
            hosts = self._try_start(job)
            if hosts is None:
                return  # blocked: nothing behind it starts
            if not self._record_start(job, hosts, out, started):
                return  # partly started: the rest waits, and blocks what follows

    def _places_now(self, job, need):
        """Scheduler::places_now: a question only."""
        c = self.cluster
        left = job["tasks_left"]
        if is_fractional(job):
            need_gpus = 0
        else:
            need_gpus = need * job["gpus_per_task"]
            free = c.free_gpus_for(job)
            if free < need_gpus:
                return False
            if job.get("gang") and free < left * job["gpus_per_task"]:
                return False
        hosts = c.best_fit(job, left, partial=True)
        return hosts is not None and len(hosts) >= need

    def _eligible(self, jid, now, started_now, eligible_at):
        """Scheduler::eligible_victim."""
        life = self._life[jid]
        if life.state != "running" or life.run_start < 0:
            return False
        if not self.jobs[jid].get("preemptible", True):
            return False
        if jid in started_now:
            return False
        frm = max(_add_time(life.run_start, self.min_run), self._keeps_work_from(life, now))
        if frm > now:
            eligible_at[0] = min(eligible_at[0], frm)
            return False
        return True

    def _choose_victims(self, job, need, now, started_now, eligible_at):
        """Scheduler::choose_victims: the running jobs to stop (in the order freed), or None."""
        c = self.cluster
        key = self._ks[job["id"]].key
        need_gpus = 0 if is_fractional(job) else need * job["gpus_per_task"]
        base_free = c.free_gpus_for(job)
        rjobs = self.running()
        freed, reach, released, placed = [], 0, 0, False
        with c.trial():
            # Worst key first; equal keys (one group of equal rank) by the highest id first.
            for entry in reversed(self._runq):
                if not key < entry[:2]:
                    break  # not outranked, nor is any better one
                rid = entry[2]
                if not self._eligible(rid, now, started_now, eligible_at):
                    continue
                freed.append(rid)
                reach += self._ks[rid].gpus
                if base_free + reach < need_gpus:
                    continue
                for v in freed[released:]:
                    for s in rjobs[v].slots:
                        c.release_slot(s)
                released = len(freed)
                if self._places_now(job, need):
                    placed = True
                    break
        if not placed:
            return None
        # Reprieve, best first: keep each victim the job places without. The last one freed
        # is needed (without it the job did not place).
        kept = [False] * len(freed)
        with c.trial():
            for v in freed:
                for s in rjobs[v].slots:
                    c.release_slot(s)
            for i in range(len(freed) - 2, -1, -1):
                slots = rjobs[freed[i]].slots
                for s in slots:
                    c.take_slot(s)
                if self._places_now(job, need):
                    kept[i] = True
                else:
                    for s in slots:
                        c.release_slot(s)
        return [v for v, k in zip(freed, kept) if not k]

    def _preempt_pass(self, now, out, started, stops):
        """Scheduler::preempt_pass."""
        if not self._waitq or not self._runq:
            return
        b = self._block
        if b is not None and self._waitq[0][-1] == b[0] and self._changes == b[1] and now < b[2]:
            return  # nothing changed since the head last found no victims
        self._block = None
        started_now = {jid for jid, _ in started}
        changed = False
        # Jobs in queue order; one started whole leaves it (the next takes its index), and
        # victims wait again only after the pass.
        i = 0
        while i < len(self._waitq):
            jid = self._waitq[i][-1]
            job = self.jobs[jid]
            waiting_for = self._stopping_for.get(jid)
            if waiting_for is not None:
                if any(v in self._life and self._life[v].state == "stopping" for v in waiting_for):
                    break  # its victims' GPUs are coming: it evicts no more, and keeps its claim
                del self._stopping_for[jid]
            need = job["tasks_left"] if job.get("gang") else 1
            eligible_at = [TIME_MAX]
            victims = []
            if not (changed and self._places_now(job, need)):
                victims = self._choose_victims(job, need, now, started_now, eligible_at)
                if victims is None:
                    self._block = (jid, self._changes, eligible_at[0])
                    # A run that becomes old enough to evict may change the answer: wake then.
                    if eligible_at[0] != TIME_MAX and (self._wake_at <= now or eligible_at[0] < self._wake_at):
                        self._wake_at = eligible_at[0]
                        self._timer(eligible_at[0], -1, 0)
                    break
            for v in victims:
                out.append(self.preempt(v, release=self.frees_at_once))
                self.preemptions += 1
                self._unrun(v)
                if self.frees_at_once:
                    self._changes += 1  # the allocation's release epoch
                stops.append(v)
            changed = True
            if victims and not self.frees_at_once:
                self._stopping_for[jid] = list(victims)
                break
            hosts = self._try_start(job)
            if hosts is None:
                raise AssertionError(f"las: the dry run placed job {jid}, the start does not")
            if not self._record_start(job, hosts, out, started):
                i += 1  # partly started: the rest of its tasks wait
            started_now.add(jid)


def _remove(lst, entry):
    i = bisect.bisect_left(lst, entry)
    if i < len(lst) and lst[i] == entry:
        del lst[i]
    else:
        raise AssertionError(f"las: {entry} is not in the list")


if __name__ == "__main__":
    run(Las())
