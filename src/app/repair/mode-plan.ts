// Pure pieces of `fix kube-proxy-mode --to MODE`: the per-node prerequisites of the new mode (from the snapshots),
// the edit of the ConfigMap's `mode` (only that value's bytes change), the backup annotation and its restore, and
// whether a node runs the new mode cleanly. No I/O: mode.ts drives these through the ports.
import {isMap, isScalar, parseDocument, Scalar} from 'yaml'
import {proxyFacts} from '../../core/checks/proxy-mode/facts.js'
import type {ConfigMap} from '../../core/model/k8s.js'
import {PROXY_MODES, type ProxyModeName} from '../../core/model/kube-proxy-state.js'
import {type Report, severityAtLeast} from '../../core/model/report.js'
import {artifactText, type ClusterSnapshot, type NodeSnapshot} from '../../core/model/snapshot.js'
import {KERNEL_MODULES_BY_MODE, missingKernelModules, parseKernelModules} from '../../core/parse/kernel-modules.js'
import {KUBE_PROXY_CONFIGMAP_KEYS} from '../../core/parse/kube-proxy-config.js'
import {UsageError} from '../../errors.js'

export {PROXY_MODES, type ProxyModeName}

/** The annotation holding the ConfigMap's data and annotations from before the change (JSON), for the rollback. */
export const BACKUP_ANNOTATION = 'node-doctor.io/kube-proxy-mode-backup'

/** Minimum kernel for the nftables proxier (kube-proxy checks for 5.13; KEP-3866). */
export const NFTABLES_MIN_KERNEL: readonly [number, number] = [5, 13]
/**
 * Minimum nft: knftables, kube-proxy's nftables library, needs 1.0.1 (older ones dump the whole ruleset on every
 * call). kube-proxy runs the nft of its image; the node's is what operators and node-doctor read and clean the
 * table with, so it is checked too.
 */
export const NFTABLES_MIN_NFT: readonly [number, number, number] = [1, 0, 1]
/** nftables mode: alpha 1.29 (feature gate), beta and on by default 1.31, GA 1.33. */
export const NFTABLES_MIN_MINOR = 31

export interface Prerequisite {
  node: string
  /** What is required, e.g. `kernel >= 5.13`, `nft`, `ip_vs modules`. */
  requirement: string
  ok: boolean
  /** What was found (or why it is unknown). */
  found: string
}

function artifactFailure(node: NodeSnapshot, id: string): string | undefined {
  const a = node.artifacts[id]
  if (!a) return `${id} was not collected`
  return a.error
}

function kernelRelease(cluster: ClusterSnapshot, node: NodeSnapshot): string | undefined {
  const uname = artifactText(node, 'uname')?.trim()
  if (uname) return uname
  return cluster.nodes.find((n) => n.metadata.name === node.node)?.status?.nodeInfo?.kernelVersion
}

function kernelAtLeast(release: string, min: readonly [number, number]): boolean | undefined {
  const m = /^(\d+)\.(\d+)/.exec(release)
  if (!m) return undefined
  const [maj, min2] = [Number(m[1]), Number(m[2])]
  return maj > min[0] || (maj === min[0] && min2 >= min[1])
}

/** `nft >= 1.0.1` from `nft --version`; a snapshot without that artifact (older bundles) only shows nft installed. */
function nftVersion(node: NodeSnapshot, add: (requirement: string, ok: boolean, found: string) => void, tool: (requirement: string, artifact: string) => void): void {
  if (!node.artifacts['nft-version']) return tool('nft', 'nft-ruleset')
  const requirement = `nft >= ${NFTABLES_MIN_NFT.join('.')}`
  const text = artifactText(node, 'nft-version')
  if (text === undefined) return add(requirement, false, artifactFailure(node, 'nft-version') ?? 'nft --version gave nothing')
  const m = /\bv?(\d+)\.(\d+)(?:\.(\d+))?/.exec(text)
  if (!m) return add(requirement, false, `unknown (nft --version said: ${text.trim().slice(0, 80)})`)
  const found = [Number(m[1]), Number(m[2]), Number(m[3] ?? 0)]
  const ok = compareVersions(found, NFTABLES_MIN_NFT) >= 0
  add(requirement, ok, text.trim().split('\n')[0]!)
}

