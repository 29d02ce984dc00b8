"""Where the source tree and the build directory are (KATOMIC_ROOT, KATOMIC_BUILD)."""
import os

_HERE = os.path.dirname(os.path.abspath(__file__))


def root():
    """The source tree: $KATOMIC_ROOT, else the tree this file is in."""
    return os.environ.get("KATOMIC_ROOT") or os.path.dirname(os.path.dirname(os.path.dirname(_HERE)))


def build():
    return os.environ.get("KATOMIC_BUILD") or os.path.join(root(), "build")


def relative_to_root(path):
    """`path` without the source tree's prefix, for display."""
    r = root().rstrip("/") + "/"
    return path[len(r):] if path.startswith(r) else path
