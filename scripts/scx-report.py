#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The results of the sched_ext boot (scripts/scx-vm.sh): upstream's
sched_ext selftests and the BPF schedulers, each run once with the C and
once with the Rust idle picker.

Every (test, picker) and every (scheduler, picker) is one line of the
tally: a pass is a pass, a failure is a failure whichever picker it had
(also when both fail), a test or scheduler that did not report is a
failure, and a skip is a skip, shown with the runner's reason. A kernel log
report in a boot (vm-kunit.sh) is one more failure. A selftest that did
not pass runs a second time in the guest ("retry TEST" in its log); its
result is the second attempt's, marked with * in the table, and the first
attempt's output is printed and kept in the JSON (first_attempt).

The proof of which picker ran: after each selftest the guest writes
"picks TEST MINE OTHER SECONDS", the picker's own and the other picker's
calls during it (sched/ext_idle_picks, patch 0011). A test during which the other
picker ran fails, and so does a picker that never ran during all of its
selftests. The runner's -t matches substrings, so a test may run in the same
runner call as the one named (select_cpu_dfl runs select_cpu_dfl_nodispatch
too): such a test gets that call's counts, with "picks_of" naming the call.
The scheduler lines carry their own check (bench/scx-scheds-guest.sh); their
log has the same "retry" and "picks" lines, one "picks" per scheduler.

Prints a table (item, result with C, result with Rust, details), the output
of every test that did not pass, and ends with "N passed, N failed,
N skipped". --json writes the same as a list of results. Exits non-zero if
anything failed.

A scheduler named in --skip-scheds did not run: it counts as skipped with
--skip-reason.

Usage: scx-report.py RESDIR --tests TEST... --scheds SCHED...
                     [--skip-scheds SCHED... --skip-reason TEXT] [--json FILE]