function compareVersions(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const d = (a[i] ?? 0) - (b[i] ?? 0)
    if (d !== 0) return d
  }
  return 0
}

/** What `to` needs on one node, judged from its snapshot. Unknown counts as not met (the run cannot vouch for it). */
export function modePrerequisites(cluster: ClusterSnapshot, node: NodeSnapshot, to: ProxyModeName): Prerequisite[] {
  const out: Prerequisite[] = []
  const add = (requirement: string, ok: boolean, found: string) => out.push({node: node.node, requirement, ok, found})
  const tool = (requirement: string, artifact: string) => {
    const failure = artifactFailure(node, artifact)
    add(requirement, failure === undefined, failure ?? 'installed')
  }
  const facts = proxyFacts({cluster, node})
  const version = facts.version
  switch (to) {
    case 'nftables': {
      const release = kernelRelease(cluster, node)
      const ok = release === undefined ? undefined : kernelAtLeast(release, NFTABLES_MIN_KERNEL)
      add(`kernel >= ${NFTABLES_MIN_KERNEL.join('.')}`, ok === true, release ?? 'unknown (uname -r was not collected)')
      nftVersion(node, add, tool)
      add(`kube-proxy >= v1.${NFTABLES_MIN_MINOR}`, version !== undefined && version.minor >= NFTABLES_MIN_MINOR, version?.text ?? 'unknown version')
      break
    }
    case 'ipvs': {
      const text = artifactText(node, 'modules')
      if (text === undefined) add(`modules ${KERNEL_MODULES_BY_MODE.ipvs.join(', ')}`, false, `unknown (${artifactFailure(node, 'modules') ?? '/proc/modules unreadable'})`)
      else {
        try {
          const missing = missingKernelModules(parseKernelModules(text), KERNEL_MODULES_BY_MODE.ipvs)
          add(`modules ${KERNEL_MODULES_BY_MODE.ipvs.join(', ')}`, missing.length === 0, missing.length === 0 ? 'loaded' : `not loaded: ${missing.join(', ')}`)
        } catch (err) {
          add(`modules ${KERNEL_MODULES_BY_MODE.ipvs.join(', ')}`, false, `unknown (/proc/modules: ${(err as Error).message})`)
        }
      }
      tool('ipset', 'ipset')
      break
    }
    case 'iptables':
      tool('iptables', 'iptables-save')
      break
  }
  return out
}

/** The prerequisites as a table (plain text, aligned). */
export function formatPrerequisites(rows: readonly Prerequisite[]): string {
  const head = ['NODE', 'REQUIREMENT', 'OK', 'FOUND']
  const cells = rows.map((r) => [r.node, r.requirement, r.ok ? 'yes' : 'NO', r.found])
  const widths = head.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)))
  const line = (c: string[]) => c.map((x, i) => (i === c.length - 1 ? x : x.padEnd(widths[i]!))).join('  ').trimEnd()
  return [line(head), ...cells.map(line)].map((l) => `  ${l}`).join('\n')
}

/** Which data key holds the KubeProxyConfiguration (kubeadm `config.conf`, EKS `config`, ...). */
export function configKey(cm: ConfigMap): string {
  const key = KUBE_PROXY_CONFIGMAP_KEYS.find((k) => cm.data?.[k] !== undefined)
  if (key === undefined) {
    throw new UsageError(
      `ConfigMap ${cm.metadata.namespace}/${cm.metadata.name} has none of the keys ${KUBE_PROXY_CONFIGMAP_KEYS.join(', ')}: cannot find kube-proxy's configuration in it`,
      'kube-proxy may be configured by flags only; change --proxy-mode in the DaemonSet instead.',
    )
  }
  return key
}

/**
 * Sets `mode` in a KubeProxyConfiguration text. Only the bytes of the mode value change (the Document API gives the
 * value's source range; its quoting style is kept); without a mode key, one `mode: X` line is appended to the
 * top-level mapping. Everything else, comments and layout included, stays byte-identical.
 */
