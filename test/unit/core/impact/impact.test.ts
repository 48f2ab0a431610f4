// What findings break (src/core/impact). The route cases run the real checks on the DNS fixture bundles
// (test/fixtures/checks/dns: node-a's routes captured in a netns; kube-dns endpoints 10.244.1.2 on node-a and
// 10.244.2.2 on node-b, shop/web endpoints 10.244.1.10 and 10.244.2.10; node-b's block 10.244.2.0/26).
import assert from 'node:assert/strict'
import {join} from 'node:path'
import {describe, it} from 'node:test'
import {analyzeSnapshots} from '../../../../src/app/analyze.js'
import {attachImpact, indexServices, parseServiceRef} from '../../../../src/core/impact/index.js'
import type {Finding} from '../../../../src/core/model/report.js'
import {readBundle} from '../../../../src/transports/bundle/bundle.js'
import {readFileSync} from 'node:fs'
import {Ajv2020} from 'ajv/dist/2020.js'
import {renderJson} from '../../../../src/render/json.js'
import {REPO_ROOT} from '../../../support/golden.js'

const ROOT = join(REPO_ROOT, 'test/fixtures/checks/dns')
const META = {generatedAt: '2026-12-02T12:00:00.000Z', tool: {name: 'node-doctor', version: 'test'}, command: 'test'}

async function bundle(name: string) {
  return readBundle(join(ROOT, name))
}

function finding(o: Partial<Finding> & Pick<Finding, 'id'>): Finding {
  return {node: 'node-a', area: 'iptables', severity: 'error', message: 'm', subject: {kind: 'chain', name: 'X', in: 'nat'}, evidence: [], remedy: 'r', ...o}
}

describe('impact of route findings', () => {
  it('a missing block route breaks the endpoints and pods in the block, counted per Service', async () => {
    const b = await bundle('coredns-unreachable')
    const report = analyzeSnapshots(b.cluster, b.nodes, {metadata: META})
    const rt = report.findings.filter((f) => f.id === 'RT-001')
    assert.equal(rt.length, 1)
    assert.deepEqual(rt[0]!.impact, {
      summary: 'svc kube-system/kube-dns (1 of 2 endpoints), shop/web (1 of 2); 2 pods',
      services: [
        {service: 'kube-system/kube-dns', endpoints: ['10.244.2.2'], total: 2},
        {service: 'shop/web', endpoints: ['10.244.2.10'], total: 2},
      ],
      pods: ['kube-system/coredns-b', 'shop/web-b'],
    })
    // The JSON report with impact validates against schemas/report.schema.json.
    const validate = new Ajv2020({allErrors: true, strict: true}).compile(JSON.parse(readFileSync(join(REPO_ROOT, 'schemas/report.schema.json'), 'utf8')))
    assert.ok(validate(JSON.parse(renderJson(report))), JSON.stringify(validate.errors))
    // Only findings that break something carry an impact.
    assert.deepEqual(report.findings.filter((f) => f.impact !== undefined).map((f) => f.id), ['RT-001'])
  })

  it('a healthy node has findings with no impact at all', async () => {
    const b = await bundle('healthy-routed')
    const report = analyzeSnapshots(b.cluster, b.nodes, {metadata: META})
    assert.deepEqual(report.findings.filter((f) => f.impact !== undefined), [])
  })

  it('a missing pod route breaks that pod and its Services', async () => {
    const b = await bundle('healthy-routed')
    const [f] = attachImpact(b.cluster, [finding({id: 'RT-005', area: 'routes', subject: {kind: 'Pod', name: 'coredns-a', namespace: 'kube-system'}})])
    assert.equal(f!.impact?.summary, 'svc kube-system/kube-dns (1 of 2 endpoints); 1 pod')
  })

  it('an orphan route is impact only when its IP belongs to a live pod (the error form)', async () => {
    const b = await bundle('healthy-routed')
    const subject = {kind: 'route', name: '10.244.2.10', in: 'table main'}
    const [warn, err] = attachImpact(b.cluster, [finding({id: 'RT-006', area: 'routes', severity: 'warning', subject}), finding({id: 'RT-006', area: 'routes', subject})])
    assert.equal(warn!.impact, undefined)
    assert.equal(err!.impact?.summary, 'svc shop/web (1 of 2 endpoints); 1 pod')
  })
})

describe('impact of other CNIs\' route findings', () => {
  const cni = (name: string) => readBundle(join(REPO_ROOT, 'test/fixtures/checks/routes-cni', name))
  for (const [name, id] of [
    ['flannel-vxlan-missing-route', 'RT-009'],
    ['flannel-vxlan-missing-fdb', 'RT-011'],
    ['aws-vpc-pod-route-missing', 'RT-012'],
  ] as const) {
    it(`${id} (${name}) breaks the pods behind it`, async () => {
      const b = await cni(name)
      const report = analyzeSnapshots(b.cluster, b.nodes, {metadata: META})
      const hit = report.findings.filter((f) => f.id === id)
      assert.equal(hit.length, 1)
      const pods = b.cluster.pods.filter((p) => (p.status?.podIPs ?? []).some((x) => (hit[0]!.subject.kind === 'Pod' ? p.metadata.name === hit[0]!.subject.name : x.ip.startsWith(hit[0]!.subject.name.split('.').slice(0, 3).join('.') + '.'))))
      assert.ok(pods.length > 0, 'the fixture has a pod behind the route')
      assert.deepEqual(hit[0]!.impact?.pods, pods.map((p) => `${p.metadata.namespace}/${p.metadata.name}`).sort())
    })
  }

  it('the verdict and impact agree on which checks cut a path (cutsPath)', async () => {
    const {cutsPath} = await import('../../../../src/core/impact/impact.js')
    for (const id of ['RT-001', 'RT-009', 'RT-010', 'RT-011', 'RT-012', 'IPT-003', 'NODE-001']) assert.ok(cutsPath(id), id)
    for (const id of ['RT-013', 'CT-002', 'NODE-005', 'KUBELET-001']) assert.ok(!cutsPath(id), id)
  })
})

