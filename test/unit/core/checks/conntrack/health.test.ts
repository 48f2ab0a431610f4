// CT-002..004 beyond the catalog's fire/quiet pair. Inputs are the real namespace captures under
// test/fixtures/checks/conntrack-health (scripts/make-conntrack-fixtures.ts), with single values edited where a case
// needs a fill level or a setting the captures do not show (80-95 %, a reset tcp_be_liberal, a counter wrap).
import assert from 'node:assert/strict'
import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, it} from 'node:test'
import {checkDrops, checkMaxBelowKubeProxy, checkTableFull, kubeProxyConntrackMax, nodeCpuCount} from '../../../../../src/core/checks/conntrack/health.js'
import type {CheckOutcome} from '../../../../../src/core/checks/types.js'
import type {ClusterSnapshot, NodeSnapshot} from '../../../../../src/core/model/snapshot.js'
import {readBundle} from '../../../../../src/transports/bundle/bundle.js'
import {FIXTURES} from '../../../../support/golden.js'

const DIR = join(FIXTURES, 'checks', 'conntrack-health')

async function load(name: string): Promise<{cluster: ClusterSnapshot; node: NodeSnapshot}> {
  const b = await readBundle(join(DIR, name))
  return {cluster: b.cluster, node: b.nodes[0]!}
}

function withArtifact(node: NodeSnapshot, id: string, content: string | undefined): NodeSnapshot {
  const n = structuredClone(node)
  if (content === undefined) delete n.artifacts[id]
  else n.artifacts[id] = {id, source: id, exitCode: 0, content}
  return n
}

const text = (node: NodeSnapshot, id: string) => node.artifacts[id]!.content
const reason = (o: CheckOutcome) => (o.status === 'skipped' ? o.reason : `not skipped: ${o.status}`)
const findings = (o: CheckOutcome) => (o.status === 'failed' ? o.findings : [])

