"""The Policy base class: the mirror of schedlab's jobs and cluster that a policy decides on,
kept up to date from schedlab's events and from the policy's own decisions."""

import bisect
import collections

from .cluster import Cluster, MILLI_PER_GPU

__all__ = ["Policy", "RunningJob", "SortedJobs", "ProtocolError"]


class ProtocolError(Exception):
    """schedlab sent something the protocol (version 1) does not allow."""


class RunningJob:
    """A job that holds GPUs: the host of each task started (in start order), the start
    of its current run, and the GPUs it holds (whole GPUs; a share counts its fraction).
    ``stopping``: preempted or stopped, it may still hold its GPUs while it saves a
    checkpoint; it is no longer running and cannot be preempted again."""

    __slots__ = ("id", "job", "hosts", "since", "gpus", "slots", "stopping", "acc_at")

    def __init__(self, job, since):
        self.id = job["id"]
        self.job = job
        self.hosts = []
        self.since = since
        self.gpus = 0.0
        self.slots = []        # the mirror's slots, released when the job's GPUs are free
        self.stopping = False
        self.acc_at = since    # attained service is folded into the job's total up to here

    def __repr__(self):
        return (f"RunningJob(id={self.id}, hosts={self.hosts}, since={self.since}, gpus={self.gpus:g}"
                f"{', stopping' if self.stopping else ''})")


class SortedJobs:
    """Waiting jobs in a fixed key order (the key is computed when a job starts waiting
    and must not change while it waits; the job id breaks ties).

    Iterating it yields the job dicts in order. A job that leaves it while a policy is
    iterating (a start, a preemption) is skipped at once and removed after the tick: the
    list is never changed under a running iteration, and no copy is made per tick."""

    def __init__(self, jobs, key):
        self._jobs = jobs
        self._key = key
        self._entries = []   # sorted (key..., id)
        self._entry = {}     # id -> its entry
        self._deferred = set()

    def add(self, job):
        jid = job["id"]
        if jid in self._entry:
            self.remove(jid)
        entry = tuple(self._key(job)) + (jid,)
        self._entry[jid] = entry
        bisect.insort(self._entries, entry)

    def remove(self, jid):
        entry = self._entry.pop(jid, None)
        if entry is None:
            return
        self._deferred.discard(jid)
        entries = self._entries
        del entries[bisect.bisect_left(entries, entry)]

    def defer_remove(self, jid):
        if jid in self._entry:
            self._deferred.add(jid)

    def sweep(self):
        if self._deferred:
            for jid in list(self._deferred):
                self.remove(jid)

    def __contains__(self, jid):
        return jid in self._entry and jid not in self._deferred

    def __len__(self):
        return len(self._entries) - len(self._deferred)

    def __bool__(self):
        return len(self) > 0

    def __iter__(self):
        jobs, deferred = self._jobs, self._deferred
        for entry in self._entries:
            jid = entry[-1]
            if jid in deferred:
                continue
            job = jobs.get(jid)
            if job is not None and job["tasks_left"] > 0:
                yield job


def _fifo_key(job):
    return (job["submit"],)


