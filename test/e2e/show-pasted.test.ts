// `ipvs show`, `routes show` and `nft show --from-file` of pasted input, through the built executable (run `npm run build`
// first): each fixture in test/fixtures/pasted/{ipvs,routes} gives exit 0, a non-empty view, its warnings after the
// table (FILE:LINE) and the same in -o json as `warnings` [{line, message}]; --strict reads as before (exit 2).
import assert from 'node:assert/strict'
import {readdirSync} from 'node:fs'
import {describe, test} from 'node:test'
import {fixturePath} from '../support/golden.js'
import {runCli} from '../support/run-cli.js'

const VIEWS = [
  {cmd: ['ipvs', 'show'], dir: 'ipvs', items: 'virtualServers', header: /^VIRTUAL SERVER +SCHEDULER/m},
  {cmd: ['routes', 'show'], dir: 'routes', items: 'routes', header: /^DEVICE +DESTINATION +TYPE/m},
  {cmd: ['nft', 'show'], dir: 'nft', items: 'tables', header: /^table ip kube-proxy: \d+ chains/m},
] as const

describe('show views of pasted input (built CLI)', () => {
  for (const v of VIEWS) {
    const files = readdirSync(fixturePath(`pasted/${v.dir}`)).filter((f) => f.endsWith('.txt') && !f.includes('.golden.'))
    for (const name of files) {
      test(`${v.cmd.join(' ')} ${name}: a view plus warnings, in the table and in -o json; --strict refuses it`, async () => {
        const file = fixturePath(`pasted/${v.dir}/${name}`)
        const table = await runCli([...v.cmd, '--from-file', file])
        assert.equal(table.exitCode, 0, table.stderr)
        assert.match(table.stdout, v.header)
        assert.equal(table.stderr, '')
        const warningLines = table.stdout.split('\n').filter((l) => l.startsWith('warning: '))
        assert.ok(warningLines.length > 0)
        const json = await runCli([...v.cmd, '--from-file', file, '-o', 'json'])
        assert.equal(json.exitCode, 0, json.stderr)
        const doc = JSON.parse(json.stdout) as Record<string, unknown> & {warnings: Array<{line: number; message: string}>}
        assert.ok((doc[v.items] as unknown[]).length > 0)
        assert.deepEqual(warningLines, doc.warnings.map((w) => `warning: ${file}:${w.line}: ${w.message}`))
        const strict = await runCli([...v.cmd, '--strict', '--from-file', file])
        assert.equal(strict.exitCode, 2)
        assert.match(strict.stderr, /^error: /)
      })
    }
  }

  test('a whole listing: no warnings, an empty warnings array in -o json', async () => {
    for (const [cmd, f] of [[['ipvs', 'show'], 'parse/ipvs/list.txt'], [['routes', 'show'], 'parse/routes/ip-route.txt'], [['nft', 'show'], 'parse/nft/list-ruleset.txt']] as const) {
      const r = await runCli([...cmd, '--from-file', fixturePath(f), '-o', 'json'])
      assert.equal(r.exitCode, 0, r.stderr)
      assert.deepEqual((JSON.parse(r.stdout) as {warnings: unknown[]}).warnings, [])
    }
  })
})

describe('kube-proxy show and kubelet show of pasted input (built CLI)', () => {
  for (const comp of ['kube-proxy', 'kubelet'] as const) {
    const files = readdirSync(fixturePath(`pasted/${comp}`)).filter((f) => f.endsWith('.txt') && !f.includes('.golden.'))
    for (const name of files) {
      test(`${comp} show ${name}: settings plus pasted-input warnings in the table and -o json; --strict refuses it`, async () => {
        const file = fixturePath(`pasted/${comp}/${name}`)
        const table = await runCli([comp, 'show', '--from-file', file])
        assert.equal(table.exitCode, 0, table.stderr)
        assert.match(table.stdout, new RegExp(`^warning +${file.replaceAll('.', '\\.')}:\\d+ +`, 'm'))
        const json = await runCli([comp, 'show', '--from-file', file, '-o', 'json'])
        assert.equal(json.exitCode, 0, json.stderr)
        const doc = JSON.parse(json.stdout) as {settings: unknown[]; issues: Array<{code: string; severity: string}>}
        assert.ok(doc.settings.length > 0)
        assert.ok(doc.issues.some((i) => i.code === 'pasted-input' && i.severity === 'warning'))
        const strict = await runCli([comp, 'show', '--strict', '--from-file', file])
        assert.equal(strict.exitCode, 2)
      })
    }
  }
})
