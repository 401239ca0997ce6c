"""Where the schedlab binary is."""

import os
import shutil
from pathlib import Path

from ._errors import SchedlabNotFound


def find_binary(binary=None):
    """The schedlab binary to run: ``binary`` if given, else $SCHEDLAB_BIN, else ``schedlab`` on
    the PATH, else the build/schedlab of the repository holding this package. Raises
    SchedlabNotFound naming each place tried."""
    tried = []
    for source, candidate in (("binary=", binary), ("$SCHEDLAB_BIN", os.environ.get("SCHEDLAB_BIN"))):
        if candidate:
            path = shutil.which(str(candidate)) or (str(candidate) if os.access(str(candidate), os.X_OK) else None)
            if path and os.path.isfile(path):
                return os.path.abspath(path)
            raise SchedlabNotFound(f"{source} {candidate}: no executable file there")
    on_path = shutil.which("schedlab")
    if on_path:
        return on_path
    tried.append("schedlab on the PATH")
    repo_build = Path(__file__).resolve().parents[3] / "build" / "schedlab"
    if repo_build.is_file() and os.access(repo_build, os.X_OK):
        return str(repo_build)
    tried.append(str(repo_build))
    raise SchedlabNotFound("no schedlab binary: tried " + ", ".join(tried) +
                           " (build it with scripts/setup.sh, or pass binary= or set $SCHEDLAB_BIN)")
