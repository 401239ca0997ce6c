"""The policy's mirror of the cluster: free GPUs, CPUs and memory per host, and the
placement searches (best fit, first fit, rack pack) over it.

Units follow schedlab's: CPUs are counted in thousandths (milli-CPUs) and memory in MiB,
both as integers, so that the mirror's "fits" answers are exactly schedlab's (no float
rounding). Hosts' and jobs' figures arrive as decimals (CPUs, GB) and are converted once.

A host's GPUs are either wholly free, held whole by one task, or opened for sharing by
fractional tasks (``gpu_milli`` shares, in thousandths, summing to at most 1000 per GPU).
``used`` counts the GPUs held whole plus the GPUs opened for sharing, so that
``free_gpus = gpus - used`` (0 while the host is down).

Searches never scan every host for a task: per GPU model, up hosts are kept in buckets by
their count of wholly free GPUs, each bucket a sorted list of host indices.
"""

import bisect
import math

__all__ = ["Host", "Cluster", "cpu_milli", "mem_mib"]

MILLI_PER_GPU = 1000


def cpu_milli(cpus):
    """CPUs given as a decimal, as thousandths (schedlab's unit)."""
    return int(round(float(cpus or 0) * 1000))


def mem_mib(gb):
    """Memory given in GB (GiB), as MiB rounded up, as schedlab converts it (1e-9 absorbs
    the binary error of decimal fractions, so that 0.5 GB is 512 MiB, not 513)."""
    return max(0, int(math.ceil(float(gb or 0) * 1024 - 1e-9)))


def is_fractional(job):
    """A task that takes a share of one GPU. schedlab counts a whole-GPU task as 1000
    thousandths internally; the protocol writes 0 for it: both mean "whole"."""
    m = job.get("gpu_milli") or 0
    return 0 < m < MILLI_PER_GPU


def needs_gpu(job):
    return (job.get("gpus_per_task") or 0) > 0 or is_fractional(job)


class Host:
    """One host of the mirror. Its index is its position in the hello's host list."""

    __slots__ = ("index", "name", "rack", "model", "gpus", "cpus", "mem_gb", "cpu_milli", "mem_mib",
                 "used", "shares", "used_cpu_milli", "used_mem_mib", "down")

    def __init__(self, index, spec):
        self.index = index
        self.name = spec["name"]
        self.rack = spec.get("rack")
        self.model = spec.get("model")  # None (or whatever schedlab sends) on a CPU-only host
        self.gpus = int(spec.get("gpus") or 0)
        self.cpus = spec.get("cpus") or 0
        self.mem_gb = spec.get("mem_gb") or 0
        self.cpu_milli = cpu_milli(self.cpus)
        self.mem_mib = mem_mib(self.mem_gb)
        self.used = 0                      # GPUs held whole + GPUs opened for shares
        self.shares = [0] * self.gpus      # thousandths used, per GPU slot (0 = not shared)
        self.used_cpu_milli = 0
        self.used_mem_mib = 0
        self.down = False

    @property
    def free_gpus(self):
        """Wholly free GPUs; 0 while the host is down."""
        return 0 if self.down else self.gpus - self.used

    @property
    def free_cpu_milli(self):
        return self.cpu_milli - self.used_cpu_milli

    @property
    def free_mem_mib(self):
        return self.mem_mib - self.used_mem_mib

    @property
    def free_cpus(self):
        return self.free_cpu_milli / 1000

    @property
    def free_mem_gb(self):
        return self.free_mem_mib / 1024

    def fits(self, cpu, mem):
        return self.cpu_milli - self.used_cpu_milli >= cpu and self.mem_mib - self.used_mem_mib >= mem

    def share_slot(self, milli):
        """The shared GPU with the least room that still takes `milli` (lowest slot on
        ties), as schedlab picks it; -1 when none has room."""
        best, best_used = -1, -1
        for s, u in enumerate(self.shares):
            if u and u + milli <= MILLI_PER_GPU and u > best_used:
                best, best_used = s, u
        return best

    def __repr__(self):
        return (f"Host({self.name}, rack={self.rack}, model={self.model}, free_gpus={self.free_gpus}/{self.gpus}, "
                f"free_cpus={self.free_cpus:g}, free_mem_gb={self.free_mem_gb:g}{', down' if self.down else ''})")


