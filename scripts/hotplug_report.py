#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The hotplug stress's report (scripts/hotplug-stress.sh).

Usage: hotplug_report.py [--debug] [--json FILE] [--require-check NAME] TOPODIR...

Each TOPODIR is one boot's folder: topology.txt, vm-kunit.status and
vm-kunit.log (scripts/vm-kunit.sh), boot/vm/ (its console and kernel
logs), guest/hotplug.txt (guest-tests/hotplug-stress-guest.sh's lines:
"round=<N|end> check=<name> result=<ok|fail> <details>" and one summary
line per round).

Prints, per topology and picker: rounds, CPUs and nodes taken offline,
node-order rebuilds, shadow calls compared and differences, steal checks
passed, scheduler detaches by the kernel and the schedulers that ran; then
every failed check, and "N passed, N failed".

What counts, per topology: each check line of the guest (one per check per
round, and the end's); the boot (vm-kunit.sh's status: the guest finished
and its kernel log has no report); the guest's script completed all its
rounds; both pickers ran (with one round per topology, over the run); no
RCU stall line in the console (vm-kunit.sh does not look for those).

With --debug (a KCSAN and lockdep kernel, VM_LOG_STRICT=1): a boot that
vm-kunit.sh failed for its kernel log only is judged here instead: each
report in its filtered logs fails when it is not a KCSAN report, or when
a KCSAN report has a frame of ours or of the hotplug paths
(OURS_RE); other KCSAN reports are listed as upstream's and do not fail.

