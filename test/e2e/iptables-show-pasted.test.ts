// `iptables show --from-file` of pasted input, through the built executable (run `npm run build` first): each fixture
// in test/fixtures/pasted gives exit 0, a non-empty view, its warnings after the table (FILE:LINE) and in -o json as
// `warnings` [{line, message}]; --strict reads as before (exit 2, the strict parser's error).
import assert from 'node:assert/strict'
import {readdirSync} from 'node:fs'
import {describe, test} from 'node:test'
import {fixturePath} from '../support/golden.js'
import {runCli} from '../support/run-cli.js'

const FIXTURES = readdirSync(fixturePath('pasted')).filter((f) => f.endsWith('.txt') && !f.includes('.golden.'))

describe('iptables show of pasted input (built CLI)', () => {
  for (const name of FIXTURES) {
    test(`${name}: a view plus warnings, in the table and in -o json`, async () => {
      const file = fixturePath(`pasted/${name}`)
      const table = await runCli(['iptables', 'show', '--from-file', file])
      assert.equal(table.exitCode, 0, table.stderr)
      assert.match(table.stdout, /^SERVICE PORT +PROTO +FRONTENDS/m)
      const warningLines = table.stdout.split('\n').filter((l) => l.startsWith('warning: '))
      assert.ok(warningLines.length > 0)
      const json = await runCli(['iptables', 'show', '--from-file', file, '-o', 'json'])
      assert.equal(json.exitCode, 0, json.stderr)
      const doc = JSON.parse(json.stdout) as {servicePorts: unknown[]; warnings: Array<{line: number; message: string}>}
      assert.ok(doc.servicePorts.length > 0)
      assert.deepEqual(warningLines, doc.warnings.map((w) => `warning: ${file}:${w.line}: ${w.message}`))
      const strict = await runCli(['iptables', 'show', '--strict', '--from-file', file])
      assert.equal(strict.exitCode, 2)
      assert.match(strict.stderr, /^error: /)
    })
  }

  test('a whole dump: no warnings, an empty warnings array in -o json', async () => {
    const file = fixturePath('iptables/kube-proxy-v1.28-nft.txt')
    const r = await runCli(['iptables', 'show', '--from-file', file, '-o', 'json'])
    assert.equal(r.exitCode, 0, r.stderr)
    assert.deepEqual((JSON.parse(r.stdout) as {warnings: unknown[]}).warnings, [])
  })
})
