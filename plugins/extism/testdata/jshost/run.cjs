// run.cjs calls exports of an Extism module through Extism's JavaScript
// host and prints what each returned, for plugins/extism's cross-check:
//
//   node run.cjs NODE_MODULES MODULE.wasm < {"config": {...}, "calls": [{"fn": "describe", "input": ""}]}
//
// It prints a JSON array with, per call, {"output": "..."} or {"error": "..."}.
const { createRequire } = require("node:module");
const fs = require("node:fs");
const path = require("node:path");

async function main() {
  const [modules, wasm] = process.argv.slice(2);
  const require2 = createRequire(path.join(modules, "x.js"));
  const extism = require2("@extism/extism");
  const req = JSON.parse(fs.readFileSync(0, "utf8"));
  const plugin = await extism.createPlugin(
    { wasm: [{ data: fs.readFileSync(wasm) }] },
    {
      useWasi: true,
      config: req.config || {},
      allowedHosts: [],
      runInWorker: false,
      // The plugin's log goes to stderr: stdout carries the answers.
      logger: new console.Console({ stdout: process.stderr, stderr: process.stderr }),
    },
  );
  const out = [];
  for (const c of req.calls) {
    try {
      const res = await plugin.call(c.fn, c.input);
      out.push({ output: res === null ? "" : res.text() });
    } catch (e) {
      out.push({ error: String(e && e.message ? e.message : e) });
    }
  }
  await plugin.close();
  process.stdout.write(JSON.stringify(out));
}

main().catch((e) => {
  process.stderr.write(String(e && e.stack ? e.stack : e) + "\n");
  process.exit(1);
});
