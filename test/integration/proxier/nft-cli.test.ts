// `proxy render|diff --mode nftables` through the built CLI (run `npm run build` first): render prints the golden
// table byte for byte, diff reports a clean listing as healthy and a listing missing one element as NFT-007, and
// bad input exits 2 naming what is wrong.
import assert from 'node:assert/strict'
import {mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {after, describe, it} from 'node:test'
import {fixturePath, readFixture} from '../../support/golden.js'
import {runCli} from '../../support/run-cli.js'

const NODES = fixturePath('proxier/iptables/nodes.yaml')
const objects = (dir: string): string => fixturePath(`proxier/iptables/${dir}/objects.yaml`)
const tmp = mkdtempSync(join(tmpdir(), 'nd-nft-cli-'))
after(() => rmSync(tmp, {recursive: true, force: true}))
const base = (dir: string) => ['--mode', 'nftables', '--objects', NODES, '--objects', objects(dir), '--node', 'node-a', '--kube-proxy-version', 'v1.35']

describe('proxy render --mode nftables', () => {
  it('prints the golden table, in nft list syntax', async () => {
    for (const dir of ['clusterip', 'loadbalancer', 'session-affinity']) {
      const r = await runCli(['proxy', 'render', ...base(dir), '-q'])
      assert.equal(r.exitCode, 0, r.stderr)
      assert.equal(r.stderr, '')
      assert.equal(r.stdout, readFixture(`proxier/nftables/${dir}.nft`), dir)
    }
  })

  it('says the iptables-only runtime facts do not apply, and refuses versions without nftables mode', async () => {
    const r = await runCli(['proxy', 'render', ...base('clusterip'), '--no-nfacct', '-v'])
    assert.equal(r.exitCode, 0, r.stderr)
    assert.match(r.stderr, /--nfacct only concerns iptables mode; ignored in nftables mode/)
    assert.match(r.stderr, /kube-proxy v1\.35 \(from --kube-proxy-version\), nftables mode, ipv4, node node-a/)
    const old = await runCli(['proxy', 'render', '--mode', 'nftables', '--objects', NODES, '--objects', objects('clusterip'), '--node', 'node-a', '--kube-proxy-version', 'v1.28'])
    assert.equal(old.exitCode, 2)
    assert.match(old.stderr, /kube-proxy v1\.28 has no nftables mode/)
    assert.match(old.stderr, /from v1\.29/)
  })
})

describe('proxy diff --mode nftables', () => {
  it('passes on a listing equal to the expected table and reports one missing element as NFT-007', async () => {
    const golden = readFixture('proxier/nftables/clusterip.nft')
    const clean = join(tmp, 'clean.nft')
    writeFileSync(clean, golden)
    const ok = await runCli(['proxy', 'diff', ...base('clusterip'), '--nft', clean, '-o', 'json'])
    assert.equal(ok.exitCode, 0, ok.stderr)
    const okReport = JSON.parse(ok.stdout) as {findings: unknown[]; results: Array<{id: string; status: string}>}
    assert.deepEqual(okReport.findings, [])
    assert.ok(okReport.results.filter((x) => x.id.startsWith('NFT-')).every((x) => x.status === 'passed'))

    const m = /elements = \{ (172\.30\.\d+\.\d+ \. tcp \. \d+ : goto [^,\n]+),\n\s*/.exec(golden)
    assert.ok(m, 'a service-ips element to drop')
    const broken = join(tmp, 'broken.nft')
    writeFileSync(broken, golden.replace(m[0], 'elements = { '))
    const bad = await runCli(['proxy', 'diff', ...base('clusterip'), '--nft', broken, '-o', 'json'])
    assert.equal(bad.exitCode, 1, bad.stderr)
    const report = JSON.parse(bad.stdout) as {findings: Array<{id: string; message: string; group?: string}>}
    assert.deepEqual(report.findings.map((f) => f.id), ['NFT-007'])
    assert.match(report.findings[0]!.message, new RegExp(`service-ips in ip kube-proxy lacks the element \`${m[1]!.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}\``))
  })

  it('fails with exit 2 when --nft is missing or not an nft listing', async () => {
    const none = await runCli(['proxy', 'diff', ...base('clusterip')])
    assert.equal(none.exitCode, 2)
    assert.match(none.stderr, /missing --nft/)
    const wrong = join(tmp, 'wrong.txt')
    writeFileSync(wrong, '*nat\n:PREROUTING ACCEPT [0:0]\nCOMMIT\n')
    const r = await runCli(['proxy', 'diff', ...base('clusterip'), '--nft', wrong])
    assert.equal(r.exitCode, 2)
    assert.match(r.stderr, /wrong\.txt/)
  })
})
