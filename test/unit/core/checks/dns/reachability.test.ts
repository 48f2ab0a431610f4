// DNS-004 on the route captures of test/fixtures/checks/dns (scripts/make-route-dns-fixtures.ts): node-a of the
// calico-dns-builders IP plan, CoreDNS endpoints 10.244.1.2 (coredns-a, node-a) and 10.244.2.2 (coredns-b, node-b).
import assert from 'node:assert/strict'
import {join} from 'node:path'
import {describe, it} from 'node:test'
import {DNS_CHECKS} from '../../../../../src/core/checks/dns/index.js'
import {runChecks} from '../../../../../src/core/checks/run.js'
import {readBundle} from '../../../../../src/transports/bundle/bundle.js'
import {REPO_ROOT} from '../../../../support/golden.js'

const ROOT = join(REPO_ROOT, 'test/fixtures/checks/dns')
const DNS_004 = DNS_CHECKS.filter((c) => c.spec.id === 'DNS-004')

async function run(name: string) {
  const b = await readBundle(join(ROOT, name))
  return {bundle: b, out: runChecks(DNS_004, b.cluster, b.nodes)}
}

describe('DNS-004 a CoreDNS endpoint is unreachable from the node', () => {
  it('names the endpoint behind the missing block route, how many of the endpoints that is, and the route check', async () => {
    const {out} = await run('coredns-unreachable')
    assert.deepEqual(
      out.findings.map((f) => [f.node, f.severity, f.message, f.evidence]),
      [
        [
          'node-a',
          'error',
          '1 of 2 endpoints of the DNS Service kube-system/kube-dns is unreachable from node-a: about 1 in 2 lookups from pods here time out',
          ["10.244.2.2 (pod coredns-b on node-b): no route to node-b's block 10.244.2.0/26 (RT-001)"],
        ],
      ],
    )
  })

  it('passes when every endpoint is routed', async () => {
    const {out} = await run('healthy-routed')
    assert.deepEqual(out.results.map((r) => r.status), ['passed'])
  })

  it('says all lookups fail when every endpoint is cut off', async () => {
    const {bundle} = await run('coredns-unreachable')
    const slices = bundle.cluster.endpointSlices.map((s) =>
      s.metadata.name.startsWith('kube-dns') ? {...s, endpoints: (s.endpoints ?? []).filter((e) => e.addresses[0] === '10.244.2.2')} : s,
    )
    const out = runChecks(DNS_004, {...bundle.cluster, endpointSlices: slices}, bundle.nodes)
    assert.match(out.findings[0]!.message, /^1 of 1 endpoints .* no lookup from pods here gets an answer$/)
  })

  it('skips, saying why, where the routes cannot be judged (no Calico) or there is nothing to reach', async () => {
    const noCalico = await run('coredns-unreachable')
    const c = {...noCalico.bundle.cluster, pods: noCalico.bundle.cluster.pods.filter((p) => !p.metadata.name.startsWith('calico-node')), calico: {ipPools: [], blockAffinities: [], ipamBlocks: []}}
    assert.match(runChecks(DNS_004, c, noCalico.bundle.nodes).results[0]!.reason ?? '', /^cannot judge CoreDNS reachability from the routes: /)
    const noRoutes = await run('healthy')
    assert.equal(runChecks(DNS_004, noRoutes.bundle.cluster, noRoutes.bundle.nodes).results[0]!.reason, 'missing input: ip-route')
  })
})
