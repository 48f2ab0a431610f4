// Builds bundles whose iptables-save dumps come from the real iptables in a network namespace (root needed):
// the proxier's expected rules are loaded with iptables-restore, a fault is applied with the real iptables, and
// iptables-save is read back. Used by scripts/make-example-bundle.ts and scripts/make-check-fixtures.ts.
import {execFileSync, spawnSync} from 'node:child_process'
import {readFileSync, rmSync} from 'node:fs'
import type {ConfigMap, DaemonSet, Pod} from '../../src/core/model/k8s.js'
import {type ClusterSnapshot, emptyClusterSnapshot, type NodeSnapshot, SNAPSHOT_API_VERSION} from '../../src/core/model/snapshot.js'
import {generateIptablesRestore} from '../../src/core/proxier/iptables/generate.js'
import {serializeSave} from '../../src/core/proxier/iptables/save.js'
import {type LoadedObjects, loadObjects} from '../../src/core/proxier/objects.js'
import {buildRenderInput} from '../../src/core/proxier/render-input.js'
import {writeBundle} from '../../src/transports/bundle/bundle.js'

export const KUBE_PROXY_CONFIG = {mode: 'iptables', clusterCIDR: '10.0.0.0/8'}

/** Objects from the proxier's feature fixtures, plus a kube-proxy ConfigMap and DaemonSet (v1.31). */
export function fixtureObjects(cases: readonly string[]): LoadedObjects {
  const files = cases.map((c) => `test/fixtures/proxier/iptables/${c}/objects.yaml`).concat('test/fixtures/proxier/iptables/nodes.yaml')
  const objects = loadObjects(files.map((f) => ({name: f, text: readFileSync(f, 'utf8')})))
  const configMap: ConfigMap = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {namespace: 'kube-system', name: 'kube-proxy'},
    data: {'config.conf': 'apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\nmode: iptables\nclusterCIDR: 10.0.0.0/8\n'},
  }
  const daemonSet: DaemonSet = {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: {namespace: 'kube-system', name: 'kube-proxy'},
    spec: {template: {spec: {containers: [{name: 'kube-proxy', image: 'registry.k8s.io/kube-proxy:v1.31.4'}]}}},
  }
  objects.configMaps.push(configMap)
  objects.daemonSets.push(daemonSet)
  return objects
}

export interface Netns {
  name: string
  run(argv: string[], input?: string): string
}

/** The node's iptables-save after loading the expected rules and applying `fault` in a fresh namespace. */
export function realDump(objects: LoadedObjects, node: string, fault: (ns: Netns) => void = () => undefined): string {
  const render = buildRenderInput(objects, {nodeName: node, kubeProxyConfig: KUBE_PROXY_CONFIG, facts: {nfacct: false, family: 'ipv4'}})
  const name = `nd-fx-${process.pid}`
  execFileSync('ip', ['netns', 'add', name])
  const ns: Netns = {
    name,
    run(argv, input) {
      const r = spawnSync('ip', ['netns', 'exec', name, ...argv], {input, encoding: 'utf8'})
      if (r.status !== 0) throw new Error(`${argv.join(' ')}: ${r.stderr}`)
      return r.stdout
    },
  }
  try {
    ns.run(['iptables-restore'], serializeSave(generateIptablesRestore(render.input).ruleset))
    fault(ns)
    return ns.run(['iptables-save']).replace(/ on \w{3} \w{3} +\d+ [\d:]+ \d{4}/g, ' on Wed Dec  2 12:00:00 2026')
  } finally {
    execFileSync('ip', ['netns', 'del', name])
  }
}

/** Deletes the first rule of `table`/`chain` whose text contains `needle`, with the real iptables. */
export function deleteRule(ns: Netns, table: string, chain: string, needle: string): string {
  const rule = ns.run(['iptables', '-t', table, '-S', chain]).split('\n').find((l) => l.includes(needle))
  if (!rule) throw new Error(`no rule in ${table}/${chain} contains ${needle}`)
  const r = spawnSync('sh', ['-c', `ip netns exec ${ns.name} iptables -t ${table} -D ${rule.slice(3)}`], {encoding: 'utf8'})
  if (r.status !== 0) throw new Error(r.stderr)
  return rule
}

