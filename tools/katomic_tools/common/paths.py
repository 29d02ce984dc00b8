"""Where the source tree and the build directory are (KATOMIC_ROOT, KATOMIC_BUILD)."""
import os

_HERE = os.path.dirname(os.path.abspath(__file__))


def root():
    """The source tree: $KATOMIC_ROOT, else the tree this file is in."""
    return os.environ.get("KATOMIC_ROOT") or os.path.dirname(os.path.dirname(os.path.dirname(_HERE)))


def build():
    return os.environ.get("KATOMIC_BUILD") or os.path.join(root(), "build")


def gone(pid):
    """Whether the process numbered `pid` (text) has ended: files named after a run that was
    killed are never reused.  False where /proc cannot tell, or for a name that is no number."""
    return pid.isdigit() and os.path.isdir("/proc/self") and not os.path.exists("/proc/" + pid)


def relative_to_root(path):
    """`path` without the source tree's prefix, for display."""
    r = root().rstrip("/") + "/"
    return path[len(r):] if path.startswith(r) else path
