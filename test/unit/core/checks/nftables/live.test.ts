// ServiceCIDRs this user may not read (403): kube-proxy reads them with its own rights and writes the drop rule for
// unallocated ClusterIPs, so the NFT diff takes the node's own rule as expected instead of calling it extra.
import assert from 'node:assert/strict'
import {join} from 'node:path'
import {describe, it} from 'node:test'
import {analyzeSnapshots} from '../../../../../src/app/analyze.js'
import {NFTABLES_CHECKS} from '../../../../../src/core/checks/nftables/index.js'
import {serviceCIDRsFromListing} from '../../../../../src/core/checks/nftables/live.js'
import {parseNft} from '../../../../../src/core/parse/nft.js'
import {type Bundle, readBundle} from '../../../../../src/transports/bundle/bundle.js'
import {FIXTURES} from '../../../../support/golden.js'

const meta = {generatedAt: '2026-01-01T00:00:00Z', tool: {name: 'node-doctor', version: 'test'}, command: 'test'}
const run = (b: Bundle) => analyzeSnapshots(b.cluster, b.nodes, {metadata: meta, checks: [...NFTABLES_CHECKS]})
const failed = (b: Bundle) => run(b).results.filter((r) => r.status === 'failed').map((r) => r.id)

describe('NFT diff when ServiceCIDRs are forbidden', () => {
  it('reads the CIDRs of the node drop rule', () => {
    const listing = parseNft('table ip kube-proxy {\n\tchain cluster-ips-check {\n\t\tip daddr { 10.96.0.0/16, 10.97.0.0/16 } drop comment "Drop traffic to unallocated ClusterIPs"\n\t}\n}\n')
    assert.deepEqual(serviceCIDRsFromListing(listing)[0]?.spec?.cidrs, ['10.96.0.0/16', '10.97.0.0/16'])
    assert.deepEqual(serviceCIDRsFromListing(parseNft('table ip kube-proxy {\n\tchain cluster-ips-check {\n\t}\n}\n')), [])
  })

  it('stays quiet when the 403 is recorded, and still reports the rule when the objects are simply absent', async () => {
    const b = await readBundle(join(FIXTURES, 'checks/nftables/clean'))
    assert.ok(b.cluster.serviceCIDRs.length > 0)
    b.cluster.serviceCIDRs = []
    // Without the 403 on record an empty list means "no ServiceCIDRs": the node's drop rule is extra.
    assert.notDeepEqual(failed(b), [])
    b.cluster.unavailable = [{resource: 'servicecidrs', why: 'forbidden', note: 'forbidden'}]
    assert.deepEqual(failed(b), [])
  })
})
