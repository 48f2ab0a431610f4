// NODE-020 beyond the catalog's fire/quiet pair. Inputs are the real namespace captures under
// test/fixtures/checks/node-datapath (scripts/make-node-datapath-fixtures.ts): a cni0 bridge with two pod veth ports,
// hairpin on or off as the bridge CNI plugin sets it; single facts edited where a case cannot be built there.
import assert from 'node:assert/strict'
import {join} from 'node:path'
import {describe, it} from 'node:test'
import {checkHairpin, podBridgePorts} from '../../../../../src/core/checks/node/hairpin.js'
import type {CheckOutcome} from '../../../../../src/core/checks/types.js'
import type {ClusterSnapshot, NodeSnapshot} from '../../../../../src/core/model/snapshot.js'
import {readBundle} from '../../../../../src/transports/bundle/bundle.js'
import {FIXTURES} from '../../../../support/golden.js'

const DIR = join(FIXTURES, 'checks', 'node-datapath')

async function load(name: string): Promise<{cluster: ClusterSnapshot; node: NodeSnapshot}> {
  const b = await readBundle(join(DIR, name))
  return {cluster: b.cluster, node: b.nodes[0]!}
}

function withLinks(node: NodeSnapshot, edit: (links: Array<Record<string, unknown>>) => Array<Record<string, unknown>>): NodeSnapshot {
  const n = structuredClone(node)
  n.artifacts['ip-link'] = {...n.artifacts['ip-link']!, content: JSON.stringify(edit(JSON.parse(n.artifacts['ip-link']!.content) as Array<Record<string, unknown>>))}
  return n
}

const reason = (o: CheckOutcome) => (o.status === 'skipped' ? o.reason : `not skipped: ${o.status}`)

describe('NODE-020 hairpin', () => {
  it("reads each pod port's hairpin flag from the real ip -j -d link output", async () => {
    const on = podBridgePorts((await load('bridge-ok')).node.artifacts['ip-link']!.content)
    const off = podBridgePorts((await load('hairpin-off')).node.artifacts['ip-link']!.content)
    assert.deepEqual(on.ports, [
      {name: 'veth3f2a1c9d', bridge: 'cni0', hairpin: true},
      {name: 'veth8b71e0aa', bridge: 'cni0', hairpin: true},
    ])
    assert.deepEqual(off.ports.map((p) => p.hairpin), [false, false])
    assert.deepEqual([...on.bridges.keys()], ['cni0'], 'nodelocaldns (a bridge in the fixture) is not a pod bridge')
  })

  it('fires per bridge with the ports, the commands to fix them and the kubelet setting as evidence', async () => {
    const out = checkHairpin(await load('hairpin-off'))
    assert.equal(out.status, 'failed')
    const f = out.status === 'failed' ? out.findings[0]! : undefined
    assert.match(f!.message, /^hairpin mode is off on 2 of 2 pod port\(s\) of cni0/)
    assert.match(f!.remedy!, /ip link set veth3f2a1c9d type bridge_slave hairpin on/)
    assert.ok(f!.evidence!.some((e) => e.startsWith('kubelet hairpinMode: ')))
  })

  it('does not apply on routed CNIs, without pod ports, or on docker0; a promiscuous bridge is not judged', async () => {
    const {cluster, node} = await load('hairpin-off')
    const calico = structuredClone(cluster)
    calico.daemonSets = [...calico.daemonSets, {apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: {name: 'calico-node', namespace: 'kube-system'}, spec: {template: {spec: {containers: [{name: 'calico-node'}]}}}}]
    assert.match(reason(checkHairpin({cluster: calico, node})), /^not applicable: the CNI is calico/)
    const docker0 = withLinks(node, (ls) => ls.map((l) => (l['ifname'] === 'cni0' ? {...l, ifname: 'docker0'} : l['master'] === 'cni0' ? {...l, master: 'docker0'} : l)))
    assert.match(reason(checkHairpin({cluster, node: docker0})), /^not applicable: no pod bridge/)
    const promisc = withLinks(node, (ls) => ls.map((l) => (l['ifname'] === 'cni0' ? {...l, flags: [...(l['flags'] as string[]), 'PROMISC']} : l)))
    assert.match(reason(checkHairpin({cluster, node: promisc})), /^cannot tell: cni0 is in promiscuous mode/)
    const n = structuredClone(node)
    delete n.artifacts['ip-link']
    assert.equal(reason(checkHairpin({cluster, node: n})), 'missing input: ip-link')
  })
})
