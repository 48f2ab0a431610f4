// The NFT checks on snapshots: they run when kube-proxy runs in nftables mode and the node's `nft-ruleset` artifact
// is present, and otherwise skip with a reason that says which. Fixture: test/fixtures/checks/nftables/clean
// (written by scripts/make-nft-check-fixtures.ts).
import assert from 'node:assert/strict'
import {join} from 'node:path'
import {describe, it} from 'node:test'
import {analyzeSnapshots} from '../../../../../src/app/analyze.js'
import {NFTABLES_CHECKS} from '../../../../../src/core/checks/nftables/index.js'
import type {Bundle} from '../../../../../src/transports/bundle/bundle.js'
import {readBundle} from '../../../../../src/transports/bundle/bundle.js'
import {FIXTURES} from '../../../../support/golden.js'

const meta = {generatedAt: '2026-01-01T00:00:00Z', tool: {name: 'node-doctor', version: 'test'}, command: 'test'}
const run = (b: Bundle) => analyzeSnapshots(b.cluster, b.nodes, {metadata: meta, checks: [...NFTABLES_CHECKS]})
const load = () => readBundle(join(FIXTURES, 'checks/nftables/clean'))

describe('NFT checks on snapshots', () => {
  it('pass on a node whose kube-proxy table matches', async () => {
    const report = run(await load())
    assert.equal(report.results.length, NFTABLES_CHECKS.length)
    assert.ok(report.results.every((r) => r.status === 'passed'), JSON.stringify(report.results))
  })

  it('skip with a reason when kube-proxy runs in another mode', async () => {
    const b = await load()
    b.nodes[0]!.artifacts['proxy-mode']!.content = 'iptables'
    const report = run(b)
    assert.ok(report.results.every((r) => r.status === 'skipped' && /not applicable: kube-proxy runs in iptables mode/.test(r.reason ?? '')), JSON.stringify(report.results[0]))
  })

  it('skip with a reason without the nft ruleset, or for a kube-proxy without nftables mode', async () => {
    const b = await load()
    delete b.nodes[0]!.artifacts['nft-ruleset']
    assert.ok(run(b).results.every((r) => r.status === 'skipped' && r.reason === 'missing input: nft-ruleset'))
    const old = await load()
    for (const ds of old.cluster.daemonSets) for (const c of ds.spec?.template?.spec?.containers ?? []) c.image = 'registry.k8s.io/kube-proxy:v1.28.3'
    // The node's own kube-proxy pod decides the version: it runs v1.28.3 too.
    for (const p of old.cluster.pods) for (const c of [...(p.spec?.containers ?? []), ...(p.status?.containerStatuses ?? [])]) if (c.name === 'kube-proxy') c.image = 'registry.k8s.io/kube-proxy:v1.28.3'
    assert.ok(run(old).results.every((r) => r.status === 'skipped' && /v1\.28 has no nftables mode/.test(r.reason ?? '')))
  })
})
