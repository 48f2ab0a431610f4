// The parse stage: each node artifact is parsed at most once per node per run, whatever number of checks read it,
// and every check on a node sees the same facts object; parse failures are typed.
import assert from 'node:assert/strict'
import {existsSync, readdirSync, readFileSync, statSync} from 'node:fs'
import {join, relative} from 'node:path'
import {describe, it} from 'node:test'
import {CHECKS} from '../../../../src/core/checks/registry.js'
import {runChecks} from '../../../../src/core/checks/run.js'
import type {Check} from '../../../../src/core/checks/types.js'
import {NodeFacts, RunFacts} from '../../../../src/core/facts/node-facts.js'
import {formatParseProblem} from '../../../../src/core/facts/types.js'
import {emptyClusterSnapshot, type NodeSnapshot} from '../../../../src/core/model/snapshot.js'
import {readBundle} from '../../../../src/transports/bundle/bundle.js'
import {FIXTURES, REPO_ROOT} from '../../../support/golden.js'

const node = (artifacts: Record<string, string>): NodeSnapshot => ({
  apiVersion: 'node-doctor.io/v1alpha1',
  kind: 'NodeSnapshot',
  node: 'n1',
  collectedAt: '',
  transport: 'bundle',
  artifacts: Object.fromEntries(Object.entries(artifacts).map(([id, content]) => [id, {id, source: `${id} --cmd`, content}])),
  errors: [],
})

/** Bundles under a folder (a folder with cluster/ and nodes/). */
function bundles(dir: string): string[] {
  if (existsSync(join(dir, 'cluster')) && existsSync(join(dir, 'nodes'))) return [dir]
  return readdirSync(dir).flatMap((e) => (statSync(join(dir, e)).isDirectory() ? bundles(join(dir, e)) : []))
}

