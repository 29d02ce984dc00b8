"""What machine a report ran on: run.json's "machine" object."""
import os
import platform
import re
import socket
import subprocess
import time


def _first(path, pattern):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in f:
                m = re.match(pattern, line)
                if m:
                    return m.group(1).strip()
    except OSError:
        pass
    return ""


def katomic_version(root):
    v = _first(os.path.join(root, "include", "katomic", "katomic.h"), r'^#define KATOMIC_VERSION "(.*)"') or "?"
    p = subprocess.run(["git", "-C", root, "describe", "--always", "--dirty"], capture_output=True, text=True)
    rev = p.stdout.strip() if p.returncode == 0 and p.stdout.strip() else "-"
    return "%s (%s)" % (v, rev)


def describe(root, mode):
    """The machine object (tools/schema/run.schema.json)."""
    try:
        load = " ".join(open("/proc/loadavg").read().split()[:3])
    except OSError:
        load = "-"
    return {
        "name": os.environ.get("KATOMIC_MACHINE") or socket.gethostname() or "this machine",
        "arch": platform.machine() or "unknown",
        "cpu": _first("/proc/cpuinfo", r"^model name\s*:\s*(.*)$") or "unknown",
        "cpus": os.cpu_count() or 1,
        "kernel": "%s %s" % (platform.system(), platform.release()),
        "os": _first("/etc/os-release", r'^PRETTY_NAME="?([^"]*)"?$') or "unknown",
        "load": load,
        "date": time.strftime("%Y-%m-%d %H:%M %Z"),
        "katomic": katomic_version(root),
        "mode": mode,
    }
