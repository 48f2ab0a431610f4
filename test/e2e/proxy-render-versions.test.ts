// `proxy render --kube-proxy-version v1.36|v1.37` in all three modes through the built CLI (`npm run build` first):
// nftables prints the v1.36/v1.37 layout goldens byte for byte; iptables prints the same restore input as v1.35 (no
// iptables rule changed in v1.36/v1.37); IPVS prints the same state as v1.35 apart from the version in its header.
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import {fixturePath, readFixture} from '../support/golden.js'
import {runCli} from '../support/run-cli.js'
import {NODE_A_ADDRESSES} from '../unit/core/proxier/ipvs/helpers.js'

const NODES = fixturePath('proxier/iptables/nodes.yaml')
const lb = ['--objects', NODES, '--objects', fixturePath('proxier/iptables/loadbalancer/objects.yaml'), '--node', 'node-a']

describe('proxy render --kube-proxy-version v1.36 / v1.37', () => {
  it('nftables: the v1.36 and v1.37 layouts (no mark-for-masquerade chain, hairpin set; v1.37 direct single-endpoint DNAT)', async () => {
    for (const v of ['v1.36', 'v1.37']) {
      const r = await runCli(['proxy', 'render', '--mode', 'nftables', ...lb, '--kube-proxy-version', v, '-v'])
      assert.equal(r.exitCode, 0, r.stderr)
      assert.match(r.stdout, new RegExp(`^# node-doctor rendered this from:\\n# {3}kube-proxy version: ${v.replace('.', '\\.')} \\(from --kube-proxy-version\\)\\n`))
      assert.equal(r.stdout.slice(r.stdout.indexOf('table ip kube-proxy')), readFixture(`proxier/nftables/versions/loadbalancer-${v}.nft`), v)
      assert.match(r.stderr, new RegExp(`kube-proxy ${v.replace('.', '\\.')} \\(from --kube-proxy-version\\), nftables mode, ipv4, node node-a`))
      assert.doesNotMatch(r.stdout, /mark-for-masquerade/)
      assert.match(r.stdout, /\n\tset hairpin-connections \{\n/)
    }
    const v137 = await runCli(['proxy', 'render', '--mode', 'nftables', ...lb, '--kube-proxy-version', 'v1.37.2'])
    assert.match(v137.stderr, /v1\.37 single-endpoint services DNAT directly .* unverified/)
  })

  it('iptables: the same restore input as v1.35', async () => {
    const out: Record<string, string> = {}
    for (const v of ['v1.35', 'v1.36', 'v1.37']) {
      const r = await runCli(['proxy', 'render', ...lb, '--kube-proxy-version', v, '-q'])
      assert.equal(r.exitCode, 0, r.stderr)
      out[v] = r.stdout
    }
    assert.match(out['v1.35']!, /^\*filter\n/)
    assert.equal(out['v1.36'], out['v1.35'])
    assert.equal(out['v1.37'], out['v1.35'])
  })

  it('ipvs: the same state as v1.35, the header naming the version asked for', async () => {
    const ipvs = ['--objects', NODES, '--objects', fixturePath('proxier/ipvs/services/objects.yaml'), '--node', 'node-a', ...NODE_A_ADDRESSES.flatMap((a) => ['--node-address', a])]
    const expected = readFixture('proxier/ipvs/services/expected.txt')
    assert.match(expected, /kube-proxy v1\.35/)
    for (const v of ['v1.36', 'v1.37']) {
      const r = await runCli(['proxy', 'render', '--mode', 'ipvs', ...ipvs, '--kube-proxy-version', v, '-q'])
      assert.equal(r.exitCode, 0, r.stderr)
      assert.equal(r.stdout, expected.replaceAll('kube-proxy v1.35', `kube-proxy ${v}`), v)
    }
  })
})
