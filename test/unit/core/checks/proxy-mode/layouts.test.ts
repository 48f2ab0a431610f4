// PROXY-001..003 on k3s and RKE2 (#17): the configured mode comes from where that layout keeps it (k3s's
// kube-proxy-arg in config.yaml / config.yaml.d, RKE2's kube-proxy-arg or its static pod manifest's flags; iptables by
// default, said as "default"), over the layout fixture bundles (test/fixtures/layouts/nodes) with the node's
// rancher-config, kube-proxy-manifest and proxy-mode artifacts as the collection plan writes them.
import assert from 'node:assert/strict'
import {join} from 'node:path'
import {describe, it} from 'node:test'
import {nodeAssumptions} from '../../../../../src/core/checks/assumptions.js'
import {PROXY_MODE_CHECKS} from '../../../../../src/core/checks/proxy-mode/index.js'
import {runChecks} from '../../../../../src/core/checks/run.js'
import {KUBE_PROXY_MANIFEST_ARTIFACT} from '../../../../../src/core/collection/plan.js'
import {RunFacts} from '../../../../../src/core/facts/node-facts.js'
import type {ClusterSnapshot, NodeSnapshot} from '../../../../../src/core/model/snapshot.js'
import {readBundle} from '../../../../../src/transports/bundle/bundle.js'
import {FIXTURES} from '../../../../support/golden.js'

const NODES = join(FIXTURES, 'layouts', 'nodes')
const MODE_CHECKS = ['PROXY-001', 'PROXY-002', 'PROXY-003']

async function layoutBundle(name: string, artifacts: Record<string, string>): Promise<{cluster: ClusterSnapshot; node: NodeSnapshot}> {
  const b = await readBundle(join(NODES, name))
  const node = structuredClone(b.nodes[0]!)
  for (const [id, content] of Object.entries(artifacts)) node.artifacts[id] = {id, source: id === 'proxy-mode' ? 'curl -sS --max-time 5 http://127.0.0.1:10249/proxyMode' : `sh -c ... (${id})`, content}
  return {cluster: b.cluster, node}
}

function run(id: string, s: {cluster: ClusterSnapshot; node: NodeSnapshot}) {
  const out = runChecks([PROXY_MODE_CHECKS.find((c) => c.spec.id === id)!], s.cluster, [s.node])
  assert.deepEqual(out.errors, [])
  return {status: out.results[0]!.status, reason: out.results[0]!.reason, findings: out.findings}
}

const k3sConfig = (proxyArgs: string[]) =>
  `# node-doctor-file: /etc/rancher/k3s/config.yaml\nwrite-kubeconfig-mode: '0644'\n${proxyArgs.length > 0 ? `kube-proxy-arg:\n${proxyArgs.map((a) => `  - ${a}\n`).join('')}` : ''}\n`

describe('PROXY-001..003 on k3s: kube-proxy-arg in config.yaml', () => {
  it('configured ipvs (kube-proxy-arg) but running iptables: PROXY-001 names the file and says to restart k3s', async () => {
    const s = await layoutBundle('k3s-flannel', {'rancher-config': k3sConfig(['proxy-mode=ipvs']), 'proxy-mode': 'iptables'})
    const r = run('PROXY-001', s)
    assert.equal(r.status, 'failed')
    const f = r.findings[0]!
    assert.match(f.message, /configured for IPVS \(kube-proxy-arg proxy-mode=ipvs in \/etc\/rancher\/k3s\/config\.yaml\) but runs iptables mode: kube-proxy v1\.33\.4\+k3s1 does not fall back/)
    assert.match(f.remedy, /`systemctl restart k3s` \(`systemctl restart k3s-agent` on an agent\)/)
    assert.match(f.remedy, /set kube-proxy-arg proxy-mode=iptables in \/etc\/rancher\/k3s\/config\.yaml/)
    assert.deepEqual(f.subject, {kind: 'process', name: 'kube-proxy on node-1'})
    assert.ok(f.evidence.includes('configured mode: ipvs (kube-proxy-arg proxy-mode=ipvs in /etc/rancher/k3s/config.yaml)'), f.evidence.join('\n'))
    assert.equal(run('PROXY-003', s).status, 'passed', 'the IPVS case is PROXY-001\'s')
  })

  it('configured nftables in a config.yaml.d drop-in, running iptables: PROXY-003', async () => {
    const text = `${k3sConfig([])}# node-doctor-file: /etc/rancher/k3s/config.yaml.d/50-proxy.yaml\nkube-proxy-arg+:\n  - proxy-mode=nftables\n`
    const r = run('PROXY-003', await layoutBundle('k3s-flannel', {'rancher-config': text, 'proxy-mode': 'iptables'}))
    assert.equal(r.status, 'failed')
    assert.match(r.findings[0]!.message, /runs iptables mode but is configured for nftables \(kube-proxy-arg proxy-mode=nftables in \/etc\/rancher\/k3s\/config\.yaml\.d\/50-proxy\.yaml\): the configuration changed and k3s was not restarted/)
    assert.match(r.findings[0]!.remedy, /systemctl restart k3s/)
    assert.doesNotMatch(r.findings[0]!.remedy, /kubectl -n kube-system delete pod/)
  })

  it('consistent (no proxy-mode anywhere: k3s\'s default iptables, said as default) is quiet', async () => {
    const s = await layoutBundle('k3s-flannel', {'rancher-config': k3sConfig(['metrics-bind-address=127.0.0.1:10249']), 'proxy-mode': 'iptables'})
    for (const id of MODE_CHECKS) assert.equal(run(id, s).status, 'passed', id)
    const ipvs = await layoutBundle('k3s-flannel', {'rancher-config': k3sConfig(['proxy-mode=ipvs']), 'proxy-mode': 'ipvs'})
    for (const id of MODE_CHECKS) assert.equal(run(id, ipvs).status, 'passed', id)
  })

  it("the report's assumptions name the same source when kube-proxy's running mode is not known", async () => {
    const mode = (s: {cluster: ClusterSnapshot; node: NodeSnapshot}) => nodeAssumptions(new RunFacts(s.cluster).forNode(s.node)).find((a) => a.name === 'mode')
    assert.deepEqual(mode(await layoutBundle('k3s-flannel', {'rancher-config': k3sConfig(['proxy-mode=ipvs'])})), {name: 'mode', value: 'ipvs', source: 'kube-proxy-arg proxy-mode=ipvs in /etc/rancher/k3s/config.yaml'})
    assert.deepEqual(mode(await layoutBundle('k3s-flannel', {'rancher-config': k3sConfig([])})), {name: 'mode', value: 'iptables', source: 'default (no kube-proxy-arg proxy-mode: k3s starts kube-proxy with --proxy-mode=iptables)'})
    assert.equal(mode(await layoutBundle('k3s-flannel', {'rancher-config': k3sConfig(['proxy-mode=ipvs']), 'proxy-mode': 'iptables'}))?.source, 'kube-proxy /proxyMode', 'the running mode first')
  })

  it('without the rancher-config artifact the mode is unknown (not assumed), and the checks say why', async () => {
    const r = run('PROXY-003', await layoutBundle('k3s-flannel', {'proxy-mode': 'iptables'}))
    assert.equal(r.status, 'skipped')
    assert.match(r.reason!, /kube-proxy-arg \(\/etc\/rancher\/k3s\/config\.yaml, config\.yaml\.d\), which was not read/)
  })
})

