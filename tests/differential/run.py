#!/usr/bin/env python3
"""Everyday-SQL survey: runs each case on Strata (`strata local`) and on ClickHouse (chdb)
and compares their TSV output. See README.md.
Usage: python run.py [cases_module ...] [-k substring]
Writes results.jsonl and report.txt in the working directory."""
import os, sys, re, json, subprocess, importlib
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
os.environ['TZ'] = 'UTC'
import chdb
from chdb import session

STRATA = os.environ.get('STRATA', os.path.expanduser(os.environ.get('CARGO_TARGET_DIR', 'target') + '/debug/strata'))

def norm(out):
    out = re.sub(r'"statistics":\s*\{[^}]*\}', '"statistics":{}', out)
    out = re.sub(r'"elapsed":\s*[0-9.e-]+', '"elapsed":0', out)
    out = re.sub(r'<statistics>.*?</statistics>', '<statistics/>', out, flags=re.S)
    out = re.sub(r'\n*$', '', out)
    return out

numre = re.compile(r'-?\d+\.\d+(?:e[-+]?\d+)?')
def close(a, b):
    if a == b: return True
    ta = numre.split(a); tb = numre.split(b)
    if ta != tb: return False
    na = numre.findall(a); nb = numre.findall(b)
    if len(na) != len(nb): return False
    for x, y in zip(na, nb):
        fx, fy = float(x), float(y)
        if abs(fx - fy) > 1e-7 * max(1, abs(fx), abs(fy)): return False
    return True

def run_strata(sql):
    try:
        p = subprocess.run([STRATA, 'local', '-q', sql], capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        return None, 'TIMEOUT'
    if p.returncode != 0:
        return p.stdout, (p.stderr.strip() or f'rc={p.returncode}')
    return p.stdout, None

def run_chdb(sql, i):
    import tempfile, shutil
    d = tempfile.mkdtemp(prefix='chs')
    s = session.Session(d)
    try:
        s.query('SET max_execution_time=30', 'TSV')
        r = s.query(sql, 'TSV')
        out = r.bytes().decode('utf-8', 'replace') if hasattr(r, 'bytes') else str(r)
        return out, None
    except Exception as e:
        return None, str(e).strip()
    finally:
        try: s.close()
        except Exception: pass
        shutil.rmtree(d, ignore_errors=True)

def main():
    args = sys.argv[1:]
    filt = None
    if '-k' in args:
        k = args.index('-k'); filt = args[k+1]; del args[k:k+2]
    mods = args or ['cases']
    cases = []
    for m in mods:
        cases += importlib.import_module(m).CASES
    res = []
    for i, (name, sql) in enumerate(cases):
        if filt and filt not in name: continue
        so, se = run_strata(sql)
        co, ce = run_chdb(sql, i)
        if se is None and ce is None:
            st = 'MATCH' if close(norm(so), norm(co)) else 'DIFF'
        elif se and ce: st = 'BOTH_ERR'
        elif se: st = 'STRATA_ERR'
        else: st = 'CHDB_ERR'
        r = dict(name=name, sql=sql, status=st, strata=so if se is None else None, strata_err=se,
                 chdb=co if ce is None else None, chdb_err=ce)
        res.append(r)
        with open('results.partial.jsonl', 'a') as pf: pf.write(json.dumps(r) + '\n')
        print(f'{st:10s} {name}', flush=True)
    with open('results.jsonl', 'w') as f:
        for r in res: f.write(json.dumps(r) + '\n')
    from collections import Counter
    c = Counter(r['status'] for r in res)
    with open('report.txt', 'w') as f:
        f.write(f'total={len(res)} {dict(c)}\n\n')
        for r in res:
            if r['status'] in ('MATCH',): continue
            f.write(f"=== [{r['status']}] {r['name']}\n{r['sql']}\n--- strata:\n{(r['strata_err'] or r['strata'] or '')[:1500]}\n--- chdb:\n{(r['chdb_err'] or r['chdb'] or '')[:1500]}\n\n")
    print(f'total={len(res)} {dict(c)}')

if __name__ == '__main__':
    main()