describe('conntrack capacity and health', () => {
  it('CT-002: 97 % is an error naming the count and the limit; 80-95 % a warning; below 80 % passes', async () => {
    const {cluster, node} = await load('conntrack-97')
    const [f] = findings(checkTableFull({cluster, node}))
    assert.equal(f?.severity, 'error')
    assert.match(f!.message, /^The conntrack table is 97\.0 % full \(254280 of 262144 entries\)/)
    const at = (count: number) => withArtifact(node, 'sysctls', text(node, 'sysctls').replace(/nf_conntrack_count = \d+/, `nf_conntrack_count = ${count}`))
    assert.equal(findings(checkTableFull({cluster, node: at(230_000)}))[0]?.severity, 'warning')
    assert.equal(checkTableFull({cluster, node: at(209_000)}).status, 'passed')
  })

  it('CT-002: without the conntrack keys (nf_conntrack not loaded) or the sysctls it cannot tell', async () => {
    const {cluster, node} = await load('conntrack-ok')
    const noKeys = withArtifact(node, 'sysctls', text(node, 'sysctls').replace(/^net\.netfilter\.nf_conntrack_(count|max).*\n/gm, ''))
    assert.match(reason(checkTableFull({cluster, node: noKeys})), /^cannot tell: the sysctls output has no net\.netfilter\.nf_conntrack_count/)
    assert.equal(reason(checkTableFull({cluster, node: withArtifact(node, 'sysctls', undefined)})), 'missing input: sysctls')
  })

  it('CT-003: early_drop growing between the two real reads fires with the interval and per-CPU deltas; a full but idle table does not', async () => {
    const {cluster, node} = await load('conntrack-drops')
    const fs = findings(checkDrops({cluster, node}))
    assert.deepEqual(fs.map((f) => f.subject.name), ['early_drop'])
    assert.match(fs[0]!.message, /^conntrack early_drop grew by \d+ in 1\.\d s \(\d+ -> \d+, summed over \d+ CPUs\)/)
    assert.ok(fs[0]!.evidence!.some((e) => /^cpu=\d+ early_drop \+\d+$/.test(e)))
    const full = await load('conntrack-97')
    assert.equal(checkDrops(full).status, 'passed')
  })

  it('CT-003: non-zero counters that did not move are history; a counter going down (reset) is not growth; one read cannot tell', async () => {
    const {cluster, node} = await load('conntrack-ok')
    const both = (f: (s: string) => string, g: (s: string) => string) => withArtifact(withArtifact(node, 'conntrack-stats', f(text(node, 'conntrack-stats'))), 'conntrack-stats-end', g(text(node, 'conntrack-stats-end')))
    const same = (s: string) => s
    assert.equal(checkDrops({cluster, node: both((s) => s.replaceAll('insert_failed=0', 'insert_failed=7'), (s) => s.replaceAll('insert_failed=0', 'insert_failed=7'))}).status, 'passed')
    assert.equal(checkDrops({cluster, node: both((s) => s.replaceAll('drop=0', 'drop=50'), same)}).status, 'passed')
    const [f] = findings(checkDrops({cluster, node: both(same, (s) => s.replace('insert_failed=0', 'insert_failed=3'))}))
    assert.equal(f?.subject.name, 'insert_failed')
    assert.match(f!.message, /grew by 3 in 1\.\d s .*the 5 s DNS stall/)
    const noStamps = both((s) => s.replace(/^# node-doctor: uptime .*\n/, ''), (s) => s.replace(/^# node-doctor: uptime .*\n/, '').replace('insert_failed=0', 'insert_failed=3'))
    assert.match(findings(checkDrops({cluster, node: noStamps}))[0]!.message, /grew by 3 between the two reads/)
    const swapped = both(same, (s) => s.replace(/uptime [\d.]+/, 'uptime 1.00'))
    assert.match(reason(checkDrops({cluster, node: swapped})), /not taken one after the other/)
    assert.match(reason(checkDrops({cluster, node: withArtifact(node, 'conntrack-stats-end', undefined)})), /read once, not twice/)
    assert.equal(reason(checkDrops({cluster, node: withArtifact(node, 'conntrack-stats', undefined)})), 'missing input: conntrack-stats')
  })

  it("CT-004: kube-proxy's limit is max(maxPerCore x CPUs, min), nothing when maxPerCore is 0", () => {
    assert.equal(kubeProxyConntrackMax(32768, 131072, 2), 131072)
    assert.equal(kubeProxyConntrackMax(32768, 131072, 8), 262144)
    assert.equal(kubeProxyConntrackMax(0, 131072, 8), 0)
  })

  it('CT-004: a node limit below the configured floor fires with the value to set; the defaults on the same node pass', async () => {
    const {cluster, node} = await load('kube-proxy-max-low')
    const [f] = findings(checkMaxBelowKubeProxy({cluster, node}))
    assert.match(f!.message, /^net\.netfilter\.nf_conntrack_max = 262144, below the 524288 kube-proxy sets at start \(max\(maxPerCore 32768 x \d+ CPUs, min 524288\)\)/)
    assert.match(f!.remedy!, /sysctl -w net\.netfilter\.nf_conntrack_max=524288/)
    assert.ok(f!.evidence!.some((e) => e.includes('the kube-proxy ConfigMap')))
    const ok = await load('conntrack-ok')
    assert.equal(checkMaxBelowKubeProxy(ok).status, 'passed')
  })

  it('CT-004: maxPerCore 0 does not apply; no CPU count cannot tell; tcpBeLiberal configured but reset fires', async () => {
    const {cluster, node} = await load('conntrack-ok')
    const zero = structuredClone(cluster)
    for (const cm of zero.configMaps) if (cm.data?.['config.conf']) cm.data['config.conf'] += 'conntrack:\n  maxPerCore: 0\n'
    assert.match(reason(checkMaxBelowKubeProxy({cluster: zero, node})), /^not applicable: kube-proxy's conntrack\.maxPerCore is 0/)
    const noCpu = structuredClone(cluster)
    for (const n of noCpu.nodes) delete (n.status as Record<string, unknown>)['capacity']
    assert.match(reason(checkMaxBelowKubeProxy({cluster: noCpu, node})), /^cannot tell: the node's CPU count/)
    assert.equal(nodeCpuCount(noCpu, 'node-a'), undefined)
    const liberal = structuredClone(cluster)
    for (const cm of liberal.configMaps) if (cm.data?.['config.conf']) cm.data['config.conf'] += 'conntrack:\n  tcpBeLiberal: true\n'
    const [f] = findings(checkMaxBelowKubeProxy({cluster: liberal, node}))
    assert.equal(f?.subject.name, 'net.netfilter.nf_conntrack_tcp_be_liberal')
  })

  it("CT-004: kube-proxy's running configuration (/configz) wins over a ConfigMap edited after it started", async () => {
    const {cluster, node} = await load('kube-proxy-max-low')
    const configz = readFileSync(join(FIXTURES, 'parse', 'kube-proxy-configz', 'v1.31-internal.json'), 'utf8')
    const running = withArtifact(node, 'kube-proxy-configz', configz)
    assert.equal(checkMaxBelowKubeProxy({cluster, node: running}).status, 'passed')
    const raised = withArtifact(node, 'kube-proxy-configz', configz.replace(/"Min":\s*131072/, '"Min": 1048576'))
    assert.match(findings(checkMaxBelowKubeProxy({cluster, node: raised}))[0]!.evidence!.join('\n'), /min: 1048576 \(kube-proxy \/configz/)
  })
})
