// Builds examples/bundle: a two-node bundle whose iptables-save dumps come from the real iptables in network
// namespaces (root needed). node-a has two planted faults (a deleted ClusterIP rule, a stale endpoint chain);
// node-b is clean. Run: node --import tsx scripts/make-example-bundle.ts [OUT]
import {execFileSync, spawnSync} from 'node:child_process'
import {readFileSync, rmSync} from 'node:fs'
import {parseAllDocuments} from 'yaml'
import type {ConfigMap, DaemonSet} from '../src/core/model/k8s.js'
import {emptyClusterSnapshot, type NodeSnapshot, SNAPSHOT_API_VERSION} from '../src/core/model/snapshot.js'
import {generateIptablesRestore} from '../src/core/proxier/iptables/generate.js'
import {serializeSave} from '../src/core/proxier/iptables/save.js'
import {loadObjects} from '../src/core/proxier/objects.js'
import {buildRenderInput} from '../src/core/proxier/render-input.js'
import {writeBundle} from '../src/transports/bundle/bundle.js'

const out = process.argv[2] ?? 'examples/bundle'
const files = ['loadbalancer', 'session-affinity'].map((c) => `test/fixtures/proxier/iptables/${c}/objects.yaml`).concat('test/fixtures/proxier/iptables/nodes.yaml')
const objects = loadObjects(files.map((f) => ({name: f, text: readFileSync(f, 'utf8')})))
const config = 'apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\nmode: iptables\nclusterCIDR: 10.0.0.0/8\n'
const configMap: ConfigMap = {apiVersion: 'v1', kind: 'ConfigMap', metadata: {namespace: 'kube-system', name: 'kube-proxy'}, data: {'config.conf': config}}
const daemonSet: DaemonSet = {
  apiVersion: 'apps/v1',
  kind: 'DaemonSet',
  metadata: {namespace: 'kube-system', name: 'kube-proxy'},
  spec: {template: {spec: {containers: [{name: 'kube-proxy', image: 'registry.k8s.io/kube-proxy:v1.31.4'}]}}},
}
objects.configMaps.push(configMap)
objects.daemonSets.push(daemonSet)
void parseAllDocuments

function nsRun(ns: string, argv: string[], input?: string): string {
  const r = spawnSync('ip', ['netns', 'exec', ns, ...argv], {input, encoding: 'utf8'})
  if (r.status !== 0) throw new Error(`${argv.join(' ')}: ${r.stderr}`)
  return r.stdout
}

function nodeDump(node: string, faults: (ns: string) => void): string {
  const render = buildRenderInput(objects, {nodeName: node, kubeProxyConfig: {mode: 'iptables', clusterCIDR: '10.0.0.0/8'}, facts: {nfacct: false, family: 'ipv4'}})
  const ns = `nd-example-${process.pid}`
  execFileSync('ip', ['netns', 'add', ns])
  try {
    nsRun(ns, ['iptables-restore'], serializeSave(generateIptablesRestore(render.input).ruleset))
    faults(ns)
    return nsRun(ns, ['iptables-save']).replace(/ on \w{3} \w{3} +\d+ [\d:]+ \d{4}/g, ' on Wed Dec  2 12:00:00 2026')
  } finally {
    execFileSync('ip', ['netns', 'del', ns])
  }
}

function artifacts(dump: string): NodeSnapshot['artifacts'] {
  const a = (id: string, source: string, content: string) => ({id, source, exitCode: 0, content})
  return {
    'iptables-version': a('iptables-version', 'iptables --version', 'iptables v1.8.9 (nf_tables)\n'),
    'iptables-save': a('iptables-save', 'iptables-save', dump),
    'proxy-mode': a('proxy-mode', 'curl -sS --max-time 5 http://127.0.0.1:10249/proxyMode', 'iptables'),
    sysctls: a('sysctls', 'sysctl net.ipv4.ip_forward net.netfilter.nf_conntrack_tcp_be_liberal', 'net.ipv4.ip_forward = 1\nnet.netfilter.nf_conntrack_tcp_be_liberal = 0\n'),
  }
}

const nodeA = nodeDump('node-a', (ns) => {
  const rules = nsRun(ns, ['iptables', '-t', 'nat', '-S', 'KUBE-SERVICES']).split('\n')
  const victim = rules.find((r) => r.includes('default/lb:http cluster IP'))
  if (!victim) throw new Error('fixture changed: no default/lb:http cluster IP rule')
  const args = victim.split(' ').slice(1)
  spawnSync('sh', ['-c', `ip netns exec ${ns} iptables -t nat -D ${victim.slice(3)}`])
  void args
  nsRun(ns, ['iptables', '-t', 'nat', '-N', 'KUBE-SEP-OLDENDPOINT0000A'])
  nsRun(ns, ['iptables', '-t', 'nat', '-A', 'KUBE-SEP-OLDENDPOINT0000A', '-p', 'tcp', '-m', 'comment', '--comment', 'default/lb:http', '-m', 'tcp', '-j', 'DNAT', '--to-destination', '10.0.2.99:80'])
})
const nodeB = nodeDump('node-b', () => undefined)

const cluster = emptyClusterSnapshot('2026-12-02T12:00:00.000Z')
cluster.context = 'example'
cluster.serverVersion = 'v1.31.4'
cluster.nodes = objects.nodes.filter((n) => n.metadata.name !== 'node-v6')
cluster.services = objects.services
cluster.endpointSlices = objects.endpointSlices
cluster.configMaps = objects.configMaps
cluster.daemonSets = objects.daemonSets

const snap = (node: string, dump: string): NodeSnapshot => ({
  apiVersion: SNAPSHOT_API_VERSION,
  kind: 'NodeSnapshot',
  node,
  collectedAt: '2026-12-02T12:00:01.000Z',
  transport: 'ssh',
  artifacts: artifacts(dump),
  errors: [],
  durationMs: 850,
})

rmSync(out, {recursive: true, force: true})
await writeBundle(out, {
  manifest: {apiVersion: SNAPSHOT_API_VERSION, kind: 'Bundle', createdAt: '2026-12-02T12:00:02.000Z', tool: {name: 'node-doctor', version: '0.1.0'}, context: 'example', nodes: ['node-a', 'node-b']},
  cluster,
  nodes: [snap('node-a', nodeA), snap('node-b', nodeB)],
})
console.log(`wrote ${out}`)
