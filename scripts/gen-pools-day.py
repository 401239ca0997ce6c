#!/usr/bin/env python3
"""Writes traces/pools-day.csv: two days of a shared 128-GPU cluster split into pools.

production submits training gangs (8-32 GPUs, 1-4 h) by day, 08:00-20:00, few at night;
research submits 4-16 GPU jobs (2-8 h) around the clock, more than its reservation holds;
serving is no trace row: scenarios/pools-day.yaml runs it as a service (workload.services),
beside its cron jobs. The pool is the trace's `pool` column. The same
seed gives the same file: python3 scripts/gen-pools-day.py [--seed 7] > traces/pools-day.csv
"""
import argparse
import random

p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
p.add_argument("--seed", type=int, default=7)
a = p.parse_args()
rng = random.Random(a.seed)
rows = []
DAY = 86400.0


def poisson(rate_per_hour, start, end):
    t = start
    while True:
        t += rng.expovariate(rate_per_hour / 3600.0)
        if t >= end:
            return
        yield t


for day in range(2):
    base = day * DAY
    for t in poisson(2.5, base + 8 * 3600, base + 20 * 3600):  # production by day
        rows.append((t, rng.uniform(3600, 4 * 3600), rng.choice([1, 2, 2, 3, 4]), 8, "prod", "production", 10))
    for t in poisson(0.5, base, base + 8 * 3600):  # and a little at night
        rows.append((t, rng.uniform(3600, 3 * 3600), 1, 8, "prod", "production", 10))
    for t in poisson(0.5, base + 20 * 3600, base + DAY):
        rows.append((t, rng.uniform(3600, 3 * 3600), 1, 8, "prod", "production", 10))
    for t in poisson(2.0, base, base + DAY):  # research around the clock
        gpus = rng.choice([4, 4, 8, 8, 8])
        rows.append((t, rng.uniform(2 * 3600, 8 * 3600), rng.choice([1, 1, 2]), gpus, "res%d" % rng.randrange(6),
                     "research", 0))
rows.sort(key=lambda r: r[0])
print("id,submit_s,duration_s,tasks,gpus_per_task,gpu_milli,gpu_model,min_generation,user,pool,priority,gang,kind,"
      "estimate_s,status")
for i, (t, d, tasks, gpus, user, pool, prio) in enumerate(rows):
    print(f"{i},{t:.1f},{d:.1f},{tasks},{gpus},1000,,0,{user},{pool},{prio},1,batch,0,unknown")
