// Who implements Services, as the checks see it, over the layout fixture bundles (test/fixtures/layouts/nodes):
// every check on every clean layout raises no error and no warning; on the clean Cilium kube-proxy-replacement
// node kube-proxy's checks are skipped with the owner as the reason; kube-proxy's leftovers there fire SVC-001,
// and a kube-proxy still running there fires SVC-002.
import assert from 'node:assert/strict'
import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, it} from 'node:test'
import {analyzeSnapshots} from '../../../../../src/app/analyze.js'
import {CHECKS} from '../../../../../src/core/checks/registry.js'
import {renderJson} from '../../../../../src/render/json.js'
import {readBundle} from '../../../../../src/transports/bundle/bundle.js'
import {FIXTURES, REPO_ROOT} from '../../../../support/golden.js'
import {Ajv2020} from 'ajv/dist/2020.js'

const validate = new Ajv2020({allErrors: true, strict: true}).compile(JSON.parse(readFileSync(join(REPO_ROOT, 'schemas', 'report.schema.json'), 'utf8')))

const NODES = join(FIXTURES, 'layouts', 'nodes')
const meta = {generatedAt: '2026-12-03T00:00:00Z', tool: {name: 'node-doctor', version: 'test'}, command: 'test'}
const CILIUM_REASON = 'Services on this node are implemented by Cilium (kube-proxy-replacement=true in kube-system/cilium-config)'
// CT-002 (table fill) and CT-003 (insert failures) are the kernel's conntrack health, whoever implements Services.
const KUBE_PROXY_FAMILIES = /^(?:(?:IPT|IPVS|NFT|PROXY)-|CT-00[14]$)/

async function analyze(name: string) {
  const b = await readBundle(join(NODES, name))
  return analyzeSnapshots(b.cluster, b.nodes, {metadata: meta})
}

describe('services owner over the layout fixtures', () => {
  for (const name of ['kubeadm-calico', 'k3s-flannel', 'rke2-canal', 'eks-al2023', 'gke-cos', 'cilium-kpr']) {
    it(`${name}: clean node, no error and no warning from any check; the layout is in the report`, async () => {
      const r = await analyze(name)
      const loud = r.findings.filter((f) => f.severity !== 'info')
      assert.deepEqual(loud.map((f) => `${f.id}: ${f.message}`), [])
      assert.ok(r.nodes[0]?.layout?.summary, 'node summary carries the layout')
      assert.ok(validate(JSON.parse(renderJson(r))), JSON.stringify(validate.errors))
      assert.equal(r.results.filter((x) => x.id.startsWith('SVC-') && x.status === 'failed').length, 0)
    })
  }

  it("cilium-kpr: every kube-proxy check is skipped with the owner as the reason, the SVC checks pass", async () => {
    const r = await analyze('cilium-kpr')
    const kp = r.results.filter((x) => KUBE_PROXY_FAMILIES.test(x.id))
    assert.ok(kp.length >= 20, `kube-proxy checks ran: ${kp.length}`)
    for (const x of kp) assert.deepEqual([x.id, x.status, x.reason], [x.id, 'skipped', CILIUM_REASON])
    assert.deepEqual(r.results.filter((x) => x.id.startsWith('SVC-')).map((x) => [x.id, x.status]), [['SVC-001', 'passed'], ['SVC-002', 'passed']])
    assert.equal(r.nodes[0]?.layout?.summary, 'kubeadm v1.34.2 · Services by Cilium (kube-proxy replacement) · cilium vxlan')
  })

  it('kube-proxy nodes: the SVC checks do not apply, kube-proxy checks are not skipped for ownership', async () => {
    const r = await analyze('kubeadm-calico')
    assert.match(r.results.find((x) => x.id === 'SVC-001')?.reason ?? '', /^Services on this node are implemented by kube-proxy/)
    assert.equal(r.results.filter((x) => KUBE_PROXY_FAMILIES.test(x.id) && /implemented by/.test(x.reason ?? '')).length, 0)
  })

  it('cilium-kpr-leftovers: SVC-001 names the KUBE-SERVICES jumps and KUBE-* chains', async () => {
    const r = await analyze('cilium-kpr-leftovers')
    const f = r.findings.filter((x) => x.id === 'SVC-001')
    assert.equal(f.length, 1)
    assert.equal(f[0]!.severity, 'warning')
    assert.match(f[0]!.message, /Services are implemented by Cilium \(kube-proxy-replacement=true in kube-system\/cilium-config\): 2 jump\(s\) to KUBE-SERVICES in nat PREROUTING\/OUTPUT, 4 KUBE-\* chain\(s\) \(1 KUBE-SVC\)/)
    assert.ok(f[0]!.evidence.includes('-A PREROUTING -m comment --comment "kubernetes service portals" -j KUBE-SERVICES'))
    assert.ok(f[0]!.evidence.includes('KUBE-SVC-NPX46M4PTMTKRN6Y'))
    assert.match(f[0]!.remedy, /kube-proxy --cleanup/)
    assert.equal(r.findings.filter((x) => x.id === 'SVC-002').length, 0)
    // The leftovers are SVC-001's; kube-proxy's own checks stay skipped on this node.
    assert.equal(r.findings.filter((x) => KUBE_PROXY_FAMILIES.test(x.id)).length, 0)
  })

  it('cilium-kpr-two-owners: SVC-002 says both implement Services', async () => {
    const r = await analyze('cilium-kpr-two-owners')
    const f = r.findings.filter((x) => x.id === 'SVC-002')
    assert.equal(f.length, 1)
    assert.equal(f[0]!.severity, 'warning')
    assert.match(f[0]!.message, /Two Services implementations on the node: Cilium .*, and kube-proxy \(kube-proxy pod kube-system\/kube-proxy-x7k2p runs on the node\)/)
    assert.equal(r.findings.filter((x) => x.id === 'SVC-001').length, 1)
  })
})
