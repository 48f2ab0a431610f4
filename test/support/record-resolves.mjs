// Preloaded with --import: records what the process loads, for test/e2e/lazy-imports.test.ts. Appends to the file
// named by $RECORD_RESOLVES, one a line, tab-separated: every ESM resolution (`specifier URL`, from the module.register
// hook in record-resolves-hook.mjs) and, because CommonJS require() does not pass through that hook on Node 20,
// at exit every file in require.cache (`require PATH`).
import {appendFileSync} from 'node:fs'
import {createRequire, register} from 'node:module'

const out = process.env.RECORD_RESOLVES
if (out) {
  register('./record-resolves-hook.mjs', import.meta.url, {data: {out}})
  process.on('exit', () => {
    const files = Object.keys(createRequire(import.meta.url).cache)
    if (files.length > 0) appendFileSync(out, files.map((f) => `require\t${f}\n`).join(''))
  })
}
