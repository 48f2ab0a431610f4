/** @jsxRuntime automatic */
// The dashboard's components rendered by ink's test renderer, compared with golden frames (test/fixtures/ui).
// Data: the example bundle (node-a: IPT-003 and IPT-002 on default/lb:http; node-b healthy), plus made-up nodes
// for the states a live run goes through (collecting, waiting, re-checking, unreachable).
import {render} from 'ink-testing-library'
import {before, describe, it} from 'node:test'
import type {NodeSnapshot} from '../../../src/core/model/snapshot.js'
import type {Bundle} from '../../../src/transports/bundle/bundle.js'
import {FleetTable} from '../../../src/ui/fleet-table.js'
import {analyzeNode, mergeReport, type NodeAnalysis} from '../../../src/ui/fleet-state.js'
import {fleetRows, nodeDetail, nodeItems, type ServiceRef} from '../../../src/ui/model.js'
import {NodeView} from '../../../src/ui/node-view.js'
import {nodeServices, serviceDetail} from '../../../src/app/dashboard/service-detail.js'
import {ServiceView, serviceLines} from '../../../src/ui/service-view.js'
import {expectGolden} from '../../support/golden.js'
import {analysesOf, exampleBundle, METADATA, plain} from './fixtures.js'

function frame(tree: Parameters<typeof render>[0]): string {
  const app = render(tree)
  const out = plain(app.lastFrame())
  app.unmount()
  return out
}

describe('dashboard components', () => {
  let bundle: Bundle
  let analyses: Map<string, NodeAnalysis>
  let services: ServiceRef[]
  before(async () => {
    bundle = await exampleBundle()
    analyses = analysesOf(bundle)
    const a = analyses.get('node-a')!
    services = nodeServices(a.cluster, a.snapshot) as ServiceRef[]
  })

  it('fleet table: finished, re-checking, collecting, waiting and unreachable nodes', () => {
    const unreachable: NodeSnapshot = {
      apiVersion: 'node-doctor.io/v1alpha1',
      kind: 'NodeSnapshot',
      node: 'node-d',
      collectedAt: METADATA.generatedAt,
      transport: 'ssh',
      artifacts: {},
      errors: [{node: 'node-d', source: 'connect', message: 'ssh: connect to 192.168.0.4:22: connection refused', fatal: true}],
      durationMs: 3000,
    }
    const all = new Map(analyses).set('node-d', analyzeNode(bundle.cluster, unreachable, {metadata: METADATA}))
    const names = ['node-a', 'node-b', 'node-c', 'node-d', 'node-long-name-of-a-worker-e']
    const report = mergeReport(METADATA, bundle.cluster, names, all)
    const rows = fleetRows(
      report,
      [
        {name: 'node-a', state: 'done'},
        {name: 'node-b', state: 'collecting', stale: true},
        {name: 'node-c', state: 'collecting'},
        {name: 'node-d', state: 'done'},
        {name: 'node-long-name-of-a-worker-e', state: 'waiting'},
      ],
      new Map([['node-a', 'iptables']]),
    )
    expectGolden('ui/fleet-table.txt', frame(<FleetTable rows={rows} cursor={3} height={10} width={99} color={false} />))
    // Four lines: the header and a window of three rows that keeps the cursor in view.
    expectGolden('ui/fleet-table.window.txt', frame(<FleetTable rows={rows} cursor={4} height={4} width={99} color={true} />))
  })

  it('node view: findings, Service ports, the selected finding with its remedy', () => {
    const report = mergeReport(METADATA, bundle.cluster, ['node-a', 'node-b'], analyses)
    const detail = nodeDetail(report, 'node-a', services)
    const items = nodeItems(detail)
    expectGolden('ui/node-a.txt', frame(<NodeView detail={detail} items={items} cursor={0} height={24} width={99} color={false} />))
    expectGolden('ui/node-a.service-selected.txt', frame(<NodeView detail={detail} items={items} cursor={2} height={24} width={99} color={false} />))
    const filtered = nodeItems(detail, 'sticky')
    expectGolden('ui/node-a.filtered.txt', frame(<NodeView detail={detail} items={filtered} cursor={1} height={24} width={99} color={false} />))
    const b = nodeDetail(report, 'node-b', [])
    expectGolden(
      'ui/node-b.no-services.txt',
      frame(<NodeView detail={b} items={nodeItems(b)} cursor={0} servicesUnavailable="not applicable: kube-proxy runs in ipvs mode" height={16} width={99} color={false} />),
    )
  })

  it('Service view: the rule diff and the packet trace, scrolled', () => {
    const a = analyses.get('node-a')!
    const d = serviceDetail(a.cluster, a.snapshot, services.find((s) => s.name === 'default/lb:http')!)
    const lines = serviceLines(d, 99, false)
    expectGolden('ui/service-lb.txt', frame(<ServiceView detail={d} lines={lines} scroll={0} height={24} />))
    expectGolden('ui/service-lb.scrolled.txt', frame(<ServiceView detail={d} lines={lines} scroll={lines.length - 23} height={24} />))
  })
})
