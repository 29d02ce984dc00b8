"""`katomic kernel` as the tests run it: the CLI from this tree, and its one-line errors."""
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def cli(args, env=None):
    """python3 -m katomic_tools.kernel ARGS from the tree's root; env adds to the environment."""
    e = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "tools"))
    e.update(env or {})
    return subprocess.run([sys.executable, "-m", "katomic_tools.kernel"] + args, env=e, cwd=ROOT,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)


def one_clear_line(r, *words):
    """Exit 2 with one line on stderr, no traceback, naming every word."""
    lines = r.stderr.strip().splitlines()
    return (r.returncode == 2 and len(lines) == 1 and "Traceback" not in r.stderr
            and all(w in lines[0] for w in words))
