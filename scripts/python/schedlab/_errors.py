"""What schedlab says when it refuses or warns, as Python exceptions and warnings."""

import re

# schedlab's one error line: "schedlab: error: FILE:LINE: FIELD: WHAT" (the line is left out
# where there is none, e.g. a command-line option or a whole file).
_LOCATED = re.compile(r"^(?P<file>[^:\s][^:]*?):(?P<line>\d+): ")


class SchedlabError(Exception):
    """schedlab exited with an error. ``message`` is its error line without the "schedlab:
    error: " prefix; ``file`` and ``line`` locate it where schedlab did (else None);
    ``exit_code`` is 2 for bad input, 3 for a missing resource, other codes for failures."""

    def __init__(self, message, exit_code, command, stderr=""):
        super().__init__(message)
        self.message = message
        self.exit_code = exit_code
        self.command = list(command)
        self.stderr = stderr
        m = _LOCATED.match(message)
        self.file = m.group("file") if m else None
        self.line = int(m.group("line")) if m else None


class SchedlabNotFound(SchedlabError, FileNotFoundError):
    """No schedlab binary where this package looked (it says where)."""

    def __init__(self, message):
        SchedlabError.__init__(self, message, 127, [])


class SchedlabWarning(UserWarning):
    """What schedlab said that a result should not be read without: an overloaded cluster, a
    part that can have no effect, jobs dropped because they never fit, ... (every notice but
    the offered load, which each result keeps in ``.notices`` with the others)."""


def error_line(stderr):
    """The text of schedlab's error line in ``stderr`` (the last one), else its last line."""
    lines = [ln for ln in stderr.splitlines() if ln.strip()]
    for ln in reversed(lines):
        if ln.startswith("schedlab: error: "):
            return ln[len("schedlab: error: "):]
    return lines[-1] if lines else "schedlab failed and said nothing"
