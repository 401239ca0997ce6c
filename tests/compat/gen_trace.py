#!/usr/bin/env python3
# A synthetic trace for the Tiresias comparison (issue 27 item 1): sizes 1/2/4/8 GPUs (3:1:1:1),
# log-normal durations (median MEDIAN_S, 1,800 s unless given; sigma 1.6, clipped to [60 s, 7 d]), Poisson arrivals
# with the given mean gap, whole seconds (the Tiresias simulator rounds every time to seconds).
#   gen_trace.py JOBS SEED MEAN_GAP_S OUT [MEDIAN_S]   -> OUT.native.csv (schedlab) and OUT.tiresias.csv
# Seeded with Python's own random.Random, so the same arguments give the same files.
import math, random, sys
n = int(sys.argv[1]); seed = int(sys.argv[2]); gap = float(sys.argv[3]); out = sys.argv[4]
median = float(sys.argv[5]) if len(sys.argv) > 5 else 1800.0
r = random.Random(seed)
t = 0.0
rows = []
for i in range(n):
    t += r.expovariate(1.0 / gap)
    g = r.choice([1, 1, 1, 2, 4, 8])
    d = int(min(max(math.exp(math.log(median) + 1.6 * r.gauss(0, 1)), 60), 7 * 86400))
    rows.append((i, g, int(t), d))
with open(out + ".tiresias.csv", "w") as f:
    f.write("job_id,num_gpu,submit_time,iterations,model_name,duration,interval\n")
    for i, g, s, d in rows: f.write("%d,%d,%d,100,resnet50,%d,10\n" % (i, g, s, d))
with open(out + ".native.csv", "w") as f:
    f.write("id,submit_s,duration_s,tasks,gpus_per_task\n")
    for i, g, s, d in rows: f.write("%d,%d,%d,%d,1\n" % (i, s, d, g))
