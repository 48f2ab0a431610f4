// A live test cluster: the test API server plus "nodes" that are network namespaces, each running its own real
// sshd and holding what the test builds there (kube-proxy's iptables rules, a CNI's links and routes, pod veths
// whose far ends sit in a second namespace). Traffic stays on veth pairs into namespaces the test creates.
// startNetnsCluster is the one builder; startLiveCluster is its kube-proxy-only form (the proxier's fixture objects),
// and live-calico-cluster.ts builds Calico nodes on the calico-dns-builders IP plan with it.
import {spawnSync} from 'node:child_process'
import {readFileSync, rmSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import type {ConfigMap, DaemonSet, KubeObject, Node} from '../../src/core/model/k8s.js'
import {generateIptablesRestore} from '../../src/core/proxier/iptables/generate.js'
import {serializeSave} from '../../src/core/proxier/iptables/save.js'
import {loadObjects} from '../../src/core/proxier/objects.js'
import {buildRenderInput} from '../../src/core/proxier/render-input.js'
import {startFakeApiServer, type FakeApiServer, type FakeApiServerOptions} from './fake-apiserver.js'
import {type FakeKubeProxy, startFakeKubeProxy} from './fake-kube-proxy.js'
import {fixturePath} from './golden.js'
import {createNetns as createPodsNetns, type Netns as PodsNetns} from './netns.js'
import {type NodeHost, nodeHostSshdConfig} from './node-host.js'
import {type CliResult, runCli} from './run-cli.js'
import {asPodsNetns, createNetns, makeTempDir, makeUserKey, netnsSkipReason, type Netns, type Sshd, sshdSkipReason, startSshd} from './sshd.js'

export const KUBE_PROXY_CONFIG = 'apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\nmode: iptables\nclusterCIDR: 10.0.0.0/8\n'

export function liveClusterSkipReason(): string | undefined {
  return sshdSkipReason() ?? netnsSkipReason()
}

export interface LiveNode {
  name: string
  /** The node's namespace (its sshd listens on ns.address). */
  ns: Netns
  sshd: Sshd
  /** The same namespace driven like a netns.ts helper namespace (what setupCalicoNode and setupCniNode take). */
  node: PodsNetns
}

export interface LiveCluster {
  api: FakeApiServer
  nodes: LiveNode[]
  dir: string
  sshConfig: string
  knownHosts: string
  /** The node named `name`. */
  node(name: string): LiveNode
  /** Runs the built CLI with this cluster's kubeconfig and ssh config. */
  cli(args: string[]): Promise<CliResult>
  /** Runs a command inside a node's namespace. */
  nodeExec(node: string, argv: string[]): string
  stop(): Promise<void>
}

export interface LiveNodeSpec {
  name: string
  /**
   * Builds the node in its namespace before its sshd starts. `pods()` is a second namespace (made on first call,
   * one per node) for the far ends of pod veths; `address` is the namespace's own address (where sshd listens).
   */
  setup?(node: PodsNetns, context: {pods(): PodsNetns; address: string}): void
  /** Files and processes every SSH session on the node sees (node-host.ts); default: the host's own. */
  host?: NodeHost
}

export interface NetnsClusterOptions {
  nodes: ReadonlyArray<string | LiveNodeSpec>
  /** The API server's objects, once the nodes (and their addresses) exist. */
  objects(nodes: readonly LiveNode[]): KubeObject[]
  api?: Omit<FakeApiServerOptions, 'objects'>
  /**
   * The ssh config gives each node its namespace's address as HostName, so Node objects can keep other addresses
   * (an IP plan). Without it the config names only port and key, and Node objects must carry the namespace address.
   */
  sshHostName?: boolean
  /** Run kube-proxy's /healthz, /proxyMode endpoints (fake-kube-proxy.ts) in every node. */
  fakeKubeProxy?: boolean
  /** Prefix of the temporary HOME (keys, ssh config, known_hosts). */
  tempPrefix?: string
}

/** Starts the nodes (namespace, setup, sshd), then the API server with `objects`. Cleans up what it made on failure. */
export async function startNetnsCluster(options: NetnsClusterOptions): Promise<LiveCluster> {
  const dir = makeTempDir(options.tempPrefix ?? 'nd-live-')
  const key = makeUserKey(dir)
  const knownHosts = join(dir, 'known_hosts')
  const sshConfig = join(dir, 'ssh_config')
  const nodes: LiveNode[] = []
  const podNamespaces: PodsNetns[] = []
  const namespaces: Netns[] = []
  const kubeProxies: FakeKubeProxy[] = []
  let api: FakeApiServer | undefined
  const stop = async () => {
    await Promise.all(kubeProxies.map((k) => k.stop()))
    await Promise.all(nodes.map((n) => n.sshd.stop().catch(() => undefined)))
    for (const p of podNamespaces) p.destroy()
    for (const ns of namespaces) ns.remove()
    await api?.close()
    rmSync(dir, {recursive: true, force: true})
  }
  try {
    let config = ''
    for (const spec of options.nodes.map((s) => (typeof s === 'string' ? {name: s} : s))) {
      const ns = createNetns()
      namespaces.push(ns)
      const node = asPodsNetns(ns)
      let pods: PodsNetns | undefined
      spec.setup?.(node, {
        pods: () => {
          if (!pods) podNamespaces.push((pods = createPodsNetns('nd-livep')))
          return pods
        },
        address: ns.address,
      })
      if (options.fakeKubeProxy) kubeProxies.push(await startFakeKubeProxy(ns.name, dir))
      const extraConfig = spec.host ? nodeHostSshdConfig(join(dir, `host-${spec.name}`), spec.host) : undefined
      const sshd = await startSshd({authorizedKeys: [key.publicKey], netns: ns.name, listenAddress: ns.address, ...(extraConfig ? {extraConfig} : {})})
      nodes.push({name: spec.name, ns, sshd, node})
      const hostName = options.sshHostName ? `  HostName ${ns.address}\n` : ''
      config += `Host ${spec.name}\n${hostName}  Port ${sshd.port}\n  User root\n  IdentityFile ${key.privateKeyPath}\n  IdentitiesOnly yes\n  UserKnownHostsFile ${knownHosts}\n\n`
    }
    writeFileSync(knownHosts, nodes.map((n) => n.sshd.knownHostsLine()).join('\n') + '\n')
    writeFileSync(sshConfig, config)
    api = await startFakeApiServer({...options.api, objects: options.objects(nodes)})
  } catch (err) {
    await stop()
    throw err
  }
  const started = api
  const node = (name: string) => {
    const n = nodes.find((x) => x.name === name)
    if (!n) throw new Error(`no live node ${name}`)
    return n
  }
  return {
    api: started,
    nodes,
    dir,
    sshConfig,
    knownHosts,
    node,
    cli: (args) => runCli([...args, '--kubeconfig', started.kubeconfigPath, '--ssh-config', sshConfig, '--no-color'], {env: {HOME: dir, SSH_AUTH_SOCK: ''}, timeoutMs: 120_000}),
    nodeExec(name, argv) {
      const r = spawnSync('ip', ['netns', 'exec', node(name).ns.name, ...argv], {encoding: 'utf8'})
      if (r.status !== 0) throw new Error(`${argv.join(' ')}: ${r.stderr}`)
      return r.stdout
    },
    stop,
  }
}

/** The kube-proxy ConfigMap (iptables mode) as kubeadm deploys it. */
export function kubeProxyConfigMap(): ConfigMap {
  return {apiVersion: 'v1', kind: 'ConfigMap', metadata: {namespace: 'kube-system', name: 'kube-proxy'}, data: {'config.conf': KUBE_PROXY_CONFIG}}
}

/** The kube-proxy DaemonSet, its container at `image`. */
export function kubeProxyDaemonSet(image = 'registry.k8s.io/kube-proxy:v1.33.2'): DaemonSet {
  return {apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: {namespace: 'kube-system', name: 'kube-proxy'}, spec: {template: {spec: {containers: [{name: 'kube-proxy', image}]}}}} as DaemonSet
}

/** The iptables-restore input kube-proxy (iptables mode, clusterCIDR 10.0.0.0/8) writes on `nodeName`. */
export function kubeProxyRestore(objects: Parameters<typeof buildRenderInput>[0], nodeName: string): string {
  const render = buildRenderInput(objects, {nodeName, kubeProxyConfig: {mode: 'iptables', clusterCIDR: '10.0.0.0/8'}, facts: {nfacct: false, family: 'ipv4'}})
  return serializeSave(generateIptablesRestore(render.input).ruleset)
}

/** Starts nodes node-a and node-b (fixture objects from the proxier's loadbalancer case) with kube-proxy's rules loaded. */
export async function startLiveCluster(
  nodeNames: readonly string[] = ['node-a', 'node-b'],
  options: {api?: Omit<FakeApiServerOptions, 'objects'>; objects?: (objects: KubeObject[]) => KubeObject[]} = {},
): Promise<LiveCluster> {
  const objects = loadObjects([
    {name: 'lb', text: readFileSync(fixturePath('proxier/iptables/loadbalancer/objects.yaml'), 'utf8')},
    {name: 'nodes', text: readFileSync(fixturePath('proxier/iptables/nodes.yaml'), 'utf8')},
  ])
  // The fixture's Node, reachable at its namespace's address.
  const nodeObject = (name: string, address: string): Node => ({
    ...objects.nodes.find((n) => n.metadata.name === name)!,
    apiVersion: 'v1',
    kind: 'Node',
    status: {addresses: [{type: 'InternalIP', address}, {type: 'Hostname', address: name}], conditions: [{type: 'Ready', status: 'True'}]},
  })
  return startNetnsCluster({
    nodes: nodeNames.map((name) => ({name, setup: (node, {address}) => void node.exec(['iptables-restore'], kubeProxyRestore({...objects, nodes: [nodeObject(name, address)]}, name))})),
    objects: (nodes) => {
      const apiObjects: KubeObject[] = [...objects.services, ...objects.endpointSlices].map((o) => ({...o}))
      apiObjects.push(...nodes.map((n) => nodeObject(n.name, n.ns.address)), kubeProxyConfigMap(), kubeProxyDaemonSet())
      return options.objects ? options.objects(apiObjects) : apiObjects
    },
    api: options.api,
  })
}
