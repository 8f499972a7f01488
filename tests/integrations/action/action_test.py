"""The GitHub Action (action.yml) without GitHub: its metadata against the
action metadata schema, then its steps run here as a runner runs them (bash,
$GITHUB_OUTPUT per step, $GITHUB_STEP_SUMMARY, ${{ }} expressions), with
`llmconform run --client-cmd` gating a deliberately broken client:
  1. no baseline: exit 1, an ::error annotation per failed rule at its
     scenario file and line, the Markdown report in the summary;
  2. a baseline naming those failures: exit 0, expected failures counted;
  3. a baseline with an entry that now passes: exit 1, annotated at the
     entry's line ("stale baseline").
  /usr/bin/python3 action_test.py LLMCONFORM SOURCE_ROOT SCRATCH_DIR
"""

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import jsonschema
import yaml

LLMCONFORM, ROOT, SCRATCH = sys.argv[1], Path(sys.argv[2]).resolve(), Path(sys.argv[3])
ACTION = yaml.safe_load((ROOT / "action.yml").read_text())
EXPR = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")
NAME = re.compile(r"\b(inputs|steps|github|runner)((?:\.[A-Za-z0-9_-]+)+)")


def fail(msg):
    print(f"FAIL: {msg}", file=sys.stderr)
    sys.exit(1)


class Runner:
    """Runs the composite action's steps with the given inputs, as a runner would."""

    def __init__(self, work: Path, inputs: dict):
        self.work = work
        self.inputs = {k: v.get("default", "") for k, v in ACTION.get("inputs", {}).items()}
        unknown = set(inputs) - set(self.inputs)
        if unknown:
            fail(f"inputs not declared in action.yml: {unknown}")
        self.inputs.update(inputs)
        self.inputs["out"] = str(work / "reports")  # not into the checkout
        self.outputs = {}
        self.summary = work / "step_summary.md"
        self.summary.write_text("")
        self.stdout = ""
        self.uses = []
        self.exit = 0

    def lookup(self, path: str):
        head, *rest = path.split(".")
        if head == "inputs":
            return self.inputs[rest[0]]
        if head == "steps":
            step, kind, name = rest
            assert kind == "outputs", path
            return self.outputs.get(step, {}).get(name, "")
        if head == "github":
            return {"action_path": str(ROOT), "workspace": str(ROOT)}[rest[0]]
        if head == "runner":
            return {"os": "Linux", "temp": str(self.work)}[rest[0]]
        raise KeyError(path)

    def evaluate(self, expr: str):
        if expr.startswith("hashFiles("):
            return "hash"
        py = NAME.sub(lambda m: repr(self.lookup(m.group(1) + m.group(2))), expr)
        py = py.replace("always()", "True").replace("&&", " and ").replace("||", " or ")
        py = re.sub(r"!(?!=)", " not ", py)
        return eval(py, {"__builtins__": {}}, {})  # only literals and operators are left

    def substitute(self, text: str) -> str:
        return EXPR.sub(lambda m: str(self.evaluate(m.group(1))), str(text))

    def run(self):
        for step in ACTION["runs"]["steps"]:
            cond = step.get("if")
            if cond is not None and not self.evaluate(EXPR.sub(r"\1", str(cond))):
                continue
            if "uses" in step:
                self.uses.append((step["uses"], {k: self.substitute(v) for k, v in step.get("with", {}).items()}))
                continue
            out_file = self.work / f"output-{len(self.outputs)}"
            out_file.write_text("")
            # The checkout is the workspace and the working directory, as on GitHub.
            env = dict(os.environ, GITHUB_OUTPUT=str(out_file), GITHUB_STEP_SUMMARY=str(self.summary),
                       GITHUB_WORKSPACE=str(ROOT), RUNNER_TEMP=str(self.work), NO_COLOR="1")
            env.update({k: self.substitute(v) for k, v in step.get("env", {}).items()})
            script = self.work / "step.sh"
            script.write_text(self.substitute(step["run"]))
            done = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)],
                                  cwd=ROOT, env=env, capture_output=True, text=True)
            self.stdout += done.stdout
            sys.stderr.write(done.stderr[-4000:])
            values = dict(line.split("=", 1) for line in out_file.read_text().splitlines() if "=" in line)
            self.outputs[step.get("id", f"step{len(self.outputs)}")] = values
            if done.returncode != 0:
                self.exit = done.returncode
                break
        return self


def check_metadata():
    schema = json.loads((Path(__file__).parent / "action-metadata.schema.json").read_text())
    jsonschema.validate(ACTION, schema)
    ids = {s.get("id") for s in ACTION["runs"]["steps"]}
    text = (ROOT / "action.yml").read_text()
    for m in NAME.finditer(" ".join(EXPR.findall(text))):
        head, rest = m.group(1), m.group(2)[1:].split(".")
        if head == "inputs" and rest[0] not in ACTION["inputs"]:
            fail(f"action.yml uses undeclared input {rest[0]}")
        if head == "steps" and rest[0] not in ids:
            fail(f"action.yml uses the outputs of an unknown step {rest[0]}")
    # The workflow of docs/ci uses only declared inputs and outputs.
    usage = yaml.safe_load((ROOT / "docs/ci/github-action-usage.yml").read_text())
    steps = [s for job in usage["jobs"].values() for s in job["steps"]]
    [ours] = [s for s in steps if s.get("uses", "").startswith("llmconform/llmconform@")]
    if set(ours.get("with", {})) - set(ACTION["inputs"]):
        fail(f"docs/ci/github-action-usage.yml: unknown inputs {set(ours['with']) - set(ACTION['inputs'])}")
    used = re.findall(r"steps\.llmconform\.outputs\.([A-Za-z0-9_-]+)", json.dumps(usage))
    if not used or set(used) - set(ACTION["outputs"]):
        fail(f"docs/ci/github-action-usage.yml: outputs {used}")
    # A mistake the schema must catch: a run step without a shell.
    broken = json.loads(json.dumps(ACTION))
    del broken["runs"]["steps"][1]["shell"]
    try:
        jsonschema.validate(broken, schema)
        fail("the schema accepts a run step without shell")
    except jsonschema.ValidationError:
        pass


