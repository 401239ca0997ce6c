#!/usr/bin/env python3
"""Job by job: a schedlab jobs.csv (trace_id, start_s, end_s, preemptions) against a result of
tiresias_reference.py (id, start_s, end_s, preemptions). Prints the count of jobs that differ,
both mean JCTs and preemption totals, and the first differing job by submit time; exits 1 when
any job differs.
  compare_jobs.py JOBS.csv REFERENCE.csv
"""
import csv
import sys


def main():
    sub, got = {}, {}
    with open(sys.argv[1]) as f:
        for r in csv.DictReader(f):
            i = int(r["trace_id"])
            sub[i] = round(float(r["submit_s"]))
            got[i] = (round(float(r["start_s"])), round(float(r["end_s"])), int(r["preemptions"]))
    with open(sys.argv[2]) as f:
        ref = {int(r["id"]): (int(r["start_s"]), int(r["end_s"]), int(r["preemptions"])) for r in csv.DictReader(f)}
    differ = sorted((i for i in ref if got.get(i) != ref[i]), key=lambda i: (sub.get(i, 0), i))

    def jct(d):
        return sum(d[i][1] - sub[i] for i in d if i in sub) / max(len(d), 1)

    print("jobs %d, differ %d; mean JCT %.1f s (schedlab) vs %.1f s (reference); preemptions %d vs %d"
          % (len(ref), len(differ), jct(got), jct(ref), sum(v[2] for v in got.values()), sum(v[2] for v in ref.values())))
    if differ:
        i = differ[0]
        print("first differing job: %d, submitted at %d s: schedlab %s, reference %s (start, end, preemptions)"
              % (i, sub.get(i, -1), got.get(i), ref[i]))
    sys.exit(1 if differ or len(got) != len(ref) else 0)


if __name__ == "__main__":
    main()