--json FILE writes the rows, the checks and the counts. Exit status 1 on
any failure.
"""
import argparse
import json
import re
import sys
from pathlib import Path

KV = re.compile(r'(\S+?)=("[^"]*"|\S*)')
RCU_RE = re.compile(r'rcu: INFO: rcu_\w+ (self-)?detected stall|detected stalls on CPUs'
                    r'|rcu_\w+ kthread starved')
# Frames of our code, and of the hotplug paths: the node order and
# its rebuild, the steal series' overload masks and the LLC and NUMA
# domains they are rebuilt with, sched_ext's idle masks and their reset
# on hotplug, the idle pickers, the shadow check; Rust symbols of our crate.
OURS_RE = re.compile(
    r'sched_rust|sparsemask|steal|overload|scx_idle|idle_pick|pick_idle_cpu|node_order'
    r'|sched_update_numa|sched_init_numa|sched_reset_numa|sched_domains_numa'
    r'|update_builtin_idle|reset_idle_masks|asym_fit|select_idle_capacity|shadow'
    r'|build_sched_domains|partition_sched_domains|cpu_attach_domain|update_top_cache_domain'
    r'|detach_destroy_domains|scx_rq_(de)?activate|handle_hotplug|_RNv\w*sched_rust')
REPORT_START = re.compile(r'BUG:|kernel BUG at|WARNING:|Oops|Kernel panic|rust_panic'
                          r'|INFO: task .* blocked|KASAN:|UBSAN:|KCSAN:|possible recursive locking'
                          r'|inconsistent lock state|circular locking'
                          r'|sleeping function called from invalid context')
STAMP = re.compile(r'^\[\s*\d+\.\d+\]\s?')


def kv(line):
    return {k: v.strip('"') for k, v in KV.findall(line)}


def reports(path):
    """[(first line, [lines])] of the reports in a filtered kernel log."""
    out, cur = [], None
    for raw in path.read_text(errors='replace').splitlines():
        line = STAMP.sub('', raw)
        if REPORT_START.search(line) and 'sched-rust: ' not in line:
            if cur and 'KCSAN' in cur[0] and 'KCSAN' not in line and len(cur[1]) < 60:
                cur[1].append(line)	# a line of the same KCSAN report
                continue
            cur = (line, [line])
            out.append(cur)
        elif cur is not None:
            if line.startswith('=====') and len(cur[1]) > 1:
                cur[1].append(line)
                cur = None
            elif len(cur[1]) < 60:
                cur[1].append(line)
    return out


def judge_debug_log(vmdir):
    """(failing, upstream) reports of a debug boot, each a one-line text."""
    failing, upstream, seen = [], [], set()
    files = sorted(vmdir.glob('*.filtered'))
    for f in files:
        for first, lines in reports(f):
            key = first
            if key in seen:
                continue
            seen.add(key)
            if 'KCSAN' in first:
                ours = [l for l in lines if OURS_RE.search(l)]
                if ours:
                    failing.append(f'{first} (ours: {ours[0].strip()})')
                else:
                    upstream.append(first)
            else:
                failing.append(first)
    return failing, upstream


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('dirs', nargs='+', type=Path)
    ap.add_argument('--json', type=Path)
    ap.add_argument('--debug', action='store_true')
    args = ap.parse_args()

    checks, rows, notes = [], [], []

    def check(topo, rnd, name, ok, detail):
        checks.append({'topology': topo, 'round': rnd, 'check': name,
                       'result': 'pass' if ok else 'fail', 'detail': detail})

    for d in args.dirs:
        topo_info = kv((d / 'topology.txt').read_text()) if (d / 'topology.txt').exists() else {}
        topo = topo_info.get('topology', d.name)
        res = d / 'guest' / 'hotplug.txt'
        lines = res.read_text().splitlines() if res.exists() else []
        setup = next((kv(l) for l in lines if l.startswith('seed=')), {})
        if setup:
            notes.append(f'{topo}: seed {setup.get("seed")}, CPUs {setup.get("cpus")}, hotpluggable '
                         f'{setup.get("hotpluggable")}, nodes that can be emptied '
                         f'{setup.get("emptiable-nodes")}: {setup.get("note")}')
        dist = [l[len('distances '):] for l in lines if l.startswith('distances node=')]
        if dist:
            notes.append(f'{topo}: distances ' + '; '.join(dist))
        summaries = {}
        for l in lines:
            m = re.match(r'round=(\S+) check=(\S+) result=(\S+) ?(.*)', l)
            if m:
                rnd, name, result, detail = m.groups()
                check(topo, rnd, name, result == 'ok', detail)
            elif re.match(r'round=\d+ sched=', l):
                f = kv(l)
                summaries[f['round']] = f
        # Per-round figures from the check lines.
        by_round = {}
        for c in checks:
            if c['topology'] == topo:
                by_round.setdefault(c['round'], {})[c['check']] = c
        for rnd, f in sorted(summaries.items(), key=lambda x: int(x[0])):
            r = by_round.get(rnd, {})
            sh = kv(r.get('shadow', {}).get('detail', ''))
            sc = kv(r.get('scheduler', {}).get('detail', ''))
            rows.append({
                'topology': topo, 'round': int(rnd), 'picker': f.get('picker'),
                'sched': f.get('sched'), 'per_node': f.get('per-node'),
                'cpus_offline': int(f.get('cpus-offline', 0) or 0),
                'offline': f.get('offline'),
                'nodes_emptied': int(f.get('nodes-emptied', 0) or 0),
                'emptied': f.get('emptied'),
                'rebuilds_offline': f.get('rebuilds-offline'),
                'rebuilds_online': f.get('rebuilds-online'),
                'shadow_calls': int(sh.get('calls', 0) or 0) if sh.get('calls', '').isdigit() else 0,
                'shadow_differences': int(sh['differences']) if sh.get('differences', '').isdigit() else None,
                'steal_ok': r.get('steal', {}).get('result') == 'pass',
                'kernel_detaches': int(sc['kernel-detaches']) if sc.get('kernel-detaches', '').isdigit() else 0,
                'reasons': sc.get('reasons', ''),
                'stalls': int(f.get('stalls', 0) or 0),
                'seconds': int(f.get('seconds', 0) or 0),
            })

        # The boot and the guest's script.
        st = d / 'vm-kunit.status'
        status = int(st.read_text().strip()) if st.exists() else None
        vlog = (d / 'vm-kunit.log').read_text(errors='replace') if (d / 'vm-kunit.log').exists() else ''
        why = next((l for l in vlog.splitlines() if 'FAIL:' in l), '')
        if status == 0:
            check(topo, 'boot', 'boot', True, 'vm-kunit.sh: the guest finished, kernel log clean')
        elif args.debug and 'FAIL: the kernel log' in why:
            failing, upstream = judge_debug_log(d / 'boot' / 'vm')
            for u in upstream:
                notes.append(f'{topo}: KCSAN report with no frame of ours (upstream\'s; not counted): {u}')
            check(topo, 'boot', 'boot', not failing,
                  'kernel log: ' + ('; '.join(failing[:5]) if failing else
                                    f'only KCSAN reports without a frame of ours ({len(upstream)})'))
        else:
            check(topo, 'boot', 'boot', False,
                  f'vm-kunit.sh status {status}: {why.strip() or "no FAIL line"}')
        done = (d / 'guest' / 'hotplug-done').exists()
        n_rounds = len(summaries)
        want = None
        run = d.parent / 'run.txt'
        if run.exists():
            want = kv(run.read_text()).get('rounds')
        check(topo, 'boot', 'rounds', done and (want is None or str(n_rounds) == want),
              f'{n_rounds} of {want} rounds, the guest script {"completed" if done else "did not complete"}')
        # Both pickers in each topology of two rounds or more; with one
        # round per topology (make hotplug-stress-debug), across the run.
        pickers = {r['picker'] for r in rows if r['topology'] == topo}
        if want is None or int(want) >= 2:
            check(topo, 'boot', 'pickers', {'c', 'rust'} <= pickers,
                  f'rounds with the picker(s): {" ".join(sorted(p for p in pickers if p)) or "none"}')
        console = d / 'boot' / 'vm' / 'console.txt'
        stalls = []
        if console.exists():
            stalls = [STAMP.sub('', l) for l in console.read_text(errors='replace').splitlines()
                      if RCU_RE.search(l)]
        check(topo, 'boot', 'rcu-stall', not stalls,
              'no RCU stall line in the console' if not stalls else stalls[0][:200])

    run = args.dirs[0].parent / 'run.txt'
    if run.exists() and kv(run.read_text()).get('rounds') == '1':
        pickers = {r['picker'] for r in rows}
        check('all', 'run', 'pickers', {'c', 'rust'} <= pickers,
              f'rounds with the picker(s) over all topologies: '
              f'{" ".join(sorted(p for p in pickers if p)) or "none"}')

    # The table.
    print('hotplug-report: per topology and picker')
    hdr = ('topology', 'picker', 'rounds', 'cpus off', 'nodes off', 'rebuilds off+on', 'shadow calls',
           'diffs', 'steal ok', 'kernel detaches (stalls)', 'schedulers')
    print('  ' + ' | '.join(hdr))
    table = []
    for topo in dict.fromkeys(r['topology'] for r in rows):
        for picker in ('c', 'rust'):
            rs = [r for r in rows if r['topology'] == topo and r['picker'] == picker]
            if not rs:
                continue

            known = all(str(r['rebuilds_offline']).isdigit() and str(r['rebuilds_online']).isdigit()
                        for r in rs)
            rb = (f"{sum(int(r['rebuilds_offline']) for r in rs)}+"
                  f"{sum(int(r['rebuilds_online']) for r in rs)}") if known else '?'
            diffs = sum(r['shadow_differences'] or 0 for r in rs)
            unknown = any(r['shadow_differences'] is None for r in rs)
            scheds = sorted({f"{r['sched']}{'(per-node)' if r['per_node'] == 'yes' else ''}" for r in rs})
            t = {'topology': topo, 'picker': picker, 'rounds': len(rs),
                 'cpus_offline': sum(r['cpus_offline'] for r in rs),
                 'nodes_emptied': sum(r['nodes_emptied'] for r in rs),
                 'rebuilds': rb, 'shadow_calls': sum(r['shadow_calls'] for r in rs),
                 'shadow_differences': None if unknown else diffs,
                 'steal_ok': sum(1 for r in rs if r['steal_ok']),
                 'kernel_detaches': sum(r['kernel_detaches'] for r in rs),
                 'stalls': sum(r['stalls'] for r in rs),
                 'schedulers': scheds}
            table.append(t)
            print('  ' + ' | '.join(str(x) for x in (
                topo, picker, t['rounds'], t['cpus_offline'], t['nodes_emptied'], rb,
                t['shadow_calls'], '?' if unknown else diffs, f"{t['steal_ok']}/{len(rs)}",
                f"{t['kernel_detaches']} ({t['stalls']})", ' '.join(scheds))))
    if not table:
        print('  (no round ran)')
    for n in notes:
        print(f'hotplug-report: {n}')
    # The kernel's reasons for detaching a scheduler (the stop by SIGINT
    # at the end of each round, "unregistered from user space", left out).
    reasons = {}
    for r in rows:
        for part in filter(None, (p.strip() for p in r['reasons'].split(';'))):
            m = re.fullmatch(r'(.*) x(\d+)', part)
            why, n = (m.group(1), int(m.group(2))) if m else (part, 1)
            if why != 'unregistered from user space':
                key = (r['topology'], r['picker'], r['sched'], why)
                reasons[key] = reasons.get(key, 0) + n
    for (topo, picker, sched, why), n in reasons.items():
        print(f'hotplug-report: {topo} {picker} {sched}: detached {n} time(s): {why}')
    failed = [c for c in checks if c['result'] == 'fail']
    for c in failed:
        print(f"hotplug-report: FAIL {c['topology']} round {c['round']} {c['check']}: {c['detail'][:400]}")
    passed = len(checks) - len(failed)
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({'table': table, 'rounds': rows, 'checks': checks,
                                         'notes': notes,
                                         'counts': {'pass': passed, 'fail': len(failed)}},
                                        indent=1) + '\n')
    print(f'{passed} passed, {len(failed)} failed')
    return 1 if failed or not checks else 0


if __name__ == '__main__':
    sys.exit(main())
