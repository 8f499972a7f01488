#!/usr/bin/env python3
"""Writes the index of rule deciders that `llmconform list --rules` prints.

Usage: rule_deciders.py SOURCE_ROOT OUTPUT FILE...

FILE... are the sources (paths relative to SOURCE_ROOT) whose code decides
rules. Two kinds of place decide a rule, and both are read from the code,
never written by hand:

  table   an entry of a suite's rule table (harness/suites/rule_table.h):
          {"ACT-1", &ReplyRule} names the function that checks ACT-1; the
          place printed is that function's definition.
  reports a rule ID given as the first argument of a call or the first
          member of a braced value inside a function body (Add("TML-1.1",
          ...), CheckResult::Fail("GATE-..."), push_back({"TC-3.1-1", ...}))
          or returned from one (return "GATE-REQUEST-MISMATCH";): the place
          printed is that line, with the function that holds it.

Lists of IDs at namespace scope (kResponsesRuleIds, coverage tables) decide
nothing and are not read. The output is a list of C++ initializers,
{"ID", "Function", "path/file.cpp", line, RuleDeciderKind::kTable}, one per
(rule, function), in rule and file order. The code is clang-formatted (no
namespace indentation), which is what the reading of function heads relies
on; harness/rule_index_test.cpp checks every place it writes.
"""

import json
import os
import re
import sys

RULE_ID = r'[A-Z][A-Z0-9]*(?:-[A-Z0-9.]+)+'
# {"ID", &Check}, {"ID", &Check<kArg>} or {"ID", [](...) { return Check(...); }}
TABLE_ENTRY = re.compile(r'\{\s*"(' + RULE_ID + r')",\s*(?:&(\w+)(?:<[^>]*>)?\s*\}|'
                         r'\[\]\([^)]*\)\s*\{\s*return\s+(\w+)\()', re.S)
# A rule ID opening a call's arguments or a braced value, returned, or chosen.
REPORTED = re.compile(r'(?:[({?:]\s*|\breturn\s+)"(' + RULE_ID + r')"')
# A rule ID built from its surface's prefix: Format("{}-EVENT-NAME", prefix).
PATTERN = re.compile(r'"\{\}(-[A-Z0-9.-]+)"')
# A decider no literal names: "// Decides WIRE-SSE-FRAMING ..." above its head.
ANNOTATION = re.compile(r'^\s*//\s*Decides\s+(' + RULE_ID + r')\b')
REPORTED_ALONE = re.compile(r'^\s*"(' + RULE_ID + r')"\s*[,)]')
NOT_A_FUNCTION = re.compile(
    r'^\s*(?:namespace|struct|class|enum|union|using|typedef|template|static_assert|'
    r'return|if|for|while|switch|case|else|do|#|//|/\*|\*|extern)\b')
HEAD_NAME = re.compile(r'((?:\w+::)*~?\w+)\s*\($')


def function_head(line, indent):
    """The name of the function whose definition starts on `line`, or None."""
    if len(line) - len(line.lstrip(' ')) != indent or not line.strip():
        return None
    body = line.strip()
    if NOT_A_FUNCTION.match(body) or body.endswith(';') or '(' not in body:
        return None
    before = body[:body.index('(') + 1]
    if '=' in before or '"' in before or before.startswith(('{', '}', ')', ':', '[')):
        return None
    m = HEAD_NAME.search(before)
    if not m or m.group(1) in ('if', 'for', 'while', 'switch', 'return', 'sizeof'):
        return None
    return m.group(1)


def enclosing_functions(lines):
    """For each line, the function (at namespace scope, or a member defined in
    a class body at namespace scope) it lies in, or None."""
    owner = [None] * len(lines)
    current = None  # (name, indent of its head)
    class_name = None
    for i, line in enumerate(lines):
        if line.startswith('};'):
            class_name = None
        m = re.match(r'^(?:class|struct)\s+(\w+)[^;]*$', line)
        if m:
            class_name = m.group(1)
        if line[:1] not in ('', ' ', '}'):
            name = function_head(line, 0)
            current = (name, 0) if name else None
        elif class_name and (current is None or current[1] == 2):
            name = function_head(line, 2)
            if name:
                current = (class_name + '::' + name, 2)
        if current is None:
            continue
        owner[i] = current[0]
        indent = ' ' * current[1]
        one_line = function_head(line, current[1]) and line.rstrip().endswith('}')
        if one_line or re.match('^' + indent + r'\}', line):
            current = None
    return owner


