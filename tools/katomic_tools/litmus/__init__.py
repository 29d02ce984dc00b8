"""katomic litmus: the C litmus runner (tools/litmus) judged by herd7's LKMM states (oracle.py)."""