class Need:
    """What one task of a job asks, in mirror units, and the GPU models it may use."""

    __slots__ = ("models", "model_set", "g", "milli", "cpu", "mem", "fractional", "needs_gpu")

    def __init__(self, job, cluster):
        self.fractional = is_fractional(job)
        self.needs_gpu = needs_gpu(job)
        allowed = set(job.get("allowed_models") or ())
        if not self.needs_gpu:
            # allowed_models names GPU models only; schedlab lets a job without GPUs use the
            # hosts without GPUs (whose model is null) whatever its GPU models.
            allowed.add(None)
        self.model_set = frozenset(allowed)
        # Models present in the cluster, in a fixed order (search results do not depend on it:
        # every search breaks ties by host index).
        self.models = tuple(m for m in cluster.models if m in self.model_set)
        self.g = 0 if self.fractional else int(job.get("gpus_per_task") or 0)
        self.milli = int(job["gpu_milli"]) if self.fractional else 0
        self.cpu = cpu_milli(job.get("cpus_per_task"))
        self.mem = mem_mib(job.get("mem_gb_per_task"))


# A task's slot as the mirror holds it: (host index, whole GPUs, share thousandths,
# share slot, milli-CPUs, MiB). Releasing exactly the slot taken keeps shares consistent.
def _slot(h, g, milli, share, cpu, mem):
    return (h, g, milli, share, cpu, mem)