const rke2Manifest = (flags: string[]) =>
  '# node-doctor-file: /var/lib/rancher/rke2/agent/pod-manifests/kube-proxy.yaml\n' +
  'apiVersion: v1\nkind: Pod\nmetadata:\n  name: kube-proxy\n  namespace: kube-system\nspec:\n  hostNetwork: true\n  containers:\n  - name: kube-proxy\n' +
  '    image: index.docker.io/rancher/hardened-kubernetes:v1.33.4-rke2r1-build20250813\n    command:\n    - kube-proxy\n' +
  ['--cluster-cidr=10.42.0.0/16', '--healthz-bind-address=127.0.0.1', '--hostname-override=node-1', ...flags].map((f) => `    - ${f}\n`).join('')

describe('PROXY-001..003 on RKE2: kube-proxy-arg, else the static pod manifest', () => {
  it('kube-proxy-arg proxy-mode=ipvs in /etc/rancher/rke2/config.yaml, manifest and running iptables: PROXY-001 says to restart rke2', async () => {
    const s = await layoutBundle('rke2-canal', {
      'rancher-config': '# node-doctor-file: /etc/rancher/rke2/config.yaml\ncni: canal\nkube-proxy-arg:\n  - proxy-mode=ipvs\n',
      [KUBE_PROXY_MANIFEST_ARTIFACT]: rke2Manifest(['--proxy-mode=iptables']),
      'proxy-mode': 'iptables',
    })
    const r = run('PROXY-001', s)
    assert.equal(r.status, 'failed')
    assert.match(r.findings[0]!.message, /kube-proxy-arg proxy-mode=ipvs in \/etc\/rancher\/rke2\/config\.yaml/)
    assert.match(r.findings[0]!.remedy, /`systemctl restart rke2-server` \(`systemctl restart rke2-agent` on an agent\)/)
  })

  it('the manifest says nftables, kube-proxy runs iptables: PROXY-003 names the manifest line', async () => {
    const r = run('PROXY-003', await layoutBundle('rke2-canal', {'rancher-config': '', [KUBE_PROXY_MANIFEST_ARTIFACT]: rke2Manifest(['--proxy-mode=nftables']), 'proxy-mode': 'iptables'}))
    assert.equal(r.status, 'failed')
    assert.match(r.findings[0]!.message, /configured for nftables \(flag --proxy-mode=nftables in \/var\/lib\/rancher\/rke2\/agent\/pod-manifests\/kube-proxy\.yaml line 16\)/)
  })

  it('consistent is quiet: the manifest\'s --proxy-mode=iptables, or no flag at all (default)', async () => {
    for (const flags of [['--proxy-mode=iptables'], []]) {
      const s = await layoutBundle('rke2-canal', {'rancher-config': '', [KUBE_PROXY_MANIFEST_ARTIFACT]: rke2Manifest(flags), 'proxy-mode': 'iptables'})
      for (const id of MODE_CHECKS) assert.equal(run(id, s).status, 'passed', `${id} ${flags.join(' ')}`)
    }
  })
})
