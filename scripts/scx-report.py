#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Compare upstream's sched_ext selftests run with the C and the Rust idle
picker (bench/scx-selftests-guest.sh): print one row per test with both
results, and fail if a test's result depends on the picker.

A test that fails with both pickers is listed with the runner's output as
its cause; it does not fail this check (the pickers agree), but it is never
dropped from the table. Ends with "N passed, N failed", a test counting as
passed when both pickers gave the same result.

Usage: scx-report.py VMDIR [EXPECTED_TEST...]
"""
import re
import sys
from pathlib import Path

RESULT = re.compile(r'^(ok|not ok) \d+ (\S+) # ?(SKIP)?')


def parse(path):
    """{test: (result, output lines)} from a runner log."""
    results, output = {}, []
    lines = path.read_text(errors='replace').splitlines()
    if not lines or lines[0].startswith('error='):
        sys.exit(f'scx-report: {path}: {lines[0] if lines else "empty"}')
    for line in lines:
        if line.startswith('===== START'):
            output = []
            continue
        m = RESULT.match(line)
        if m:
            verdict = 'SKIP' if m.group(3) else ('pass' if m.group(1) == 'ok' else 'FAIL')
            results[m.group(2)] = (verdict, output)
            output = []
        else:
            output.append(line)
    return results


def main():
    vm = Path(sys.argv[1])
    expected = sys.argv[2:]
    logs = {mode: vm / f'scx-{mode}.txt' for mode in ('c', 'rust')}
    for mode, path in logs.items():
        if not path.exists():
            sys.exit(f'scx-report: no {path}: the selftests did not run with the {mode} picker')
    c, rust = parse(logs['c']), parse(logs['rust'])
    names = sorted(set(c) | set(rust))
    missing = [t for t in expected if t not in c or t not in rust]
    width = max([len(n) for n in names] + [4])
    print(f'{"test":<{width}}  {"C picker":<9} {"Rust picker":<11}')
    passed = failed = 0
    both_failed = []
    for name in names:
        rc, rr = c.get(name, ('missing', []))[0], rust.get(name, ('missing', []))[0]
        mark = ''
        if rc != rr:
            failed += 1
            mark = '  <- differs'
        else:
            passed += 1
            if rc == 'FAIL':
                both_failed.append(name)
        print(f'{name:<{width}}  {rc:<9} {rr:<11}{mark}')
    for name in both_failed:
        cause = [l for l in c[name][1] if l.strip() and not l.startswith(('TEST:', 'DESCRIPTION:', 'OUTPUT:', 'picker='))]
        print(f'\n{name} fails with both pickers; the runner said:')
        print('\n'.join('    ' + l for l in cause[-8:]))
    for name in missing:
        print(f'scx-report: expected test {name} did not report with both pickers')
        failed += 1
    print(f'{passed} passed, {failed} failed')
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
