"""The report's sections, one module each, in page order.

A section module has three functions taking a model.Model (and the
output's plot prefix for html/markdown where it links files):
  text(m)       lines for stdout ("" to leave it out there)
  markdown(m)   its part of REPORT.md ("" to leave it out)
  html(m)       its part of index.html ("" to leave it out)
To add a section (say, a benchmark the bench document carries as an
optional object), write sections/NAME.py with these three functions,
reading what it needs from m.inputs (the documents) and returning "" when
its input is absent, and add it to SECTIONS below (docs/json.md, "Adding
a section").
"""
from . import verdict, litmus, losses, locks, up, kernel, verify, targets, skipped, litmus_problems, plots, machine, further

SECTIONS = (verdict, litmus, losses, locks, up, kernel, verify, targets, skipped, litmus_problems, plots, machine, further)