export function setModeInConfig(text: string, to: ProxyModeName): {text: string; from: string | undefined} {
  const doc = parseDocument(text, {keepSourceTokens: true})
  if (doc.errors.length > 0) throw new UsageError(`kube-proxy's configuration is not valid YAML: ${doc.errors[0]!.message.split('\n')[0]}`)
  if (!isMap(doc.contents)) throw new UsageError("kube-proxy's configuration is not a mapping")
  const pair = doc.contents.items.find((p) => isScalar(p.key) && p.key.value === 'mode')
  const value = pair?.value
  if (pair && isScalar(value) && value.range && value.range[1] > value.range[0]) {
    const [start, end] = value.range
    const from = value.value === null ? undefined : String(value.value)
    const quoted = value.type === Scalar.QUOTE_DOUBLE ? JSON.stringify(to) : value.type === Scalar.QUOTE_SINGLE ? `'${to}'` : to
    return {text: text.slice(0, start) + quoted + text.slice(end), from}
  }
  if (pair && isScalar(pair.key) && pair.key.range) {
    // `mode:` with no value: put the value right after the colon.
    const colon = text.indexOf(':', pair.key.range[1])
    return {text: `${text.slice(0, colon + 1)} ${to}${text.slice(colon + 1)}`, from: undefined}
  }
  if (doc.contents.flow) throw new UsageError("kube-proxy's configuration is a flow (JSON) mapping without a mode key; add `\"mode\": \"\"` to it first")
  const sep = text === '' || text.endsWith('\n') ? '' : '\n'
  return {text: `${text}${sep}mode: ${to}\n`, from: undefined}
}

/** What the backup annotation holds: the data and annotations as they were before the change. */
export interface ModeBackup {
  data: Record<string, string>
  annotations: Record<string, string>
  labels: Record<string, string>
  from: string
  to: string
}

/** The ConfigMap with `mode` changed and the backup annotation added (resourceVersion kept: it is the precondition). */
export function changedConfigMap(cm: ConfigMap, to: ProxyModeName, currentMode: string): {configMap: ConfigMap; key: string; before: string; after: string} {
  const key = configKey(cm)
  const before = cm.data![key]!
  const after = setModeInConfig(before, to).text
  const backup: ModeBackup = {data: {...cm.data}, annotations: {...cm.metadata.annotations}, labels: {...cm.metadata.labels}, from: currentMode, to}
  const configMap: ConfigMap = {
    ...cm,
    metadata: {...cm.metadata, annotations: {...cm.metadata.annotations, [BACKUP_ANNOTATION]: JSON.stringify(backup)}},
    data: {...cm.data, [key]: after},
  }
  return {configMap, key, before, after}
}

/** The ConfigMap as it was before the change, on top of the current object (its resourceVersion is the precondition). */
export function restoredConfigMap(current: ConfigMap, original: ConfigMap): ConfigMap {
  const metadata = {...current.metadata}
  delete metadata.annotations
  delete metadata.labels
  if (original.metadata.annotations) metadata.annotations = {...original.metadata.annotations}
  if (original.metadata.labels) metadata.labels = {...original.metadata.labels}
  const out: ConfigMap = {...current, metadata}
  delete out.data
  if (original.data) out.data = {...original.data}
  return out
}

/** The one-line diff of the mode line for the plan: `- mode: iptables` / `+ mode: nftables`. */
export function modeLineDiff(before: string, after: string): string {
  const a = before.split('\n')
  const b = after.split('\n')
  const lines: string[] = []
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    if (a[i] === b[i]) continue
    if (a[i] !== undefined && i < a.length) lines.push(`- ${a[i]}`)
    if (b[i] !== undefined && i < b.length) lines.push(`+ ${b[i]}`)
  }
  return lines.join('\n')
}

/** Checks whose failure means kube-proxy does not run `to` cleanly on the node. */
const MODE_BLOCKERS = ['PROXY-001', 'PROXY-002', 'PROXY-003', 'PROXY-006', 'PROXY-007', 'PROXY-008', 'PROXY-009']

export interface ModeVerdict {
  ok: boolean
  /** Why not, one reason per line. */
  problems: string[]
  /** The old mode's leftovers (PROXY-005), reported either way. */
  leftovers: string[]
}

/**
 * Whether `node` runs `to` cleanly after its restart: the configured mode is `to` and kube-proxy says it runs it
 * (PROXY-003 passed), no blocking proxy-mode finding, and in iptables mode a clean rule diff (IPT-*).
 */