"""
import argparse
import json
import re
import sys
from pathlib import Path

RESULT = re.compile(r'^(ok|not ok) \d+ (\S+) # ?(SKIP)? ?(.*)$')
RETRIED = ' (first attempt)'
PICKS = re.compile(r'^picks (\S+) (\d+) (\d+)(?: (\d+))?$')
PICKERS = ('c', 'rust')


def parse(path):
    """({name: (verdict, detail, output lines)}, {name: (mine, other, seconds)},
    error)
    from a guest's result file."""
    if not path.exists():
        return {}, {}, f'no {path.name}: the guest did not run this picker'
    lines = path.read_text(errors='replace').splitlines()
    if lines and lines[0].startswith('error='):
        return {}, {}, lines[0][len('error='):]
    results, picks, output, since = {}, {}, [], []
    for line in lines:
        if line.startswith('===== START'):
            output = []
            continue
        if line.startswith('retry '):
            # The first attempt of the call: the named test and any that ran
            # with it and did not pass (one that passed is judged by its
            # second run alone).
            for name in dict.fromkeys([line.split()[1]] + since):
                verdict, detail, out = results.get(name, ('missing', 'did not report', output))
                if verdict == 'pass':
                    continue
                first = next((l.strip() for l in reversed(out)
                              if 'ERR' in l or 'error' in l.lower()), detail or verdict)
                results[name + RETRIED] = (verdict, first, out)
            output = []
            continue
        m = PICKS.match(line)
        if m:
            counts = (int(m.group(2)), int(m.group(3)),
                      int(m.group(4)) if m.group(4) else None, m.group(1))
            for name in since:
                picks.setdefault(name, counts)
            picks[m.group(1)] = counts
            since = []
            continue
        m = RESULT.match(line)
        if m:
            verdict = 'skip' if m.group(3) else ('pass' if m.group(1) == 'ok' else 'FAIL')
            results[m.group(2)] = (verdict, m.group(4), output)
            since.append(m.group(2))
            output = []
        else:
            output.append(line)
    return results, picks, None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('resdir', type=Path)
    ap.add_argument('--tests', nargs='*', default=[])
    ap.add_argument('--scheds', nargs='*', default=[])
    ap.add_argument('--skip-scheds', nargs='*', default=[])
    ap.add_argument('--skip-reason', default='left out')
    ap.add_argument('--json', type=Path)
    args = ap.parse_args()

    rows, counts, problems = [], {'pass': 0, 'fail': 0, 'skip': 0}, []
    for kind, names, label in (('scx', args.tests, 'selftest'),
                               ('sched', args.scheds + args.skip_scheds, 'scheduler')):
        if not names:
            continue
        parsed, picks = {}, {}
        for p in PICKERS:
            parsed[p], picks[p], err = parse(args.resdir / f'{kind}-{p}.txt')
            if err and (kind == 'scx' or args.scheds):
                problems.append(f'{label}s with the {p} picker: {err}')
            elif kind == 'scx':
                calls = {v[3]: v for v in picks[p].values()}.values()
                mine = sum(v[0] for v in calls)
                other = sum(v[1] for v in calls)
                print(f'scx-report: {p} picker: {mine} idle picks and claims during its '
                      f'selftests, {other} by the other picker')
                if mine == 0:
                    problems.append(f'picker: the {p} picker never ran during its selftests')
        if kind == 'sched':
            for p in PICKERS:
                parsed[p].update({n: ('skip', args.skip_reason, []) for n in args.skip_scheds})
        for name in names:
            for p in PICKERS:
                verdict, detail, output = parsed[p].get(name, ('missing', 'did not report', []))
                mine, other, secs, call = picks[p].get(name, (None, None, None, name))
                first = parsed[p].get(name + RETRIED)
                if first:
                    detail = '; '.join(d for d in (detail, f'second attempt, the first failed: {first[1]}') if d)
                if other:
                    verdict, detail = 'FAIL', '; '.join(d for d in (f'the other picker ran {other} times', detail) if d)
                key = {'pass': 'pass', 'skip': 'skip'}.get(verdict, 'fail')
                counts[key] += 1
                rows.append({'kind': label, 'name': name, 'picker': p, 'result': key,
                             'detail': detail, 'output': output,
                             **({'first_attempt': {'result': first[0], 'detail': first[1], 'output': first[2]}}
                                if first else {}),
                             **({'picks': mine, 'other_picks': other, 'seconds': secs}
                                if mine is not None else {}),
                             **({'picks_of': call} if call != name else {})})

    width = max([len(r['name']) for r in rows] + [10])
    for label in ('selftest', 'scheduler'):
        mine = [r for r in rows if r['kind'] == label]
        if not mine:
            continue
        print(f'\n{label + "s":<{width}}  {"C picker":<8}  {"Rust picker":<11}  details')
        for name in dict.fromkeys(r['name'] for r in mine):
            by = {r['picker']: r for r in mine if r['name'] == name}
            details = '; '.join(f'{p}: {by[p]["detail"]}' for p in PICKERS if by[p]['detail'])
            res = {p: by[p]['result'] + ('*' if 'first_attempt' in by[p] else '') for p in PICKERS}
            print(f'{name:<{width}}  {res["c"]:<8}  {res["rust"]:<11}  {details}')
    retried = [r for r in rows if 'first_attempt' in r]
    if retried:
        print(f'\n* on a second attempt ({len(retried)}): its first attempt did not pass')
    for r in rows:
        if 'first_attempt' in r:
            out = [l for l in r['first_attempt']['output'] if l.strip() and not l.startswith(
                ('TEST:', 'DESCRIPTION:', 'OUTPUT:', 'picker='))]
            print(f'\n{r["kind"]} {r["name"]}, {r["picker"]} picker, first attempt: '
                  f'{r["first_attempt"]["result"]} ({r["first_attempt"]["detail"]})')
            print('\n'.join('    ' + l for l in out[-8:]))
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
    counts['fail'] += sum(1 for p in problems if p.startswith(('kernel log', 'picker:')))
    if not rows:
        print('scx-report: no test or scheduler was given')
        counts['fail'] += 1

    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({'results': rows, 'problems': problems,
                                         'counts': counts}, indent=1) + '\n')
    if retried:
        print(f'scx-report: {sum(1 for r in retried if r["result"] == "pass")} of the passes '
              f'came on a second attempt')
    print(f'{counts["pass"]} passed, {counts["fail"]} failed, {counts["skip"]} skipped')
    return 1 if counts['fail'] else 0


if __name__ == '__main__':
    sys.exit(main())
