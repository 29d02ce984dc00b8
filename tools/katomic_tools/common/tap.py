"""TAP-like lines for the check drivers (make check-json, make check-report):
'ok N - what' or 'not ok N - what', then 'N passed, M failed'."""


class Tap:
    def __init__(self):
        self.n = self.failed = 0

    def check(self, ok, what):
        """Count and print one check; return whether it passed.

        `ok` is a truth value, or a function returning one: whatever the
        function raises (a file that is not there, a field missing from a
        document, a value of the wrong type) fails the check, with a note."""
        note = None
        if callable(ok):
            try:
                ok = ok()
            except (OSError, LookupError, TypeError, ValueError, AttributeError) as e:
                ok, note = False, "%s: %s" % (type(e).__name__, e)
        ok = bool(ok)
        self.n += 1
        self.failed += not ok
        print("%s %d - %s" % ("ok" if ok else "not ok", self.n, what))
        if note:
            print("# " + note)
        return ok

    def summary(self):
        """Print the last line; return the exit status (1 if a check failed)."""
        print("%d passed, %d failed" % (self.n - self.failed, self.failed))
        return 1 if self.failed else 0