class Policy:
    """A scheduling policy. Subclasses set ``name``, optionally ``state_mode`` ("changes",
    the default, or "full"), override ``schedule(now)`` and any hooks they need, and are
    run with ``run(policy)``. A subclass that defines ``__init__`` must call
    ``super().__init__()``.

    What the base keeps (all read-only to the policy; ``start``/``preempt`` change it):
      ``self.cluster``  the mirror of the cluster (schedlab_policy.cluster.Cluster)
      ``self.now``      the current tick's time, seconds
      ``self.options``  the hello's options (the scenario's ``external.options``)
      ``self.jobs``     job id -> the job dict of its submit event, while the job lives;
                        ``job["tasks_left"]`` is added: its tasks still waiting
      ``self.state``    the last state object schedlab sent (``state_mode = "full"`` or
                        ``request_state()``), else None
    and through methods: ``waiting()``, ``queue()``, ``running()``, ``stopping()``,
    ``attained(job_id)``.

    ``queue_key``: define ``queue_key(self, job) -> tuple`` to have ``queue()`` list the
    waiting jobs in that order (job id last, as the tie-break); the key is computed when
    the job starts waiting (submitted or requeued) and must not change while it waits.
    """

    name = "policy"
    state_mode = "changes"
    # True: compare the mirror with every state object schedlab sends (full state, or a
    # state request) and fail on a difference. For debugging a policy or the protocol.
    verify_state = False
    queue_key = None

    def __init__(self):
        self.cluster = None
        self.options = {}
        self.now = 0.0
        self.jobs = {}
        self.state = None
        self._running = {}    # id -> RunningJob, running
        self._stopping = {}   # id -> RunningJob, stopped but perhaps still holding its GPUs
        self._attained = {}   # id -> GPU-seconds over runs folded so far
        self._waiting = SortedJobs(self.jobs, _fifo_key)
        self._queue = SortedJobs(self.jobs, self.queue_key) if self.queue_key is not None else None
        self._scheduling = False
        self._io = None
        self._state_asked = False

    # --- hooks (called after the mirror has applied the event) --------------------------

    def on_hello(self, options):
        """The cluster is known (self.cluster) and the scenario's options given."""

    def on_tick(self, now):
        """A tick begins: self.now is its time; its events are not applied yet."""

    def on_submit(self, job):
        pass

    def on_end(self, job):
        pass

    def on_stopped(self, job, cause):
        pass

    def on_requeued(self, job):
        pass

    def on_gone(self, job):
        pass

    def on_host_down(self, host):
        pass

    def on_host_up(self, host):
        pass

    def on_timer(self, at):
        pass

    def schedule(self, now):
        """Called once per tick, after its events are applied: returns a list of decisions
        (built with start, preempt, timer)."""
        return []

    # --- views ---------------------------------------------------------------------------

    def waiting(self):
        """Jobs with waiting tasks, by (submit, id): an iterable (with len) of job dicts.
        A requeued job waits at its original submit time."""
        return self._waiting

    def queue(self):
        """Waiting jobs in the policy's queue_key order (waiting() when it has none)."""
        return self._queue if self._queue is not None else self._waiting

    def running(self):
        """id -> RunningJob of the jobs running now (not those stopping)."""
        return self._running

    def stopping(self):
        """id -> RunningJob of the jobs stopped that may still hold GPUs (saving a checkpoint)."""
        return self._stopping

    def attained(self, job_id):
        """GPU-seconds the job has held over all its runs, up to now (schedlab's figure
        when a state object gave one, advanced by the mirror since)."""
        a = self._attained.get(job_id, 0.0)
        rj = self._running.get(job_id)
        if rj is not None:
            a += (self.now - rj.acc_at) * rj.gpus
        return a

    # --- decisions -----------------------------------------------------------------------

    def start(self, job, hosts):
        """A start decision for `job` (dict or id) with one host name per task. The mirror
        takes the tasks at once, so later decisions of the tick see them. Raises ValueError
        for what schedlab would refuse as seen by the mirror (nothing is taken then)."""
        job = self._job(job)
        jid = job["id"]
        hosts = list(hosts)
        left = job.get("tasks_left", 0)
        if left <= 0:
            raise ValueError(f"start {jid}: the job has no waiting task")
        if not hosts or len(hosts) > left:
            raise ValueError(f"start {jid}: {len(hosts)} hosts for {left} waiting tasks")
        if job.get("gang") and len(hosts) != left:
            raise ValueError(f"start {jid}: a gang starts all its {left} waiting tasks at once, not {len(hosts)}")
        c = self.cluster
        need = c.need(job)
        slots = []
        try:
            for name in hosts:
                h = c.by_name.get(name)
                if h is None:
                    raise ValueError(f"start {jid}: unknown host {name!r}")
                if h.down:
                    raise ValueError(f"start {jid}: host {name} is down")
                if h.model not in need.model_set:
                    if h.gpus == 0:
                        raise ValueError(f"start {jid}: host {name} has no GPU and the job needs one")
                    raise ValueError(f"start {jid}: host {name} has {h.model} GPUs, the job may use "
                                     f"{sorted(m for m in need.model_set if m is not None)}")
                if need.fractional:
                    if h.share_slot(need.milli) < 0 and h.free_gpus < 1:
                        raise ValueError(f"start {jid}: host {name} has no room for a {need.milli}/1000 share")
                elif h.free_gpus < need.g:
                    raise ValueError(f"start {jid}: host {name} has {h.free_gpus} free GPUs, a task needs {need.g}")
                if not h.fits(need.cpu, need.mem):
                    raise ValueError(f"start {jid}: host {name} has {h.free_cpus:g} CPUs and {h.free_mem_gb:g} GB "
                                     f"free, a task needs {need.cpu / 1000:g} and {need.mem / 1024:g}")
                slots.append(c.take_task(h, need))
        except ValueError:
            for s in reversed(slots):
                c.release_slot(s)
            raise
        job["tasks_left"] = left - len(hosts)
        if job["tasks_left"] == 0:
            self._leave_waiting(jid)
        rj = self._running.get(jid)
        if rj is None:
            rj = self._running[jid] = RunningJob(job, self.now)
        else:
            self._fold(rj)  # more tasks of a partly started job: its GPU count changes now
        rj.hosts.extend(hosts)
        rj.slots.extend(slots)
        rj.gpus += len(hosts) * (need.milli / MILLI_PER_GPU if need.fractional else need.g)
        return {"start": jid, "hosts": hosts}

    def preempt(self, job, release=False):
        """A preempt decision: the job stops (its waiting tasks too). By default the mirror
        keeps its GPUs held until schedlab reports them free (requeued or gone): the job may
        save a checkpoint first.

        release=True: schedlab frees them at once, as it does when no checkpoint save holds
        them (the scenario's lifecycle: no ``preemption.grace_s``, or jobs without a save
        cost), and the mirror frees them now, so that a start later in the same decisions
        may use them (schedlab applies decisions in order). Only where that is so: a start
        on GPUs schedlab still holds is invalid. The ``stopped`` and ``requeued`` events that
        follow then free nothing more."""
        job = self._job(job)
        jid = job["id"]
        rj = self._running.get(jid)
        if rj is None:
            raise ValueError(f"preempt {jid}: the job is not running")
        if not job.get("preemptible", True):
            raise ValueError(f"preempt {jid}: the job is not preemptible")
        self._stop_run(rj)
        if release:
            del self._stopping[jid]
            for s in rj.slots:
                self.cluster.release_slot(s)
            rj.slots = []
        return {"preempt": jid}

    def timer(self, at):
        """A timer decision: a tick at `at` (after now), even if nothing happens. Times are
        rounded to the microsecond, as schedlab does."""
        at = round(float(at) * 1e6) / 1e6
        if round(at * 1e6) <= round(self.now * 1e6):
            raise ValueError(f"timer {at}: not after now ({self.now})")
        return {"timer": at}

    def request_state(self):
        """Asks schedlab for the whole state (once per tick, from schedule()); returns it
        and keeps it in self.state."""
        if self._io is None:
            raise RuntimeError("request_state() works only under run()")
        if self._state_asked:
            raise RuntimeError("request_state(): schedlab answers one state request per tick")
        self._state_asked = True
        read, send = self._io
        send({"type": "state"})
        msg = read()
        if msg is None or msg.get("type") != "state":
            raise ProtocolError(f"expected a state message, got {msg!r}")
        self._take_state(msg)
        return msg

    # --- the mirror's bookkeeping --------------------------------------------------------

    def _job(self, job):
        jid = job["id"] if isinstance(job, dict) else job
        j = self.jobs.get(jid)
        if j is None:
            raise ValueError(f"unknown job {jid}")
        return j

    def _fold(self, rj):
        self._attained[rj.id] = self.attained(rj.id)
        rj.acc_at = self.now

    def _stop_run(self, rj):
        """The run ends now: its service is counted, its waiting tasks leave the queue (a
        requeued job is placed anew, all its tasks), its GPUs stay held."""
        self._fold(rj)
        rj.stopping = True
        del self._running[rj.id]
        self._stopping[rj.id] = rj
        job = rj.job
        if job.get("tasks_left", 0) > 0:
            job["tasks_left"] = 0
            self._leave_waiting(rj.id)

    def _release(self, jid):
        """All the job held is free."""
        rj = self._running.get(jid)
        if rj is not None:
            self._fold(rj)
            del self._running[jid]
        else:
            rj = self._stopping.pop(jid, None)
        if rj is not None:
            for s in rj.slots:
                self.cluster.release_slot(s)

    def _enter_waiting(self, job):
        self._waiting.add(job)
        if self._queue is not None:
            self._queue.add(job)

    def _leave_waiting(self, jid):
        # While schedule() may be iterating the queues, removal waits for the tick's end.
        if self._scheduling:
            self._waiting.defer_remove(jid)
            if self._queue is not None:
                self._queue.defer_remove(jid)
        else:
            self._waiting.remove(jid)
            if self._queue is not None:
                self._queue.remove(jid)

    def _forget(self, jid):
        self.jobs.pop(jid, None)
        self._attained.pop(jid, None)
        self.cluster.forget(jid)

    def _event_job(self, ev):
        j = ev.get("job")
        jid = j.get("id") if isinstance(j, dict) else j
        job = self.jobs.get(jid)
        if job is None:
            kind = ev.get("event", ev.get("type"))
            raise ProtocolError(f"{kind} event for job {jid}, which the policy does not know")
        return job

    def _hello(self, hello):
        if not hasattr(self, "_running"):
            Policy.__init__(self)  # a subclass __init__ that forgot super().__init__()
        hosts = (hello.get("cluster") or {}).get("hosts")
        if not isinstance(hosts, list):
            raise ProtocolError("hello: cluster.hosts is missing")
        self.cluster = Cluster(hosts)
        self.options = hello.get("options") or {}
        self.on_hello(self.options)

    def _apply(self, ev):
        # The event's kind is under "event" (docs/external-scheduler.md); "type" is read too,
        # as an early draft of the protocol had it.
        t = ev.get("event", ev.get("type"))
        if t == "submit":
            job = ev["job"]
            jid = job["id"]
            if jid in self.jobs:
                raise ProtocolError(f"submit of job {jid}, which was submitted before")
            self.jobs[jid] = job
            job["tasks_left"] = job["tasks"]
            self._enter_waiting(job)
            self.on_submit(job)
        elif t == "end":
            job = self._event_job(ev)
            self._release(job["id"])
            job["tasks_left"] = 0
            self._leave_waiting(job["id"])
            self.on_end(job)
            self._forget(job["id"])
        elif t == "stopped":
            job = self._event_job(ev)
            rj = self._running.get(job["id"])
            if rj is not None:  # else already stopped by the policy's own preempt
                self._stop_run(rj)
            elif job.get("tasks_left", 0) > 0:  # stopped before any task started
                job["tasks_left"] = 0
                self._leave_waiting(job["id"])
            self.on_stopped(job, ev.get("cause"))
        elif t == "requeued":
            job = self._event_job(ev)
            self._release(job["id"])
            job["tasks_left"] = job["tasks"]
            self._enter_waiting(job)
            self.on_requeued(job)
        elif t == "gone":
            job = self._event_job(ev)
            self._release(job["id"])
            job["tasks_left"] = 0
            self._leave_waiting(job["id"])
            self.on_gone(job)
            self._forget(job["id"])
        elif t == "host_down":
            self.cluster.set_down(ev["host"])
            self.on_host_down(ev["host"])
        elif t == "host_up":
            self.cluster.set_up(ev["host"])
            self.on_host_up(ev["host"])
        elif t == "timer":
            self.on_timer(ev["at"])
        else:
            raise ProtocolError(f"unknown event type {t!r}")

    def _take_state(self, state):
        self.state = state
        for r in state.get("running") or ():
            rj = self._running.get(r.get("id")) or self._stopping.get(r.get("id"))
            if rj is None:
                continue
            if r.get("hosts") is not None:
                self._drop_ended_runs(rj, r["hosts"])
            # schedlab's attained service is the reference: the mirror goes on from it.
            a = r.get("attained_gpu_s")
            if a is not None:
                self._attained[rj.id] = float(a)
                rj.acc_at = self.now
        if self.verify_state and state.get("hosts") is not None:
            diff = self.cluster.diff(state["hosts"])
            if diff:
                raise AssertionError(f"mirror differs from schedlab's state at {self.now}:\n  " + "\n  ".join(diff))

    def _drop_ended_runs(self, rj, hosts):
        """schedlab runs each start of a partly started job as a run of its own and frees
        its GPUs when that run ends, but reports GPUs free only when the whole job ends
        (protocol 1 has no event for it). A state lists the hosts still held: tasks the
        mirror holds beyond them are freed here, the earliest started first."""
        if len(hosts) >= len(rj.hosts):
            return
        surplus = collections.Counter(rj.hosts)
        surplus.subtract(collections.Counter(hosts))
        if rj.id in self._running:
            self._fold(rj)
        need = self.cluster.need(rj.job)
        per_task = need.milli / MILLI_PER_GPU if need.fractional else need.g
        kept_hosts, kept_slots = [], []
        for name, slot in zip(rj.hosts, rj.slots):
            if surplus[name] > 0:
                surplus[name] -= 1
                self.cluster.release_slot(slot)
                rj.gpus -= per_task
            else:
                kept_hosts.append(name)
                kept_slots.append(slot)
        rj.hosts, rj.slots = kept_hosts, kept_slots

    def _tick(self, msg):
        self.now = float(msg["now"])
        self._state_asked = False
        self.on_tick(self.now)
        for ev in msg.get("events") or ():
            self._apply(ev)
        if msg.get("state") is not None:
            self._take_state(msg["state"])
        self._scheduling = True
        try:
            decisions = self.schedule(self.now)
        finally:
            self._scheduling = False
            self._waiting.sweep()
            if self._queue is not None:
                self._queue.sweep()
        return list(decisions or ())
