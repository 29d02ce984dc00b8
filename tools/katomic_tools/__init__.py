"""katomic's instruments: analysis, verdicts and rendering (Python 3, standard library only).

Data flows one way: the C instruments and the compilers produce raw output,
the modules here turn it into one JSON document per instrument (checked
against tools/schema/*.schema.json), and the report is rendered from those
documents only.

  common/      nothing instrument-specific: documents, the schema checker, tables
  codegen/     `katomic codegen`: compile, parse objdump, judge each probe, render
  bench/       `katomic bench`: run the driver, its document, plots, README tables
  report/      `katomic report`: run the instruments, keep their JSON, render

Run a module as `PYTHONPATH=tools python3 -m katomic_tools.codegen ...`
(tools/katomic.sh and the Makefile do this).
"""
