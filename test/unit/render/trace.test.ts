// The trace table with per-endpoint verdicts (golden, colour off) and its JSON, for the Calico plan of
// test/unit/core/trace/calico-plan.ts traced offline the way `trace --objects --node --iptables-save --routes` does
// (src/app/trace.ts over in-memory files): shop/api-a to kube-dns on node-a with a real route capture.
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import {stringify} from 'yaml'
import {tracePacket} from '../../../src/app/trace.js'
import type {Environment} from '../../../src/ports/environment.js'
import {renderTrace} from '../../../src/render/trace.js'
import {expectGolden, readFixture} from '../../support/golden.js'
import {calicoFilterRestore, calicoTraceObjects, kubeProxyRules, mergeSave, WORKLOADS} from '../core/trace/calico-plan.js'

async function traceCalico(scenario: string) {
  const objects = calicoTraceObjects()
  const files: Record<string, string> = {
    'objects.yaml': stringify({apiVersion: 'v1', kind: 'List', items: objects}),
    'node-a.iptables': mergeSave(kubeProxyRules(objects, 'node-a').save, calicoFilterRestore(Object.keys(WORKLOADS))),
    'node-a.routes': readFixture(`checks/routes/${scenario}/nodes/node-a/ip-route.txt`),
  }
  const env = {readInput: (p: string) => files[p]!} as unknown as Environment
  const flags = {objects: ['objects.yaml'], node: 'node-a', 'iptables-save': 'node-a.iptables', routes: 'node-a.routes', from: 'pod/shop/api-a', to: 'svc/kube-system/kube-dns:dns/udp'}
  return tracePacket(undefined, flags, env, {note: () => undefined, quiet: true})
}

describe('renderTrace with verdicts', () => {
  it('table: the verdict line, one row per endpoint with where it works or fails, then outcomes and paths (golden)', async () => {
    const view = await traceCalico('missing-route')
    const out = renderTrace(view, 'table', {color: false})
    expectGolden('trace/calico-missing-route.table.txt', out)
    assert.match(out, /^partly broken: 1 of 2 endpoints work$/m)
  })

  it('json: verdict, endpoints with route hops, the source pod and the Service port', async () => {
    const view = await traceCalico('healthy-ipip')
    const doc = JSON.parse(renderTrace(view, 'json', {color: false})) as Record<string, any>
    assert.equal(doc.verdict, 'works')
    assert.deepEqual(doc.sourcePod, {namespace: 'shop', name: 'api-a', node: 'node-a'})
    assert.deepEqual(doc.service, {namespace: 'kube-system', name: 'kube-dns', portName: 'dns', port: 53, protocol: 'udp', via: 'cluster IP'})
    assert.deepEqual(
      doc.endpoints.map((e: any) => [e.endpoint, e.verdict, e.route?.kind]),
      [
        ['10.244.1.5:53', 'works', 'local-pod'],
        ['10.244.2.10:53', 'works', 'tunnel'],
        ['10.244.2.11:53', 'not ready', undefined],
      ],
    )
    assert.equal(doc.routesSource, 'node-a.routes')
    assert.equal(doc.packet.inInterface, 'cali2222222222b')
  })
})
