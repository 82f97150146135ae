#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Replace the accepted KCSAN reports of a kernel log by one line each.

Usage: kcsan_filter.py ACCEPTED LOG > FILTERED
       kcsan_filter.py --check ACCEPTED

ACCEPTED (scripts/kcsan-accepted.txt) names plain accesses, one per line:

    <kind> | <function> | <made for> | why

<kind> is KCSAN's name of a plain access ("read", "write", "read-write",
each possibly "(reordered)"),
<function> the function that makes it (the first frame of its stack, as
KCSAN prints it) and <made for> a function that must be further down the
same stack (the caller the access is made for; the same name as <function>
when it makes the access itself). A report ("BUG: KCSAN: ..." up to its
closing line of '=', which it must have, with no line of another report
inside: REPORT_RE) is accepted when each plain access in it (one per racing
access, or one for a race of unknown origin) is named by a line; marked
accesses (READ_ONCE(), atomics and bitops: "marked" in the report) need
none, as KCSAN reports a race only when one side is plain; an assertion
(ASSERT_EXCLUSIVE_*()) is never accepted. An accepted
report is printed as "kcsan-accepted: <title> [<access>: <why>]", without
the "BUG:" that vm-kunit.sh looks for. Every other line, and every other
report, is printed as it is, so the caller's scan still fails on them. A
count of accepted reports goes to stderr.

