"""Tests of scripts/python/schedlab_policy and its examples.

    python3 -m unittest discover -s tests/python -v      (from the repository root)

Unit tests drive a policy's mirror tick by tick; protocol tests go through run() with
in-memory streams; the end-to-end tests run each example as a process against FakeSchedlab,
a small stand-in for schedlab that checks every decision the way schedlab does.
"""

import heapq
import importlib.util
import io
import json
import math
import random
import subprocess
import sys
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PY = ROOT / "scripts" / "python"
sys.path.insert(0, str(PY))

from schedlab_policy import Policy, ProtocolError, run  # noqa: E402


def load_example(name):
    spec = importlib.util.spec_from_file_location(f"example_{name}", PY / "examples" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


fifo_best_fit = load_example("fifo_best_fit")
sjf_rack_pack = load_example("sjf_rack_pack")
las = load_example("las")


# --- message builders ------------------------------------------------------------------

def host(name, gpus, rack="r0", model="V100", cpus=None, mem_gb=None):
    return {"name": name, "rack": rack, "model": model if gpus else None, "gpus": gpus,
            "cpus": cpus if cpus is not None else max(gpus, 1) * 12,
            "mem_gb": mem_gb if mem_gb is not None else max(gpus, 1) * 128}


def three_hosts():
    """The hand-worked case: h0 and h1 with 8 GPUs in rack r0, h2 with 4 in rack r1."""
    return [host("h0", 8), host("h1", 8), host("h2", 4, rack="r1")]


def job(jid, submit=0.0, tasks=1, gpus=1, milli=0, cpus=0, mem_gb=0, models=("V100",), gang=True,
        duration=100.0, preemptible=True):
    return {"id": jid, "trace_id": str(jid), "submit": submit, "tasks": tasks, "gpus_per_task": gpus,
            "gpu_milli": milli, "cpus_per_task": cpus, "mem_gb_per_task": mem_gb, "duration": duration,
            "estimate": 0, "user": "u", "model": models[0] if models else None,
            "allowed_models": list(models), "gang": gang, "preemptible": preemptible}


def hello(hosts, options=None):
    return {"type": "hello", "protocol": 1, "schedlab": "0.9.0", "options": options or {},
            "cluster": {"hosts": hosts}}


def tick(now, *events, state=None):
    msg = {"type": "tick", "now": now, "events": list(events)}
    if state is not None:
        msg["state"] = state
    return msg


def submit(j):
    return {"event": "submit", "job": dict(j)}


def ev(kind, jid, **more):
    return dict({"event": kind, "job": jid}, **more)


class Driver:
    """Feeds a policy hello and ticks directly (no streams), returning its decisions."""

    def __init__(self, policy, hosts, options=None):
        self.policy = policy
        policy._hello(hello(hosts, options))

    def tick(self, now, *events, state=None):
        return self.policy._tick(tick(now, *events, state=state))


def starts(decisions):
    return [(d["start"], d["hosts"]) for d in decisions if "start" in d]


def free(policy):
    return {h.name: h.free_gpus for h in policy.cluster.hosts}


# --- protocol ----------------------------------------------------------------------------

def lines(*msgs):
    return "".join(json.dumps(m) + "\n" for m in msgs).encode()


class StartAll(Policy):
    """Starts every waiting job that best fit places (a test policy)."""
    name = "start-all"

    def schedule(self, now):
        out = []
        for j in self.waiting():
            hosts = self.cluster.best_fit(j)
            if hosts:
                out.append(self.start(j, hosts))
        return out


class ProtocolTest(unittest.TestCase):
    def run_policy(self, policy, *msgs, text=False):
        data = lines(*msgs)
        stdin = io.StringIO(data.decode()) if text else io.BytesIO(data)
        out = io.StringIO()
        run(policy, stdin=stdin, stdout=out)
        return [json.loads(line) for line in out.getvalue().splitlines()]

    def test_round_trip(self):
        replies = self.run_policy(StartAll(), hello(three_hosts()),
                                  tick(10.0, submit(job(1, gpus=4))),
                                  tick(20.0),
                                  {"type": "bye"},
                                  tick(30.0, submit(job(2))))  # after bye: never read
        self.assertEqual(replies[0], {"type": "hello", "protocol": 1, "name": "start-all", "state": "changes"})
        self.assertEqual(replies[1], {"type": "decisions", "decisions": [{"start": 1, "hosts": ["h2"]}]})
        self.assertEqual(replies[2], {"type": "decisions", "decisions": []})
        self.assertEqual(len(replies), 3)

    def test_replies_are_compact_single_lines(self):
        out = io.StringIO()
        run(StartAll(), stdin=io.BytesIO(lines(hello(three_hosts()), tick(1.0, submit(job(1))))), stdout=out)
        for line in out.getvalue().splitlines(keepends=True):
            self.assertTrue(line.endswith("\n"))
            self.assertNotIn(" ", line)

    def test_str_input_and_eof_without_bye(self):
        replies = self.run_policy(StartAll(), hello(three_hosts()), tick(1.0, submit(job(1))), text=True)
        self.assertEqual(len(replies), 2)

    def test_empty_input(self):
        self.assertEqual(self.run_policy(StartAll()), [])

    def test_other_protocol_fails(self):
        msg = hello(three_hosts())
        msg["protocol"] = 2
        with self.assertRaises(ProtocolError):
            self.run_policy(StartAll(), msg)

    def test_full_state_mode_and_attained_from_state(self):
        class Full(StartAll):
            state_mode = "full"
        p = Full()
        replies = self.run_policy(
            p, hello(three_hosts()), tick(0.0, submit(job(1, gpus=4))),
            tick(10.0, state={"hosts": [], "running": [{"id": 1, "hosts": ["h2"], "since": 0.0,
                                                         "attained_gpu_s": 25.0}], "queue": []}))
        self.assertEqual(replies[0]["state"], "full")
        # schedlab says 25 GPU-s (not the mirror's 40): the mirror goes on from its figure.
        self.assertEqual(p.attained(1), 25.0)
        p.now = 11.0
        self.assertEqual(p.attained(1), 29.0)

    def test_state_request(self):
        class Asks(Policy):
            name = "asks"

            def schedule(self, now):
                self.got = self.request_state()
                return [self.timer(now + 5)]
        p = Asks()
        replies = self.run_policy(p, hello(three_hosts()), tick(1.0),
                                  {"type": "state", "hosts": [], "running": [], "queue": []})
        self.assertEqual(replies[1], {"type": "state"})
        self.assertEqual(replies[2], {"type": "decisions", "decisions": [{"timer": 6.0}]})
        self.assertEqual(p.got["queue"], [])

    def test_policy_errors_propagate(self):
        class Broken(Policy):
            def schedule(self, now):
                raise RuntimeError("boom")
        with self.assertRaises(RuntimeError):
            self.run_policy(Broken(), hello(three_hosts()), tick(1.0))

    def test_events_named_by_type_are_read_too(self):
        # An early draft of the protocol named an event's kind under "type".
        p = StartAll()
        Driver(p, three_hosts()).tick(1.0, {"type": "submit", "job": job(1, gpus=4)})
        self.assertEqual(list(p.running()), [1])

    def test_unknown_event_fails(self):
        with self.assertRaises(ProtocolError):
            self.run_policy(StartAll(), hello(three_hosts()), tick(1.0, {"event": "meteor"}))

    def test_timer_must_be_after_now(self):
        p = StartAll()
        Driver(p, three_hosts()).tick(10.0)
        self.assertEqual(p.timer(10.5), {"timer": 10.5})
        with self.assertRaises(ValueError):
            p.timer(10.0)
        with self.assertRaises(ValueError):
            p.timer(10.0000001)  # rounds to 10.0 at a microsecond

    def test_example_runs_as_a_process_and_print_goes_to_stderr(self):
        script = ("import sys; sys.path.insert(0, %r)\n"
                  "from schedlab_policy import Policy, run\n"
                  "class P(Policy):\n"
                  "    name = 'printer'\n"
                  "    def schedule(self, now):\n"
                  "        print('hello from the policy')\n"
                  "        return []\n"
                  "run(P())\n") % str(PY)
        data = lines(hello(three_hosts()), tick(1.0), {"type": "bye"})
        p = subprocess.run([sys.executable, "-c", script], input=data, capture_output=True, timeout=30)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual([json.loads(x)["type"] for x in p.stdout.splitlines()], ["hello", "decisions"])
        self.assertIn(b"hello from the policy", p.stderr)

    def test_crashed_policy_exits_non_zero(self):
        script = ("import sys; sys.path.insert(0, %r)\n"
                  "from schedlab_policy import Policy, run\n"
                  "class P(Policy):\n"
                  "    def schedule(self, now):\n"
                  "        return [self.start(99, ['h0'])]\n"
                  "run(P())\n") % str(PY)
        p = subprocess.run([sys.executable, "-c", script], input=lines(hello(three_hosts()), tick(1.0)),
                           capture_output=True, timeout=30)
        self.assertNotEqual(p.returncode, 0)
        self.assertIn(b"unknown job 99", p.stderr)


# --- placement ---------------------------------------------------------------------------

class BestFitTest(unittest.TestCase):
    def setUp(self):
        self.p = StartAll()
        self.d = Driver(self.p, three_hosts())
        self.c = self.p.cluster

    def test_fewest_free_gpus_first(self):
        # h2 (4 free) is the tightest host with 4 GPUs.
        self.assertEqual(self.c.best_fit(job(1, gpus=4)), ["h2"])
        self.assertEqual(self.c.best_fit(job(1, gpus=1)), ["h2"])

    def test_ties_go_to_the_lowest_index(self):
        # Only h0 and h1 have 8; both have 8 free: h0.
        self.assertEqual(self.c.best_fit(job(1, gpus=8)), ["h0"])

    def test_tasks_are_packed_one_at_a_time(self):
        # Task 1 fills h2; task 2 ties h0/h1 at 8 -> h0, which has 4 left, the fewest -> task 3 too.
        self.assertEqual(self.c.best_fit(job(1, tasks=3, gpus=4)), ["h2", "h0", "h0"])
        self.assertEqual(self.c.best_fit(job(1, tasks=2, gpus=2)), ["h2", "h2"])
        self.assertEqual(self.c.best_fit(job(1, tasks=5, gpus=4)), ["h2", "h0", "h0", "h1", "h1"])

    def test_the_mirror_is_left_as_it_was(self):
        before = free(self.p)
        self.c.best_fit(job(1, tasks=5, gpus=4))
        self.c.rack_pack(job(1, tasks=3, gpus=4))
        self.c.best_fit(job(2, tasks=3, gpus=1, milli=500))
        self.assertEqual(free(self.p), before)

    def test_after_a_start(self):
        self.d.tick(0.0, submit(job(1, gpus=6, gang=True)))  # StartAll: 6 GPUs -> h0 (tie h0/h1)
        self.assertEqual(free(self.p), {"h0": 2, "h1": 8, "h2": 4})
        self.assertEqual(self.c.best_fit(job(2, gpus=2)), ["h0"])
        self.assertEqual(self.c.best_fit(job(2, gpus=3)), ["h2"])
        self.assertEqual(self.c.best_fit(job(2, gpus=5)), ["h1"])

    def test_whole_job_or_none_and_partial(self):
        self.assertIsNone(self.c.best_fit(job(1, tasks=3, gpus=8)))
        self.assertEqual(self.c.best_fit(job(1, tasks=3, gpus=8), partial=True), ["h0", "h1"])
        self.assertIsNone(self.c.best_fit(job(1, gpus=9), partial=True))

    def test_cpus_and_memory_must_fit_too(self):
        p = StartAll()
        Driver(p, [host("h0", 8, cpus=96), host("h1", 8, cpus=96), host("h2", 4, cpus=4, mem_gb=32)])
        c = p.cluster
        self.assertEqual(c.best_fit(job(1, gpus=1, cpus=4)), ["h2"])
        self.assertEqual(c.best_fit(job(1, gpus=1, cpus=4.5)), ["h0"])     # h2 has only 4 CPUs
        self.assertEqual(c.best_fit(job(1, gpus=1, mem_gb=32.5)), ["h0"])  # h2 has only 32 GB
        # Two tasks of 3 CPUs: h2 takes one (1 CPU left), the second goes to h0.
        self.assertEqual(c.best_fit(job(1, tasks=2, gpus=1, cpus=3)), ["h2", "h0"])

    def test_allowed_models_and_down_hosts(self):
        p = StartAll()
        d = Driver(p, [host("h0", 8, model="A100"), host("h1", 8), host("h2", 4)])
        c = p.cluster
        self.assertEqual(c.best_fit(job(1, gpus=8, models=("A100",))), ["h0"])
        self.assertEqual(c.best_fit(job(1, gpus=8, models=("V100",))), ["h1"])
        self.assertIsNone(c.best_fit(job(1, gpus=8, models=("H100",))))
        d.tick(1.0, {"event": "host_down", "host": "h1"})
        self.assertIsNone(c.best_fit(job(1, gpus=8, models=("V100",))))
        self.assertEqual(c.free_gpus(["V100"]), 4)

    def test_first_fit(self):
        self.assertEqual(self.c.first_fit(job(1, gpus=4)), ["h0"])
        self.assertEqual(self.c.first_fit(job(1, tasks=3, gpus=4)), ["h0", "h0", "h1"])

    def test_rack_pack(self):
        # One host when one has room for all: h0 (tie with h1).
        self.assertEqual(self.c.rack_pack(job(1, tasks=2, gpus=4)), ["h0", "h0"])
        # 12 GPUs: no host; rack r0 (16 free) can: its emptiest hosts filled first.
        self.assertEqual(self.c.rack_pack(job(1, tasks=3, gpus=4)), ["h0", "h0", "h1"])
        # 20 GPUs: no single rack: best fit across racks.
        self.assertEqual(self.c.rack_pack(job(1, tasks=5, gpus=4)), ["h2", "h0", "h0", "h1", "h1"])
        self.assertIsNone(self.c.rack_pack(job(1, tasks=6, gpus=4)))

    def test_rack_pack_prefers_the_rack_with_the_fewest_free_gpus(self):
        p = StartAll()
        Driver(p, [host("h0", 4), host("h1", 4), host("h2", 4, rack="r1"), host("h3", 4, rack="r1"),
                   host("h4", 4, rack="r1")])
        self.assertEqual(p.cluster.rack_pack(job(1, tasks=2, gpus=4)), ["h0", "h1"])
        self.assertEqual(p.cluster.rack_pack(job(1, tasks=3, gpus=4)), ["h2", "h3", "h4"])

    def test_no_gpu_tasks_go_where_the_fewest_cpus_are_left(self):
        p = StartAll()
        Driver(p, [host("h0", 8, cpus=96), host("c0", 0, cpus=32), host("c1", 0, cpus=16)])
        c = p.cluster
        # allowed_models names GPU models only: the hosts without GPUs are a job's without GPUs.
        j = job(1, gpus=0, cpus=8, models=("V100",))
        self.assertEqual(c.best_fit(j), ["c1"])
        self.assertEqual(c.best_fit(dict(j, cpus_per_task=20)), ["c0"])
        self.assertEqual(c.best_fit(dict(j, tasks=3, cpus_per_task=8)), ["c1", "c1", "c0"])
        self.assertEqual(c.best_fit(dict(j, cpus_per_task=40)), ["h0"])
        self.assertIsNone(c.best_fit(dict(j, cpus_per_task=40, allowed_models=[])))  # CPU-only hosts only
        with self.assertRaises(ValueError):
            p.start(job(2, gpus=1), ["c0"])  # a GPU job on a host without GPUs


class SharesTest(unittest.TestCase):
    def test_shares_pack_onto_the_fullest_gpu_that_fits(self):
        p = StartAll()
        d = Driver(p, three_hosts())
        c = p.cluster
        d.tick(0.0, submit(job(1, milli=500)))
        self.assertEqual(c.host("h2").shares, [500, 0, 0, 0])  # a GPU of the tightest host
        self.assertEqual(c.host("h2").free_gpus, 3)
        d.tick(1.0, submit(job(2, milli=300)))
        self.assertEqual(c.host("h2").shares, [800, 0, 0, 0])
        d.tick(2.0, submit(job(3, milli=600)))  # no room on the shared GPU: a fresh one
        self.assertEqual(c.host("h2").shares, [800, 600, 0, 0])
        d.tick(3.0, submit(job(4, milli=200)))  # fits both; the fuller (800) is taken
        self.assertEqual(c.host("h2").shares, [1000, 600, 0, 0])
        self.assertEqual(c.host("h2").free_gpus, 2)
        d.tick(4.0, ev("end", 1), ev("end", 2), ev("end", 4))
        self.assertEqual(c.host("h2").shares, [0, 600, 0, 0])
        self.assertEqual(c.host("h2").free_gpus, 3)
        d.tick(5.0, ev("end", 3))
        self.assertEqual(c.host("h2").free_gpus, 4)
        self.assertFalse(c.has_shares())

    def test_whole_gpu_hosts_do_not_take_shares_when_full(self):
        p = StartAll()
        d = Driver(p, [host("h0", 1)])
        d.tick(0.0, submit(job(1, gpus=1)))
        self.assertIsNone(p.cluster.best_fit(job(2, milli=100)))
        with self.assertRaises(ValueError):
            p.start(job(2), ["h0"])


# --- the mirror --------------------------------------------------------------------------

class Holder(Policy):
    """Starts what the test tells it to, at the next tick."""
    name = "holder"

    def __init__(self):
        super().__init__()
        self.plan = []
        self.seen = []

    def schedule(self, now):
        out = [self.start(j, hosts) for j, hosts in self.plan]
        self.plan = []
        return out

    def on_stopped(self, job, cause):
        self.seen.append(("stopped", job["id"], cause))

    def on_requeued(self, job):
        self.seen.append(("requeued", job["id"]))

    def on_gone(self, job):
        self.seen.append(("gone", job["id"]))

    def on_host_down(self, host):
        self.seen.append(("host_down", host))


class MirrorTest(unittest.TestCase):
    def setUp(self):
        self.p = Holder()
        self.d = Driver(self.p, three_hosts())
        self.c = self.p.cluster

    def start(self, now, j, hosts, *events):
        self.p.plan = [(j["id"], hosts)]
        return self.d.tick(now, submit(j), *events)

    def test_start_then_end(self):
        self.start(0.0, job(1, tasks=2, gpus=4, cpus=2, mem_gb=10), ["h0", "h2"])
        self.assertEqual(free(self.p), {"h0": 4, "h1": 8, "h2": 0})
        self.assertEqual(self.c.host("h0").free_cpus, 94)
        self.assertEqual(self.c.host("h0").free_mem_gb, 1014)
        self.assertEqual(list(self.p.running()), [1])
        self.assertEqual(self.p.running()[1].hosts, ["h0", "h2"])
        self.assertEqual(self.p.running()[1].gpus, 8)
        self.assertEqual(len(self.p.waiting()), 0)
        self.d.tick(50.0, ev("end", 1))
        self.assertEqual(free(self.p), {"h0": 8, "h1": 8, "h2": 4})
        self.assertEqual(self.c.host("h0").free_cpus, 96)
        self.assertEqual(self.p.running(), {})
        self.assertNotIn(1, self.p.jobs)

    def test_stopped_keeps_gpus_until_requeued(self):
        self.start(0.0, job(1, gpus=8), ["h1"])
        self.d.tick(10.0, ev("stopped", 1, cause="preempted"))
        self.assertEqual(free(self.p)["h1"], 0)  # saving a checkpoint: still held
        self.assertEqual(self.p.running(), {})
        self.assertEqual(list(self.p.stopping()), [1])
        self.assertEqual(len(self.p.waiting()), 0)
        self.d.tick(12.0, ev("requeued", 1))
        self.assertEqual(free(self.p)["h1"], 8)
        self.assertEqual([j["id"] for j in self.p.waiting()], [1])
        self.assertEqual(self.p.jobs[1]["tasks_left"], 1)
        self.assertEqual(self.p.attained(1), 80.0)  # 10 s x 8 GPUs, kept across the requeue
        self.assertEqual(self.p.seen, [("stopped", 1, "preempted"), ("requeued", 1)])

    def test_gone(self):
        self.start(0.0, job(1, gpus=2), ["h1"])
        self.d.tick(5.0, ev("stopped", 1, cause="killed"), ev("gone", 1))
        self.assertEqual(free(self.p)["h1"], 8)
        self.assertNotIn(1, self.p.jobs)
        self.assertEqual(self.p.stopping(), {})

    def test_requeued_job_waits_at_its_submit_time(self):
        self.start(0.0, job(1, submit=0.0, gpus=8), ["h0"])
        self.d.tick(5.0, submit(job(2, submit=5.0, gpus=8, tasks=2)))
        self.d.tick(6.0, ev("stopped", 1, cause="preempted"), ev("requeued", 1))
        self.assertEqual([j["id"] for j in self.p.waiting()], [1, 2])

    def test_partly_started_job(self):
        self.start(0.0, job(1, tasks=3, gpus=4, gang=False), ["h2"])
        self.assertEqual(self.p.jobs[1]["tasks_left"], 2)
        self.assertEqual([j["id"] for j in self.p.waiting()], [1])
        self.p.plan = [(1, ["h0", "h0"])]
        self.d.tick(10.0)
        self.assertEqual(self.p.running()[1].hosts, ["h2", "h0", "h0"])
        self.assertEqual(self.p.running()[1].gpus, 12)
        self.assertEqual(self.p.attained(1), 40.0)  # 10 s x 4 GPUs before the rest started
        self.assertEqual(len(self.p.waiting()), 0)
        # A stop takes the whole job; requeued, all its tasks wait again.
        self.d.tick(20.0, ev("stopped", 1, cause="task_failed"), ev("requeued", 1))
        self.assertEqual(self.p.jobs[1]["tasks_left"], 3)
        self.assertEqual(self.p.attained(1), 160.0)

    def test_a_state_frees_the_runs_of_a_partly_started_job_that_ended(self):
        # Tasks started at two instants are two runs in schedlab; the first may end (its
        # GPUs free) before the job does, with no event: a state shows what is still held.
        self.start(0.0, job(1, tasks=3, gpus=4, gang=False), ["h2"])
        self.p.plan = [(1, ["h0", "h0"])]
        self.d.tick(10.0)
        self.assertEqual(free(self.p), {"h0": 0, "h1": 8, "h2": 0})
        state = {"hosts": [], "queue": [],
                 "running": [{"id": 1, "hosts": ["h0", "h0"], "since": 10.0, "attained_gpu_s": 160.0}]}
        self.d.tick(20.0, state=state)
        self.assertEqual(free(self.p), {"h0": 0, "h1": 8, "h2": 4})
        self.assertEqual(self.p.running()[1].hosts, ["h0", "h0"])
        self.assertEqual(self.p.running()[1].gpus, 8)
        self.d.tick(30.0, ev("end", 1))
        self.assertEqual(free(self.p), {"h0": 8, "h1": 8, "h2": 4})

    def test_a_stopped_job_drops_its_waiting_tasks(self):
        self.start(0.0, job(1, tasks=3, gpus=4, gang=False), ["h2"])
        self.d.tick(5.0, ev("stopped", 1, cause="preempted"))
        self.assertEqual(len(self.p.waiting()), 0)
        self.assertEqual(free(self.p)["h2"], 0)

    def test_host_down_and_up(self):
        self.start(0.0, job(1, gpus=2), ["h0"])
        self.start(0.0, job(2, gpus=3), ["h1"])
        # h0 fails: its job is stopped and requeued (freeing a down host), then the host is down.
        self.d.tick(10.0, ev("stopped", 1, cause="host_failed"), ev("requeued", 1),
                    {"event": "host_down", "host": "h0"})
        self.assertEqual(free(self.p), {"h0": 0, "h1": 5, "h2": 4})
        self.assertTrue(self.c.host("h0").down)
        self.assertEqual(self.c.free_gpus(), 9)
        self.assertEqual(self.c.best_fit(job(3, gpus=8)), None)
        with self.assertRaises(ValueError):
            self.p.start(1, ["h0"])
        self.d.tick(20.0, {"event": "host_up", "host": "h0"})
        self.assertEqual(free(self.p), {"h0": 8, "h1": 5, "h2": 4})
        self.assertEqual(self.c.free_gpus(), 17)
        self.assertEqual(self.c.best_fit(job(3, gpus=8)), ["h0"])

    def test_freed_while_down(self):
        # The order may also be: host down first, then the job's GPUs are freed.
        self.start(0.0, job(1, gpus=2), ["h0"])
        self.d.tick(10.0, {"event": "host_down", "host": "h0"}, ev("stopped", 1, cause="host_failed"))
        self.assertEqual(free(self.p)["h0"], 0)
        self.d.tick(11.0, ev("requeued", 1))
        self.assertEqual(free(self.p)["h0"], 0)
        self.assertEqual(self.c.free_gpus(), 12)
        self.d.tick(20.0, {"event": "host_up", "host": "h0"})
        self.assertEqual(free(self.p)["h0"], 8)
        self.assertEqual(self.c.free_gpus(), 20)

    def test_start_checks_what_schedlab_checks(self):
        self.d.tick(0.0, submit(job(1, tasks=2, gpus=8)), submit(job(2, gpus=4, gang=False, tasks=2)))
        with self.assertRaises(ValueError):
            self.p.start(1, ["h0"])            # a gang starts all its tasks
        with self.assertRaises(ValueError):
            self.p.start(1, ["h0", "h2"])      # h2 has 4 GPUs
        with self.assertRaises(ValueError):
            self.p.start(2, ["h0", "h0", "h0"])  # 3 hosts for 2 tasks
        with self.assertRaises(ValueError):
            self.p.start(2, ["nowhere"])
        self.assertEqual(free(self.p), {"h0": 8, "h1": 8, "h2": 4})  # nothing taken

    def test_verify_state(self):
        p = Holder()
        p.verify_state = True
        d = Driver(p, three_hosts())
        good = {"hosts": [{"name": "h0", "free_gpus": 8, "down": False, "free_cpus": 96, "free_mem_gb": 1024}],
                "running": [], "queue": []}
        d.tick(1.0, state=good)
        bad = {"hosts": [{"name": "h0", "free_gpus": 7, "down": False, "free_cpus": 96, "free_mem_gb": 1024}],
               "running": [], "queue": []}
        with self.assertRaises(AssertionError):
            d.tick(2.0, state=bad)


# --- fifo_best_fit -----------------------------------------------------------------------

class FifoBestFitTest(unittest.TestCase):
    def setUp(self):
        self.p = fifo_best_fit.FifoBestFit()
        self.d = Driver(self.p, three_hosts())

    def test_starts_in_order(self):
        out = self.d.tick(0.0, submit(job(1, gpus=4)), submit(job(2, gpus=8)), submit(job(3, gpus=2, tasks=2)))
        self.assertEqual(starts(out), [(1, ["h2"]), (2, ["h0"]), (3, ["h1", "h1"])])

    def test_the_head_blocks(self):
        # Job 1 needs 24 GPUs, 20 exist: it blocks, and job 2 (1 GPU) behind it waits too.
        out = self.d.tick(0.0, submit(job(1, tasks=3, gpus=8)), submit(job(2, submit=1.0, gpus=1)))
        self.assertEqual(out, [])
        self.assertEqual(self.d.tick(5.0, submit(job(3, submit=5.0))), [])

    def test_a_gang_blocks_on_placement_after_the_count(self):
        self.d.tick(0.0, submit(job(1, gpus=2)), submit(job(2, gpus=2)))  # h2 2 free, then h2 0
        self.assertEqual(free(self.p), {"h0": 8, "h1": 8, "h2": 0})
        self.d.tick(1.0, submit(job(3, submit=1.0, gpus=6)))              # h0: 2 free
        # 2 x 8 GPUs: 10 are free in all (the count passes), but only h1 has 8: blocks.
        out = self.d.tick(2.0, submit(job(4, submit=2.0, tasks=2, gpus=8)), submit(job(5, submit=3.0, gpus=1)))
        self.assertEqual(out, [])  # job 5 would fit h0 or h1, but waits behind job 4
        out = self.d.tick(4.0, ev("end", 3))
        self.assertEqual(starts(out), [(4, ["h0", "h1"])])
        out = self.d.tick(5.0, ev("end", 1))
        self.assertEqual(starts(out), [(5, ["h2"])])

    def test_a_partly_started_job_blocks_the_rest(self):
        out = self.d.tick(0.0, submit(job(1, tasks=3, gpus=8, gang=False)), submit(job(2, submit=1.0, gpus=1)))
        # Two tasks fit (h0, h1); the third waits, and job 2 waits behind it though h2 is free.
        self.assertEqual(starts(out), [(1, ["h0", "h1"])])
        self.assertEqual(self.p.jobs[1]["tasks_left"], 1)
        self.assertEqual(self.d.tick(2.0, submit(job(3, submit=2.0, gpus=1))), [])

    def test_gang_of_shares_is_all_or_nothing(self):
        p = fifo_best_fit.FifoBestFit()
        d = Driver(p, [host("h0", 1)])
        out = d.tick(0.0, submit(job(1, tasks=3, milli=400)), submit(job(2, submit=1.0, milli=100)))
        self.assertEqual(out, [])  # 3 x 0.4 do not fit one GPU; job 2 waits behind it
        out = d.tick(0.0, submit(job(3, submit=0.0, tasks=2, milli=400)))
        self.assertEqual(out, [])  # job 3 (id 3) is behind job 1 in (submit, id) order

    def test_requeued_job_goes_first_again(self):
        self.d.tick(0.0, submit(job(1, gpus=8)), submit(job(2, gpus=8)))
        self.d.tick(1.0, submit(job(3, submit=1.0, gpus=8)))  # blocked: h2 has 4
        out = self.d.tick(2.0, ev("stopped", 1, cause="gpu_failed"), ev("requeued", 1))
        # Job 1 (submitted at 0) is ahead of job 3 again and takes the 8 GPUs it freed.
        self.assertEqual(starts(out), [(1, ["h0"])])

    def test_no_gpu_jobs(self):
        p = fifo_best_fit.FifoBestFit()
        d = Driver(p, [host("h0", 8, cpus=96), host("c0", 0, cpus=32), host("c1", 0, cpus=16)])
        out = d.tick(0.0, submit(job(1, gpus=0, tasks=2, cpus=10, models=("V100",))))
        self.assertEqual(starts(out), [(1, ["c1", "c0"])])


# --- sjf_rack_pack -----------------------------------------------------------------------

class SjfTest(unittest.TestCase):
    def test_shortest_first(self):
        p = sjf_rack_pack.SjfRackPack()
        d = Driver(p, three_hosts())
        out = d.tick(0.0, submit(job(1, gpus=4, duration=300)), submit(job(2, gpus=4, duration=100)),
                     submit(job(3, gpus=4, duration=200)), submit(job(4, submit=0.0, gpus=4, duration=100)))
        # By duration, then submit, then id: 2, 4, 3, 1; each 4-GPU task on one host, h2 first.
        self.assertEqual(starts(out), [(2, ["h2"]), (4, ["h0"]), (3, ["h0"]), (1, ["h1"])])

    def test_skip_ahead(self):
        p = sjf_rack_pack.SjfRackPack()
        d = Driver(p, three_hosts())
        out = d.tick(0.0, submit(job(1, tasks=3, gpus=8, duration=10)), submit(job(2, gpus=8, duration=50)),
                     submit(job(3, tasks=2, gpus=4, duration=60)))
        # Job 1 (the shortest) cannot fit; the ones behind it still start, each on one host.
        self.assertEqual(starts(out), [(2, ["h0"]), (3, ["h1", "h1"])])


# --- las ---------------------------------------------------------------------------------

class LasTest(unittest.TestCase):
    """las.py is the built-in las + reorder: keys (2 x queue + 1 waiting / 0 running, the
    instant the job entered its queue), victims worst key first, reprieved best first."""

    def make(self, hosts=None, thresholds=(100,), **options):
        p = las.Las()
        d = Driver(p, hosts or [host("h0", 8)], dict({"thresholds": list(thresholds)}, **options))
        return p, d

    def timer(self, d, at):
        return d.tick(at, {"event": "timer", "at": at})

    def test_preempts_a_later_queue_and_starts_at_once(self):
        p, d = self.make()
        out = d.tick(0.0, submit(job(1, gpus=8)))
        # Job 1 reaches 100 GPU-s on 8 GPUs at 12.5 s, where the built-in rekeys it; with no
        # job waiting that decides nothing, and no tick is asked for.
        self.assertEqual(out, [{"start": 1, "hosts": ["h0"]}])
        self.assertEqual(p._ks[1].key, (0, 0))  # running, queue 0, entered at its submit
        # Job 2 (queue 0) outranks it: job 1 is preempted, its GPUs free at once (no checkpoint
        # save), and job 2 starts in the same decisions.
        out = d.tick(20.0, submit(job(2, submit=20.0, gpus=8)))
        self.assertEqual(out[0], {"preempt": 1})
        self.assertEqual(starts(out), [(2, ["h0"])])
        # Job 1 entered queue 1 at 12.5 s, and waits again (since 20 s): key (3, 12.5 s), its
        # service 160 GPU-s.
        self.assertEqual(p._ks[1].key, (3, 12_500_000))
        self.assertEqual(p._life[1].attained_gpu_us, 160e6)
        # schedlab's events of that preemption come at the next tick: nothing is freed twice.
        out = d.tick(21.0, ev("stopped", 1, cause="preempted"), ev("requeued", 1))
        self.assertEqual([x for x in out if "start" in x or "preempt" in x], [])
        self.assertEqual(free(p), {"h0": 0})
        self.assertEqual(p.preemptions, 1)

    def test_waits_for_a_checkpoint_save(self):
        # A 30 s save within a 60 s grace: a victim keeps its GPUs 30 s, and is not evicted
        # before it ran 30 s past its checkpoint (what the stop and restart cost: the thrash guard).
        p, d = self.make(grace_s=60, checkpoint={"save_s": 30})
        d.tick(0.0, submit(job(1, gpus=8)))
        out = d.tick(20.0, submit(job(2, submit=20.0, gpus=8)))
        self.assertEqual(out, [{"timer": 30.0}])  # job 1 may be evicted from 30 s
        out = self.timer(d, 30.0)
        self.assertEqual(out, [{"preempt": 1}])
        # Saving: job 2 keeps its claim and evicts no more; job 1 still accrues service.
        self.assertEqual(d.tick(30.5, ev("stopped", 1, cause="preempted")), [])
        out = d.tick(60.0, ev("requeued", 1))
        self.assertEqual(starts(out), [(2, ["h0"])])
        self.assertEqual(p._life[1].attained_gpu_us, 480e6)  # 60 s on 8 GPUs
        self.assertEqual(p._life[1].work_done, 30e6)  # the save kept all 30 s of work

    def test_does_not_preempt_a_job_that_is_not_preemptible(self):
        p, d = self.make()
        d.tick(0.0, submit(job(1, gpus=8, preemptible=False)))
        out = d.tick(20.0, submit(job(2, submit=20.0, gpus=8)))
        self.assertEqual([x for x in out if "preempt" in x or "start" in x], [])

    def test_does_not_preempt_a_job_of_the_same_queue(self):
        p, d = self.make()
        d.tick(0.0, submit(job(1, gpus=8)))
        out = d.tick(5.0, submit(job(2, submit=5.0, gpus=8)))  # job 1: 40 GPU-s, queue 0
        # Job 2 waits: a tick at 12.5 s, when job 1 enters queue 1 (the built-in's rekey).
        self.assertEqual(out, [{"timer": 12.5}])
        out = self.timer(d, 12.5)
        self.assertEqual(out[0], {"preempt": 1})
        self.assertEqual(starts(out), [(2, ["h0"])])

    def test_worst_key_first_and_reprieve(self):
        p, d = self.make([host("h0", 8), host("h1", 8)])
        # Job 1 (4 GPUs) on h0, job 2 (8 GPUs) on h1; they reach 100 GPU-s at 25 s and 12.5 s.
        out = d.tick(0.0, submit(job(1, gpus=4)), submit(job(2, gpus=8)))
        self.assertEqual(starts(out), [(1, ["h0"]), (2, ["h1"])])
        # Job 3 (4 GPUs) fits on h0; job 4 (8 GPUs) does not. The dry run frees job 1 first
        # (it entered queue 1 last: the worst key), then job 2; job 4 places on h1, and job 1
        # is reprieved: only job 2 is preempted.
        out = d.tick(30.0, submit(job(3, submit=30.0, gpus=4)), submit(job(4, submit=30.0, gpus=8)))
        self.assertEqual([x for x in out if "preempt" in x], [{"preempt": 2}])
        self.assertEqual(starts(out), [(3, ["h0"]), (4, ["h1"])])

    def test_min_run(self):
        p, d = self.make(min_run_s=30)
        d.tick(0.0, submit(job(1, gpus=8)))
        out = d.tick(20.0, submit(job(2, submit=20.0, gpus=8)))
        # Too young to evict until 30 s: a tick is asked for then (the built-in's wake-up).
        self.assertEqual(out, [{"timer": 30.0}])
        out = self.timer(d, 30.0)
        self.assertEqual(out[0], {"preempt": 1})
        self.assertEqual(starts(out), [(2, ["h0"])])

    def test_crossing_without_a_tick_counts_before_the_next_events(self):
        # Job 1 enters queue 1 at 12.5 s, with no job waiting: no tick there. At 20 s its host
        # fails: it waits again in queue 1, entered at 12.5 s (the built-in rekeyed it then),
        # not at 20 s.
        p, d = self.make()
        d.tick(0.0, submit(job(1, gpus=8)))
        d.tick(20.0, ev("stopped", 1, cause="host_failed"), ev("requeued", 1), {"event": "host_down", "host": "h0"})
        self.assertEqual(p._ks[1].key, (3, 12_500_000))

    def test_bad_options(self):
        with self.assertRaises(ValueError):
            self.make(thresholds=(100, 50))
        with self.assertRaises(ValueError):
            self.make(threshold=[100])
        with self.assertRaises(ValueError):
            self.make(service="wall")
        with self.assertRaises(ValueError):
            self.make(checkpoint={"save": 30})


# --- end to end, against a stand-in for schedlab -----------------------------------------

class FakeSchedlab:
    """A small stand-in for schedlab that runs a policy process over the real protocol.
    Jobs run for their duration once all their tasks have started (runs of a partly started
    job end together with the job); a preemption frees the job's GPUs after `hold_s`
    (a checkpoint save); `failures` take hosts down for a while. Every decision is checked
    as schedlab checks it; an invalid one fails the test."""

    def __init__(self, hosts, jobs, argv, options=None, hold_s=0.0, failures=()):
        self.spec_hosts = hosts
        self.hosts = {h["name"]: {"gpus": h["gpus"], "model": h.get("model"), "used": 0,
                                  "shares": [0] * h["gpus"], "cpu": round(h["cpus"] * 1000),
                                  "mem": math.ceil(h["mem_gb"] * 1024 - 1e-9), "down": False}
                      for h in hosts}
        self.jobs = {j["id"]: dict(j) for j in jobs}
        self.argv, self.options, self.hold_s, self.failures = argv, options or {}, hold_s, failures
        self.heap, self.seq = [], 0
        self.state = {}      # id -> waiting | running | stopping | done
        self.left = {}       # id -> waiting tasks
        self.held = {}       # id -> [(host, gpus, milli, slot, cpu, mem)]
        self.version = {}    # id -> run version (an end of an older run is stale)
        self.work_left = {}  # id -> seconds of work left
        self.started_at = {}
        self.ends = self.preemptions = self.ticks = 0

    def push(self, t, kind, payload):
        self.seq += 1
        heapq.heappush(self.heap, (t, self.seq, kind, payload))

    def run(self):
        for j in self.jobs.values():
            self.push(j["submit"], "submit", j["id"])
            self.work_left[j["id"]] = j["duration"]
        for at, name, down_for in self.failures:
            self.push(at, "fail", name)
            self.push(at + down_for, "repair", name)
        p = subprocess.Popen(self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        try:
            self.p = p
            self.send({"type": "hello", "protocol": 1, "schedlab": "test", "options": self.options,
                       "cluster": {"hosts": self.spec_hosts}})
            reply = self.read()
            assert reply["type"] == "hello" and reply["protocol"] == 1, reply
            while self.heap:
                now = self.heap[0][0]
                events = []
                while self.heap and self.heap[0][0] == now:
                    _, _, kind, payload = heapq.heappop(self.heap)
                    events.extend(self.happen(now, kind, payload))
                if not events:
                    continue
                self.ticks += 1
                self.send({"type": "tick", "now": now, "events": events})
                msg = self.read()
                assert msg["type"] == "decisions", msg
                for i, d in enumerate(msg["decisions"]):
                    self.apply(now, d, i)
            self.send({"type": "bye"})
            p.stdin.close()
            assert p.wait(timeout=10) == 0
        finally:
            if p.poll() is None:
                p.kill()
                p.wait()
            for stream in (p.stdin, p.stdout):
                if not stream.closed:
                    stream.close()
        return self

    def send(self, msg):
        self.p.stdin.write(json.dumps(msg, separators=(",", ":")) + "\n")
        self.p.stdin.flush()

    def read(self):
        line = self.p.stdout.readline()
        assert line, "the policy closed its output"
        return json.loads(line)

    def happen(self, now, kind, payload):
        if kind == "submit":
            jid = payload
            self.state[jid], self.left[jid] = "waiting", self.jobs[jid]["tasks"]
            return [{"event": "submit", "job": self.jobs[jid]}]
        if kind == "end":
            jid, version = payload
            if self.version.get(jid) != version or self.state[jid] != "running":
                return []
            self.free(jid)
            self.state[jid] = "done"
            self.ends += 1
            return [{"event": "end", "job": jid}]
        if kind == "timer":
            return [{"event": "timer", "at": payload}]
        if kind == "stopped":
            return [{"event": "stopped", "job": payload, "cause": "preempted"}]
        if kind == "released":  # a checkpoint saved: requeued, all it held free
            jid, version = payload
            if self.version.get(jid) != version:
                return []  # requeued already (its host failed during the save)
            self.free(jid)
            self.state[jid], self.left[jid] = "waiting", self.jobs[jid]["tasks"]
            return [{"event": "requeued", "job": jid}]
        if kind == "fail":
            out = []
            for jid, slots in sorted(self.held.items()):
                if any(s[0] == payload for s in slots):
                    if self.state[jid] != "stopping":  # running, or partly started
                        self.stop(now, jid)
                        out.append({"event": "stopped", "job": jid, "cause": "host_failed"})
                    self.free(jid)
                    self.state[jid], self.left[jid] = "waiting", self.jobs[jid]["tasks"]
                    self.version[jid] = self.version.get(jid, 0) + 1  # a pending release is void
                    out.append({"event": "requeued", "job": jid})
            self.hosts[payload]["down"] = True
            return out + [{"event": "host_down", "host": payload}]
        if kind == "repair":
            self.hosts[payload]["down"] = False
            return [{"event": "host_up", "host": payload}]
        raise AssertionError(kind)

    def stop(self, now, jid):
        if jid in self.started_at:
            self.work_left[jid] = max(0.0, self.work_left[jid] - (now - self.started_at.pop(jid)))
        self.version[jid] = self.version.get(jid, 0) + 1
        self.state[jid] = "stopping"
        self.left[jid] = 0

    def free(self, jid):
        for name, g, milli, slot, cpu, mem in self.held.pop(jid, []):
            h = self.hosts[name]
            if milli:
                h["shares"][slot] -= milli
                if h["shares"][slot] == 0:
                    h["used"] -= 1
            else:
                h["used"] -= g
            h["cpu"] += cpu
            h["mem"] += mem

    def apply(self, now, d, i):
        where = f"tick at {now}, decision {i} {d}"
        if "timer" in d:
            assert d["timer"] > now, f"{where}: a timer not after now"
            self.push(d["timer"], "timer", d["timer"])
        elif "preempt" in d:
            jid = d["preempt"]
            partly_started = self.state.get(jid) == "waiting" and jid in self.held
            assert self.state.get(jid) == "running" or partly_started, f"{where}: job not running"
            assert self.jobs[jid]["preemptible"], f"{where}: job not preemptible"
            self.preemptions += 1
            self.stop(now, jid)
            if self.hold_s == 0:
                self.free(jid)  # no checkpoint save: schedlab frees its GPUs at once
            # Stopped now (seen at the next tick, at the same time); requeued once its
            # checkpoint is saved.
            self.push(now, "stopped", jid)
            self.push(now + self.hold_s, "released", (jid, self.version[jid]))
        elif "start" in d:
            self.start(now, d, where)
        else:
            raise AssertionError(f"{where}: not a decision")

    def start(self, now, d, where):
        jid, names = d["start"], d["hosts"]
        j = self.jobs.get(jid)
        assert j is not None and self.state.get(jid) == "waiting" and self.left[jid] > 0, f"{where}: not waiting"
        assert 0 < len(names) <= self.left[jid], f"{where}: {len(names)} hosts for {self.left[jid]} tasks"
        if j["gang"]:
            assert len(names) == self.left[jid], f"{where}: a gang starts all its tasks"
        milli = j["gpu_milli"] if 0 < j["gpu_milli"] < 1000 else 0
        cpu, mem = round(j["cpus_per_task"] * 1000), math.ceil(j["mem_gb_per_task"] * 1024 - 1e-9)
        taken = []
        for name in names:
            h = self.hosts.get(name)
            assert h is not None and not h["down"], f"{where}: host {name} unknown or down"
            allowed = h["model"] in j["allowed_models"] or (h["gpus"] == 0 and j["gpus_per_task"] == 0)
            assert allowed, f"{where}: host {name} ({h['model']}) not allowed"
            assert h["cpu"] >= cpu and h["mem"] >= mem, f"{where}: {name} lacks CPUs or memory"
            if milli:
                fits = [s for s, u in enumerate(h["shares"]) if u and u + milli <= 1000]
                if fits:
                    slot = max(fits, key=lambda s: (h["shares"][s], -s))
                else:
                    assert h["gpus"] - h["used"] >= 1, f"{where}: {name} has no GPU for a share"
                    slot = h["shares"].index(0)
                    h["used"] += 1
                h["shares"][slot] += milli
                taken.append((name, 0, milli, slot, cpu, mem))
            else:
                g = j["gpus_per_task"]
                assert h["gpus"] - h["used"] >= g, f"{where}: {name} has {h['gpus'] - h['used']} free GPUs"
                h["used"] += g
                taken.append((name, g, 0, -1, cpu, mem))
            h["cpu"] -= cpu
            h["mem"] -= mem
        self.held.setdefault(jid, []).extend(taken)
        self.left[jid] -= len(names)
        if self.left[jid] == 0:
            self.state[jid] = "running"
            self.started_at[jid] = now
            self.version[jid] = self.version.get(jid, 0) + 1
            self.push(now + self.work_left[jid], "end", (jid, self.version[jid]))


def random_workload(n, seed, models=("V100", "A100"), fractional=True, no_gpu=True):
    r = random.Random(seed)
    jobs, t = [], 0.0
    for i in range(n):
        t += round(r.expovariate(1 / 40.0), 3)
        kind = r.random()
        m = r.choice([list(models), [models[0]], [models[-1]]])
        if fractional and kind < 0.15:
            j = job(i, submit=t, tasks=r.choice([1, 1, 2]), gpus=1, milli=r.choice([250, 500, 700]), models=m)
        elif no_gpu and kind < 0.25:
            j = job(i, submit=t, tasks=r.choice([1, 2]), gpus=0, cpus=r.choice([2, 4, 8]), models=list(models))
        else:
            # At most 2 tasks of 8 GPUs: every job fits the cluster (schedlab would drop the rest).
            g = r.choice([1, 2, 4, 8])
            j = job(i, submit=t, tasks=r.choice([1, 1, 2] + ([3] if g < 8 else [])), gpus=g, models=m,
                    cpus=r.choice([0, 2, 8]), mem_gb=r.choice([0, 16, 64.5]))
            if r.random() < 0.3:
                j["gang"] = False
        j["duration"] = float(int(r.lognormvariate(5, 1.0)) + 1)
        j["preemptible"] = r.random() < 0.9
        jobs.append(j)
    return jobs


def mixed_cluster():
    return [host("h0", 8, "r0", "V100", cpus=48, mem_gb=512), host("h1", 8, "r0", "V100", cpus=48, mem_gb=512),
            host("h2", 4, "r0", "V100", cpus=16, mem_gb=128), host("h3", 8, "r1", "A100", cpus=64, mem_gb=1024),
            host("h4", 8, "r1", "A100", cpus=64, mem_gb=1024), host("c0", 0, "r2", None, cpus=32, mem_gb=128)]


class EndToEndTest(unittest.TestCase):
    def play(self, example, seed, gangs_only=False, **kw):
        argv = [sys.executable, str(PY / "examples" / example)]
        jobs = random_workload(300, seed)
        if gangs_only:
            # las.py starts a non-gang job's tasks as GPUs come free, and its strict order then
            # waits on it, as the built-in does. schedlab ends each run at its own duration;
            # FakeSchedlab ends a partly started job's runs only with the job, so two partly
            # started jobs could each hold what the other needs, forever.
            for j in jobs:
                j["gang"] = True
        fake = FakeSchedlab(mixed_cluster(), jobs, argv, **kw).run()
        done = sum(1 for s in fake.state.values() if s == "done")
        self.assertEqual(done, 300, f"{example}: {done} of 300 jobs ended")
        return fake

    def test_fifo_best_fit(self):
        self.play("fifo_best_fit.py", 1, failures=[(2000.0, "h0", 500.0), (5000.0, "h3", 100.0)])

    def test_sjf_rack_pack(self):
        self.play("sjf_rack_pack.py", 2, failures=[(3000.0, "h4", 800.0)])

    def test_las(self):
        fake = self.play("las.py", 3, gangs_only=True, options={"thresholds": [200, 2000], "grace_s": 30,
                                                                  "checkpoint": {"save_s": 30}},
                         hold_s=30.0, failures=[(4000.0, "h1", 300.0)])
        self.assertGreater(fake.preemptions, 0)

    def test_las_frees_at_once(self):
        fake = self.play("las.py", 4, gangs_only=True, options={"thresholds": [200, 2000], "min_run_s": 10},
                         failures=[(3000.0, "h3", 400.0)])
        self.assertGreater(fake.preemptions, 0)


if __name__ == "__main__":
    unittest.main()
