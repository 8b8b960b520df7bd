#!/usr/bin/env python3
# model-accessors.py FILE... - rewrites raw reads of the model's columns into
# accessor calls (analyze/model-access.h, docs/dev/model.md):
#   m->copy.bytes[i]              ->  gpa_copy_bytes(m, i)
#   gpa_col_opt(m->kern.graph, i) ->  gpa_kern_graph(m, i)
#   m->nvtx.n                     ->  gpa_nvtx_rows(m)
# Writes (x[i] = ..., x[i]++, &x[i]), whole columns handed to a helper and
# tests of whether an optional column exists are left as they are. Prints
# each file it changed with the number of rewrites; format the changed lines
# afterwards (git clang-format).
import re, sys
COLS = {
 'copy': 'start end bytes stream corr rcorr api dev copy_kind src_kind dst_kind flags graph',
 'set': 'start end bytes stream corr api dev memory_kind graph',
 'sync': 'start end corr stream api proc context event_id dev_id sync_id rec_corr rec_stream rec_api type',
 'nvtx': 'start end name domain thread parent color depth type origin args',
 'ovh': 'start end kind proc',
 'mem': 'ts addr bytes thread where op flags total_alloc total_res corr',
 'gpu': 'op',
 'kern': 'api graph corr',
 'api': 'corr nvtx ret cbid domain captured',
}
COLS = {k: set(v.split()) for k, v in COLS.items()}
OBJ = r'[A-Za-z_]\w*(?:(?:->|\.)[A-Za-z_]\w*|\[[^\[\]]*\])*?'
RAW = re.compile(r'(?<![\w.>&])(?P<obj>' + OBJ + r')(?P<arrow>->|\.)(?P<tab>' + '|'.join(COLS) + r')\.(?P<col>\w+)\[')
OPT = re.compile(r'\bgpa_col_opt8?\((?P<obj>' + OBJ + r')(?P<arrow>->|\.)(?P<tab>' + '|'.join(COLS) + r')\.(?P<col>\w+), ')

def close(t, i, o='[', c=']'):
    d = 0
    while i < len(t):
        if t[i] == o: d += 1
        elif t[i] == c:
            d -= 1
            if d == 0: return i
        i += 1
    return -1

def objarg(obj, arrow):
    return obj if arrow == '->' else '&' + obj

def rewrite(t):
    n = 0
    out, pos = [], 0
    for mt in OPT.finditer(t):
        if mt.group('col') not in COLS[mt.group('tab')]:
            continue
        end = close(t, mt.start() + t[mt.start():].index('('), '(', ')')
        idx = t[mt.end():end]
        out.append(t[pos:mt.start()])
        out.append('gpa_%s_%s(%s, %s)' % (mt.group('tab'), mt.group('col'), objarg(mt.group('obj'), mt.group('arrow')), idx))
        pos = end + 1
        n += 1
    out.append(t[pos:])
    t = ''.join(out)
    while True:
        changed = False
        for mt in RAW.finditer(t):
            if mt.group('col') not in COLS[mt.group('tab')]:
                continue
            lb = mt.end() - 1
            rb = close(t, lb)
            if rb < 0:
                continue
            after = t[rb + 1:].lstrip(' \t')
            before = t[:mt.start()].rstrip(' \t')
            if re.match(r'(=(?!=)|\+\+|--|[-+*/%&|^]=|<<=|>>=|\.|\[)', after) or before.endswith('&') and not before.endswith('&&') or before.endswith('++') or before.endswith('--'):
                continue
            idx = t[lb + 1:rb]
            rep = 'gpa_%s_%s(%s, %s)' % (mt.group('tab'), mt.group('col'), objarg(mt.group('obj'), mt.group('arrow')), idx)
            t = t[:mt.start()] + rep + t[rb + 1:]
            n += 1
            changed = True
            break
        if not changed:
            break
    # row counts: m->copy.n -> gpa_copy_rows(m), but for assignments
    def rows(mt):
        after = t2[mt.end():].lstrip(' \t')
        if re.match(r'(=(?!=)|\+\+|--|[-+*/]=)', after):
            return mt.group(0)
        return 'gpa_%s_rows(%s)' % (mt.group('tab'), objarg(mt.group('obj'), mt.group('arrow')))
    ROWS = re.compile(r'(?<![\w.>&])(?P<obj>' + OBJ + r')(?P<arrow>->|\.)(?P<tab>' + '|'.join(COLS) + r')\.n\b(?!\s*\()')
    t2 = t
    t, k = ROWS.subn(rows, t2)
    return t, n + k

for f in sys.argv[1:]:
    s = open(f).read()
    t, n = rewrite(s)
    if n:
        open(f, 'w').write(t)
        print('%s: %d' % (f, n))
