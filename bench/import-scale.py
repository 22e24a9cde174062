#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Generate the exchange documents of issue 18's import scaling cases.

usage: import-scale.py KIND COUNT FILE
  metrics N   one run, one cell with N metrics
  series N    one run, one cell with N empty series
  cells N     one run with N cells
  runs N      a runs array of N empty objects ({})
  zeros N     a runs array of N zeros
  values N    one run, one cell, one series of N sample values
Written streaming (no document in memory), compact (no indentation)."""
import json
import sys
import uuid

RUN = {
    "uuid": "", "label": "scale", "status": "complete", "tool_version": "0.1.0",
    "argv": "underload", "suites": "resp", "started_ns": 1, "finished_ns": 2,
    "host": {"hostname": "h", "kernel_release": "k", "kernel_version": "v", "arch": "x86_64",
             "cpu_model": "c", "ncpu": 2, "mem_total_bytes": 1, "swap_total_bytes": 0},
    "params": {"interval_ns": 1, "min_points": 1, "max_points": 1, "ci_target_centi": 1,
               "mem_budget_bytes": 1, "mem_limit_bytes": 0, "swap_bytes": 0},
}
CELL = {"seq": 0, "suite": "resp", "load": "noload", "probe": "resp", "outcome": "ok",
        "flags": 0, "note": "", "load_unit": "", "load_units": 0, "started_ns": 1,
        "finished_ns": 2}
HEAD = '{"format":"underload-export","format_version":1,"runs":['


def run_head(out):
    r = dict(RUN, uuid=str(uuid.uuid4()))
    out.write(json.dumps(r)[:-1] + ',"cells":[')


def cell_head(out, seq=0):
    out.write(json.dumps(dict(CELL, seq=seq))[:-1])


def items(out, n, fmt):
    for i in range(n):
        if i:
            out.write(",")
        out.write(fmt(i))


def main():
    kind, n, path = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    with open(path, "w", buffering=1 << 20) as out:
        out.write(HEAD)
        if kind in ("runs", "zeros"):
            one = "{}" if kind == "runs" else "0"
            out.write(",".join([one] * 1000) + ",")
            block = ",".join([one] * 1000)
            for _ in range(n // 1000 - 1):
                out.write(block + ",")
            out.write(one + "]}")
            return
        run_head(out)
        if kind == "cells":
            for i in range(n):
                if i:
                    out.write(",")
                cell_head(out, i)
                out.write(',"series":[],"metrics":[]}')
        else:
            cell_head(out)
            if kind == "metrics":
                out.write(',"series":[],"metrics":[')
                items(out, n, lambda i: '{"name":"m%d","value":%d}' % (i, i))
                out.write("]")
            elif kind == "series":
                out.write(',"series":[')
                items(out, n, lambda i: '{"name":"s%d","values":[]}' % i)
                out.write('],"metrics":[]')
            elif kind == "values":
                out.write(',"series":[{"name":"delay_ns","values":[')
                out.write(",".join(["0"] * n))
                out.write(']}],"metrics":[]')
            out.write("}")
        out.write("]}]}")


main()