--check reads ACCEPTED alone and fails on a malformed line.
--report-re prints REPORT_RE's pattern, for grep -E.
--self-test runs the filter on reports written in KCSAN's format, some of
which it must accept and some not; it ends with "N passed, N failed".
"""
import re
import sys

STAMP = re.compile(r'^\[\s*\d+\.\d+\]\s?')
FRAME = re.compile(r'^\s+([A-Za-z_][\w.$:<>]*)\+0x')
# "write (marked) to 0x... of 8 bytes by task 95 on cpu 1:", or
# "race at unknown origin, with read to 0x... of 8 bytes by interrupt on cpu 0:"
ACCESS = re.compile(r'^(?:race at unknown origin, with )?(.+?) to 0x([0-9a-f]+) of (\d+) bytes by (.+?):?$')
KINDS = ('read', 'write', 'read-write',
         'read (reordered)', 'write (reordered)', 'read-write (reordered)')


def load(path):
    """{(kind, function, made_for): why}; exits on a malformed line."""
    accepted = {}
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith('#'):
                continue
            fields = [x.strip() for x in line.split('|', 3)]
            if len(fields) != 4 or fields[0] not in KINDS or not all(fields):
                sys.exit('%s:%d: want "<kind> | <function> | <made for> | why", kind one of %s: %s'
                         % (path, n, ', '.join(KINDS), line))
            accepted[tuple(fields[:3])] = fields[3]
    return accepted


def accesses(block):
    """Each access of a report: (kind, [frames], address, size, by whom),
    kind as KCSAN prints it (scripts/kcsan_attribute.py reads the rest)."""
    out, cur = [], None
    for line in block:
        m = ACCESS.match(line.strip())
        if m:
            cur = (m.group(1), [], int(m.group(2), 16), int(m.group(3)), m.group(4))
            out.append(cur)
        elif cur is not None:
            f = FRAME.match(line)
            if f:
                cur[1].append(f.group(1))
            elif not line.strip():
                cur = None
    return out


def match(accepted, kind, frames):
    """The accepted entry that names this plain access, or None."""
    if not frames:
        return None
    for (k, func, made_for) in accepted:
        if k == kind and frames[0] == func and made_for in frames:
            return (k, func, made_for)
    return None


# A line that starts a report of the kernel log, of any kind: the one list,
# which scripts/vm-kunit.sh reads (--report-re) to fail a boot on any of
# them. Lockdep reports start with "WARNING:", KASAN's and KCSAN's with
# "BUG: KASAN:"/"BUG: KCSAN:", might_sleep()'s with "BUG:"; UBSAN's start
# with "UBSAN:" alone; the explicit names are for the reader. A line of one
# printed inside a KCSAN report (a console interleaves other CPUs' lines)
# keeps the whole report. An extended regular expression of grep -E too.
REPORT_RE = re.compile(
    r'BUG:|kernel BUG at|WARNING:|Oops|Kernel panic|rust_panic|INFO: task .* blocked'
    r'|KASAN:|UBSAN:|KCSAN:|possible recursive locking|inconsistent lock state'
    r'|circular locking|sleeping function called from invalid context')


def report_end(lines, i):
    """The index of the closing line of '=' of the report starting at
    lines[i], or len(lines) when the log ends before it."""
    j = i + 1
    while j < len(lines) and not re.fullmatch(r'=+', STAMP.sub('', lines[j]).strip()):
        j += 1
    return j


def fold(accepted, lines):
    """The filtered lines of a log, and the number of accepted reports."""
    out, i, count = [], 0, 0
    while i < len(lines):
        if 'BUG: KCSAN:' not in lines[i]:
            out.append(lines[i])
            i += 1
            continue
        j = report_end(lines, i)
        block = [STAMP.sub('', x) for x in lines[i:j + 1]]
        acc = accesses(block)
        plain = [(k, fr) for k, fr, *_ in acc if 'marked' not in k]
        hits = [match(accepted, k, fr) for k, fr in plain]
        # Only a whole report, with nothing else of note printed inside it
        # (a console interleaves other CPUs' lines), is ever folded; one
        # whose accesses cannot be read is never.
        closed = j < len(lines)
        alone = not any(REPORT_RE.search(x) for x in block[1:])
        if closed and alone and plain and all(hits):
            title = STAMP.sub('', lines[i]).replace('BUG: KCSAN: ', '').strip()
            out.append('kcsan-accepted: %s [%s]' % (
                title, '; '.join('%s in %s for %s: %s' % (h + (accepted[h],)) for h in hits)))
            count += 1
        else:
            out.extend(lines[i:j + 1])
        i = j + 1
    return out, count


def report(title, *stacks, unknown=False):
    """A KCSAN report: stacks are (access kind, [frames])."""
    lines = ['[   12.345678] ' + '=' * 66, '[   12.345678] BUG: KCSAN: %s' % title, '']
    for n, (kind, frames) in enumerate(stacks):
        prefix = 'race at unknown origin, with ' if unknown else ''
        lines.append('[   12.345678] %s%s to 0xffff888003a1e2c8 of 8 bytes by task %d on cpu %d:'
                     % (prefix, kind, 95 + n, n))
        lines += ['[   12.345678]  %s+0x4c/0x90' % f for f in frames]
        lines.append('[   12.345678] ')
    lines += ['[   12.345678] Reported by Kernel Concurrency Sanitizer on:',
              '[   12.345678] ' + '=' * 66]
    return lines


def self_test():
    accepted = {('read', '__bitmap_subset', 'update_fn'): 'subset',
                ('write', 'update_fn', 'update_fn'): 'copy',
                ('read', '_find_next_and_bit', 'idle_machine_pick_in_node'): 'pick'}
    rust = ('write (marked)', ['test_and_clear_bit', 'rust_helper_test_and_clear_bit',
                               'sched_rust_idle_machine_pick', 'race_fn', 'kthread'])
    cases = [
        ('a named plain read against a marked write', True,
         report('data-race in __bitmap_subset / test_and_clear_bit',
                ('read', ['__bitmap_subset', 'update_fn', 'kthread']), rust)),
        ('a named plain write made by the function itself', True,
         report('data-race in update_fn / test_and_clear_bit',
                ('write', ['update_fn', 'kthread']), rust)),
        ('a race of unknown origin with a named plain read', True,
         report('data-race in __bitmap_subset', ('read', ['__bitmap_subset', 'update_fn']),
                unknown=True)),
        ('the named function, made for another caller', False,
         report('data-race in __bitmap_subset / test_and_clear_bit',
                ('read', ['__bitmap_subset', 'other_fn', 'kthread']), rust)),
        ('the named caller, another function making the access', False,
         report('data-race in __bitmap_or / test_and_clear_bit',
                ('read', ['__bitmap_or', 'update_fn', 'kthread']), rust)),
        ('a named access, but a write where a read is named', False,
         report('data-race in __bitmap_subset / test_and_clear_bit',
                ('write', ['__bitmap_subset', 'update_fn', 'kthread']), rust)),
        # What a list of functions let through: any race inside them.
        ('a new plain write inside the claim, against a named read', False,
         report('data-race in new_helper / _find_next_and_bit',
                ('write', ['new_helper', 'idle_machine_test_and_clear_cpu', 'race_fn']),
                ('read', ['_find_next_and_bit', 'find_next_and_bit_wrap',
                          'idle_machine_pick_in_node', 'race_fn']))),
        ('two plain accesses, one of them named', False,
         report('data-race in __bitmap_subset / new_fn',
                ('read', ['__bitmap_subset', 'update_fn']), ('write', ['new_fn', 'kthread']))),
        ('a reordered plain access that is not named', False,
         report('data-race in __bitmap_subset / test_and_clear_bit',
                ('read (reordered)', ['__bitmap_subset', 'update_fn']), rust)),
        ('an assertion', False,
         report('assert: race in update_fn / test_and_clear_bit',
                ('assert no writes', ['update_fn']), rust)),
        ('a report without its closing line', False,
         report('data-race in __bitmap_subset / test_and_clear_bit',
                ('read', ['__bitmap_subset', 'update_fn']), rust)[:-1]),
        ('a report with a warning inside', False,
         report('data-race in __bitmap_subset / test_and_clear_bit',
                ('read', ['__bitmap_subset', 'update_fn', 'WARNING: at x']), rust)),
        ('a report with another CPU\'s UBSAN line inside', False,
         report('data-race in __bitmap_subset / test_and_clear_bit',
                ('read', ['__bitmap_subset', 'update_fn', 'UBSAN: shift-out-of-bounds in x']),
                rust)),
        ('a report with a hung task line inside', False,
         report('data-race in __bitmap_subset / test_and_clear_bit',
                ('read', ['__bitmap_subset', 'update_fn',
                          'INFO: task kworker/0:1:12 blocked for more than 120 seconds.']),
                rust)),
    ]
    passed = failed = 0
    for name, want, lines in cases:
        out, count = fold(accepted, lines)
        ok = count == int(want) and any('BUG: KCSAN' in x for x in out) != want
        print('%s %s (%s)' % ('ok  ' if ok else 'FAIL', name, 'accepted' if want else 'kept'))
        passed, failed = passed + ok, failed + (not ok)
    print('%d passed, %d failed' % (passed, failed))
    sys.exit(1 if failed else 0)


def main():
    if sys.argv[1:2] == ['--self-test']:
        self_test()
    if sys.argv[1:2] == ['--report-re']:
        print(REPORT_RE.pattern)
        return
    if sys.argv[1:2] == ['--check']:
        print('kcsan-filter: %d accepted access(es) in %s' % (len(load(sys.argv[2])), sys.argv[2]))
        return
    accepted = load(sys.argv[1])
    with open(sys.argv[2], errors='replace') as f:
        lines = f.read().splitlines()
    out, count = fold(accepted, lines)
    print('\n'.join(out))
    print('kcsan-filter: %s: %d accepted KCSAN report(s)' % (sys.argv[2], count), file=sys.stderr)


if __name__ == '__main__':
    main()
