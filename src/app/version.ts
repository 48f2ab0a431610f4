// `version`: the client's version and, with a cluster, the server's and each node's kubelet and kube-proxy versions,
// all read from the API (no node access): the kubelet's from Node status.nodeInfo, kube-proxy's from the image of the
// kube-proxy pod on the node (core/proxier/kube-proxy-version.ts, the same reading `check` starts from).
import pLimit from 'p-limit'
import type {Node, Pod} from '../core/model/k8s.js'
import {formatFullKubeProxyVersion} from '../core/proxier/config.js'
import {versionClaims} from '../core/proxier/kube-proxy-version.js'
import {ClusterAccessError, type ClusterReader, describeRequest} from '../ports/cluster.js'

export interface ClientVersion {
  /** node-doctor's own version (package.json). */
  version: string
  /** `node-v20.19.0 linux-x64`. */
  runtime: string
}

export interface NodeVersions {
  name: string
  /** Node status.nodeInfo.kubeletVersion; absent when the node does not report one (or does not exist). */
  kubelet?: string
  kubeProxy?: {version: string; from: string}
  /** Why there is no kube-proxy version, or what the reader should know about the one shown. */
  note?: string
}

/** What `version` shows (render/version.ts adds apiVersion and kind for -o json/yaml). */
export interface VersionView {
  client: ClientVersion
  /** Absent with --client. */
  server?: {version: string; platform?: string}
  nodes?: NodeVersions[]
  /** Reads that were refused (the rest is still shown): `list pods -n kube-system: forbidden ...`. */
  errors?: string[]
}

export interface VersionOptions {
  client: ClientVersion
  /** NODE arguments; none: every node (or those -l selects). */
  nodeNames?: readonly string[]
  selector?: string
}

/**
 * Reads the versions. Rejects with ClusterAccessError only when the API cannot be used at all (its /version is the
 * probe); a refused list (403, timeout) becomes an entry of `errors` and the versions it would have given are absent.
 */
export async function readVersions(reader: ClusterReader, options: VersionOptions): Promise<VersionView> {
  const server = await reader.serverVersion()
  const errors: string[] = []
  const soft = async <T>(what: string, read: () => Promise<T>): Promise<T | undefined> => {
    try {
      return await read()
    } catch (err) {
      if (!(err instanceof ClusterAccessError) || (err.kind !== 'status' && err.kind !== 'timeout')) throw err
      errors.push(`${err.request ? describeRequest(err.request) : what}: ${err.message}`)
      return undefined
    }
  }
  const limit = pLimit(6)
  const names = options.nodeNames ?? []
  const [listed, pods] = await Promise.all([
    names.length > 0
      ? Promise.all(names.map((n) => limit(() => soft(`get node ${n}`, () => reader.getNode(n)).then((node) => ({name: n, node})))))
      : soft('list nodes', () => reader.listNodes(options.selector ? {labelSelector: options.selector} : {})).then((nodes) =>
          (nodes ?? []).map((node) => ({name: node.metadata.name, node: node as Node | undefined})),
        ),
    soft('list pods -n kube-system', () => reader.listPods({namespace: 'kube-system'})),
  ])
  const nodes = [...listed].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)).map((n) => nodeVersions(n.name, n.node, pods))
  const view: VersionView = {
    client: options.client,
    server: {version: server.gitVersion, ...(server.platform ? {platform: server.platform} : {})},
    nodes,
  }
  if (errors.length > 0) view.errors = errors
  return view
}

/**
 * One node's versions. kube-proxy: the image of its kube-proxy pod; on k3s (kubelet `+k3s`) the agent runs it
 * in-process, so the kubelet's version is kube-proxy's. Node status.nodeInfo.kubeProxyVersion is not used: the
 * kubelet filled it with its own version, not knowing kube-proxy's or whether it runs (KEP-4004; not set since
 * v1.31). A DaemonSet alone is not used either: it does not say that a pod runs on this node.
 */
export function nodeVersions(name: string, node: Node | undefined, pods: readonly Pod[] | undefined): NodeVersions {
  if (node === undefined) return {name, note: 'no such node (or it could not be read)'}
  const out: NodeVersions = {name}
  const kubelet = node.status?.nodeInfo?.kubeletVersion
  if (kubelet) out.kubelet = kubelet
  const pod = versionClaims({nodeName: name, ...(pods ? {pods} : {})}).find((c) => c.kind === 'pod')
  if (pod) {
    out.kubeProxy = {version: formatFullKubeProxyVersion(pod.version), from: pod.from}
    return out
  }
  if (kubelet && /\+k3s/.test(kubelet)) {
    out.kubeProxy = {version: kubelet, from: 'embedded in the k3s agent (same binary as the kubelet)'}
    out.note = 'unless k3s runs with --disable-kube-proxy'
    return out
  }
  out.note =
    pods === undefined
      ? 'kube-system pods could not be listed'
      : `no kube-proxy pod: a systemd service, or replaced by the CNI (\`kubectl node-doctor check ${name}\` reads the node)`
  return out
}
