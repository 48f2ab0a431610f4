// The live form of `proxy render|diff --mode nftables NODE` (run `npm run build` first): objects from the test API
// server, the node's addresses and `nft list ruleset` over real sshd in a network namespace. The table rendered live
// is loaded into the node with the real nft; the live diff must then pass, and one deleted element must be NFT-007.
import assert from 'node:assert/strict'
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {after, before, describe, it} from 'node:test'
import {type LiveCluster, liveClusterSkipReason, startLiveCluster} from '../../support/live-cluster.js'

describe('proxy render|diff --mode nftables NODE (live)', {skip: liveClusterSkipReason()}, () => {
  let c: LiveCluster
  before(async () => (c = await startLiveCluster(['node-a'])))
  after(async () => c?.stop())

  it('renders live, and the live diff passes on that table and names a deleted element', async () => {
    const render = await c.cli(['proxy', 'render', '--mode', 'nftables', 'node-a', '-q'])
    assert.equal(render.exitCode, 0, render.stderr)
    assert.match(render.stdout, /^table ip kube-proxy \{/)
    const file = join(c.dir, 'kube-proxy.nft')
    writeFileSync(file, render.stdout)
    c.nodeExec('node-a', ['nft', '-f', file])

    const clean = await c.cli(['proxy', 'diff', '--mode', 'nftables', 'node-a', '-o', 'json'])
    assert.equal(clean.exitCode, 0, clean.stderr + clean.stdout)
    assert.deepEqual((JSON.parse(clean.stdout) as {findings: unknown[]}).findings, [])

    const m = /map service-ips \{[^}]*elements = \{ ([^:]+?) :/.exec(render.stdout)
    assert.ok(m, 'a service-ips element')
    c.nodeExec('node-a', ['nft', 'delete', 'element', 'ip', 'kube-proxy', 'service-ips', `{ ${m[1]!.trim()} }`])
    const broken = await c.cli(['proxy', 'diff', '--mode', 'nftables', 'node-a', '-o', 'json'])
    assert.equal(broken.exitCode, 1, broken.stderr)
    assert.deepEqual((JSON.parse(broken.stdout) as {findings: Array<{id: string}>}).findings.map((f) => f.id), ['NFT-007'])
    // The table view prints the rule diff above the findings: the deleted element as a `-` line under its Service port.
    const table = await c.cli(['proxy', 'diff', '--mode', 'nftables', 'node-a'])
    assert.equal(table.exitCode, 1, table.stderr)
    assert.match(table.stdout, /^Rule diff on node-a /)
    assert.ok(table.stdout.split('\n').some((l) => l.startsWith('    - ip kube-proxy service-ips: element ') && l.includes(m[1]!.trim())), table.stdout)
  })
})