describe('impact of rule, conntrack and forwarding findings', async () => {
  const {cluster} = await bundle('healthy-routed')
  const one = (f: Finding) => attachImpact(cluster, [f])[0]!.impact

  it('a missing endpoint chain breaks the endpoint it names; a missing Service chain breaks all of them', () => {
    const sep = finding({id: 'IPT-001', group: 'shop/web:p', subject: {kind: 'chain', name: 'KUBE-SEP-ABC', in: 'nat'}, evidence: ['expected: -A KUBE-SEP-ABC -s 10.244.2.10/32 -j KUBE-MARK-MASQ', 'expected: -A KUBE-SEP-ABC -p tcp -j DNAT --to-destination 10.244.2.10:80']})
    assert.deepEqual(one(sep), {summary: 'svc shop/web:p (1 of 2 endpoints)', services: [{service: 'shop/web', port: 'p', endpoints: ['10.244.2.10'], total: 2}]})
    const svc = finding({id: 'IPT-001', group: 'shop/web:p', subject: {kind: 'chain', name: 'KUBE-SVC-XYZ', in: 'nat'}, evidence: ['expected: -A KUBE-SVC-XYZ -j KUBE-SEP-ABC']})
    assert.equal(one(svc)?.summary, 'svc shop/web:p (all 2)')
  })

  it('an IPVS real server names its endpoint; a prefix of another IP does not count', () => {
    const rs = finding({id: 'IPVS-003', area: 'ipvs', group: 'kube-system/kube-dns:dns', subject: {kind: 'virtual-server', name: 'UDP 10.96.0.10:53'}, message: 'virtual server UDP 10.96.0.10:53 (kube-system/kube-dns:dns) lacks real server 10.244.2.2:53'})
    assert.deepEqual(one(rs)?.services, [{service: 'kube-system/kube-dns', port: 'dns', endpoints: ['10.244.2.2'], total: 2}])
  })

  it('a missing hook into the Service rules breaks every Service', () => {
    const jump = finding({id: 'IPT-008', subject: {kind: 'rule', name: '-A PREROUTING -m comment --comment "kubernetes service portals" -j KUBE-SERVICES', in: 'nat'}, message: "built-in chain PREROUTING in nat lacks kube-proxy's jump"})
    assert.equal(one(jump)?.all, true)
  })

  it('warnings about leftovers, and groups naming no current Service, break nothing countable', () => {
    assert.equal(one(finding({id: 'IPT-002', severity: 'warning', group: 'shop/web:p'})), undefined)
    assert.equal(one(finding({id: 'IPT-001', group: 'shop/gone:p'})), undefined)
    assert.equal(one(finding({id: 'KUBELET-001', area: 'kubelet'})), undefined)
  })

  it('stale conntrack entries break the Service for the clients holding them', () => {
    const ct = finding({id: 'CT-001', area: 'conntrack', group: 'kube-system/kube-dns:dns', subject: {kind: 'Service', name: 'kube-dns', namespace: 'kube-system'}})
    assert.deepEqual(one(ct), {summary: 'svc kube-system/kube-dns:dns for the clients holding those entries', services: [{service: 'kube-system/kube-dns', port: 'dns', endpoints: [], total: 2}]})
  })

  it('IP forwarding off is all forwarded traffic (per family)', () => {
    assert.deepEqual(one(finding({id: 'NODE-001', area: 'routes', subject: {kind: 'sysctl', name: 'net.ipv4.ip_forward'}})), {
      summary: 'all forwarded traffic: pods on node-a reach no Service endpoint and no pod through it',
      services: [],
      all: true,
    })
    assert.equal(one(finding({id: 'NODE-001', area: 'routes', subject: {kind: 'sysctl', name: 'net.ipv6.conf.all.forwarding'}}))?.family, 'ipv6')
  })
})

describe('service references', () => {
  it('reads groups and why targets', () => {
    assert.deepEqual(parseServiceRef('shop/web:http'), {service: 'shop/web', port: 'http'})
    assert.deepEqual(parseServiceRef('Service shop/web'), {service: 'shop/web'})
    assert.deepEqual(parseServiceRef('svc/kube-system/kube-dns:53'), {service: 'kube-system/kube-dns', port: '53'})
    assert.equal(parseServiceRef('not a service'), undefined)
  })

  it('indexes ready endpoints with their pods and nodes', async () => {
    const {cluster} = await bundle('healthy-routed')
    assert.deepEqual(indexServices(cluster).services.get('kube-system/kube-dns')?.endpoints, [
      {ip: '10.244.1.2', pod: 'kube-system/coredns-a', node: 'node-a'},
      {ip: '10.244.2.2', pod: 'kube-system/coredns-b', node: 'node-b'},
    ])
  })
})
