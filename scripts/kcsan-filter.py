#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Replace the accepted KCSAN reports of a kernel log by one line each.

Usage: kcsan-filter.py ACCEPTED LOG > FILTERED

ACCEPTED (scripts/kcsan-accepted.txt) names functions, one per line, with
the reason ("function | why"). A report ("BUG: KCSAN: ..." up to its closing
line of '=', which it must have, with no other BUG: or WARNING: line inside)
is accepted when each of its stacks (one per racing access, or
one for a race of unknown origin) has a frame in a named function; it is
then printed as "kcsan-accepted: <title> [<function>: <why>]", without the
"BUG:" that vm-kunit.sh looks for. Every other line, and every other report,
is printed as it is, so the caller's scan still fails on them. A count of
accepted reports goes to stderr.
"""
import re
import sys

STAMP = re.compile(r'^\[\s*\d+\.\d+\]\s?')
FRAME = re.compile(r'^\s+([A-Za-z_][\w.$:<>]*)\+0x')


def load(path):
    why = {}
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith('#'):
                continue
            func, _, reason = line.partition('|')
            why[func.strip()] = reason.strip()
    return why


def stacks(block):
    """The frames of each stack of a report, as lists of function names."""
    out, cur = [], None
    for line in block:
        if ' by task ' in line or 'race at unknown origin' in line:
            cur = []
            out.append(cur)
        elif cur is not None:
            m = FRAME.match(line)
            if m:
                cur.append(m.group(1))
            elif not line.strip():
                cur = None
    return out


def main():
    why = load(sys.argv[1])
    with open(sys.argv[2], errors='replace') as f:
        lines = f.read().splitlines()
    out, i, accepted = [], 0, 0
    while i < len(lines):
        if 'BUG: KCSAN:' not in lines[i]:
            out.append(lines[i])
            i += 1
            continue
        j = i + 1
        while j < len(lines) and not re.fullmatch(r'=+', STAMP.sub('', lines[j]).strip()):
            j += 1
        block = [STAMP.sub('', x) for x in lines[i:j + 1]]
        st = stacks(block)
        hits = [next((fn for fn in s if fn in why), None) for s in st]
        # Only a whole report, with nothing else of note printed inside it
        # (a console interleaves other CPUs' lines), is ever folded.
        closed = j < len(lines)
        alone = not any('BUG:' in x or 'WARNING:' in x for x in block[1:])
        if closed and alone and st and all(hits):
            title = STAMP.sub('', lines[i]).replace('BUG: KCSAN: ', '').strip()
            out.append('kcsan-accepted: %s [%s: %s]' % (title, hits[0], why[hits[0]]))
            accepted += 1
        else:
            out.extend(lines[i:j + 1])
        i = j + 1
    print('\n'.join(out))
    print('kcsan-filter: %s: %d accepted KCSAN report(s)' % (sys.argv[2], accepted), file=sys.stderr)


if __name__ == '__main__':
    main()