export function verifyMode(report: Pick<Report, 'findings' | 'results'>, node: string, to: ProxyModeName): ModeVerdict {
  const problems: string[] = []
  const mine = report.findings.filter((f) => f.node === node)
  const mismatch = report.results.find((r) => r.node === node && r.id === 'PROXY-003')
  if (mismatch?.status !== 'passed') {
    const f = mine.find((x) => x.id === 'PROXY-003')
    problems.push(f ? `PROXY-003: ${f.message}` : `the running mode could not be confirmed (${mismatch?.reason ?? 'PROXY-003 did not run'})`)
  }
  for (const f of mine) {
    if (f.id === 'PROXY-003') continue
    const blocking = MODE_BLOCKERS.includes(f.id) || (to === 'iptables' && f.id.startsWith('IPT-'))
    if (blocking && severityAtLeast(f.severity, 'warning')) problems.push(`${f.id}: ${f.message}`)
  }
  const leftovers = mine.filter((f) => f.id === 'PROXY-005').map((f) => f.message)
  return {ok: problems.length === 0, problems, leftovers}
}

export function isProxyMode(s: string): s is ProxyModeName {
  return (PROXY_MODES as readonly string[]).includes(s)
}

/** Where a node keeps kube-proxy's mode when no ConfigMap sets it: why `fix kube-proxy-mode` refuses, and what to edit. */
export interface ModeRefusal {
  reason: string
  remedy: string
}

/**
 * `fix kube-proxy-mode` changes the mode in the kube-proxy ConfigMap (kube-proxy, or EKS's kube-proxy-config key
 * `config`). On k3s (kube-proxy-arg of the k3s process), RKE2 (kube-proxy-arg, from which rke2 writes the static pod
 * manifest when it starts) and other static pods (GKE's kube-proxy.manifest: its flags) no ConfigMap sets it, so
 * the change would switch nothing: refuse, naming where this layout keeps the mode (`now`: the configured mode and
 * its source, core/layout/kube-proxy-mode.ts through the PROXY checks' configuredModeOf) and what to edit.
 * Undefined for a DaemonSet (or unknown) placement.
 */
export function modeChangeRefusal(
  layout: {distribution: string; kubeProxy: {where: string; detail: string}},
  now: {configured: {mode: string; source: string}} | {configuredUnknown: string},
  to: ProxyModeName,
): ModeRefusal | undefined {
  const current = 'configured' in now ? `now ${now.configured.mode}: ${now.configured.source}` : now.configuredUnknown
  if (layout.kubeProxy.where === 'embedded') {
    return {
      reason: `kube-proxy is embedded in k3s, which passes it the mode from kube-proxy-arg, not from a ConfigMap (${current})`,
      remedy:
        `on every k3s node set \`kube-proxy-arg: [proxy-mode=${to}]\` in /etc/rancher/k3s/config.yaml (a file in /etc/rancher/k3s/config.yaml.d or a kube-proxy-arg on the k3s command line wins over it: change it there if it is set there), ` +
        'then restart k3s one node at a time: `systemctl restart k3s` on a server, `systemctl restart k3s-agent` on an agent (the whole k3s process restarts; pods keep running)'
    }
  }
  if (layout.kubeProxy.where !== 'static-pod') return undefined
  if (layout.distribution === 'rke2') {
    return {
      reason: `RKE2 runs kube-proxy as a static pod whose manifest it writes from kube-proxy-arg when it starts; no ConfigMap sets the mode (${current})`,
      remedy:
        `on every RKE2 node set \`kube-proxy-arg: [proxy-mode=${to}]\` in /etc/rancher/rke2/config.yaml, then restart rke2 one node at a time: ` +
        '`systemctl restart rke2-server` on a server, `systemctl restart rke2-agent` on an agent; rke2 then writes /var/lib/rancher/rke2/agent/pod-manifests/kube-proxy.yaml again (an edit of that manifest alone is undone when rke2 restarts)',
    }
  }
  const manifest = /^static pod (\S+)/.exec(layout.kubeProxy.detail)?.[1] ?? 'the kube-proxy static pod manifest'
  return {
    reason: `kube-proxy runs as a static pod configured by the flags in its manifest ${manifest}; no ConfigMap sets the mode (${current})`,
    remedy:
      `on every node set --proxy-mode=${to} in ${manifest}; the kubelet restarts the pod when its manifest changes` +
      (layout.distribution === 'gke-cos' ? '. On GKE the node image writes that manifest, so the edit is lost when the node is re-created (unverified)' : ''),
  }
}
