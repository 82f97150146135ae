#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Name the memory of each KCSAN report in a kernel log, and look for one.

Usage: kcsan_attribute.py SYSTEM_MAP LOG [--want SYMBOL+0xOFF[:FRAME]]...

For each report ("BUG: KCSAN: ..." up to its closing line of '='), prints
its title and, per access, its kind, its address as the static symbol that
holds it (System.map: the last symbol at or below the address, when the
address is below the next one; "?" for heap and stack memory), and its
first frame.

--want names an access to look for: the symbol and the offset of the word
read or written, and optionally a function that must be in the access's
stack. The script ends with one line per wanted access, found or not, then
"N passed, N failed" (a wanted access not found fails); with no --want it
only lists, and passes.

make kcsan-upstream uses it to show that a report of our KCSAN kernel
(the same word, read by the same C operation) also comes from upstream's
own code in a kernel without our options (docs/testing.md).
"""
import bisect
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kcsan_filter import STAMP, accesses, report_end  # noqa: E402

WANT = re.compile(r'^([A-Za-z_][\w.]*)\+0x([0-9a-f]+)(?::([A-Za-z_]\w*))?$')


def load_map(path):
    """Sorted (address, name) of the data and text symbols."""
    syms = []
    with open(path) as f:
        for line in f:
            parts = line.split()
            if len(parts) == 3 and parts[1] in 'bBdDrRtTvV':
                syms.append((int(parts[0], 16), parts[2]))
    syms.sort()
    return syms


def name(syms, addrs, addr):
    i = bisect.bisect_right(addrs, addr) - 1
    # Past the last symbol, or in no symbol's range (heap, stack, vmalloc):
    # kernel addresses above the image are not resolved.
    if i < 0 or i + 1 >= len(syms) or addr >= syms[i + 1][0]:
        return '?'
    return '%s+0x%x' % (syms[i][1], addr - syms[i][0])


def reports(lines):
    """Each report: (title, its accesses as kcsan_filter.accesses() reads
    them), the report cut as kcsan_filter.py cuts it."""
    for i, line in enumerate(lines):
        if 'BUG: KCSAN:' in line:
            j = report_end(lines, i)
            if j < len(lines):
                block = [STAMP.sub('', x) for x in lines[i:j + 1]]
                yield block[0].replace('BUG: KCSAN: ', '').strip(), accesses(block)


def main(argv):
    wants = []
    args = []
    it = iter(argv)
    for a in it:
        if a == '--want':
            w = next(it, None)
            m = WANT.match(w or '')
            if not m:
                sys.exit('kcsan_attribute.py: --want SYMBOL+0xOFF[:FRAME], not %r' % w)
            wants.append((w, m.group(1), int(m.group(2), 16), m.group(3)))
        else:
            args.append(a)
    if len(args) != 2:
        sys.exit(__doc__.split('\n\n')[1])
    syms = load_map(args[0])
    addrs = [a for a, _ in syms]
    bases = {n: a for a, n in reversed(syms)}
    for w, sym, _, _ in wants:
        if sym not in bases:
            sys.exit('kcsan_attribute.py: %s: no symbol %s in %s' % (w, sym, args[0]))
    with open(args[1], errors='replace') as f:
        found = list(reports(f.read().splitlines()))

    hits = {w[0]: 0 for w in wants}
    print('%d KCSAN report(s) in %s' % (len(found), args[1]))
    for title, accesses in found:
        print('- %s' % title)
        for kind, frames, addr, size, who in accesses:
            where = name(syms, addrs, addr)
            print('    %s of %d bytes at %s (0x%x) by %s: %s' %
                  (kind, size, where, addr, who, ' < '.join(frames[:4]) or '?'))
            for w, sym, off, frame in wants:
                # The word that holds the wanted offset.
                if not bases[sym] + off <= addr < bases[sym] + off + 8:
                    continue
                if frame and frame not in frames:
                    continue
                hits[w] += 1
    passed = failed = 0
    for w, *_ in wants:
        if hits[w]:
            passed += 1
            print('found: %s (%d access(es))' % (w, hits[w]))
        else:
            failed += 1
            print('NOT found: %s' % w)
    print('%d passed, %d failed' % (passed, failed))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
