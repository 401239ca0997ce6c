#!/usr/bin/env python3
"""An independent reference for the Tiresias simulator's `dlas` semantics as docs/policies.md
("Tiresias compatibility") states them, written from that text: discretized LAS on wall-time
service with queue limits, one full re-decision per instant over GPU counts, demoted jobs and
arrivals appended at a queue's tail, waiting jobs moved behind the running ones after each
pass. Also `fifo` (strict submit order, no preemption). Whole seconds throughout.

  tiresias_reference.py TRACE.csv GPUS {fifo|dlas} [LIMIT ...]  > result.csv

TRACE is a native schedlab trace (id, submit_s, duration_s, tasks, gpus_per_task; a job asks
tasks x gpus_per_task GPUs). Writes id,start_s,end_s,preemptions, one row per job, by id.
"""
import csv
import sys


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


def dlas(jobs, gpus, limits):
    queues = [[] for _ in range(len(limits) + 1)]
    runnable = []  # in the order jobs arrived: the order demotions are applied in
    i, last = 0, 0
    while i < len(jobs) or runnable:
        nexts = [jobs[i]["submit"]] if i < len(jobs) else []
        for j in runnable:
            if j["running"]:
                nexts.append(last + j["dur"] - j["service"])
                if j["queue"] < len(limits):
                    nexts.append(last + limits[j["queue"]] - j["service"])
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
            if j["running"] and j["queue"] < len(limits) and j["service"] >= limits[j["queue"]]:
                queues[j["queue"]].remove(j)
                j["queue"] += 1
                queues[j["queue"]].append(j)
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
    elif policy == "dlas":
        dlas(jobs, gpus, [int(x) for x in sys.argv[4:]] or [3250, 7200])
    else:
        sys.exit("unknown policy " + policy)
    out = csv.writer(sys.stdout, lineterminator="\n")
    out.writerow(["id", "start_s", "end_s", "preemptions"])
    for j in sorted(jobs, key=lambda j: j["id"]):
        out.writerow([j["id"], j["start"], j["end"], j["preempt"]])


if __name__ == "__main__":
    main()