export function clusterSnapshot(objects: LoadedObjects, nodes: readonly string[]): ClusterSnapshot {
  const cluster = emptyClusterSnapshot('2026-12-02T12:00:00.000Z')
  cluster.context = 'example'
  cluster.serverVersion = 'v1.31.4'
  cluster.nodes = objects.nodes.filter((n) => nodes.includes(n.metadata.name))
  cluster.services = objects.services
  cluster.endpointSlices = objects.endpointSlices
  cluster.configMaps = objects.configMaps
  cluster.daemonSets = objects.daemonSets
  cluster.pods = nodes.map((node, i) => kubeProxyPod(node, i))
  return cluster
}

/** A healthy kubeadm-style kube-proxy pod on `node`. */
export function kubeProxyPod(node: string, i: number): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      namespace: 'kube-system',
      name: `kube-proxy-${['x7k2p', 'q9m4d', 'z3n8r', 'w5t6c'][i % 4]}`,
      labels: {'k8s-app': 'kube-proxy'},
      ownerReferences: [{kind: 'DaemonSet', name: 'kube-proxy', controller: true}],
      creationTimestamp: '2026-12-01T08:00:00Z',
    },
    spec: {
      nodeName: node,
      hostNetwork: true,
      containers: [
        {
          name: 'kube-proxy',
          image: 'registry.k8s.io/kube-proxy:v1.31.4',
          command: ['/usr/local/bin/kube-proxy', '--config=/var/lib/kube-proxy/config.conf', '--hostname-override=$(NODE_NAME)'],
        },
      ],
    },
    status: {
      phase: 'Running',
      conditions: [{type: 'Ready', status: 'True'}],
      containerStatuses: [{name: 'kube-proxy', ready: true, restartCount: 0, image: 'registry.k8s.io/kube-proxy:v1.31.4', state: {running: {startedAt: '2026-12-01T08:00:05Z'}}}],
    },
  }
}

export function nodeSnapshot(node: string, dump: string): NodeSnapshot {
  const a = (id: string, source: string, content: string) => ({id, source, exitCode: 0, content})
  return {
    apiVersion: SNAPSHOT_API_VERSION,
    kind: 'NodeSnapshot',
    node,
    collectedAt: '2026-12-02T12:00:01.000Z',
    transport: 'ssh',
    artifacts: {
      'iptables-version': a('iptables-version', 'iptables --version', 'iptables v1.8.9 (nf_tables)\n'),
      'iptables-save': a('iptables-save', 'iptables-save', dump),
      'proxy-mode': a('proxy-mode', 'curl -sS --max-time 5 http://127.0.0.1:10249/proxyMode', 'iptables'),
      sysctls: a('sysctls', 'sysctl net.ipv4.ip_forward net.netfilter.nf_conntrack_tcp_be_liberal', 'net.ipv4.ip_forward = 1\nnet.netfilter.nf_conntrack_tcp_be_liberal = 0\n'),
    },
    errors: [],
    durationMs: 850,
  }
}

export async function writeNodeBundle(out: string, objects: LoadedObjects, dumps: Record<string, string>): Promise<void> {
  const names = Object.keys(dumps)
  rmSync(out, {recursive: true, force: true})
  await writeBundle(out, {
    manifest: {apiVersion: SNAPSHOT_API_VERSION, kind: 'Bundle', createdAt: '2026-12-02T12:00:02.000Z', tool: {name: 'node-doctor', version: '0.1.0'}, context: 'example', nodes: names},
    cluster: clusterSnapshot(objects, names),
    nodes: names.map((n) => nodeSnapshot(n, dumps[n]!)),
  })
}