def escape(prop):
    return prop.replace("%", "%25").replace(":", "%3A").replace(",", "%2C")


def annotations(stdout):
    return [line for line in stdout.splitlines() if line.startswith("::error ")]


def main():
    check_metadata()
    shutil.rmtree(SCRATCH, ignore_errors=True)
    SCRATCH.mkdir(parents=True)
    client = SCRATCH / "client"
    client.mkdir()
    for f in ("examples/openai_client.mjs", "examples/skill_client.mjs", "examples/gymbro_client.mjs",
              "tests/check/broken_client.mjs"):
        shutil.copy(ROOT / f, client)
    os.symlink(ROOT / "tests/e2e/node_modules", client / "node_modules")
    common = {"llmconform": LLMCONFORM, "mode": "client", "specs": str(ROOT / "specs"),
              "filter": "multiturn/*", "client-cmd": f"node {client}/broken_client.mjs trim",
              "args": "-j 2"}

    # 1. No baseline: the broken client fails, annotated at its scenario files.
    w1 = SCRATCH / "plain"
    w1.mkdir()
    r1 = Runner(w1, common).run()
    if r1.outputs["run"].get("exit-code") != "1":
        fail(f"plain: exit-code {r1.outputs['run']}")
    if r1.exit != 1:
        fail(f"plain: the verdict step exited {r1.exit}, expected 1")
    notes = annotations(r1.stdout)
    if not notes or not all(re.match(r"::error file=specs/multiturn/[^,]+\.json,line=\d+,title=fail%3A ", n) for n in notes):
        fail(f"plain: annotations {notes}")
    if "# llmconform conformance report" not in r1.summary.read_text():
        fail("plain: no Markdown report in the job summary")
    [(uses, with_)] = r1.uses
    if not uses.startswith("actions/upload-artifact@") or not (Path(with_["path"]) / "junit.xml").is_file():
        fail(f"plain: upload step {uses} {with_}")
    report = json.loads((w1 / "reports/report.json").read_text())
    failing = sorted({f"{s['protocol']}/{s['name']}" for s in report["scenarios"] if s["outcome"] == "fail"})
    passing = sorted({f"{s['protocol']}/{s['name']}" for s in report["scenarios"] if s["outcome"] == "pass"})
    if not failing or not passing:
        fail(f"plain: expected failing and passing scenarios, got {failing} and {passing}")

    # 2. A baseline naming every failure: conformant, the failures counted apart.
    baseline = SCRATCH / "expected-failures.yaml"
    baseline.write_text("expected_failures:\n" + "".join(
        f"  - scenario: {s}\n    reason: the client trims from the oldest message (issue 7)\n" for s in failing))
    w2 = SCRATCH / "baseline"
    w2.mkdir()
    r2 = Runner(w2, dict(common, **{"expected-failures": str(baseline)})).run()
    if r2.outputs["run"].get("exit-code") != "0" or r2.exit != 0:
        fail(f"baseline: exit-code {r2.outputs['run']}, verdict {r2.exit}")
    if int(r2.outputs["run"]["expected-failures"]) == 0 or annotations(r2.stdout):
        fail(f"baseline: outputs {r2.outputs['run']}, annotations {annotations(r2.stdout)}")
    if "## Expected failures" not in r2.summary.read_text():
        fail("baseline: the summary does not list the expected failures")
    junit = (w2 / "reports/junit.xml").read_text()
    if "<skipped>expected failure (the client trims from the oldest message (issue 7))" not in junit:
        fail("baseline: JUnit does not skip the expected failures with their reason")

    # 3. A stale entry (a scenario that passes): the build fails at its line.
    stale = SCRATCH / "stale.yaml"
    stale.write_text(baseline.read_text() + f"  - scenario: {passing[0]}\n    reason: long fixed\n")
    w3 = SCRATCH / "stale"
    w3.mkdir()
    r3 = Runner(w3, dict(common, **{"expected-failures": str(stale), "fail": "false"})).run()
    if r3.outputs["run"].get("exit-code") != "1" or r3.exit != 0:
        fail(f"stale: exit-code {r3.outputs['run']}, verdict {r3.exit} (fail: false)")
    line = 2 * len(failing) + 2
    # Annotations name a file in the workspace by its path relative to it, as GitHub places them.
    where = stale.resolve()
    where = where.relative_to(ROOT) if where.is_relative_to(ROOT.resolve()) else where
    want = f"::error file={escape(str(where))},line={line},title=fail%3A expected-failures::{passing[0]}: stale baseline"
    if not any(n.startswith(want) for n in annotations(r3.stdout)):
        fail(f"stale: no annotation {want!r} in {annotations(r3.stdout)}")
    print("ok: action metadata valid; plain, baseline and stale runs as expected")


if __name__ == "__main__":
    main()
