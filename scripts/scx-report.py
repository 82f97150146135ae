#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The results of the sched_ext boot (scripts/scx-vm.sh): upstream's
sched_ext selftests and the BPF schedulers, each run once with the C and
once with the Rust idle picker.

Every (test, picker) and every (scheduler, picker) is one line of the
tally: a pass is a pass, a failure is a failure whichever picker it had
(also when both fail), a test or scheduler that did not report is a
failure, and a skip is a skip, shown with the runner's reason. A kernel log
report in a boot (vm-kunit.sh) is one more failure.

Prints a table (item, result with C, result with Rust, details), the output
of every test that did not pass, and ends with "N passed, N failed,
N skipped". --json writes the same as a list of results. Exits non-zero if
anything failed.

Usage: scx-report.py RESDIR --tests TEST... --scheds SCHED... [--json FILE]
"""
import argparse
import json
import re
import sys
from pathlib import Path

RESULT = re.compile(r'^(ok|not ok) \d+ (\S+) # ?(SKIP)? ?(.*)$')
PICKERS = ('c', 'rust')


def parse(path):
    """{name: (verdict, detail, output lines)} from a guest's result file."""
    if not path.exists():
        return {}, f'no {path.name}: the guest did not run this picker'
    lines = path.read_text(errors='replace').splitlines()
    if lines and lines[0].startswith('error='):
        return {}, lines[0][len('error='):]
    results, output = {}, []
    for line in lines:
        if line.startswith('===== START'):
            output = []
            continue
        m = RESULT.match(line)
        if m:
            verdict = 'skip' if m.group(3) else ('pass' if m.group(1) == 'ok' else 'FAIL')
            results[m.group(2)] = (verdict, m.group(4), output)
            output = []
        else:
            output.append(line)
    return results, None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('resdir', type=Path)
    ap.add_argument('--tests', nargs='*', default=[])
    ap.add_argument('--scheds', nargs='*', default=[])
    ap.add_argument('--json', type=Path)
    args = ap.parse_args()

    rows, counts, problems = [], {'pass': 0, 'fail': 0, 'skip': 0}, []
    for kind, names, label in (('scx', args.tests, 'selftest'), ('sched', args.scheds, 'scheduler')):
        parsed = {}
        for p in PICKERS:
            parsed[p], err = parse(args.resdir / f'{kind}-{p}.txt')
            if err:
                problems.append(f'{label}s with the {p} picker: {err}')
        for name in names:
            for p in PICKERS:
                verdict, detail, output = parsed[p].get(name, ('missing', 'did not report', []))
                key = {'pass': 'pass', 'skip': 'skip'}.get(verdict, 'fail')
                counts[key] += 1
                rows.append({'kind': label, 'name': name, 'picker': p, 'result': key,
                             'detail': detail, 'output': output})

    width = max([len(r['name']) for r in rows] + [10])
    for label in ('selftest', 'scheduler'):
        mine = [r for r in rows if r['kind'] == label]
        if not mine:
            continue
        print(f'\n{label + "s":<{width}}  {"C picker":<8}  {"Rust picker":<11}  details')
        for name in dict.fromkeys(r['name'] for r in mine):
            by = {r['picker']: r for r in mine if r['name'] == name}
            details = '; '.join(f'{p}: {by[p]["detail"]}' for p in PICKERS if by[p]['detail'])
            print(f'{name:<{width}}  {by["c"]["result"]:<8}  {by["rust"]["result"]:<11}  {details}')
    for r in rows:
        if r['result'] == 'pass':
            continue
        cause = [l for l in r['output'] if l.strip() and
                 not l.startswith(('TEST:', 'DESCRIPTION:', 'OUTPUT:', 'picker='))]
        print(f'\n{r["kind"]} {r["name"]}, {r["picker"]} picker: {r["result"]} ({r["detail"]})')
        print('\n'.join('    ' + l for l in cause[-8:]))
    report = args.resdir / 'kernel-log-report.txt'
    if report.exists():
        problems.append(report.read_text().strip())
    for p in problems:
        print(f'scx-report: {p}')
    counts['fail'] += sum(1 for p in problems if p.startswith('kernel log'))
    if not rows:
        print('scx-report: no test or scheduler was given')
        counts['fail'] += 1

    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({'results': rows, 'problems': problems,
                                         'counts': counts}, indent=1) + '\n')
    print(f'{counts["pass"]} passed, {counts["fail"]} failed, {counts["skip"]} skipped')
    return 1 if counts['fail'] else 0


if __name__ == '__main__':
    sys.exit(main())