def definition_line(lines, name):
    """1-based line of the definition of function `name` in `lines`, or 0."""
    for i, line in enumerate(lines):
        head = function_head(line.rstrip('\n'), 0)
        if head and (head == name or head.endswith('::' + name)):
            return i + 1
    return 0


def table_rows(rel, text, texts):
    """The entries of the rule tables in `text` (the file `rel`)."""
    rows = []
    for m in TABLE_ENTRY.finditer(text):
        rule, fn = m.group(1), m.group(2) or m.group(3)
        line = text.count('\n', 0, m.start()) + 1
        candidates = [rel] + [o for o in texts if o != rel and
                              os.path.dirname(o) == os.path.dirname(rel)]
        for where in candidates:
            at = definition_line(texts[where], fn)
            if at:
                rows.append((rule, fn, where, at, 'kTable'))
                break
        else:
            sys.exit(f'{rel}:{line}: {rule}: no definition of {fn} found')
    return rows


def catalogue_ids(root):
    ids = set()
    specs = os.path.join(root, 'specs')
    for protocol in sorted(os.listdir(specs)):
        path = os.path.join(specs, protocol, 'rules.json')
        if os.path.isfile(path):
            with open(path, encoding='utf-8') as f:
                ids.update(rule['id'] for rule in json.load(f))
    return ids


def main():
    root, output, files = sys.argv[1], sys.argv[2], sys.argv[3:]
    texts = {}
    for rel in sorted(set(files)):
        with open(os.path.join(root, rel), encoding='utf-8') as f:
            texts[rel] = f.read().split('\n')
    rows = []  # (id, function, file, line, kind)
    patterns = []  # (suffix, function, file, line)
    for rel, lines in texts.items():
        rows += table_rows(rel, '\n'.join(lines), texts)
        owner = enclosing_functions(lines)
        pending = []
        for i, line in enumerate(lines):
            m = ANNOTATION.match(line)
            if m:
                pending.append(m.group(1))
            elif pending and owner[i]:
                rows += [(rule, owner[i], rel, i + 1, 'kReports') for rule in pending]
                pending = []
            if owner[i] is None:
                continue
            found = REPORTED.findall(line)
            if not found:
                m = REPORTED_ALONE.match(line)
                prev = next((p for p in reversed(lines[:i]) if p.strip()), '')
                if m and prev.rstrip().endswith(('(', '{')):
                    found = [m.group(1)]
            rows += [(rule, owner[i], rel, i + 1, 'kReports') for rule in found]
            patterns += [(s, owner[i], rel, i + 1) for s in PATTERN.findall(line)]
    # A rule no line names is decided where its ID is built from a pattern.
    named = {row[0] for row in rows}
    for rule in sorted(catalogue_ids(root) - named):
        rows += [(rule, fn, rel, at, 'kReports') for suffix, fn, rel, at in patterns
                 if rule.endswith(suffix)]
    seen = set()
    out = []
    for rule, fn, rel, at, kind in sorted(rows, key=lambda r: (r[0], r[4] != 'kTable', r[2], r[3])):
        if (rule, fn, kind) in seen:
            continue
        seen.add((rule, fn, kind))
        out.append(f'{{"{rule}", "{fn}", "{rel}", {at}, RuleDeciderKind::{kind}}},\n')
    text = ''.join(out)
    old = None
    if os.path.exists(output):
        with open(output, encoding='utf-8') as f:
            old = f.read()
    if old != text:
        with open(output, 'w', encoding='utf-8') as f:
            f.write(text)


if __name__ == '__main__':
    main()
