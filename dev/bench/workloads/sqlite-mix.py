# SPDX-License-Identifier: Apache-2.0
# A database's file-system calls: SQLite in rollback-journal mode (each commit
# makes, writes, fsyncs and deletes its -journal), in WAL mode with two
# processes at once (the -wal appended and fsynced, the -shm mapped shared by
# both, a checkpoint), then VACUUM (a temporary copy renamed over) and a
# backup to a second file. Locks are fcntl's byte-range locks.
import os, sqlite3, multiprocessing, random

def rollback(path):
    db = sqlite3.connect(path, isolation_level=None)
    db.execute('pragma journal_mode=delete'); db.execute('create table t(k integer primary key, v text)')
    for i in range(120):
        db.execute('begin'); db.executemany('insert into t(v) values (?)', [('x' * (j % 97),) for j in range(40)])
        db.execute('commit')
    db.execute('create index tv on t(v)'); db.execute('delete from t where k % 3 = 0')
    db.close()

def wal_writer(path, n):
    db = sqlite3.connect(path, timeout=30, isolation_level=None)
    for i in range(n):
        db.execute('begin immediate'); db.executemany('insert into w(v) values (?)', [(random.random(),) for _ in range(25)])
        db.execute('commit')
    db.close()

def wal_reader(path, n):
    db = sqlite3.connect(path, timeout=30)
    for i in range(n):
        db.execute('select count(*), sum(v) from w').fetchone()
    db.close()

if __name__ == '__main__':
    os.makedirs('db', exist_ok=True)
    rollback('db/roll.sqlite')
    db = sqlite3.connect('db/wal.sqlite', isolation_level=None)
    db.execute('pragma journal_mode=wal'); db.execute('create table w(k integer primary key, v real)'); db.close()
    ps = [multiprocessing.Process(target=wal_writer, args=('db/wal.sqlite', 150)),
          multiprocessing.Process(target=wal_reader, args=('db/wal.sqlite', 300))]
    for p in ps: p.start()
    for p in ps: p.join()
    assert all(p.exitcode == 0 for p in ps)
    db = sqlite3.connect('db/wal.sqlite', isolation_level=None)
    db.execute('pragma wal_checkpoint(truncate)'); db.execute('vacuum')
    with sqlite3.connect('db/copy.sqlite') as dst: db.backup(dst)
    db.close()
    n = sqlite3.connect('db/copy.sqlite').execute('select count(*) from w').fetchone()[0]
    assert n == 150 * 25, n
