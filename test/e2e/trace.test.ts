// `trace` through the built executable (`npm run build` first).
// Offline: the node's dump is the expected state of the clusterip fixture (node-a, IP plan in
// test/fixtures/proxier/iptables/README.md), as is or with one KUBE-SEP removed; and the Calico plan of
// test/unit/core/trace/calico-plan.ts with the node's real route captures (test/fixtures/checks/routes).
// Live: node-a of that plan is a network namespace with its own sshd, Calico's routes and links (calico-netns.ts),
// kube-proxy's and Calico's rules loaded with iptables-restore; the API objects come from the test API server.
import assert from 'node:assert/strict'
import {mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {after, before, describe, it} from 'node:test'
import {stringify} from 'yaml'
import {setupCalicoNode} from '../support/calico-netns.js'
import {fixturePath} from '../support/golden.js'
import {type LiveCluster, liveClusterSkipReason, startNetnsCluster} from '../support/live-cluster.js'
import {ROUTE_CASES} from '../support/route-dns-cases.js'
import {runCli} from '../support/run-cli.js'
import {calicoFilterRestore, calicoTraceObjects, kubeProxyRules, mergeSave, WORKLOADS} from '../unit/core/trace/calico-plan.js'
import {renderFixture} from '../unit/core/trace/flow.js'

let dir: string
let clean: string
let altered: string
const OBJECTS = ['--objects', fixturePath('proxier/iptables/clusterip/objects.yaml'), '--objects', fixturePath('proxier/iptables/nodes.yaml'), '--node', 'node-a']
let calicoObjects: string
let calicoDump: string

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'nd-trace-'))
  const save = renderFixture('clusterip').save
  clean = join(dir, 'clean.iptables')
  writeFileSync(clean, save)
  // The endpoint chain of 10.0.2.9:8080 and the jump to it are gone, as after a failed sync.
  const sep = /-A KUBE-SVC-\S+ .*"default\/web:http -> 10\.0\.2\.9:8080" -j (KUBE-SEP-\S+)/.exec(save)?.[1]
  assert.ok(sep)
  altered = join(dir, 'altered.iptables')
  writeFileSync(altered, save.split('\n').filter((l) => !l.includes(sep)).join('\n'))
  const objects = calicoTraceObjects()
  calicoObjects = join(dir, 'calico-objects.yaml')
  writeFileSync(calicoObjects, stringify({apiVersion: 'v1', kind: 'List', items: objects}))
  calicoDump = join(dir, 'calico-node-a.iptables')
  writeFileSync(calicoDump, mergeSave(kubeProxyRules(objects, 'node-a').save, calicoFilterRestore(Object.keys(WORKLOADS))))
})

after(() => rmSync(dir, {recursive: true, force: true}))

