#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# strace_walks.py: how many path components a process tree's syscalls walk on
# a mount (with entry-timeout 0, one FUSE LOOKUP each), per syscall kind.
# Input: `strace -f -qq -y -e trace=%file,%desc,%process -o FILE ...`.
# Used for the attribution in results/request-fidelity-2026-12-06.txt.
#   strace_walks.py walks STRACE MNT > X.walks     per kind: calls, components
#   strace_walks.py compare ORIG.walks REPL.walks  per call family, original vs replay
# A walk that fails early is counted in full (an overcount for ENOENT). The
# first process's cwd is taken to be this script's: run it where strace ran.
import collections, os, re, sys


def walks(strace, mnt):
    mnt = mnt.rstrip("/")
    line_re = re.compile(r'^(\d+)\s+(.*)$')
    pending = {}
    cwd = {}
    calls = collections.Counter(); comps = collections.Counter()
    PATHCALLS = {'openat','openat2','newfstatat','statx','faccessat2','faccessat','unlinkat','mkdirat','renameat','renameat2',
                 'readlinkat','utimensat','fchmodat','symlinkat','linkat','mknodat','fchownat','execve','chdir',
                 'stat','lstat','access','unlink','rmdir','mkdir','rename','readlink','chmod','open','creat','symlink','link','newlstat','newstat','truncate','statfs','getxattr','lgetxattr','listxattr','llistxattr','setxattr'}
    def on_mnt(p): return p == mnt or p.startswith(mnt + '/')
    def ncomp(base, rel):
        # components of rel walked on the mount when resolved from base
        parts = [c for c in rel.split('/') if c not in ('', '.')]
        if rel.startswith('/'): base = '/'
        n = 0; cur = base
        for c in parts:
            cur = os.path.dirname(cur) if c == '..' else cur.rstrip('/') + '/' + c
            if on_mnt(cur) and cur != mnt: n += 1
        return n, cur
    for raw in open(strace):
        m = line_re.match(raw)
        if not m: continue
        pid, rest = m.group(1), m.group(2)
        if rest.endswith('<unfinished ...>'):
            pending[pid] = rest[:-len('<unfinished ...>')]; continue
        r = re.match(r'<\.\.\. (\w+) resumed>(.*)', rest)
        if r:
            rest = pending.pop(pid, '') + r.group(2)
        sm = re.match(r'(\w+)\((.*)\)\s+= (-?\d+|\?)', rest)
        if not sm: continue
        name, args, ret = sm.group(1), sm.group(2), sm.group(3)
        c = cwd.get(pid, os.getcwd())
        if name in ('clone','clone3','fork','vfork') and ret.lstrip('-').isdigit() and int(ret) > 0:
            cwd[ret] = c; continue
        if name == 'chdir' and ret == '0':
            p = re.match(r'"([^"]*)"', args).group(1); cwd[pid] = os.path.normpath(os.path.join(c, p)); 
        if name == 'fchdir' and ret == '0':
            fm = re.match(r'\d+<([^>]*)>', args)
            if fm: cwd[pid] = fm.group(1)
        # base dir: first arg decorated fd, or AT_FDCWD, or no dirfd
        fdm = re.match(r'(\d+|AT_FDCWD)<([^>]*)>, "((?:[^"\\]|\\.)*)"', args)
        cw = re.match(r'AT_FDCWD, "((?:[^"\\]|\\.)*)"', args)
        pm = re.match(r'"((?:[^"\\]|\\.)*)"', args)
        flags = ''
        if name in PATHCALLS and (fdm or cw or pm):
            if fdm: base, rel = fdm.group(2), fdm.group(3)
            elif cw: base, rel = c, cw.group(1)
            else: base, rel = c, pm.group(1)
            n, res = ncomp(base, rel)
            if not (on_mnt(res) or (on_mnt(base) and not rel.startswith('/'))): continue
            if rel == '' : kind = name + ' fd(AT_EMPTY_PATH)'
            else:
                if name in ('openat', 'openat2'):
                    f = re.search(r'(O_\w+(?:\|O_\w+)*)', args[len(rel):]); fl = f.group(1) if f else ''
                    flags = ' ' + '|'.join(x for x in fl.split('|') if x in ('O_PATH','O_DIRECTORY','O_CREAT','O_NOFOLLOW'))
                viafd = fdm and fdm.group(1) != 'AT_FDCWD'
                kind = name + flags + (' from-fd' if viafd else ' from-cwd')
                if viafd and base == mnt: kind += '(root)'
            calls[kind] += 1; comps[kind] += n
        elif name in ('fstat','newfstatat','fstatfs','fchmod','fchown','futimens','getdents64','fgetxattr','flistxattr'):
            fm = re.match(r'(\d+)<([^>]*)>', args)
            if fm and on_mnt(fm.group(2)):
                calls[name + ' on fd'] += 1
    tot_c = sum(comps.values())
    print(f'{"kind":45} {"calls":>8} {"components":>11}')
    for k, v in sorted(calls.items(), key=lambda kv: -comps[kv[0]] - kv[1] / 1e6):
        print(f'{k:45} {v:8d} {comps[k]:11d}')
    print(f'{"TOTAL components walked (model for LOOKUP)":45} {sum(calls.values()):8d} {tot_c:11d}')


def fam(kind):
    k = kind
    if k.startswith(('newfstatat','statx')) and 'AT_EMPTY' not in k: return 'stat(path)'
    if k.startswith(('access','faccessat')): return 'access(path)'
    if k.startswith(('openat','open')):
        if 'O_PATH|O_DIRECTORY' in k: return 'open O_PATH parent dir (replayer)'
        if 'O_PATH' in k: return 'open O_PATH (replayer)'
        if 'O_CREAT' in k: return 'open O_CREAT'
        if 'O_DIRECTORY' in k: return 'open dir'
        return 'open file'
    for a,b in (('unlink','unlink/rmdir'),('rmdir','unlink/rmdir'),('mkdir','mkdir'),('rename','rename'),('utimensat','utimensat(path)'),('chmod','chmod(path)'),('fchmodat','chmod(path)'),('readlink','readlink'),('symlink','symlink'),('chdir','chdir')):
        if k.startswith(a): return b
    return None
def load(f):
    c = collections.Counter(); n = collections.Counter()
    for line in open(f):
        m = re.match(r'(.*?)\s+(\d+)\s+(\d+)$', line)
        if not m or m.group(1).startswith('TOTAL'): continue
        fm = fam(m.group(1).strip())
        if fm: c[fm] += int(m.group(2)); n[fm] += int(m.group(3))
    return c, n

def compare(orig, repl):
    oc, on = load(orig); rc, rn = load(repl)
    print(f'{"call family":36} {"orig calls":>10} {"orig comps":>10} {"repl calls":>10} {"repl comps":>10} {"extra comps":>11}')
    for k in sorted(set(oc)|set(rc), key=lambda k: -(rn[k]-on[k])):
        print(f'{k:36} {oc[k]:10d} {on[k]:10d} {rc[k]:10d} {rn[k]:10d} {rn[k]-on[k]:11d}')
    print(f'{"total":36} {sum(oc.values()):10d} {sum(on.values()):10d} {sum(rc.values()):10d} {sum(rn.values()):10d} {sum(rn.values())-sum(on.values()):11d}')


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "walks":
        walks(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 4 and sys.argv[1] == "compare":
        compare(sys.argv[2], sys.argv[3])
    else:
        sys.exit("usage: strace_walks.py walks STRACE MNT | compare ORIG.walks REPL.walks")
