// The `trace` service offline over in-memory files (the Calico plan of test/unit/core/trace/calico-plan.ts): what it
// refuses, with the message the user sees, and that the default source and destination port are chosen and named.
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import {stringify} from 'yaml'
import {tracePacket, type TraceFlagValues, traceSourceContext} from '../../../src/app/trace.js'
import type {ClusterSnapshot} from '../../../src/core/model/snapshot.js'
import {nodeSnapshot} from '../../support/calico-dns-builders.js'
import type {KubeObject} from '../../../src/core/model/k8s.js'
import type {Environment} from '../../../src/ports/environment.js'
import {readFixture} from '../../support/golden.js'
import {calicoFilterRestore, calicoTraceObjects, KUBE_PROXY_CONFIG, kubeProxyRules, mergeSave, WORKLOADS} from '../core/trace/calico-plan.js'

function run(flags: Partial<TraceFlagValues>, alter: (objects: KubeObject[]) => KubeObject[] = (o) => o) {
  const objects = calicoTraceObjects()
  const files: Record<string, string> = {
    'objects.yaml': stringify({apiVersion: 'v1', kind: 'List', items: alter(objects)}),
    'node-a.iptables': mergeSave(kubeProxyRules(objects, 'node-a').save, calicoFilterRestore(Object.keys(WORKLOADS))),
    'node-a.routes': readFixture('checks/routes/healthy-ipip/nodes/node-a/ip-route.txt'),
  }
  const env = {readInput: (p: string) => files[p]!} as unknown as Environment
  const all = {objects: ['objects.yaml'], node: 'node-a', 'iptables-save': 'node-a.iptables', routes: 'node-a.routes', to: 'svc/kube-system/kube-dns:dns/udp', ...flags} as TraceFlagValues
  return tracePacket(undefined, all, env, {note: () => undefined, quiet: true})
}

describe('tracePacket (offline)', () => {
  it('no --from: a running pod on the node that is not a kube-dns endpoint, named in the origin', async () => {
    const view = await run({})
    assert.deepEqual(view.sourcePod, {namespace: 'shop', name: 'api-a', node: 'node-a'})
    assert.equal(view.verdicts?.verdict, 'works')
  })

  it('from another node\'s pod: from the network on tunl0 (the route back), and the trace still works', async () => {
    const view = await run({from: 'pod/kube-system/coredns-b'})
    assert.equal(view.packet.inInterface, 'tunl0')
    assert.equal(view.packet.from, 'external')
    assert.match(view.origin, /^pod kube-system\/coredns-b \(10\.244\.2\.10\) on node-b, from the network, arriving on tunl0/)
  })

  it('refuses what it cannot answer truthfully, saying why', async () => {
    await assert.rejects(run({to: 'svc/kube-system/kube-dns:53'}), /several ports matching 53 \(dns 53\/udp, dns-tcp 53\/tcp\)/)
    await assert.rejects(run({from: 'pod/shop/nope'}), /pod shop\/nope not found/)
    await assert.rejects(run({from: 'pod/shop/api-a', 'in-interface': 'eth0'}), /--in-interface goes with --from external or an outside IP/)
    const ipvs = (objects: KubeObject[]) =>
      objects.map((o) => (o.kind === 'ConfigMap' ? ({...o, data: {'config.conf': KUBE_PROXY_CONFIG.replace('mode: iptables', 'mode: ipvs')}} as KubeObject) : o))
    await assert.rejects(run({}, ipvs), /trace follows iptables rules only; the kube-proxy configuration in the objects says mode: ipvs/)
  })

  it('traceSourceContext: the pods, Calico blocks, routes and interfaces of a snapshot (what the dashboard can pass)', () => {
    const dir = 'checks/routes/healthy-ipip'
    const cluster = JSON.parse(readFixture(`${dir}/cluster/snapshot.json`)) as ClusterSnapshot
    const node = nodeSnapshot('node-a', Object.fromEntries(['ip-route', 'ip-addr', 'ip-link'].map((id) => [id, readFixture(`${dir}/nodes/node-a/${id}.txt`)])))
    const ctx = traceSourceContext(cluster, node)
    assert.deepEqual(ctx.cluster.blocks, [
      {cidr: '10.244.1.0/26', node: 'node-a'},
      {cidr: '10.244.2.0/26', node: 'node-b'},
    ])
    assert.equal(ctx.cluster.pods.length, cluster.pods.length)
    assert.deepEqual(ctx.routes?.lookup('10.244.1.5').devices, ['cali1111111111a'])
    assert.ok(ctx.interfaces?.includes('tunl0') && ctx.interfaces.includes('cali2222222222b'), String(ctx.interfaces))
  })
})
