# SPDX-License-Identifier: Apache-2.0
# Python's file-system calls as scripts make them: pathlib, shutil.copytree and
# rmtree, tempfile, flock and fsync, tarfile and zipfile, os.walk and scandir,
# mmap of a file, sqlite3, os.replace, chmod, utime, compileall.
import os, shutil, tempfile, tarfile, zipfile, pathlib, glob, json, sqlite3, fcntl, mmap
root = pathlib.Path('p'); (root / 'src/pkg/sub').mkdir(parents=True)
for i in range(300):
    (root / 'src/pkg' / f'm{i}.py').write_text(f'X = {i}\n' * (i % 7 + 1))
shutil.copytree('p/src', 'p/copy', symlinks=True)
os.symlink('pkg', 'p/copy/alias')
with tempfile.TemporaryDirectory(dir='p') as d:
    with open(os.path.join(d, 'lock'), 'w') as f:
        fcntl.flock(f, fcntl.LOCK_EX); f.write('x'); f.flush(); os.fsync(f.fileno())
    with tarfile.open(os.path.join(d, 'a.tar.gz'), 'w:gz') as t: t.add('p/copy')
    with tarfile.open(os.path.join(d, 'a.tar.gz')) as t:  # (filter= from Python 3.11.4 on; Debian 12 has 3.11.2)
        t.extractall(os.path.join(d, 'x'), **({'filter': 'data'} if hasattr(tarfile, 'data_filter') else {}))
    with zipfile.ZipFile(os.path.join(d, 'a.zip'), 'w') as z:
        for f in glob.glob('p/src/**/*.py', recursive=True): z.write(f)
n = sum(len(files) for _, _, files in os.walk('p'))
with open('p/src/pkg/m1.py', 'r+b') as f:
    m = mmap.mmap(f.fileno(), 0); m[0:1] = b'Y'; m.flush(); m.close()
db = sqlite3.connect('p/db.sqlite'); db.execute('create table t(x)'); db.executemany('insert into t values (?)', [(i,) for i in range(500)]); db.commit(); db.close()
for e in os.scandir('p/copy/pkg'):
    if e.name.endswith('5.py'): os.replace(e.path, e.path + '.bak')
os.chmod('p/copy', 0o755); os.utime('p/src', (0, 0))
shutil.rmtree('p/copy')
json.dump({'n': n}, open('p/out.json', 'w'))
import compileall; compileall.compile_dir('p/src', quiet=1)
