// End to end, live: `why` with the built CLI against the test API server holding a Calico cluster (the DNS
// scenario of test/support/route-dns-cases.ts: IPIP pool, blocks, calico-node pods, kube-dns with CoreDNS on both
// nodes, shop/web with one endpoint per node) and two "nodes" that are network namespaces with their own real sshd,
// real Calico routes and the real iptables rules kube-proxy v1.33 writes there. node-a has two planted faults: no
// route to node-b's block (so 10.244.2.10, shop/web's endpoint there, is cut off) and a deleted KUBE-SVC rule (so
// shop/web's endpoint on node-a, 10.244.1.10, is never picked). node-b is clean. IP plan: calico-dns-builders.ts.
import assert from 'node:assert/strict'
import {rmSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {after, before, describe, it} from 'node:test'
import type {KubeObject} from '../../src/core/model/k8s.js'
import type {ClusterSnapshot} from '../../src/core/model/snapshot.js'
import {generateIptablesRestore} from '../../src/core/proxier/iptables/generate.js'
import {serializeSave} from '../../src/core/proxier/iptables/save.js'
import {buildRenderInput} from '../../src/core/proxier/render-input.js'
import type {WhyVerdict} from '../../src/core/why/verdict.js'
import {NODES} from '../support/calico-dns-builders.js'
import {podRoute, setupCalicoNode} from '../support/calico-netns.js'
import {type FakeApiServer, startFakeApiServer} from '../support/fake-apiserver.js'
import {type FakeKubeProxy, startFakeKubeProxy, withKubeProxyDaemonSet} from '../support/fake-kube-proxy.js'
import {KUBE_PROXY_CONFIG} from '../support/live-cluster.js'
import {createNetns as createPodsNetns, type Netns as PodsNetns} from '../support/netns.js'
import {DNS_CASES} from '../support/route-dns-cases.js'
import {runCli} from '../support/run-cli.js'
import {asPodsNetns, createNetns, makeTempDir, makeUserKey, type Netns, netnsSkipReason, type Sshd, sshdSkipReason, startSshd} from '../support/sshd.js'

const UNREACHABLE = DNS_CASES.find((c) => c.name === 'coredns-unreachable')!
const KUBE_PROXY_IMAGE = 'registry.k8s.io/kube-proxy:v1.33.2'

/** The scenario's cluster, with kube-dns's slice carrying the Service's real ports (the builder gives every slice `p`). */
function cluster(): ClusterSnapshot {
  const c = UNREACHABLE.cluster()
  c.endpointSlices = c.endpointSlices.map((s) =>
    s.metadata.name.startsWith('kube-dns')
      ? {
          ...s,
          ports: [
            {name: 'dns', protocol: 'UDP', port: 53},
            {name: 'dns-tcp', protocol: 'TCP', port: 53},
          ],
        }
      : s,
  )
  c.configMaps = [{apiVersion: 'v1', kind: 'ConfigMap', metadata: {namespace: 'kube-system', name: 'kube-proxy'}, data: {'config.conf': KUBE_PROXY_CONFIG}}]
  c.daemonSets = [{apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: {namespace: 'kube-system', name: 'kube-proxy'}, spec: {template: {spec: {containers: [{name: 'kube-proxy', image: KUBE_PROXY_IMAGE}]}}}} as ClusterSnapshot['daemonSets'][number]]
  return c
}


/** node-b as Calico programs it: its blackhole, its pods' /32s (coredns-b, web-b), and IPIP to node-a's block. */
function setupCleanNodeB(ns: PodsNetns, pods: PodsNetns): void {
  const b = NODES['node-b']
  const ip = (...a: string[]) => ns.exec(['ip', ...a])
  ip('link', 'add', 'eth0', 'type', 'veth', 'peer', 'name', 'eth0-peer')
  ip('link', 'set', 'eth0', 'up')
  ip('link', 'set', 'eth0-peer', 'up')
  ip('addr', 'add', `${b.ip}/24`, 'dev', 'eth0')
  ip('link', 'add', 'tunl0', 'type', 'veth', 'peer', 'name', 'tunl0-peer')
  ip('link', 'set', 'tunl0', 'mtu', '1480', 'up')
  ip('link', 'set', 'tunl0-peer', 'up')
  ip('addr', 'add', `${b.tunnel}/32`, 'dev', 'tunl0')
  const workloads = {cali3333333333c: '10.244.2.2', cali4444444444d: '10.244.2.10'}
  let n = 1
  for (const [dev, addr] of Object.entries(workloads)) {
    ip('link', 'add', dev, 'type', 'veth', 'peer', 'name', `eth${n}`, 'netns', pods.name)
    ip('link', 'set', dev, 'up')
    pods.exec(['ip', 'link', 'set', `eth${n++}`, 'up'])
    ip('route', 'add', ...podRoute(addr, dev))
  }
  ip('route', 'add', 'default', 'via', '192.168.0.1', 'dev', 'eth0', 'src', b.ip)
  ip('route', 'add', 'blackhole', b.block, 'proto', 'bird')
  ip('route', 'add', NODES['node-a'].block, 'via', NODES['node-a'].ip, 'dev', 'tunl0', 'proto', 'bird', 'onlink')
}

/** Loads the rules kube-proxy (iptables mode) writes on `node` into its namespace; returns them. */
function loadKubeProxyRules(ns: PodsNetns, c: ClusterSnapshot, node: string): string {
  const objects = {services: c.services, endpointSlices: c.endpointSlices, nodes: c.nodes, configMaps: c.configMaps, serviceCIDRs: [], daemonSets: c.daemonSets, other: []}
  const render = buildRenderInput(objects, {nodeName: node, kubeProxyConfig: {mode: 'iptables', clusterCIDR: '10.0.0.0/8'}, facts: {nfacct: false, family: 'ipv4'}})
  const rules = serializeSave(generateIptablesRestore(render.input).ruleset)
  ns.exec(['iptables-restore'], rules)
  return rules
}

describe('why against live Calico nodes', {skip: sshdSkipReason() ?? netnsSkipReason()}, () => {
  let dir: string
  let api: FakeApiServer
  let sshConfig: string
  let deleted = ''
  const sshds: Sshd[] = []
  const namespaces: Array<{remove(): void}> = []
  const kubeProxies: FakeKubeProxy[] = []
  /** node → the rules kube-proxy programmed, which a restarted kube-proxy (the fake kubelet's onRunning) restores. */
  const expected = new Map<string, string>()
  const nodeNs = new Map<string, PodsNetns>()

  before(async () => {
    dir = makeTempDir('nd-why-')
    const key = makeUserKey(dir)
    const knownHosts = join(dir, 'known_hosts')
    const c = cluster()
    let config = ''
    for (const name of ['node-a', 'node-b'] as const) {
      const ns = createNetns()
      namespaces.push(ns)
      const pods = createPodsNetns('nd-whyp')
      namespaces.push({remove: () => pods.destroy()})
      const node = asPodsNetns(ns)
      if (name === 'node-a') setupCalicoNode(node, pods, UNREACHABLE.setup!)
      else setupCleanNodeB(node, pods)
      expected.set(name, loadKubeProxyRules(node, c, name))
      nodeNs.set(name, node)
      kubeProxies.push(await startFakeKubeProxy(ns.name, dir))
      if (name === 'node-a') {
        // The KUBE-SVC rule that picks shop/web's endpoint on node-a: without it that endpoint never gets traffic.
        deleted = node.exec(['iptables', '-t', 'nat', '-S']).split('\n').find((l) => l.startsWith('-A KUBE-SVC-') && l.includes('shop/web:p -> 10.244.1.10:80'))!
        assert.ok(deleted, 'the rule to delete')
        node.exec(['sh', '-c', `iptables -t nat -D ${deleted.slice(3)}`])
      }
      const sshd = await startSshd({authorizedKeys: [key.publicKey], netns: ns.name, listenAddress: ns.address})
      sshds.push(sshd)
      writeFileSync(knownHosts, sshd.knownHostsLine(), {flag: 'a'})
      config += `Host ${name}\n  HostName ${ns.address}\n  Port ${sshd.port}\n  User root\n  IdentityFile ${key.privateKeyPath}\n  IdentitiesOnly yes\n  UserKnownHostsFile ${knownHosts}\n\n`
    }
    sshConfig = join(dir, 'ssh_config')
    writeFileSync(sshConfig, config)
    // kube-proxy runs as the kubeadm DaemonSet (seeded pods, a DaemonSet controller and a kubelet that starts
    // replacements): `fix kube-proxy` can restart it.
    const objects = withKubeProxyDaemonSet([...c.nodes, ...c.pods, ...c.services, ...c.endpointSlices, ...c.configMaps, ...c.daemonSets, ...c.calico.ipPools, ...c.calico.blockAffinities, ...c.calico.ipamBlocks] as KubeObject[])
    // The kubelets point pods at kube-dns (KUBELET-016 reads the running config).
    const kubelet = {kubeletconfig: {kind: 'KubeletConfiguration', apiVersion: 'kubelet.config.k8s.io/v1beta1', clusterDomain: 'cluster.local', clusterDNS: ['10.96.0.10']}}
    api = await startFakeApiServer({
      objects,
      configz: {'node-a': kubelet, 'node-b': kubelet},
      daemonSetController: {delayMs: 20},
      kubelet: {startDelayMs: 200, onRunning: (_pod, node) => void nodeNs.get(node.metadata.name)!.exec(['iptables-restore'], expected.get(node.metadata.name)!)},
    })
    const proxyPods = () => api.objects().filter((o) => o.kind === 'Pod' && o.metadata.labels?.['k8s-app'] === 'kube-proxy')
    for (let i = 0; i < 100 && !proxyPods().every((p) => p.metadata.ownerReferences?.length); i++) await new Promise((r) => setTimeout(r, 20))
  })
  after(async () => {
    await Promise.all(kubeProxies.map((k) => k.stop()))
    await Promise.all(sshds.map((s) => s.stop().catch(() => undefined)))
    for (const n of namespaces) n.remove()
    await api?.close()
    if (dir) rmSync(dir, {recursive: true, force: true})
  })

  const cli = (args: string[]) => runCli([...args, '--kubeconfig', api.kubeconfigPath, '--ssh-config', sshConfig, '--no-color'], {env: {HOME: dir, SSH_AUTH_SOCK: ''}, timeoutMs: 120_000})

  it('why svc/shop/web --from node-a names both causes, the missing route and the missing rule (exit 1)', async () => {
    const r = await cli(['why', 'svc/shop/web', '--from', 'node-a', '-o', 'json'])
    assert.equal(r.exitCode, 1, r.stderr)
    const v = JSON.parse(r.stdout) as WhyVerdict & {kind: string}
    assert.equal(v.kind, 'WhyVerdict')
    assert.equal(v.verdict, 'broken')
    assert.equal(v.headline, 'broken: all 2 endpoints are unreachable from node-a')
    assert.deepEqual(v.endpoints?.lost.map((e) => [e.ip, e.by]), [
      ['10.244.1.10', ['IPT-003']],
      ['10.244.2.10', ['RT-001']],
    ])
    const ids = v.causes.map((c) => c.id)
    assert.ok(ids.includes('RT-001') && ids.includes('IPT-003'), ids.join(', '))
    assert.match(v.causes.find((c) => c.id === 'RT-001')!.message, /no route to node-b's block 10\.244\.2\.0\/26/)
    assert.equal(v.causes.find((c) => c.id === 'IPT-003')!.evidence[0], `expected: ${deleted}`)
    assert.match(v.next ?? '', /^kubectl node-doctor fix /)
  })

  it('the table says it in a few lines', async () => {
    const r = await cli(['why', 'svc/shop/web', '--from', 'node-a'])
    assert.equal(r.exitCode, 1, r.stderr)
    assert.match(r.stdout, /^svc shop\/web from node-a: broken: all 2 endpoints are unreachable from node-a\n/)
    assert.match(r.stdout, /^ {2}RT-001 error: no route to node-b's block/m)
    assert.match(r.stdout, /^ {2}IPT-003 error: /m)
    assert.match(r.stdout, /^Next: kubectl node-doctor fix /m)
  })

  it('why dns --from node-b (clean) says works (exit 0); from node-a it is partly broken', async () => {
    const b = await cli(['why', 'dns', '--from', 'node-b', '-o', 'json'])
    assert.equal(b.exitCode, 0, b.stdout + b.stderr)
    const vb = JSON.parse(b.stdout) as WhyVerdict
    assert.equal(vb.verdict, 'works')
    assert.deepEqual(vb.causes, [])
    assert.deepEqual(vb.checked, [
      'clusterDNS: the kubelet on node-b points pods at 10.96.0.10',
      'kube-system/kube-dns: 2 ready CoreDNS endpoints, all reachable from node-b (rules and routes)',
      'no stale UDP conntrack entries for DNS on node-b',
    ])
    const a = await cli(['why', 'dns', '--from', 'node-a', '-o', 'json'])
    assert.equal(a.exitCode, 1)
    const va = JSON.parse(a.stdout) as WhyVerdict
    assert.equal(va.headline, 'partly broken: 1 of 2 endpoints unreachable from node-a')
    assert.deepEqual(va.causes.map((c) => c.id).slice(0, 2), ['RT-001', 'DNS-004'])
  })

  it('check shows what each finding breaks', async () => {
    const r = await cli(['check', 'node-a', '--only', 'routes,iptables,dns', '-o', 'json'])
    const report = JSON.parse(r.stdout) as {findings: Array<{id: string; impact?: {summary: string}}>}
    assert.equal(report.findings.find((f) => f.id === 'RT-001')?.impact?.summary, 'svc kube-system/kube-dns (1 of 2 endpoints), shop/web (1 of 2); 2 pods')
    assert.equal(report.findings.find((f) => f.id === 'IPT-003')?.impact?.summary, 'svc shop/web:p (1 of 2 endpoints)')
    const table = await cli(['check', 'node-a', '--only', 'routes,iptables,dns'])
    assert.match(table.stdout, /breaks: svc kube-system\/kube-dns \(1 of 2 endpoints\), shop\/web \(1 of 2\); 2 pods/)
  })

  it('an unknown target or Service is a usage error', async () => {
    const bad = await cli(['why', 'deploy/shop/web', '--from', 'node-a'])
    assert.equal(bad.exitCode, 2)
    assert.match(bad.stderr, /Use svc\/NAMESPACE\/NAME\[:PORT\], pod\/NAMESPACE\/NAME or dns/)
    const missing = await cli(['why', 'svc/shop/nope', '--from', 'node-a'])
    assert.equal(missing.exitCode, 2)
    assert.match(missing.stderr, /service "shop\/nope" not found/)
  })

  // Last: it repairs node-a's rules.
  it('fix kube-proxy verifies the rules but says shop/web is still broken by the missing route; why then says partly broken', async () => {
    const r = await cli(['fix', 'kube-proxy', 'node-a', '--yes', '--ready-timeout', '20s', '--verify-timeout', '3s', '--poll-interval', '300ms'])
    assert.equal(r.exitCode, 0, r.stderr)
    assert.match(r.stderr, /node-a: repaired: /)
    assert.match(r.stderr, /^node-a: shop\/web is still broken from node-a after the repair: RT-001 no route to node-b's block 10\.244\.2\.0\/26[^\n]*\(see `kubectl node-doctor why svc\/shop\/web --from node-a`\)$/m)
    const w = await cli(['why', 'svc/shop/web', '--from', 'node-a', '-o', 'json'])
    const v = JSON.parse(w.stdout) as WhyVerdict
    assert.equal(v.headline, 'partly broken: 1 of 2 endpoints unreachable from node-a')
    assert.deepEqual(v.causes.map((c) => c.id), ['RT-001'])
  })
})
