#!/usr/bin/env python3
"""An independent reference for the Tiresias simulator's `dlas` semantics as docs/policies.md
("Tiresias compatibility") states them, written from that text: discretized LAS on wall-time
service with queue limits, one full re-decision per instant over GPU counts, demoted jobs and
arrivals appended at a queue's tail, waiting jobs moved behind the running ones after each
pass. Also `fifo` (strict submit order, no preemption) and `dlas-gpu` (service in GPU-time, with
the simulator's demotion instants, D10) and `dlas-gpu-gittins` (D11: each queue sorted by the
simulator's Gittins rank from a sample file's `duration` column). Whole seconds throughout.

  tiresias_reference.py TRACE.csv GPUS {fifo|dlas|dlas-gpu} [LIMIT ...]  > result.csv
  tiresias_reference.py TRACE.csv GPUS dlas-gpu-gittins SAMPLES.csv QUANTUM [LIMIT ...]  > result.csv

TRACE is a native schedlab trace (id, submit_s, duration_s, tasks, gpus_per_task; a job asks
tasks x gpus_per_task GPUs). Writes id,start_s,end_s,preemptions, one row per job, by id.
"""
import csv
import sys
from decimal import ROUND_HALF_UP, Decimal


def read_trace(path):
    jobs = []
    with open(path) as f:
        for row in csv.DictReader(f):
            jobs.append({
                "id": int(row["id"]),
                "submit": int(float(row["submit_s"])),
                "dur": int(float(row["duration_s"])),
                "gpus": int(row["tasks"]) * int(row["gpus_per_task"]),
            })
    # Submit order, file order among equal submits.
    jobs.sort(key=lambda j: j["submit"])
    for j in jobs:
        j.update(service=0, running=False, start=None, end=None, preempt=0, queue=0)
    return jobs


def fifo(jobs, gpus):
    free, waiting, running, i, now = gpus, [], [], 0, 0
    while i < len(jobs) or waiting or running:
        nexts = [jobs[i]["submit"]] if i < len(jobs) else []
        nexts += [j["end"] for j in running]
        if not nexts:
            break  # a job larger than the cluster: nothing more happens
        now = min(nexts)
        for j in [j for j in running if j["end"] == now]:
            running.remove(j)
            free += j["gpus"]
        while i < len(jobs) and jobs[i]["submit"] == now:
            waiting.append(jobs[i])
            i += 1
        while waiting and waiting[0]["gpus"] <= free:
            j = waiting.pop(0)
            free -= j["gpus"]
            j["start"], j["end"] = now, now + j["dur"]
            running.append(j)


def round_half_away(x, digits):
    """x rounded to `digits` decimals, an exact half away from zero (Python 2's round)."""
    return float(Decimal(x).quantize(Decimal(1).scaleb(-digits), rounding=ROUND_HALF_UP))


def gittins_ranks(samples, quantum):
    """The simulator's rank per attained GPU-seconds, as docs/policies.md (D11) states it: with
    the samples sorted, s[i] the first sample above the attained service, k the count of samples
    at most s[i] - 1 + quantum (n - 1 when that passes the largest sample), P = (k - i) / (n - i)
    to 5 decimals, E = (s[i] + ... + s[k - 1] + quantum * (n - k)) // (n - i), and the rank
    P * 10**6 / E to 4 decimals; 0 from the largest sample on. Returns rank(a)."""
    s = sorted(samples)
    n = len(s)
    table = []
    for i in range(n):
        reach = s[i] - 1 + quantum
        k = n - 1 if reach >= s[-1] else sum(1 for v in s if v <= reach)
        p = round_half_away((k - i) / (n - i), 5)
        e = (sum(s[i:k]) + quantum * (n - k)) // (n - i)
        table.append(round_half_away(p * 1000000 / e, 4))

    def rank(a):
        i = sum(1 for v in s if v <= a)
        return table[i] if i < n else 0.0
    return rank


def dlas(jobs, gpus, limits, gputime=False, rank=None):
    """`dlas`, or with `gputime` the simulator's `dlas-gpu` (D10): a job's attained service is its
    run time times its GPUs, checked against the limits at every instant, while the instant the
    simulator next looks (its "jump") is limit minus run time (wall seconds) divided by the GPUs,
    rounded down (Python 2's integer division), after the instant it was computed at. With
    `rank` (`dlas-gpu-gittins`, D11), each queue is sorted before the walk by the rank of every
    job's attained GPU-seconds at that instant, higher first, then by submit, else kept in order."""
    def attained(j):
        return j["service"] * j["gpus"] if gputime else j["service"]

    queues = [[] for _ in range(len(limits) + 1)]
    runnable = []  # in the order jobs arrived: the order demotions are applied in
    i, last = 0, 0
    while i < len(jobs) or runnable:
        nexts = [jobs[i]["submit"]] if i < len(jobs) else []
        for j in runnable:
            if j["running"]:
                nexts.append(last + j["dur"] - j["service"])
                if j["queue"] < len(limits):
                    left = limits[j["queue"]] - j["service"]
                    nexts.append(last + (left // j["gpus"] if gputime else left))
        if not nexts:
            break
        now = min(nexts)
        # Service up to now; completions leave.
        for j in runnable:
            if j["running"]:
                j["service"] += now - last
        for j in [j for j in runnable if j["running"] and j["service"] >= j["dur"]]:
            j["end"] = now
            runnable.remove(j)
            queues[j["queue"]].remove(j)
        last = now
        # Arrivals at the tail of the top queue.
        while i < len(jobs) and jobs[i]["submit"] == now:
            runnable.append(jobs[i])
            queues[0].append(jobs[i])
            i += 1
        # Demotions, one queue at a time, to the tail of the next queue.
        for j in runnable:
            if j["running"] and j["queue"] < len(limits) and attained(j) >= limits[j["queue"]]:
                queues[j["queue"]].remove(j)
                j["queue"] += 1
                queues[j["queue"]].append(j)
        if rank:
            for q in queues:
                q.sort(key=lambda j: (-rank(attained(j)), j["submit"]))
        # One walk decides the running set by GPU count.
        free = gpus
        for q in queues:
            for j in q:
                if j["gpus"] <= free:
                    free -= j["gpus"]
                    if not j["running"]:
                        j["running"] = True
                        if j["start"] is None:
                            j["start"] = now
                elif j["running"]:
                    j["running"] = False
                    j["preempt"] += 1
        # Waiting jobs behind the running ones, in their order.
        for k, q in enumerate(queues):
            queues[k] = [j for j in q if j["running"]] + [j for j in q if not j["running"]]


def main():
    path, gpus, policy = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    jobs = read_trace(path)
    if policy == "fifo":
        fifo(jobs, gpus)
    elif policy in ("dlas", "dlas-gpu"):
        dlas(jobs, gpus, [int(x) for x in sys.argv[4:]] or [3250, 7200], policy == "dlas-gpu")
    elif policy == "dlas-gpu-gittins":
        with open(sys.argv[4]) as f:
            samples = [int(float(r["duration"])) for r in csv.DictReader(f)]
        dlas(jobs, gpus, [int(x) for x in sys.argv[6:]] or [3250, 7200], True, gittins_ranks(samples, int(sys.argv[5])))
    else:
        sys.exit("unknown policy " + policy)
    out = csv.writer(sys.stdout, lineterminator="\n")
    out.writerow(["id", "start_s", "end_s", "preemptions"])
    for j in sorted(jobs, key=lambda j: j["id"]):
        out.writerow([j["id"], j["start"], j["end"], j["preempt"]])


if __name__ == "__main__":
    main()
