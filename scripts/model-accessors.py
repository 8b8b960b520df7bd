#!/usr/bin/env python3
# model-accessors.py FILE... - rewrites raw reads of the model's columns into
# accessor calls (analyze/model-access.h, docs/dev/model.md):
#   m->copy.bytes[i]              ->  gpa_copy_bytes(m, i)
#   gpa_col_opt(m->kern.graph, i) ->  gpa_kern_graph(m, i)
#   m->nvtx.n                     ->  gpa_nvtx_rows(m)
#   m->nvtx.start (whole column)  ->  gpa_nvtx_start_col(m)
#   !m->nvtx.args (optional)      ->  !gpa_nvtx_has_args(m)
#   const struct gpa_nvtxs *n = &m->nvtx; ... n->start[i]
#                                 ->  gpa_nvtx_start(m, i) (the alias goes)
# The tables and their columns are read from analyze/model.h's column lists,
# so a new column needs no change here. Writes (x[i] = ..., x[i]++, &x[i])
# are left as they are, and so is a table handed whole to a function (a
# parameter of type const struct gpa_nvtxs *): change those by hand. Prints
# each file it changed with the number of rewrites; format the changed lines
# afterwards (git clang-format).
import os, re, sys

def model_columns(path):
    """{table: {column: optional?}} and the tables' struct names, from
    analyze/model.h: every table of GPA_TABLES with the columns of its lists,
    less the encoded ones (GPA_*_CODED_COLS_), which have hand-written
    accessors."""
    text = open(path).read().replace('\\\n', ' ')
    text = re.sub(r'/\*.*?\*/', ' ', text, flags=re.S)
    macros = {}
    for name, body in re.findall(r'^#define (GPA_\w+)\(X\)(.*)$', text, re.M):
        macros[name] = body
    def cols(name):
        if name.endswith('_CODED_COLS_'):
            return []
        body = macros.get(name, '')
        out = re.findall(r'\bX\(\s*\w+\s*,\s*(\w+)\s*\)', body)
        for sub in re.findall(r'\b(GPA_\w+)\(X\)', body):
            out += cols(sub)
        return out
    tabs, types = {}, []
    tables = macros.get('GPA_TABLES', '')
    for tname, field, plain, opt in re.findall(r'\bX\(\s*(\w+)\s*,\s*(\w+)\s*,\s*(\w+)\s*,\s*(\w+)\s*\)', tables):
        types.append(tname)
        tabs[field] = dict([(c, False) for c in cols(plain)] + [(c, True) for c in cols(opt)])
    return tabs, types

COLS, TABLE_TYPES = model_columns(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'analyze', 'model.h'))
OBJ = r'[A-Za-z_]\w*(?:(?:->|\.)[A-Za-z_]\w*|\[[^\[\]]*\])*?'
RAW = re.compile(r'(?<![\w.>&])(?P<obj>' + OBJ + r')(?P<arrow>->|\.)(?P<tab>' + '|'.join(COLS) + r')\.(?P<col>\w+)\[')
OPT = re.compile(r'\bgpa_col_opt(?:8|64)?\((?P<obj>' + OBJ + r')(?P<arrow>->|\.)(?P<tab>' + '|'.join(COLS) + r')\.(?P<col>\w+), ')

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

def expand_aliases(t):
    """const struct gpa_<table> *v = &EXPR->tab; ... v->x  ->  EXPR->tab.x, to the
    end of the function (the next line that is a lone closing brace)."""
    types = '|'.join(TABLE_TYPES)
    decl = re.compile(r'^[ \t]*const struct (?:' + types + r') \*(?P<v>\w+) = &(?P<obj>' + OBJ +
                      r')->(?P<tab>' + '|'.join(COLS) + r');[ \t]*\n', re.M)
    n = 0
    while True:
        md = decl.search(t)
        if not md:
            return t, n
        fn_end = t.find('\n}', md.end())
        fn_end = len(t) if fn_end < 0 else fn_end
        body = re.sub(r'(?<![\w.>])' + md.group('v') + r'->',
                      lambda _: md.group('obj') + '->' + md.group('tab') + '.', t[md.end():fn_end])
        t = t[:md.start()] + body + t[fn_end:]
        n += 1

def whole_columns(t):
    """m->tab.col not indexed: gpa_tab_col_col(m), or gpa_tab_has_col(m) for an
    optional column tested for existence (after !, before && || ?)."""
    ref = re.compile(r'(?<![\w.>&])(?P<obj>' + OBJ + r')(?P<arrow>->|\.)(?P<tab>' + '|'.join(COLS) +
                     r')\.(?P<col>\w+)\b(?!\s*[\[(])')
    n = 0
    def sub(mt):
        nonlocal n
        tab, col = mt.group('tab'), mt.group('col')
        if col not in COLS[tab]:
            return mt.group(0)
        after = mt.string[mt.end():].lstrip(' \t')
        if re.match(r'(=(?!=)|\+\+|--|[-+*/%&|^]=)', after):
            return mt.group(0)
        obj = objarg(mt.group('obj'), mt.group('arrow'))
        before = mt.string[:mt.start()].rstrip(' \t')
        n += 1
        if COLS[tab][col] and (before.endswith('!') or re.match(r'(&&|\|\||\?)', after)):
            return 'gpa_%s_has_%s(%s)' % (tab, col, obj)
        return 'gpa_%s_%s_col(%s)' % (tab, col, obj)
    t = ref.sub(sub, t)
    return t, n

def rewrite(t):
    t, n = expand_aliases(t)
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
    t, w = whole_columns(t)
    return t, n + k + w

for f in sys.argv[1:]:
    s = open(f).read()
    t, n = rewrite(s)
    if n:
        open(f, 'w').write(t)
        print('%s: %d' % (f, n))