class Cluster:
    """The mirror of schedlab's cluster, built from the hello's ``cluster.hosts``.

    Placement helpers (``best_fit``, ``first_fit``, ``rack_pack``) are tentative: they
    return a list of host names, one per task (a host repeated for several tasks), or None
    when the job does not fit, and leave the mirror as it was. ``Policy.start`` is what
    applies a placement.
    """

    def __init__(self, hosts):
        self.hosts = [Host(i, h) for i, h in enumerate(hosts)]
        self.by_name = {h.name: h for h in self.hosts}
        if len(self.by_name) != len(self.hosts):
            raise ValueError("cluster.hosts: host names are not unique")
        # GPU models in order of first appearance.
        self.models = []
        for h in self.hosts:
            if h.gpus and h.model not in self.models:
                self.models.append(h.model)
        # Per model: buckets[model][f] = sorted indices of up hosts with f wholly free GPUs.
        self._buckets = {}
        self._free_by_model = {m: 0 for m in self.models}
        self._shared = {m: [] for m in self.models}  # up hosts with a shared GPU, sorted
        for m in self.models:
            top = max(h.gpus for h in self.hosts if h.gpus and h.model == m)
            self._buckets[m] = [[] for _ in range(top + 1)]
        for h in self.hosts:
            if h.gpus:
                self._buckets[h.model][h.gpus].append(h.index)
                self._free_by_model[h.model] += h.gpus
        self.racks = {}  # rack name -> host indices, in host order
        for h in self.hosts:
            self.racks.setdefault(h.rack, []).append(h.index)
        # Undo log of tentative changes (see trial()); only written while a trial is open.
        self._undo = []
        self._trials = 0
        self._needs = {}

    # --- queries -------------------------------------------------------------------------

    def host(self, name):
        return self.by_name[name]

    def free_gpus(self, models=None):
        """Wholly free GPUs of up hosts, over the given models (all when None)."""
        if models is None:
            return sum(self._free_by_model.values())
        fbm = self._free_by_model
        return sum(fbm.get(m, 0) for m in set(models))

    def free_gpus_for(self, job):
        """Wholly free GPUs of up hosts of the models the job may use (a gang's count check)."""
        fbm = self._free_by_model
        return sum(fbm[m] for m in self.need(job).models)

    def has_shares(self):
        return any(self._shared.values())

    def need(self, job):
        """The job's per-task Need, cached by job id until forget(). The cache holds the
        job dict itself and is used only for that very dict: a copy or a hypothetical
        job of the same id (a policy's what-if) gets its own answer."""
        hit = self._needs.get(job["id"])
        if hit is not None and hit[0] is job:
            return hit[1]
        n = Need(job, self)
        self._needs[job["id"]] = (job, n)
        return n

    def forget(self, job_id):
        self._needs.pop(job_id, None)

    def task_room(self, host, need):
        """Tasks of `need` this host can take now (whole GPUs or no GPU; shares: see fits_share)."""
        if host.down:
            return 0
        n = host.free_gpus // need.g if need.g else (1 << 30)
        if need.cpu:
            n = min(n, host.free_cpu_milli // need.cpu)
        if need.mem:
            n = min(n, host.free_mem_mib // need.mem)
        return n if (need.g or need.cpu or need.mem) else 0

    # --- changes (exact slots) -----------------------------------------------------------

    def _move(self, h, old_free, new_free):
        """Re-files an up host after its wholly free GPU count changed."""
        if h.down or old_free == new_free:
            return
        b = self._buckets[h.model]
        lst = b[old_free]
        del lst[bisect.bisect_left(lst, h.index)]
        bisect.insort(b[new_free], h.index)
        self._free_by_model[h.model] += new_free - old_free

    def _set_shared(self, h, was_shared):
        now_shared = any(h.shares)
        if h.down or was_shared == now_shared:
            return
        lst = self._shared[h.model]
        if now_shared:
            bisect.insort(lst, h.index)
        else:
            del lst[bisect.bisect_left(lst, h.index)]

    def take_task(self, h, need):
        """Takes one task of `need` on host h (whole GPUs, a share, or CPUs only) and
        returns its slot. The caller has checked that it fits."""
        if need.fractional:
            slot = h.share_slot(need.milli)
            return self.take_slot(_slot(h.index, 0, need.milli, slot, need.cpu, need.mem))
        return self.take_slot(_slot(h.index, need.g, 0, -1, need.cpu, need.mem))

    def take_slot(self, slot):
        """Takes exactly this slot (a share slot of -1: a GPU newly opened for sharing, the
        lowest unshared one). Returns the slot as taken."""
        i, g, milli, share, cpu, mem = slot
        h = self.hosts[i]
        if milli:
            was_shared = any(h.shares)
            if share < 0 or h.shares[share] == 0:
                if h.gpus - h.used < 1:
                    raise AssertionError(f"mirror: no free GPU on {h.name} to open for a share")
                if share < 0:
                    share = h.shares.index(0)
                old = h.free_gpus
                h.used += 1
                self._move(h, old, h.free_gpus)
            h.shares[share] += milli
            self._set_shared(h, was_shared)
            slot = _slot(i, 0, milli, share, cpu, mem)
        elif g:
            old = h.free_gpus
            h.used += g
            self._move(h, old, h.free_gpus)
        h.used_cpu_milli += cpu
        h.used_mem_mib += mem
        if self._trials:
            self._undo.append((True, slot))
        return slot

    def release_slot(self, slot):
        """Frees a slot taken before (on a down host too: the counts stay right, and the
        GPUs come back into the free indexes when the host does)."""
        i, g, milli, share, cpu, mem = slot
        h = self.hosts[i]
        if milli:
            was_shared = any(h.shares)
            h.shares[share] -= milli
            if h.shares[share] == 0:
                old = h.free_gpus
                h.used -= 1
                self._move(h, old, h.free_gpus)
            self._set_shared(h, was_shared)
        elif g:
            old = h.free_gpus
            h.used -= g
            self._move(h, old, h.free_gpus)
        h.used_cpu_milli -= cpu
        h.used_mem_mib -= mem
        if self._trials:
            self._undo.append((False, slot))

    def set_down(self, name):
        h = self.by_name[name]
        if h.down:
            return
        if h.gpus:
            free = h.gpus - h.used
            lst = self._buckets[h.model][free]
            del lst[bisect.bisect_left(lst, h.index)]
            self._free_by_model[h.model] -= free
            if any(h.shares):
                lst = self._shared[h.model]
                del lst[bisect.bisect_left(lst, h.index)]
        h.down = True

    def set_up(self, name):
        h = self.by_name[name]
        if not h.down:
            return
        h.down = False
        if h.gpus:
            free = h.gpus - h.used
            bisect.insort(self._buckets[h.model][free], h.index)
            self._free_by_model[h.model] += free
            if any(h.shares):
                bisect.insort(self._shared[h.model], h.index)

    def trial(self):
        """A context manager: changes made inside it are undone on leaving it.

        with cluster.trial():
            cluster.release_slot(s)   # what if this job's GPUs were free?
            hosts = cluster.best_fit(job)
        """
        return _Trial(self)

    # --- searches for one task -----------------------------------------------------------

    def _tightest(self, need, k, avoid):
        """The up host of an allowed model with the fewest wholly free GPUs that still has
        k (at least 1) and the task's CPUs and memory; lowest index on ties."""
        hosts = self.hosts
        cpu, mem = need.cpu, need.mem
        buckets = [self._buckets[m] for m in need.models]
        top = max((len(b) for b in buckets), default=0)
        for f in range(max(k, 1), top):
            best = None
            for b in buckets:
                if f >= len(b):
                    continue
                for i in b[f]:
                    if best is not None and i >= best:
                        break
                    if avoid and i in avoid:
                        continue
                    h = hosts[i]
                    if h.cpu_milli - h.used_cpu_milli >= cpu and h.mem_mib - h.used_mem_mib >= mem:
                        best = i
                        break
            if best is not None:
                return best
        return None

    def _lowest(self, need, k, avoid):
        """The lowest-index up host of an allowed model with k (at least 1) wholly free GPUs
        and the task's CPUs and memory."""
        hosts = self.hosts
        best = None
        for m in need.models:
            b = self._buckets[m]
            for f in range(max(k, 1), len(b)):
                for i in b[f]:
                    if best is not None and i >= best:
                        break
                    if avoid and i in avoid:
                        continue
                    if hosts[i].fits(need.cpu, need.mem):
                        best = i
                        break
        return best

    def _share_host(self, need, tightest, avoid):
        """A host for one share: on the fullest shared GPU with room (tightest; lowest host
        on ties), else a wholly free GPU of the tightest host; or (not tightest) the lowest
        host with either. As schedlab's place_share."""
        hosts = self.hosts
        best, best_used = None, -1
        for m in need.models:
            for i in self._shared[m]:
                if avoid and i in avoid:
                    continue
                h = hosts[i]
                if not h.fits(need.cpu, need.mem):
                    continue
                s = h.share_slot(need.milli)
                if s < 0:
                    continue
                if not tightest:
                    if best is None or i < best:
                        best = i
                    break
                u = h.shares[s]
                if u > best_used or (u == best_used and i < best):
                    best, best_used = i, u
        if not tightest:
            whole = self._lowest(need, 1, avoid)
            if whole is not None and (best is None or whole < best):
                best = whole
        elif best is None:
            best = self._tightest(need, 1, avoid)
        return best

    def _cpu_host(self, need, tightest, avoid):
        """A host for a task without GPUs: fewest free CPUs (tightest) or lowest index,
        among the up hosts whose model the job may use."""
        best, best_free = None, None
        allowed = need.model_set
        for h in self.hosts:
            if h.down or h.model not in allowed or (avoid and h.index in avoid):
                continue
            if not h.fits(need.cpu, need.mem):
                continue
            if not tightest:
                return h.index
            f = h.free_cpu_milli
            if best is None or f < best_free:
                best, best_free = h.index, f
        return best

    def _pick(self, need, tightest, avoid):
        if not need.needs_gpu:
            return self._cpu_host(need, tightest, avoid)
        if need.fractional:
            return self._share_host(need, tightest, avoid)
        if tightest:
            return self._tightest(need, need.g, avoid)
        return self._lowest(need, need.g, avoid)

    # --- placements (tentative) ----------------------------------------------------------

    def _place(self, job, tasks, partial, tightest, avoid):
        need = self.need(job)
        want = _tasks(job, tasks)
        names = []
        with self.trial():
            while len(names) < want:
                i = self._pick(need, tightest, avoid)
                if i is None:
                    break
                h = self.hosts[i]
                self.take_task(h, need)
                names.append(h.name)
        if len(names) == want or (partial and names):
            return names
        return None

    def best_fit(self, job, tasks=None, partial=False, avoid=None):
        """schedlab's ``best-fit``: tasks one at a time, each on the allowed up host with the
        fewest wholly free GPUs that has the task's GPUs, CPUs and memory (lowest index on
        ties), that host's counts dropping before the next task. A share goes on the fullest
        shared GPU with room, else opens a GPU of the tightest host; a task without GPUs
        goes on the host with the fewest free CPUs that fits.

        tasks: how many (default: the job's waiting tasks). partial: return the tasks that
        could be placed (None if none) instead of None when not all fit. avoid: host indices
        not to use."""
        return self._place(job, tasks, partial, True, avoid)

    def first_fit(self, job, tasks=None, partial=False, avoid=None):
        """schedlab's ``first-fit``: each task on the lowest-index host with room."""
        return self._place(job, tasks, partial, False, avoid)

    def rack_pack(self, job, tasks=None, avoid=None):
        """Fewest hosts and racks: all tasks on one host if one has room (the tightest);
        else in one rack (the rack with the fewest free GPUs that can hold them, its
        emptiest hosts filled first, to use few hosts); else best_fit. Shares and tasks
        without GPUs: best_fit (one host first for the latter)."""
        need = self.need(job)
        want = _tasks(job, tasks)
        if want == 0:
            return []
        if need.fractional:
            return self.best_fit(job, want, avoid=avoid)
        all_tasks = _Scaled(need, want)
        if not need.needs_gpu:
            i = self._cpu_host(all_tasks, True, avoid)
            if i is not None:
                return [self.hosts[i].name] * want
            return self.best_fit(job, want, avoid=avoid)
        # 1. One host.
        i = self._tightest(all_tasks, need.g * want, avoid)
        if i is not None:
            return [self.hosts[i].name] * want
        # 2. One rack: racks by free GPUs ascending (an upper bound on their room), the first
        #    whose hosts can really take every task. Ties: the rack listed first.
        total = need.g * want
        models = need.model_set
        racks = []
        for order, (rack, members) in enumerate(self.racks.items()):
            usable = [self.hosts[i] for i in members
                      if self.hosts[i].model in models and self.hosts[i].gpus and not self.hosts[i].down
                      and not (avoid and i in avoid)]
            free = sum(h.free_gpus for h in usable)
            if free >= total:
                racks.append((free, order, usable))
        racks.sort(key=lambda r: (r[0], r[1]))
        for _, _, usable in racks:
            rooms = [(self.task_room(h, need), h) for h in usable]
            if sum(r for r, _ in rooms) < want:
                continue
            rooms.sort(key=lambda rh: (-rh[1].free_gpus, rh[1].index))
            names = []
            for room, h in rooms:
                take = min(room, want - len(names))
                names.extend([h.name] * take)
                if len(names) == want:
                    return names
        # 3. Across racks.
        return self.best_fit(job, want, avoid=avoid)

    # --- checks --------------------------------------------------------------------------

    def diff(self, state_hosts):
        """Where the mirror disagrees with a state's ``hosts`` list (schedlab's own view):
        a list of lines, empty when they agree. For debugging a policy or the protocol."""
        out = []
        for s in state_hosts:
            h = self.by_name.get(s.get("name"))
            if h is None:
                out.append(f"{s.get('name')}: unknown host")
                continue
            mine = (h.free_gpus, h.down, h.free_cpu_milli, h.free_mem_mib)
            theirs = (int(s.get("free_gpus", 0)), bool(s.get("down", False)),
                      cpu_milli(s.get("free_cpus", 0)), mem_mib(s.get("free_mem_gb", 0)))
            if s.get("free_cpus") is None:
                theirs = theirs[:2] + mine[2:]
            if mine != theirs:
                out.append(f"{h.name}: mirror (free_gpus, down, cpu_milli, mem_mib) = {mine}, schedlab = {theirs}")
        return out


def _tasks(job, tasks):
    if tasks is not None:
        return tasks
    left = job.get("tasks_left")
    return job["tasks"] if left is None else left


class _Scaled:
    """A Need for `n` tasks at once on one host (rack_pack's one-host try)."""

    __slots__ = ("models", "model_set", "g", "milli", "cpu", "mem", "fractional", "needs_gpu")

    def __init__(self, need, n):
        self.models, self.model_set = need.models, need.model_set
        self.g, self.milli = need.g * n, 0
        self.cpu, self.mem = need.cpu * n, need.mem * n
        self.fractional, self.needs_gpu = False, need.needs_gpu


class _Trial:
    __slots__ = ("c", "mark")

    def __init__(self, cluster):
        self.c = cluster

    def __enter__(self):
        self.mark = len(self.c._undo)
        self.c._trials += 1
        return self

    def __exit__(self, *exc):
        c = self.c
        undo = c._undo
        # Undo in reverse without logging the undoing itself.
        trials, c._trials = c._trials, 0
        try:
            while len(undo) > self.mark:
                taken, slot = undo.pop()
                if taken:
                    c.release_slot(slot)
                else:
                    c.take_slot(slot)
        finally:
            c._trials = trials - 1
        return False
