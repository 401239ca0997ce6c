"""The main loop: schedlab's external-scheduler protocol, version 1, over JSON lines
(docs/external-scheduler.md)."""

import json
import sys

from .policy import ProtocolError

__all__ = ["run", "PROTOCOL"]

PROTOCOL = 1


def run(policy, stdin=None, stdout=None):
    """Runs `policy` against schedlab: the handshake, then one reply per tick, until
    ``bye`` or the end of the input. Errors in the policy propagate (a traceback on
    standard error and a non-zero exit is how schedlab learns that a policy crashed).

    stdin/stdout: file objects to use instead of the process's (tests); stdin may give
    bytes or str lines. With the process's own standard output, print() inside the policy
    goes to standard error, so that a stray print cannot break the protocol."""
    inp = stdin if stdin is not None else sys.stdin.buffer
    out = stdout if stdout is not None else sys.stdout
    readline = inp.readline
    dumps = json.JSONEncoder(separators=(",", ":"), allow_nan=False).encode

    def read():
        while True:
            line = readline()
            if not line:
                return None
            if line.strip():
                try:
                    msg = json.loads(line)
                except ValueError as e:
                    raise ProtocolError(f"not a JSON line from schedlab: {line[:200]!r}: {e}") from None
                if not isinstance(msg, dict):
                    raise ProtocolError(f"not a JSON object from schedlab: {line[:200]!r}")
                return msg

    def send(msg):
        out.write(dumps(msg) + "\n")
        out.flush()

    saved_stdout = None
    if stdout is None and out is sys.stdout:
        saved_stdout, sys.stdout = sys.stdout, sys.stderr
    try:
        hello = read()
        if hello is None:
            return
        if hello.get("type") != "hello":
            raise ProtocolError(f"expected hello first, got type {hello.get('type')!r}")
        if hello.get("protocol") != PROTOCOL:
            raise ProtocolError(f"schedlab speaks protocol {hello.get('protocol')!r}; this package speaks {PROTOCOL}")
        if policy.state_mode not in ("changes", "full"):
            raise ValueError(f"{type(policy).__name__}.state_mode: {policy.state_mode!r}; valid: changes, full")
        policy._hello(hello)
        policy._io = (read, send)
        send({"type": "hello", "protocol": PROTOCOL, "name": policy.name, "state": policy.state_mode})
        while True:
            msg = read()
            if msg is None:
                return
            t = msg.get("type")
            if t == "bye":
                return
            if t != "tick":
                raise ProtocolError(f"expected a tick or bye, got type {t!r}")
            send({"type": "decisions", "decisions": policy._tick(msg)})
    finally:
        if saved_stdout is not None:
            sys.stdout = saved_stdout
