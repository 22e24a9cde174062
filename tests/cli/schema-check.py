#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Validate JSON documents against a JSON Schema (python3-jsonschema).

usage: schema-check.py SCHEMA FILE...   ('-' reads standard input)
Checks the schema itself first, then prints one line per error,
"FILE: PATH: MESSAGE", and exits 1 when any document is invalid.
"""
import json
import sys

import jsonschema


def main(argv):
    with open(argv[1]) as f:
        schema = json.load(f)
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    validator = cls(schema)
    bad = 0
    for name in argv[2:]:
        doc = json.load(sys.stdin if name == "-" else open(name))
        for err in validator.iter_errors(doc):
            path = "/".join(str(p) for p in err.absolute_path) or "(document)"
            print("%s: %s: %s" % (name, path, err.message))
            bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