describe('trace (built CLI, files)', () => {
  it('exit 0 when the dump agrees with the expected rules', async () => {
    const r = await runCli(['trace', ...OBJECTS, '--iptables-save', clean, '--to', '172.30.0.10:53/udp', '--from', '10.0.1.7'])
    assert.equal(r.exitCode, 0, r.stderr)
    assert.match(r.stdout, /^Trace of a new UDP connection to 172\.30\.0\.10:53\/udp \(Service default\/web port dns, cluster IP\) from a pod on the node \(10\.0\.1\.7, in podCIDR 10\.0\.1\.0\/24\), on this node; node node-a$/m)
    assert.match(r.stdout, /^works: 3 of 3 endpoints$/m)
    assert.match(r.stdout, /^same endpoints and probabilities as kube-proxy's rules: 10\.0\.1\.2:53 33\.3%, 10\.0\.2\.10:53 33\.3%, 10\.0\.2\.9:53 33\.3%$/m)
    assert.doesNotMatch(r.stdout, /\x1b\[/)
  })

  it('a dump pasted into a ticket (indented, CRLF, a prompt line) traces the same, with warnings; --strict refuses it', async () => {
    const pasted = join(dir, 'pasted.txt')
    const text = readFileSync(clean, 'utf8')
    writeFileSync(pasted, `root@node-a:~# iptables-save\r\n${text.split('\n').map((l) => (l === '' ? l : `    ${l}`)).join('\r\n')}`)
    const r = await runCli(['trace', ...OBJECTS, '--iptables-save', pasted, '--to', '172.30.0.10:53/udp', '--from', '10.0.1.7'])
    assert.equal(r.exitCode, 0, r.stderr)
    assert.match(r.stdout, /^works: 3 of 3 endpoints$/m)
    assert.match(r.stderr, /warning: .*pasted\.txt:1: shell prompt `root@node-a:~# iptables-save` skipped/)
    assert.match(r.stderr, /warning: .*pasted\.txt:\d+: common indentation of 4 spaces removed/)
    const strict = await runCli(['trace', ...OBJECTS, '--iptables-save', pasted, '--to', '172.30.0.10:53/udp', '--strict'])
    assert.equal(strict.exitCode, 2, strict.stderr)
    assert.match(strict.stderr, /pasted\.txt/)
  })

  it('exit 1 and the missing endpoint when the dump was altered; -o json carries the same result', async () => {
    const r = await runCli(['trace', ...OBJECTS, '--iptables-save', altered, '--to', '172.30.0.10:80'])
    assert.equal(r.exitCode, 1, r.stderr)
    // It held the last, unconditional rule of KUBE-SVC: its share now falls off the chain without DNAT.
    assert.match(r.stdout, /^differs: missing 10\.0\.2\.9:8080 \(expected 25\.0%\); extra no DNAT \(25\.0%\)$/m)
    assert.match(r.stdout, /^ {2}10\.0\.2\.9:8080 .* fails at rule +no rule on node-a sends connections there \(kube-proxy's rules would send 25\.0%\)$/m)
    const j = await runCli(['trace', ...OBJECTS, '--iptables-save', altered, '--to', '172.30.0.10:80', '-o', 'json'])
    assert.equal(j.exitCode, 1, j.stderr)
    const doc = JSON.parse(j.stdout) as {kind: string; verdict: string; endpoints: Array<{endpoint: string; verdict: string; failsAt?: string}>; comparison: {missing: Array<{outcome: string}>}; actual: {endpoints: Record<string, number>}}
    assert.equal(doc.kind, 'PacketTrace')
    assert.deepEqual(doc.comparison.missing.map((m) => m.outcome), ['10.0.2.9:8080'])
    assert.deepEqual(Object.keys(doc.actual.endpoints).sort(), ['10.0.1.2:8080', '10.0.1.3:8080', '10.0.2.10:8080', 'no-dnat'])
    assert.equal(doc.verdict, 'partly broken')
    assert.deepEqual(doc.endpoints.find((e) => e.endpoint === '10.0.2.9:8080'), {...doc.endpoints.find((e) => e.endpoint === '10.0.2.9:8080'), verdict: 'fails', failsAt: 'rule'})
  })

  it('exit 2 on a malformed --to, naming the expected forms; on a family mismatch; on an unknown Service', async () => {
    const r = await runCli(['trace', ...OBJECTS, '--iptables-save', clean, '--to', '172.30.0.10'])
    assert.equal(r.exitCode, 2)
    assert.match(r.stderr, /--to "172\.30\.0\.10" is not svc\/NAMESPACE\/NAME\[:PORT\]\[\/PROTO\] or IP:PORT\[\/PROTO\]/)
    assert.equal(r.stdout, '')
    const v6 = await runCli(['trace', ...OBJECTS, '--iptables-save', clean, '--to', '[fd00:172:30::1]:80'])
    assert.equal(v6.exitCode, 2)
    assert.match(v6.stderr, /is ipv6 but .* is iptables-save output/)
    const svc = await runCli(['trace', ...OBJECTS, '--iptables-save', clean, '--to', 'svc/default/nope'])
    assert.equal(svc.exitCode, 2)
    assert.match(svc.stderr, /Service default\/nope not found/)
  })

  it('Calico node with --routes: a named pod to kube-dns by name works on the clean node; a lost block route is named', async () => {
    const args = (scenario: string) => ['trace', '--objects', calicoObjects, '--node', 'node-a', '--iptables-save', calicoDump, '--routes', fixturePath(`checks/routes/${scenario}/nodes/node-a/ip-route.txt`), '--from', 'pod/shop/api-a', '--to', 'svc/kube-system/kube-dns:53/udp']
    const ok = await runCli(args('healthy-ipip'))
    assert.equal(ok.exitCode, 0, ok.stdout + ok.stderr)
    assert.match(ok.stdout, /from pod shop\/api-a \(10\.244\.1\.6\), on this node, through its interface cali2222222222b/)
    assert.match(ok.stdout, /^works: 2 of 2 endpoints$/m)
    const lost = await runCli(args('missing-route'))
    assert.equal(lost.exitCode, 1, lost.stdout + lost.stderr)
    assert.match(lost.stdout, /^partly broken: 1 of 2 endpoints work$/m)
    assert.match(lost.stdout, /^ {2}10\.244\.2\.10:53 +kube-system\/coredns-b +node-b .*fails at route +no route to node-b's block 10\.244\.2\.0\/26: only default via 192\.168\.0\.1 dev eth0 matches$/m)
  })
})

const HEALTHY = ROUTE_CASES.find((c) => c.name === 'healthy-ipip')!


describe('trace NODE on a live Calico node', {skip: liveClusterSkipReason()}, () => {
  let c: LiveCluster

  before(async () => {
    const objects = calicoTraceObjects()
    c = await startNetnsCluster({
      nodes: [
        {
          name: 'node-a',
          setup(node, {pods}) {
            setupCalicoNode(node, pods(), HEALTHY.setup!)
            node.exec(['iptables-restore'], kubeProxyRules(objects, 'node-a').save)
            node.exec(['iptables-restore', '--noflush'], calicoFilterRestore(Object.keys(WORKLOADS)))
          },
        },
      ],
      objects: () => objects,
      sshHostName: true,
      tempPrefix: 'nd-live-trace-',
    })
  })
  after(async () => c?.stop())

  const TRACE = ['trace', 'node-a', '--from', 'pod/shop/api-a', '--to', 'svc/kube-system/kube-dns:53/udp']

  it('clean node: works for every endpoint (exit 0); the pod arrives on its real cali interface', async () => {
    const r = await c.cli(TRACE)
    assert.equal(r.exitCode, 0, r.stdout + r.stderr)
    assert.match(r.stdout, /^works: 2 of 2 endpoints$/m)
    assert.match(r.stdout, /through its interface cali2222222222b \(the node's route to it\)/)
    assert.match(r.stdout, /^ {2}10\.244\.1\.5:53 +kube-system\/coredns-a +node-a +yes +50\.0% +works +local pod interface cali1111111111a/m)
    assert.match(r.stdout, /^ {2}10\.244\.2\.10:53 +kube-system\/coredns-b +node-b +yes +50\.0% +works +tunnel tunl0 to node-b's block 10\.244\.2\.0\/26/m)
    assert.match(r.stdout, /^ {2}10\.244\.2\.11:53 .* not ready /m)
    // No --from: a running pod on the node is taken (not an endpoint of kube-dns), and said so.
    const d = await c.cli(['trace', 'node-a', '--to', 'svc/kube-system/kube-dns:dns/udp', '-o', 'json'])
    assert.equal(d.exitCode, 0, d.stdout + d.stderr)
    const doc = JSON.parse(d.stdout) as {origin: string; sourcePod: {name: string}; verdict: string}
    assert.equal(doc.sourcePod.name, 'api-a')
    assert.match(doc.origin, /no --from given, so a running pod on the node was taken/)
    assert.equal(doc.verdict, 'works')
  })

  it('one block route deleted: names the route and the endpoint lost (exit 1)', async () => {
    c.nodeExec('node-a', ['ip', 'route', 'del', '10.244.2.0/26'])
    try {
      const r = await c.cli(TRACE)
      assert.equal(r.exitCode, 1, r.stdout + r.stderr)
      assert.match(r.stdout, /^partly broken: 1 of 2 endpoints work$/m)
      assert.match(r.stdout, /^ {2}10\.244\.2\.10:53 +kube-system\/coredns-b +node-b .*fails at route +no route to node-b's block 10\.244\.2\.0\/26: only default via 192\.168\.0\.1 dev eth0 matches$/m)
    } finally {
      c.nodeExec('node-a', ['ip', 'route', 'add', '10.244.2.0/26', 'via', '192.168.0.12', 'dev', 'tunl0', 'proto', 'bird', 'onlink'])
    }
  })
})

