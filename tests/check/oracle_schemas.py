#!/usr/bin/env python3
"""The oracle's JSON Schemas (specs/oracle/OP.json) against the implementation.

    oracle_schemas.py examples   every op of `ref --list` has a schema file whose
                                 schemas are valid; every example input, and the
                                 reference's output for it, validate
    oracle_schemas.py sut        a `llmconform check` SUT: the reference itself
                                 (ref --serve), answering {"schemaProblems"}
                                 when an input or its output does not validate — so `check`
                                 over generated inputs fails on any schema gap

Needs python3-jsonschema (scripts/install-deps). $LLMCONFORM is the binary.
"""
import json
import os
import subprocess
import sys

import jsonschema

BIN = os.environ["LLMCONFORM"]
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")


def load(op):
    with open(os.path.join(ROOT, "specs", "oracle", op + ".json"), encoding="utf-8") as f:
        return json.load(f)


def validator(schema):
    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    cls.check_schema(schema)
    return cls(schema)


def examples():
    ops = [line.split()[0] for line in
           subprocess.run([BIN, "ref", "--list"], check=True, capture_output=True,
                          text=True).stdout.splitlines() if line.strip()]
    assert ops, "ref --list lists nothing"
    for op in ops:
        doc = load(op)
        assert doc["op"] == op, f"{op}: \"op\" is {doc['op']}"
        shown = json.loads(subprocess.run([BIN, "ref", op, "--schema", "--specs",
                                           os.path.join(ROOT, "specs")],
                                          check=True, capture_output=True, text=True).stdout)
        assert shown == doc, f"{op}: ref --schema differs from the file"
        vin, vout = validator(doc["input"] | {"$schema": doc["$schema"]}), \
            validator(doc["output"] | {"$schema": doc["$schema"]})
        assert doc["compare"], f"{op}: no compare pointers"
        assert doc["examples"], f"{op}: no examples"
        for i, example in enumerate(doc["examples"]):
            vin.validate(example)
            r = subprocess.run([BIN, "ref", op], input=json.dumps(example), capture_output=True,
                               text=True)
            assert r.returncode == 0, f"{op} example {i}: exit {r.returncode}: {r.stderr}"
            output = json.loads(r.stdout)
            try:
                vout.validate(output)
            except jsonschema.ValidationError as e:
                raise AssertionError(f"{op} example {i}: output {output}: {e.message}") from e
        # Every op takes an object: the schema refuses anything else.
        assert not vin.is_valid([]), f"{op}: the input schema accepts []"
    print(f"oracle_schemas: {len(ops)} ops ok")


def sut():
    ref = subprocess.Popen([BIN, "ref", "--serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                           text=True, encoding="utf-8")
    validators = {}
    for line in sys.stdin:
        request = json.loads(line)
        op = request["op"]
        if op not in validators:
            doc = load(op)
            validators[op] = (validator(doc["input"] | {"$schema": doc["$schema"]}),
                              validator(doc["output"] | {"$schema": doc["$schema"]}))
        vin, vout = validators[op]
        ref.stdin.write(line if line.endswith("\n") else line + "\n")
        ref.stdin.flush()
        answer = json.loads(ref.stdout.readline())
        problems = [f"input: {e.message}" for e in vin.iter_errors(request["input"])]
        if "output" in answer:
            problems += [f"output: {e.message}" for e in vout.iter_errors(answer["output"])]
        if problems:  # an answer unlike the reference's, so check reports the case
            answer = {"id": request["id"], "output": {"schemaProblems": problems}}
        sys.stdout.write(json.dumps(answer, ensure_ascii=False) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    {"examples": examples, "sut": sut}[sys.argv[1]]()
