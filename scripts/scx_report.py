#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The results of the sched_ext boot (scripts/scx-vm.sh): upstream's
sched_ext selftests and the BPF schedulers with the C and with the Rust
idle picker. Every scheduler runs with both. The selftests too with
--selftest-c all (make scx); with --selftest-c failed (make test) every
selftest runs with the Rust picker, and with the C picker only those that
the Rust picker did not pass: one that fails with both is an upstream or
environment problem, one that fails only with Rust is ours (both are
failures). A selftest that the Rust picker passed shows "not run (Rust
passed)" with the C picker: the guest listed it as "rust-passed TEST" in
scx-c.txt, and it is counted once, as the Rust picker's pass.

Every (test, picker) and every (scheduler, picker) that ran is one line of
the tally: a pass is a pass, a failure is a failure whichever picker it had
(also when both fail), a test or scheduler that did not report is a
failure (also a selftest that the guest left out for the C picker when the
Rust picker did not pass it), and a skip is a skip, shown with the runner's
reason. A kernel log report in a boot (vm-kunit.sh) is one more failure. A
selftest that did
not pass runs a second time in the guest ("retry TEST" in its log); its
result is the second attempt's, marked with * in the table, and the first
attempt's output is printed and kept in the JSON (first_attempt).

The proof of which picker ran: after each selftest the guest writes
"picks TEST MINE OTHER SECONDS", the picker's own and the other picker's
calls during it (sched/rust/idle_picks, patch 0018). A test during which the other
picker ran fails, and so does a picker that never ran during all of its
selftests. With --selftest-c failed that check applies to the C picker only
when some selftests ran with it and the Rust picker made picks during those
same tests (the tests it runs may be ones that make no pick, and the
schedulers' own check proves that the C picker runs). The runner's -t
matches substrings, so a test may run in the same
runner call as the one named (select_cpu_dfl runs select_cpu_dfl_nodispatch
too): such a test gets that call's counts, with "picks_of" naming the call.
The scheduler lines carry their own check (guest-tests/scx-scheds-guest.sh); their
log has the same "retry" and "picks" lines, one "picks" per scheduler.

Prints a table (item, result with C, result with Rust, details), the output
of every test that did not pass, and ends with "N passed, N failed,
N skipped". --json writes the same as a list of results. Exits non-zero if
anything failed.

A scheduler named in --skip-scheds did not run: it counts as skipped with
--skip-reason.

Usage: scx_report.py RESDIR [--selftest-c all|failed] --tests TEST...
                     --scheds SCHED... [--skip-scheds SCHED... --skip-reason TEXT]
                     [--json FILE]
"""
import argparse
import json
import re
import sys
from pathlib import Path

RESULT = re.compile(r'^(ok|not ok) \d+ (\S+) # ?(SKIP)? ?(.*)$')
RETRIED = ' (first attempt)'
PICKS = re.compile(r'^picks (\S+) (\d+) (\d+)(?: (\d+))?$')
RUST_PASSED = re.compile(r'^rust-passed (\S+)$')
NOT_RUN = 'not run'
PICKERS = ('c', 'rust')


def parse(path):
    """({name: (verdict, detail, output lines)}, {name: (mine, other, seconds)},
    {names left out because the Rust picker passed them}, error)
    from a guest's result file."""
    if not path.exists():
        return {}, {}, set(), f'no {path.name}: the guest did not run this picker'
    lines = path.read_text(errors='replace').splitlines()
    if lines and lines[0].startswith('error='):
        return {}, {}, set(), lines[0][len('error='):]
    results, picks, output, since, rust_passed = {}, {}, [], [], set()
    for line in lines:
        m = RUST_PASSED.match(line)
        if m:
            rust_passed.add(m.group(1))
            continue
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
    return results, picks, rust_passed, None


def judge(parsed, picks, p, name):
    """The row of (name, picker p) from its result file, as a dict."""
    verdict, detail, output = parsed[p].get(name, ('missing', 'did not report', []))
    mine, other, secs, call = picks[p].get(name, (None, None, None, name))
    first = parsed[p].get(name + RETRIED)
    if first:
        detail = '; '.join(d for d in (detail, f'second attempt, the first failed: {first[1]}') if d)
    if other:
        verdict, detail = 'FAIL', '; '.join(d for d in (f'the other picker ran {other} times', detail) if d)
    key = {'pass': 'pass', 'skip': 'skip'}.get(verdict, 'fail')
    return {'picker': p, 'result': key, 'detail': detail, 'output': output,
            **({'first_attempt': {'result': first[0], 'detail': first[1], 'output': first[2]}}
               if first else {}),
            **({'picks': mine, 'other_picks': other, 'seconds': secs}
               if mine is not None else {}),
            **({'picks_of': call} if call != name else {})}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('resdir', type=Path)
    ap.add_argument('--selftest-c', choices=('all', 'failed'), default='all',
                    help='the selftests run with the C picker: all, or those '
                    'that the Rust picker did not pass')
    ap.add_argument('--tests', nargs='*', default=[])
    ap.add_argument('--scheds', nargs='*', default=[])
    ap.add_argument('--skip-scheds', nargs='*', default=[])
    ap.add_argument('--skip-reason', default='left out')
    ap.add_argument('--json', type=Path)
    ap.add_argument('--passed', choices=PICKERS,
                    help='only print the selftests that this picker passed, one a line '
                    '(guest-tests/scx-selftests-guest.sh, SCX_SELFTEST_C=failed)')
    args = ap.parse_args()

    if args.passed:
        p = args.passed
        parsed, picks, _, _ = parse(args.resdir / f'scx-{p}.txt')
        for name in parsed:
            if (not name.endswith(RETRIED)
                    and judge({p: parsed}, {p: picks}, p, name)['result'] == 'pass'):
                print(name)
        return 0

    rows, counts, problems = [], {'pass': 0, 'fail': 0, 'skip': 0}, []
    errors, reported = {}, set()
    for kind, names, label in (('scx', args.tests, 'selftest'),
                               ('sched', args.scheds + args.skip_scheds, 'scheduler')):
        if not names:
            continue
        parsed, picks, rust_passed = {}, {}, {}
        only_failed = kind == 'scx' and args.selftest_c == 'failed'
        for p in PICKERS:
            parsed[p], picks[p], rust_passed[p], err = parse(args.resdir / f'{kind}-{p}.txt')
            errors[kind, p] = err
        for p in PICKERS:
            err = errors[kind, p]
            if err and (kind == 'scx' or args.scheds):
                problems.append(f'{label}s with the {p} picker: {err}')
            elif kind == 'scx':
                calls = {v[3]: v for v in picks[p].values()}.values()
                mine = sum(v[0] for v in calls)
                other = sum(v[1] for v in calls)
                ran = f'{len(calls)} runner call(s)' if only_failed and p == 'c' else 'its selftests'
                print(f'scx-report: {p} picker: {mine} idle picks and claims during '
                      f'{ran}, {other} by the other picker')
                if mine or not (only_failed and p == 'c'):
                    if mine == 0:
                        problems.append(f'picker: the {p} picker never ran during its selftests')
                    continue
                # The C picker ran only the selftests that the Rust picker
                # did not pass: a zero proves something only if those
                # tests made picks with Rust.
                expected = sum({picks['rust'][n][3]: picks['rust'][n][0]
                                for n in picks[p] if n in picks['rust']}.values())
                if not picks[p]:
                    print('scx-report: c picker: no selftest ran with it (the Rust picker passed '
                          'them all); the schedulers show it runs')
                elif expected:
                    problems.append(f'picker: the c picker never ran during its selftests '
                                    f'(the Rust picker made {expected} picks during the same tests)')
                else:
                    print('scx-report: c picker: its selftests made no pick with the Rust picker '
                          'either; the schedulers show it runs')
        if kind == 'sched':
            for p in PICKERS:
                parsed[p].update({n: ('skip', args.skip_reason, []) for n in args.skip_scheds})
        for name in names:
            for p in PICKERS:
                row = judge(parsed, picks, p, name)
                if name in parsed[p]:
                    reported.add((label, name, p))
                if (only_failed and p == 'c' and name not in parsed[p]
                        and name in rust_passed[p]):
                    # Left out by the guest because the Rust picker passed it:
                    # counted once, as the Rust picker's pass.
                    if judge(parsed, picks, 'rust', name)['result'] == 'pass':
                        row.update(result=NOT_RUN, detail='not run (Rust passed)')
                    else:
                        row.update(detail='not run, but the Rust picker did not pass it')
                if row['result'] != NOT_RUN:
                    counts[row['result']] += 1
                rows.append({'kind': label, 'name': name, **row})

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
    # How many selftests the tree has (the runner's list) and how many ran
    # with each picker, so that a test the runner stops listing is seen.
    selftests = [r for r in rows if r['kind'] == 'selftest']
    if selftests:
        print(f'\nselftests: {len(args.tests)} in the runner\'s list', end='')
        for p in PICKERS:
            ran = [r for r in selftests if r['picker'] == p and r['result'] != NOT_RUN]
            by = {k: sum(r['result'] == k for r in ran) for k in ('pass', 'fail', 'skip')}
            print(f'; {p} picker: {len(ran)} ran ({by["pass"]} passed, {by["fail"]} failed, '
                  f'{by["skip"]} skipped)', end='')
        print()
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
        if r['result'] in ('pass', NOT_RUN):
            continue
        cause = [l for l in r['output'] if l.strip() and
                 not l.startswith(('TEST:', 'DESCRIPTION:', 'OUTPUT:', 'picker='))]
        print(f'\n{r["kind"]} {r["name"]}, {r["picker"]} picker: {r["result"]} ({r["detail"]})')
        print('\n'.join('    ' + l for l in cause[-8:]))
    # Which picker a failing selftest fails with: with both, upstream's tests
    # or the environment (TCG); only with Rust, ours. Each stays a failure.
    # (A test that did not report is a failure, but not one to classify.)
    label = {'c': 'C', 'rust': 'Rust'}
    for name in dict.fromkeys(r['name'] for r in rows if r['kind'] == 'selftest'):
        by = {r['picker']: r for r in rows if r['kind'] == 'selftest' and r['name'] == name}
        failed = [p for p in PICKERS if by[p]['result'] == 'fail' and ('selftest', name, p) in reported]
        if len(failed) == 2:
            why = 'with both pickers: upstream or the environment'
        elif failed:
            p = failed[0]
            q = 'c' if p == 'rust' else 'rust'
            if by[q]['result'] == 'pass':
                why = f'only with the {label[p]} picker' + (': ours' if p == 'rust' else " (upstream's code)")
            else:
                why = (f'with the {label[p]} picker; with the {label[q]} picker: {by[q]["result"]}'
                       + (f' ({by[q]["detail"]})' if by[q]['detail'] else ''))
        else:
            continue
        print(f'scx-report: selftest {name} fails {why}')
    report = args.resdir / 'kernel-log-report.txt'
    if report.exists():
        problems += [line for line in report.read_text().splitlines() if line.strip()]
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
