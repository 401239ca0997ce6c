"""schedlab_policy: the old name of schedlab.policy, kept so that existing policies still import.

New code writes ``from schedlab.policy import Policy, run``; ``from schedlab_policy import ...``
and ``import schedlab_policy.cluster`` give the same objects.
"""

import sys

from schedlab import policy as _policy
from schedlab.policy import *  # noqa: F401,F403
from schedlab.policy import cluster, policy, protocol  # noqa: F401

__all__ = _policy.__all__
for _name in ("cluster", "policy", "protocol"):
    sys.modules[__name__ + "." + _name] = getattr(_policy, _name)
