// The memory snapshot the "Compile a config" page starts Python from (run by scripts/build_book.py):
//
//     node scripts/pyodide_snapshot.mjs PYODIDE_DIR BUNDLE.zip OUT.bin.gz
//
// Boots Pyodide (the npm package in PYODIDE_DIR) in Node, unpacks the page's flashtune bundle into site-packages,
// runs flashtune.cli.web.warm_up() (the form's choices and a few compiles), and writes Pyodide's memory snapshot,
// gzipped. The page restores it instead of starting the interpreter and importing flashtune itself: those two
// steps were most of the wait before the first compile. The snapshot holds only the WebAssembly memory; the page
// still unpacks the same bundle into its file system (Pyodide's files live outside that memory).
//
// Pyodide marks its snapshot options (_makeSnapshot, _loadSnapshot) as internal: the snapshot is tied to the exact
// Pyodide build (it checks the build id on restore), which book/web/package-lock.json pins.
import { readFileSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { gzipSync } from "node:zlib";

const [pyodideDir, bundlePath, outPath] = process.argv.slice(2);
if (!outPath) {
  console.error("usage: node scripts/pyodide_snapshot.mjs PYODIDE_DIR BUNDLE.zip OUT.bin.gz");
  process.exit(2);
}
const { loadPyodide } = await import(pathToFileURL(resolve(pyodideDir, "pyodide.mjs")).href);
try {
  const py = await loadPyodide({ indexURL: resolve(pyodideDir) + "/", _makeSnapshot: true });
  const site = py.runPython("import sysconfig; sysconfig.get_path('purelib')");
  py.unpackArchive(new Uint8Array(readFileSync(bundlePath)), "zip", { extractDir: site });
  py.runPython("import gc\nfrom flashtune.cli import web\nweb.warm_up()\ngc.collect()");
  const snapshot = py.makeMemorySnapshot();
  writeFileSync(outPath, gzipSync(snapshot, { level: 6 }));
  console.log(`${outPath}: ${snapshot.length} bytes of memory`);
} catch (error) {
  // a Python error's message is its traceback; the stack would only add Pyodide's minified source
  console.error(`pyodide_snapshot: ${error.message}`);
  process.exit(1);
}
