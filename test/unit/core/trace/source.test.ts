// Real sources on the healthy IPIP Calico node of test/fixtures/checks/routes (routes captured in a netns; IP plan in
// test/support/calico-dns-builders.ts): shop/web-a 10.244.1.5 on cali1111111111a and shop/api-a 10.244.1.6 on
// node-a, shop/web-b 10.244.2.10 on node-b behind tunl0, node-a itself 192.168.0.11.
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import type {ClusterSnapshot} from '../../../../src/core/model/snapshot.js'
import {parseRoutes} from '../../../../src/core/parse/routes.js'
import {indexRoutes} from '../../../../src/core/trace/route-lookup.js'
import {parseSourceSpec, resolveTraceSource, type SourceCluster, type SourceNode} from '../../../../src/core/trace/source.js'
import {readFixture} from '../../../support/golden.js'
import {pod} from '../../../support/calico-dns-builders.js'

const snap = JSON.parse(readFixture('checks/routes/healthy-ipip/cluster/snapshot.json')) as ClusterSnapshot
const routes = indexRoutes(parseRoutes(readFixture('checks/routes/healthy-ipip/nodes/node-a/ip-route.txt')).routes)
const NODE: SourceNode = {name: 'node-a', localAddresses: ['192.168.0.11'], podCIDRs: ['10.244.1.0/24'], routes, interfaces: ['lo', 'eth0', 'tunl0', 'cali1111111111a', 'cali2222222222b']}
const CLUSTER: SourceCluster = {pods: snap.pods, blocks: [{cidr: '10.244.1.0/26', node: 'node-a'}, {cidr: '10.244.2.0/26', node: 'node-b'}]}

function resolve(from: string | undefined, node: SourceNode = NODE, cluster: SourceCluster = CLUSTER, options = {}) {
  const spec = parseSourceSpec(from)
  assert.ok(!('error' in spec), JSON.stringify(spec))
  return resolveTraceSource(spec, node, cluster, 'ipv4', options)
}

describe('parseSourceSpec', () => {
  it('reads pod/NS/NAME, IPs and the keywords; refuses the rest', () => {
    assert.deepEqual(parseSourceSpec('pod/shop/web-a'), {kind: 'pod', namespace: 'shop', name: 'web-a'})
    assert.deepEqual(parseSourceSpec(undefined), {kind: 'default'})
    assert.deepEqual(parseSourceSpec('pod'), {kind: 'default'})
    assert.deepEqual(parseSourceSpec('10.244.1.5'), {kind: 'ip', ip: '10.244.1.5'})
    assert.match((parseSourceSpec('pod/shop') as {error: string}).error, /not pod\/NAMESPACE\/NAME/)
    assert.match((parseSourceSpec('nowhere') as {error: string}).error, /not pod\/NAMESPACE\/NAME, an IP address, host or external/)
  })
})

describe('resolveTraceSource', () => {
  it('a named pod on the node: its IP and its real cali interface from the node\'s route', () => {
    const r = resolve('pod/shop/web-a')
    assert.ok(!('error' in r))
    assert.deepEqual([r.from, r.src, r.srcIsLocalPod, r.inInterface, r.pod], ['pod', '10.244.1.5', true, 'cali1111111111a', {namespace: 'shop', name: 'web-a', node: 'node-a'}])
    assert.equal(r.description, 'pod shop/web-a (10.244.1.5), on this node, through its interface cali1111111111a (the node\'s route to it)')
  })

  it('a pod on another node arrives from the network on the interface of the route back (tunl0)', () => {
    const r = resolve('pod/shop/web-b')
    assert.ok(!('error' in r))
    assert.deepEqual([r.from, r.src, r.srcIsLocalPod, r.inInterface], ['external', '10.244.2.10', false, 'tunl0'])
    assert.match(r.description, /^pod shop\/web-b \(10\.244\.2\.10\) on node-b, from the network, arriving on tunl0 \(the interface of the node's route back to it: 10\.244\.2\.0\/26 via 192\.168\.0\.12\)$/)
  })

  it('a bare pod IP is recognised from the Pods, else from the Calico block, else from a /32 route to a pod interface', () => {
    const known = resolve('10.244.1.6')
    assert.ok(!('error' in known))
    assert.deepEqual([known.from, known.inInterface], ['pod', 'cali2222222222b'])
    assert.match(known.description, /pod shop\/api-a/)
    const noPods = {...CLUSTER, pods: []}
    const byBlock = resolve('10.244.1.6', NODE, noPods)
    assert.ok(!('error' in byBlock))
    assert.match(byBlock.description, /in Calico block 10\.244\.1\.0\/26 of node-a/)
    // Neither Pods nor blocks nor podCIDR: the /32 route to cali2222222222b decides.
    const byRoute = resolve('10.244.1.6', {...NODE, podCIDRs: []}, {pods: [], blocks: []})
    assert.ok(!('error' in byRoute))
    assert.deepEqual([byRoute.from, byRoute.inInterface], ['pod', 'cali2222222222b'])
    assert.match(byRoute.description, /routed to pod interface cali2222222222b/)
  })

  it('no --from: a running pod on the node (not an endpoint of the destination), said so; else the node', () => {
    const r = resolve(undefined, NODE, CLUSTER, {avoid: new Set(['10.244.1.5'])})
    assert.ok(!('error' in r))
    assert.equal(r.src, '10.244.1.6')
    assert.match(r.description, /pod shop\/api-a .*; no --from given, so a running pod on the node was taken$/)
    const alone = resolve(undefined, NODE, {pods: [pod('x', 'pending', 'node-a', undefined, {phase: 'Pending'})], blocks: []})
    assert.ok(!('error' in alone))
    assert.equal(alone.from, 'host')
    assert.match(alone.description, /^the node itself \(no --from given and no running pod/)
  })

  it('host, external with --in-interface, node addresses; errors for unknown pods and interfaces', () => {
    assert.equal((resolve('host') as {from: string}).from, 'host')
    assert.equal((resolve('192.168.0.11') as {from: string}).from, 'host')
    const ext = resolve('external', NODE, CLUSTER, {inInterface: 'eth0'})
    assert.ok(!('error' in ext))
    assert.deepEqual([ext.from, ext.inInterface, ext.src], ['external', 'eth0', undefined])
    const outside = resolve('203.0.113.7')
    assert.ok(!('error' in outside))
    assert.deepEqual([outside.from, outside.inInterface], ['external', 'eth0'])
    assert.match((resolve('pod/shop/nope') as {error: string}).error, /pod shop\/nope not found/)
    assert.match((resolve('external', NODE, CLUSTER, {inInterface: 'eth9'}) as {error: string}).error, /no such interface/)
    assert.match((resolve('pod/kube-system/calico-node-bxyz') as {error: string}).error, /uses the host network on node-b/)
    assert.match((resolve('10.244.1.5', NODE, CLUSTER, {inInterface: 'eth0'}) as {error: string}).error, /--in-interface is for traffic from the network, but 10\.244\.1\.5 is a pod on node-a \(pod shop\/web-a\)/)
  })
})