describe('NodeFacts', () => {
  it('parses every artifact at most once per node, and builds every derived view once, over a whole run of every check', async () => {
    const dirs = [join(REPO_ROOT, 'examples', 'bundle'), ...bundles(join(FIXTURES, 'checks'))]
    let parsedSomething = 0
    for (const dir of dirs) {
      const b = await readBundle(dir)
      const run = new RunFacts(b.cluster)
      runChecks(CHECKS, b.cluster, b.nodes, {facts: run})
      for (const n of b.nodes) {
        const counts = run.forNode(n).computeCounts
        for (const [name, count] of counts) assert.equal(count, 1, `${relative(REPO_ROOT, dir)} ${n.node}: ${name} computed ${count} times`)
        parsedSomething += [...counts.keys()].filter((k) => k.startsWith('parse ')).length
      }
      for (const [name, count] of run.computeCounts) assert.equal(count, 1, `${relative(REPO_ROOT, dir)}: ${name} computed ${count} times`)
    }
    assert.ok(parsedSomething > 50, `the runs parsed artifacts through the facts (${parsedSomething})`)
  })

  it('parses iptables-save, ipvsadm and ip -j addr once on an IPVS node, though the PROXY facts and the IPVS diff both read them', async () => {
    const b = await readBundle(join(FIXTURES, 'checks', 'ipvs', 'clean'))
    const run = new RunFacts(b.cluster)
    const out = runChecks(CHECKS, b.cluster, b.nodes, {facts: run})
    assert.ok(out.results.some((r) => r.id === 'IPVS-001' && r.status === 'passed'), 'the IPVS diff ran')
    const facts = run.forNode(b.nodes[0]!)
    for (const id of ['iptables-save', 'ipvsadm', 'ip-addr', 'ipset']) assert.equal(facts.computeCounts.get(`parse ${id}`), 1, id)
    assert.equal(facts.computeCounts.get('derive ipvs diff'), 1)
    assert.equal(facts.iptablesSave(), facts.iptablesSave(), 'the same parsed dump every time')
    assert.equal(run.forNode(b.nodes[0]!), facts, 'one NodeFacts per node snapshot per run')
  })

  it('hands every check on a node the same facts object', () => {
    const seen: unknown[] = []
    const spy = (id: string): Check => ({
      spec: {id, area: 'iptables', severity: 'error', title: 't', looksAt: 'l', why: 'w', remedy: 'r', requires: []},
      run: (ctx) => {
        seen.push(ctx.facts)
        return {status: 'passed'}
      },
    })
    const n = node({})
    runChecks([spy('T-001'), spy('T-002'), spy('T-003')], emptyClusterSnapshot('now'), [n])
    assert.equal(seen.length, 3)
    assert.ok(seen[0] instanceof NodeFacts)
    assert.ok(seen.every((f) => f === seen[0]))
  })

  it('types a parse failure: artifact, source, line, reason', () => {
    const facts = NodeFacts.of(emptyClusterSnapshot('now'), node({'iptables-save': '*nat\n:KUBE-SERVICES - [0:0]\n-A\nCOMMIT\n', 'ip-addr': '[{"ifindex":1,"ifname":"lo","flags":["LOOPBACK","UP"],"mtu":65536,"operstate":"UNKNOWN","addr_info":[{"family":"inet","local":"127.0.0.1","prefixlen":8}]}]'}))
    const dump = facts.iptablesSave()
    assert.ok(dump && !dump.ok)
    assert.equal(dump.problem.artifact, 'iptables-save')
    assert.equal(dump.problem.source, 'iptables-save --cmd')
    assert.equal(typeof dump.problem.line, 'number')
    assert.match(formatParseProblem(dump.problem), /^iptables-save \(iptables-save --cmd\):\d+: \S/)
    assert.ok(facts.links('ip-addr')?.ok)
    assert.deepEqual(facts.problems, [dump.problem], 'only the artifact that failed')
    assert.equal(facts.ipvsadm(), undefined, 'an artifact that was not collected is undefined, not a problem')
  })

  it('exposes the proxy mode, and the dataplane and layout as unknown for now', () => {
    const facts = NodeFacts.of(emptyClusterSnapshot('now'), node({'proxy-mode': 'ipvs'}))
    assert.equal(facts.proxyMode, 'ipvs')
    assert.equal(facts.dataplane, 'unknown')
    assert.equal(facts.layout, 'unknown')
    assert.equal(NodeFacts.of(emptyClusterSnapshot('now'), node({})).proxyMode, 'unknown')
  })

  it('shares facts per snapshot pair outside a run (a screen or command asking for the same node again), never across runs', () => {
    const cluster = emptyClusterSnapshot('now')
    const a = node({'proxy-mode': 'ipvs'})
    const b = node({'proxy-mode': 'ipvs'})
    assert.equal(NodeFacts.of(cluster, a), NodeFacts.of(cluster, a))
    assert.notEqual(NodeFacts.of(cluster, a), NodeFacts.of(cluster, b))
    assert.notEqual(NodeFacts.of(emptyClusterSnapshot('now'), a), NodeFacts.of(cluster, a))
    assert.notEqual(new RunFacts(cluster).forNode(a), NodeFacts.of(cluster, a), 'a run parses for itself')
  })

  it('leaves no module-level memo in core/checks: the facts are the only cache', () => {
    const files = (dir: string): string[] => readdirSync(dir).flatMap((e) => (statSync(join(dir, e)).isDirectory() ? files(join(dir, e)) : e.endsWith('.ts') ? [join(dir, e)] : []))
    const offenders = files(join(REPO_ROOT, 'src', 'core', 'checks')).filter((f) => /^(const|let|var)\s+\w+\s*(:[^=]+)?=\s*new\s+(Weak)?Map\b/m.test(readFileSync(f, 'utf8')))
    assert.deepEqual(offenders.map((f) => relative(REPO_ROOT, f)), [])
  })
})

describe('NodeFacts: the running kube-proxy configuration', () => {
  const configz = readFileSync(join(FIXTURES, 'parse', 'kube-proxy-configz', 'v1.36-nftables.json'), 'utf8')
  it('reads /configz once, beside the ConfigMap, and says why when it is not kube-proxy configuration', () => {
    const facts = new RunFacts(emptyClusterSnapshot('2026-12-03T00:00:00Z')).forNode(node({'kube-proxy-configz': configz}))
    assert.equal(facts.kubeProxyConfig.running?.typed, true)
    assert.equal(facts.kubeProxyConfig.running?.config.values['mode'], 'nftables')
    assert.equal(facts.kubeProxyConfig.runningError, undefined)
    assert.equal(facts.kubeProxyConfigz(), facts.kubeProxyConfigz())
    const bad = new RunFacts(emptyClusterSnapshot('2026-12-03T00:00:00Z')).forNode(node({'kube-proxy-configz': '404 page not found\n'}))
    assert.equal(bad.kubeProxyConfig.running, undefined)
    assert.match(bad.kubeProxyConfig.runningError ?? '', /not a \/configz answer/)
    assert.equal(new RunFacts(emptyClusterSnapshot('2026-12-03T00:00:00Z')).forNode(node({})).kubeProxyConfig.runningError, undefined)
  })
})
