#!/usr/bin/env python3
# A sample file of job sizes for `gittins` `samples:` (issue 27 item 1, the Tiresias preset): N
# GPU-times (duration x GPUs, whole GPU-seconds) drawn as gen_trace.py draws jobs (sizes 1/2/4/8
# in 3:1:1:1, log-normal durations, median MEDIAN_S), seeded, in the simulator's format (a CSV
# with a `duration` column).   gen_samples.py N SEED OUT.csv [MEDIAN_S]
import math, random, sys
n = int(sys.argv[1]); r = random.Random(int(sys.argv[2])); out = sys.argv[3]
median = float(sys.argv[4]) if len(sys.argv) > 4 else 1800.0
with open(out, "w") as f:
    f.write("duration\n")
    for _ in range(n):
        g = r.choice([1, 1, 1, 2, 4, 8])
        d = int(min(max(math.exp(math.log(median) + 1.6 * r.gauss(0, 1)), 60), 7 * 86400))
        f.write("%d\n" % (g * d))
