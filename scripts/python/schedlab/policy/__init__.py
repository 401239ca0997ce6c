"""schedlab.policy: write schedlab scheduling policies in Python (standard library only).

A policy is a process that speaks schedlab's external-scheduler protocol (version 1,
docs/external-scheduler.md) over JSON lines on its standard input and output. This package
does the protocol and keeps a mirror of the cluster and the jobs, so that a policy only
decides:

    from schedlab.policy import Policy, run

    class Fifo(Policy):
        name = "fifo-first-fit"
        def schedule(self, now):
            out = []
            for job in self.waiting():               # by (submit, id)
                hosts = self.cluster.first_fit(job)  # tentative, or None
                if hosts is None:
                    break                            # strict FIFO: the head blocks
                out.append(self.start(job, hosts))
            return out

    if __name__ == "__main__":
        run(Fifo())

Modules: policy (Policy, RunningJob, SortedJobs), cluster (Cluster, Host: the mirror and
its placement searches), protocol (run).
"""

from .cluster import Cluster, Host, is_fractional, needs_gpu
from .policy import Policy, ProtocolError, RunningJob, SortedJobs
from .protocol import PROTOCOL, run

__all__ = ["Policy", "RunningJob", "SortedJobs", "Cluster", "Host", "ProtocolError", "PROTOCOL", "run",
           "is_fractional", "needs_gpu"]
