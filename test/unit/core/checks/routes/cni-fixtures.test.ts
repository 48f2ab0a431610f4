// The fire/quiet bundles under test/fixtures/checks/routes-cni (written by scripts/make-flannel-fixtures.ts from
// node-a built in a network namespace): each case fires exactly the ids its scenario says, on node-a, and every
// other route check passes or skips there (no false alarm from the Calico checks on a flannel or VPC-CNI node).
import assert from 'node:assert/strict'
import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, it} from 'node:test'
import {ROUTES_CHECKS} from '../../../../../src/core/checks/routes/index.js'
import {runChecks} from '../../../../../src/core/checks/run.js'
import {readBundle} from '../../../../../src/transports/bundle/bundle.js'
import {REPO_ROOT} from '../../../../support/golden.js'
import {CNI_QUIET, CNI_ROUTE_CASES} from '../../../../support/cni-route-cases.js'

const ROOT = join(REPO_ROOT, 'test/fixtures/checks/routes-cni')
const run = async (name: string) => {
  const bundle = await readBundle(join(ROOT, name))
  return {bundle, out: runChecks(ROUTES_CHECKS, bundle.cluster, bundle.nodes)}
}

describe('routes-cni fixtures', () => {
  it('cases.json names a fire and a quiet bundle for RT-009..RT-012', () => {
    const stored = JSON.parse(readFileSync(join(ROOT, 'cases.json'), 'utf8')) as Record<string, {fire: string; quiet: string}>
    assert.deepEqual(Object.keys(stored), ['RT-009', 'RT-010', 'RT-011', 'RT-012'])
    for (const [id, c] of Object.entries(stored)) {
      assert.equal(c.quiet, CNI_QUIET[id])
      assert.ok(CNI_ROUTE_CASES.find((x) => x.name === c.fire)?.fires.includes(id), `${id} fires on ${c.fire}`)
    }
  })

  for (const c of CNI_ROUTE_CASES) {
    it(`${c.name}: findings on ${c.node} for exactly ${c.fires.join(', ') || 'nothing'}`, async () => {
      const {bundle, out} = await run(c.name)
      assert.deepEqual(JSON.parse(JSON.stringify(bundle.cluster)), JSON.parse(JSON.stringify(c.cluster())), 'regenerate the fixtures when a scenario changes')
      assert.deepEqual(out.errors, [])
      const fired = [...new Set(out.findings.filter((f) => f.node === c.node).map((f) => f.id))].sort()
      assert.deepEqual(fired, c.fires, JSON.stringify(out.findings.map((f) => [f.id, f.message]), null, 1))
      for (const r of out.results.filter((x) => !c.fires.includes(x.id))) assert.notEqual(r.status, 'failed', `${r.id}`)
      assert.match(bundle.nodes[0]!.artifacts['ip-route']!.content, /^unicast default via 192\.168\.0\.1 dev eth0 table main proto dhcp/m, 'real `ip -d route` output')
    })
  }

  it('a healthy flannel node passes RT-009..011 and the VPC check skips with the reason', async () => {
    const {out} = await run('flannel-vxlan-healthy')
    const status = Object.fromEntries(out.results.map((r) => [r.id, r.status === 'skipped' ? r.reason : r.status]))
    assert.deepEqual([status['RT-009'], status['RT-010'], status['RT-011']], ['passed', 'passed', 'passed'])
    // Worded by what the layout tells about the CNI (unknown from the API alone here, flannel with its discovery).
    assert.match(String(status['RT-012']), /^not applicable: (no VPC CNI that routes per pod here|the CNI here is flannel)/)
    assert.match(String(status['RT-001']), /no Calico in this cluster/)
  })

  it('host-gw: RT-010/011 do not apply; a healthy AWS node skips the flannel checks', async () => {
    const {out} = await run('flannel-hostgw-healthy')
    const reason = (id: string) => out.results.find((r) => r.id === id)
    assert.equal(reason('RT-009')?.status, 'passed')
    assert.deepEqual(reason('RT-010'), {...reason('RT-010')!, status: 'skipped', reason: 'not applicable: flannel host-gw uses no VXLAN neighbour or FDB entries'})
    const aws = (await run('aws-vpc-healthy')).out
    assert.equal(aws.results.find((r) => r.id === 'RT-012')?.status, 'passed')
    assert.equal(aws.results.find((r) => r.id === 'RT-009')?.status === 'skipped' && aws.results.find((r) => r.id === 'RT-009')?.reason, 'not applicable: the CNI here is the Amazon VPC CNI (per-pod routes: RT-012)')
  })

  it('names what is wrong: the missing route with its expected form, the stale MAC, the missing FDB entry, cni0 with an old podCIDR', async () => {
    const msg = async (name: string, id: string) => (await run(name)).out.findings.filter((f) => f.id === id).map((f) => ({message: f.message, subject: f.subject, evidence: f.evidence, severity: f.severity, remedy: f.remedy}))
    const missing = await msg('flannel-vxlan-missing-route', 'RT-009')
    assert.equal(missing.length, 1)
    assert.deepEqual(missing[0]!.subject, {kind: 'route', name: '10.244.2.0/24', in: 'table main'})
    assert.match(missing[0]!.message, /no route to node-b's podCIDR 10\.244\.2\.0\/24/)
    assert.equal(missing[0]!.evidence[0], 'expected: 10.244.2.0/24 via 10.244.2.0 dev flannel.1 onlink')
    // node-b shares node-a's subnet: the DirectRouting form is accepted too.
    assert.equal(missing[0]!.evidence[1], 'expected: 10.244.2.0/24 via 192.168.0.12 dev eth0 (DirectRouting)')
    const mac = await msg('flannel-vxlan-wrong-neighbour-mac', 'RT-010')
    assert.match(mac[0]!.message, /has MAC 02:fa:00:00:00:99, but node-b's VtepMAC is 02:fa:00:00:00:12/)
    const fdb = await msg('flannel-vxlan-missing-fdb', 'RT-011')
    assert.match(fdb[0]!.message, /no entry for node-b's VTEP 02:fa:00:00:00:12/)
    assert.equal(fdb[0]!.evidence[0], 'expected: 02:fa:00:00:00:12 dev flannel.1 dst 192.168.0.12 self permanent')
    const cni0 = await msg('flannel-cni0-old-podcidr', 'RT-009')
    assert.match(cni0[0]!.message, /^cni0 carries 10\.244\.9\.0\/24, but this node's podCIDR is 10\.244\.1\.0\/24/)
    assert.match(cni0[0]!.remedy, /^cni0 with an old podCIDR: drain the node/)
    assert.doesNotMatch(missing[0]!.remedy, /^cni0/)
    const vpc = await msg('aws-vpc-pod-route-missing', 'RT-012')
    assert.deepEqual(vpc.map((f) => f.subject), [{kind: 'Pod', name: 'api-a', namespace: 'shop'}])
  })
})
