// `check --probe` end to end: the built CLI against the test API server and two live "nodes" (namespaces with their own
// sshd, test/support/live-cluster.ts). Their InternalIPs sit on veths to the host; the test adds a second path between
// them through a router namespace of its own (each node routes the other's InternalIP through it), so the probe's
// pings go node to node over SSH-run commands. With the router's end of node-a's link at MTU 1400 (node devices 1500)
// the path is a real MTU black hole and NODE-019 fires; at 1500 it passes. Traffic stays in the test's namespaces.
import assert from 'node:assert/strict'
import {execFileSync} from 'node:child_process'
import {randomBytes} from 'node:crypto'
import {after, before, describe, it} from 'node:test'
import type {Report} from '../../src/core/model/report.js'
import {type LiveCluster, liveClusterSkipReason, startLiveCluster} from '../support/live-cluster.js'
import {probeTopologyUnavailable} from '../integration/probe/topology.js'

const skip = liveClusterSkipReason() ?? probeTopologyUnavailable()

/** A router namespace joined to both nodes; returns a way to set the MTU of its end of node-a's link, and teardown. */
function routeThroughRouter(c: LiveCluster): {setMtu(mtu: number): void; remove(): void} {
  const tag = randomBytes(3).toString('hex')
  const router = `ndpe-m-${tag}`
  const ip = (...args: string[]) => execFileSync('ip', args, {stdio: ['ignore', 'pipe', 'pipe']})
  const remove = () => {
    try {
      ip('netns', 'del', router)
    } catch {}
  }
  ip('netns', 'add', router)
  try {
    execFileSync('ip', ['netns', 'exec', router, 'sysctl', '-qw', 'net.ipv4.ip_forward=1'])
    const [a, b] = c.nodes
    const links = [
      {node: a!, subnet: '10.214.1', mid: 'to-a'},
      {node: b!, subnet: '10.214.2', mid: 'to-b'},
    ]
    for (const [i, l] of links.entries()) {
      const n = `ndpe${i}${tag}n`
      const m = `ndpe${i}${tag}m`
      ip('link', 'add', n, 'type', 'veth', 'peer', 'name', m)
      ip('link', 'set', n, 'netns', l.node.ns.name)
      ip('link', 'set', m, 'netns', router)
      ip('-n', router, 'link', 'set', m, 'name', l.mid)
      ip('-n', l.node.ns.name, 'addr', 'add', `${l.subnet}.2/24`, 'dev', n)
      ip('-n', router, 'addr', 'add', `${l.subnet}.1/24`, 'dev', l.mid)
      ip('-n', l.node.ns.name, 'link', 'set', n, 'up')
      ip('-n', router, 'link', 'set', l.mid, 'up')
      ip('-n', router, 'route', 'add', `${l.node.ns.address}/32`, 'via', `${l.subnet}.2`)
    }
    // From its InternalIP, as node-to-node traffic is: the replies come back the same way.
    ip('-n', a!.ns.name, 'route', 'add', `${b!.ns.address}/32`, 'via', '10.214.1.1', 'src', a!.ns.address)
    ip('-n', b!.ns.name, 'route', 'add', `${a!.ns.address}/32`, 'via', '10.214.2.1', 'src', b!.ns.address)
  } catch (err) {
    remove()
    throw err
  }
  return {setMtu: (mtu) => void ip('-n', router, 'link', 'set', 'to-a', 'mtu', String(mtu)), remove}
}

describe('check --probe against live nodes', {skip}, () => {
  let c: LiveCluster
  let path: ReturnType<typeof routeThroughRouter>

  before(async () => {
    c = await startLiveCluster()
    path = routeThroughRouter(c)
  })
  after(async () => {
    path?.remove()
    await c?.stop()
  })

  const run = async (): Promise<{exitCode: number | null; report: Report; stderr: string}> => {
    const r = await c.cli(['check', 'node-a', 'node-b', '--only', 'routes', '--probe', '-o', 'json'])
    return {exitCode: r.exitCode, report: JSON.parse(r.stdout) as Report, stderr: r.stderr}
  }
  const node019 = (report: Report) => report.results.filter((r) => r.id === 'NODE-019').map((r) => [r.node, r.status, r.reason])

  it('an equal-MTU path between the nodes passes', async () => {
    path.setMtu(1500)
    const {report, stderr} = await run()
    assert.deepEqual(node019(report), [['node-a', 'passed', undefined], ['node-b', 'passed', undefined]], stderr)
    assert.deepEqual(report.findings.filter((f) => f.id === 'NODE-019'), [])
  })

  it('a middle link with a smaller MTU fires NODE-019 on both nodes, with the commands run over SSH as evidence', async () => {
    path.setMtu(1400)
    const {exitCode, report, stderr} = await run()
    assert.equal(exitCode, 1, stderr)
    assert.deepEqual(node019(report), [['node-a', 'failed', undefined], ['node-b', 'failed', undefined]])
    const [a, b] = c.nodes
    const f = report.findings.find((x) => x.id === 'NODE-019' && x.node === 'node-a')!
    assert.match(f.message, new RegExp(`^path MTU to node-b \\(${b!.ns.address.replaceAll('.', '\\.')}\\) is below ndpe0[0-9a-f]+n's MTU \\(1500\\): large packets hang`))
    assert.ok(f.evidence.some((e) => e.includes(`ping -4 -n -M do -c 2 -W 1 -s 1472 ${b!.ns.address}`) && e.endsWith('no reply')), f.evidence.join('\n'))
    assert.ok(report.findings.some((x) => x.id === 'NODE-019' && x.node === 'node-b' && x.message.includes(`path MTU to node-a (${a!.ns.address})`)))
  })

  it('without --probe NODE-019 is skipped: not run', async () => {
    const r = await c.cli(['check', 'node-a', 'node-b', '--only', 'routes', '-o', 'json'])
    const report = JSON.parse(r.stdout) as Report
    assert.deepEqual(node019(report), [['node-a', 'skipped', 'not run: --probe not given'], ['node-b', 'skipped', 'not run: --probe not given']])
  })
})
