// Node's fs calls as build tools make them: fs.promises mkdir -r, writeFile,
// cp -r (which passes the source's st_mode to each create), copyFile, mkdtemp,
// rename, symlink, utimes, truncate, appendFile, positioned write + datasync,
// readdir withFileTypes, stat, streams, fs.watch, access, rm -r.
const fs = require('fs'), fsp = require('fs/promises'), path = require('path'), os = require('os');
(async () => {
  await fsp.mkdir('t/a/b', { recursive: true });
  for (let i = 0; i < 200; i++) await fsp.writeFile(`t/a/f${i}.txt`, 'x'.repeat(i * 10));
  await fsp.cp('t/a', 't/c', { recursive: true });
  fs.copyFileSync('t/a/f199.txt', 't/copy.txt', fs.constants.COPYFILE_FICLONE);
  const d = await fsp.mkdtemp('t/tmp-');
  await fsp.rename('t/copy.txt', path.join(d, 'moved.txt'));
  await fsp.symlink('../a/f1.txt', 't/c/link');
  await fsp.utimes('t/a/f1.txt', new Date(0), new Date(0));
  await fsp.truncate('t/a/f2.txt', 3);
  await fsp.appendFile('t/a/f3.txt', 'more');
  const h = await fsp.open('t/a/f4.txt', 'r+'); await h.write('abc', 10); await h.datasync(); await h.close();
  const names = await fsp.readdir('t/c', { withFileTypes: true });
  let n = 0; for (const e of names) if (e.isFile()) n += (await fsp.stat(path.join('t/c', e.name))).size;
  await new Promise(r => fs.createReadStream('t/a/f150.txt').pipe(fs.createWriteStream('t/stream.txt')).on('finish', r));
  const w = fs.watch('t/a'); await fsp.writeFile('t/a/watched', 'w'); w.close();
  await fsp.access('t/a/nothere').catch(() => {});
  await fsp.rm('t/c', { recursive: true, force: true });
  await fsp.rm(d, { recursive: true });
  console.log(n);
})();
