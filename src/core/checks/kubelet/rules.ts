// Over 500 lines: one short function per KUBELET check over the shared view; splitting would scatter their helpers.
// The KUBELET checks' logic over one node's KubeletView. Every check judges values after defaulting for the
// node's kubelet version; setting checks judge the running config (/configz) when it was read, else files + flags.
import type {Service} from '../../model/k8s.js'
import {artifactText} from '../../model/snapshot.js'
import {getAt, type JsonValue, parseGoDuration, parseMinorVersion, parseQuantity, pointer} from '../../parse/component-config.js'
import {parseContainerdConfig} from '../../parse/containerd-config.js'
import type {KubeletConfig} from '../../parse/kubelet-config.js'
import {type KubeletFlagIssue, removalIsFatal, removedFlagMessage} from '../../parse/kubelet-flags.js'
import type {CheckContext, CheckOutcome, FindingDraft} from '../types.js'
import {factsOf} from '../types.js'
import {KUBELET_SYSTEMD_STATE_ARTIFACT, parseKubeletSystemdState, pendingRestartCaveat, rejectedFlagStory, type KubeletSystemdState} from './daemon-reload.js'
import {describeOrigin, diffConfigs, effectiveConfig, kubeletView, type KubeletView, sameValue, show, valueAt} from './view.js'

type Run = (ctx: CheckContext) => CheckOutcome

/** Stands for "the config file this node's kubelet uses" in subjects; locateSubjects() puts the real path in. */
const THE_CONFIG_FILE = '<kubelet config file>'
const CONFIG_SUBJECT = (field: string, file = THE_CONFIG_FILE) => ({kind: 'field', name: field, in: file})

/**
 * A KUBELET check's outcome with each field subject placed where the field is set: the drop-in or file the next
 * start reads it from, else the config file the node's kubelet uses (the path the `kubelet-config` item read:
 * /etc/kubernetes/kubelet/config.json on EKS AL2023, /home/kubernetes/kubelet-config.yaml on GKE, ...), or its
 * --config-dir on layouts without one (k3s, RKE2).
 */
export function locateSubjects(ctx: CheckContext, out: CheckOutcome): CheckOutcome {
  if (out.status !== 'failed') return out
  const v = kubeletView(ctx)
  return {
    ...out,
    findings: out.findings.map((f) => {
      if (f.subject.in !== THE_CONFIG_FILE) return f
      const o = v.next.ok ? v.next.value.origins[pointer(...f.subject.name.split('.'))] : undefined
      const where = o && (o.kind === 'file' || o.kind === 'drop-in') && o.source ? o.source : v.configPath
      return {...f, subject: {...f.subject, in: where}}
    }),
  }
}

function outcome(drafts: FindingDraft[]): CheckOutcome {
  return drafts.length === 0 ? {status: 'passed'} : {status: 'failed', findings: drafts}
}

function evidence(cfg: KubeletConfig, path: string, basis: string): string {
  const ptr = pointer(...path.split('.'))
  return `${path}: ${show(valueAt(cfg, path))} (${describeOrigin(cfg, ptr)}; judged on the ${basis} config)`
}

/** A check of one or more settings of the effective configuration. */
function settingCheck(judge: (cfg: KubeletConfig, basis: string, v: KubeletView) => FindingDraft[]): Run {
  return (ctx) => {
    const v = kubeletView(ctx)
    const eff = effectiveConfig(v)
    if (!eff.ok) return {status: 'skipped', reason: eff.reason}
    return outcome(judge(eff.value.cfg, eff.value.basis, v))
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Three-way drift

const PER_NODE = new Set(['/logging', '/tlsCipherSuites', '/tlsMinVersion', '/containerRuntimeEndpoint', '/imageServiceEndpoint', '/resolvConf', '/providerID'])

/** `systemctl show kubelet` (NeedDaemonReload, start times), when collected and meaningful. */
function systemdState(ctx: CheckContext): KubeletSystemdState | undefined {
  const text = artifactText(ctx.node, KUBELET_SYSTEMD_STATE_ARTIFACT)
  return text === undefined || text.trim() === '' ? undefined : parseKubeletSystemdState(text)
}

/** Flags in the kubelet's files that this kubelet version rejects at start (KUBELET-019's). */
function rejectedFlags(v: KubeletView): string[] {
  if (!v.flags.ok) return []
  return v.flags.value.issues.filter((i) => i.severity === 'error' && i.code === 'removed-flag').map(flagOf)
}

export const notRestarted: Run = (ctx) => {
  const v = kubeletView(ctx)
  if (!v.next.ok) return {status: 'skipped', reason: v.next.reason}
  if (!v.running.ok) return {status: 'skipped', reason: v.running.reason}
  const disk = v.next.value
  const running = v.running.value
  const caveat = pendingRestartCaveat(rejectedFlags(v), systemdState(ctx))
  return outcome(
    diffConfigs(disk, running).map((d) => ({
      message: `${d.path}: the files give ${show(d.a)} but the running kubelet has ${show(d.b)}; the kubelet was not restarted since the change, or something overrides the files${caveat ? `; ${caveat}` : ''}`,
      subject: CONFIG_SUBJECT(d.path),
      evidence: [`on disk: ${d.path}: ${show(d.a)} (${describeOrigin(disk, d.ptr)})`, `running: ${d.path}: ${show(d.b)} (/configz)`],
    })),
  )
}

export const driftFromIntended: Run = (ctx) => {
  const v = kubeletView(ctx)
  if (!v.disk.ok) return {status: 'skipped', reason: v.disk.reason}
  if (!v.intended.ok) return {status: 'skipped', reason: v.intended.reason}
  const disk = v.disk.value
  const intended = v.intended.value
  // resolvConf, the runtime endpoint and providerID are set per node by kubeadm join, not taken from the ConfigMap.
  return outcome(
    diffConfigs(disk, intended, PER_NODE).map((d) => ({
      message: `${d.path}: the node has ${show(d.a)} but ConfigMap kube-system/${intended.configMapName} intends ${show(d.b)}; kubeadm upgrade will overwrite the node's value`,
      subject: CONFIG_SUBJECT(d.path),
      evidence: [`node: ${d.path}: ${show(d.a)} (${describeOrigin(disk, d.ptr)})`, `intended: ${d.path}: ${show(d.b)} (${describeOrigin(intended, d.ptr)})`],
    })),
  )
}

// ---------------------------------------------------------------------------------------------------------------
// Schema and validation

export const schema: Run = (ctx) => {
  const v = kubeletView(ctx)
  if (!v.file.ok) {
    if (v.file.reason.startsWith('missing input')) return {status: 'skipped', reason: v.file.reason}
    return outcome([{message: v.file.reason + '; the kubelet exits at start', subject: {kind: 'file', name: v.configPath}, severity: 'error'}])
  }
  const issues = [...v.file.value.issues, ...v.dropIns.flatMap((d) => d.issues), ...(v.disk.ok ? v.disk.value.issues.filter((i) => i.code === 'drop-in-unreadable') : [])]
  const drafts: FindingDraft[] = issues
    .filter((i) => i.severity !== 'info')
    .map((i) => {
      const file = i.source ?? v.configPath
      return {
        message: `${file}${i.line === undefined ? '' : `:${i.line}`}: ${i.message}`,
        subject: i.path ? CONFIG_SUBJECT(i.path.slice(1).replaceAll('/', '.'), file) : {kind: 'file', name: file},
        evidence: [`${i.code}${i.line === undefined ? '' : ` at line ${i.line}`}`],
        severity: i.severity === 'error' ? 'error' : 'warning',
      }
    })
  return outcome(drafts)
}

function num(v: JsonValue | undefined): number | undefined {
  return typeof v === 'number' ? v : undefined
}

/** The kubelet's startup validation (validation.go) over a defaulted configuration. */
export function validationErrors(cfg: KubeletConfig): Array<{path: string; message: string}> {
  const out: Array<{path: string; message: string}> = []
  const at = (p: string) => valueAt(cfg, p)
  const bad = (path: string, message: string) => out.push({path, message})
  const lease = num(at('nodeLeaseDurationSeconds'))
  if (lease !== undefined && lease <= 0) bad('nodeLeaseDurationSeconds', `nodeLeaseDurationSeconds must be greater than 0, is ${lease}`)
  const port = num(at('port'))
  if (port !== undefined && (port < 1 || port > 65535)) bad('port', `port must be between 1 and 65535, is ${port}`)
  for (const p of ['healthzPort', 'readOnlyPort']) {
    const n = num(at(p))
    if (n !== undefined && n !== 0 && (n < 1 || n > 65535)) bad(p, `${p} must be 0 or between 1 and 65535, is ${n}`)
  }
  const high = num(at('imageGCHighThresholdPercent'))
  const low = num(at('imageGCLowThresholdPercent'))
  for (const [p, n] of [['imageGCHighThresholdPercent', high], ['imageGCLowThresholdPercent', low]] as const) {
    if (n !== undefined && (n < 0 || n > 100)) bad(p, `${p} must be between 0 and 100, is ${n}`)
  }
  if (high !== undefined && low !== undefined && low >= high && high !== 100) bad('imageGCLowThresholdPercent', `imageGCLowThresholdPercent (${low}) must be less than imageGCHighThresholdPercent (${high})`)
  for (const p of ['iptablesMasqueradeBit', 'iptablesDropBit']) {
    const n = num(at(p))
    if (n !== undefined && (n < 0 || n > 31)) bad(p, `${p} must be between 0 and 31, is ${n}`)
  }
  const oom = num(at('oomScoreAdj'))
  if (oom !== undefined && (oom < -1000 || oom > 1000)) bad('oomScoreAdj', `oomScoreAdj must be between -1000 and 1000, is ${oom}`)
  for (const p of ['eventRecordQPS', 'eventBurst', 'registryPullQPS', 'registryBurst', 'kubeAPIQPS', 'kubeAPIBurst', 'maxPods']) {
    const n = num(at(p))
    if (n !== undefined && n < 0) bad(p, `${p} must not be negative, is ${n}`)
  }
  const pids = num(at('podPidsLimit'))
  if (pids !== undefined && pids < -1) bad('podPidsLimit', `podPidsLimit must be -1 (unlimited) or positive, is ${pids}`)
  const ena = at('enforceNodeAllocatable')
  if (Array.isArray(ena) && ena.length > 0) {
    if (at('cgroupsPerQOS') === false) bad('enforceNodeAllocatable', 'enforceNodeAllocatable is set but cgroupsPerQOS is false: "enforceNodeAllocatable (--enforce-node-allocatable) is not supported unless cgroupsPerQOS (--cgroups-per-qos) is set to true"')
    const known = ['pods', 'system-reserved', 'kube-reserved', 'system-reserved-compressible', 'kube-reserved-compressible', 'none']
    for (const e of ena) {
      if (typeof e !== 'string' || !known.includes(e)) bad('enforceNodeAllocatable', `enforceNodeAllocatable has the invalid option ${JSON.stringify(e)}; valid: ${known.join(', ')}`)
    }
    if (ena.includes('none') && ena.length > 1) bad('enforceNodeAllocatable', 'enforceNodeAllocatable: "none" cannot be combined with other options')
    if (ena.some((e) => typeof e === 'string' && e.startsWith('system-reserved')) && !at('systemReservedCgroup')) bad('systemReservedCgroup', 'enforceNodeAllocatable has system-reserved but systemReservedCgroup is empty')
    if (ena.some((e) => typeof e === 'string' && e.startsWith('kube-reserved')) && !at('kubeReservedCgroup')) bad('kubeReservedCgroup', 'enforceNodeAllocatable has kube-reserved but kubeReservedCgroup is empty')
  }
  if (at('systemCgroups') && !at('cgroupRoot')) bad('systemCgroups', 'systemCgroups is set but cgroupRoot is empty: "rootless configuration for systemCgroups is not supported"')
  const mpp = num(getAt(cfg.values, '/maxParallelImagePulls') ?? undefined)
  if (mpp !== undefined) {
    if (mpp < 1) bad('maxParallelImagePulls', `maxParallelImagePulls must be 1 or more, is ${mpp}`)
    else if (mpp > 1 && at('serializeImagePulls') === true) bad('maxParallelImagePulls', `maxParallelImagePulls (${mpp}) needs serializeImagePulls: false`)
  }
  const sgp = parseGoDuration(String(at('shutdownGracePeriod') ?? '0s')) ?? 0n
  const sgpc = parseGoDuration(String(at('shutdownGracePeriodCriticalPods') ?? '0s')) ?? 0n
  if (sgp < 0n || sgpc < 0n) bad('shutdownGracePeriod', 'shutdownGracePeriod and shutdownGracePeriodCriticalPods must not be negative')
  if (sgpc > sgp) bad('shutdownGracePeriodCriticalPods', `shutdownGracePeriodCriticalPods (${show(at('shutdownGracePeriodCriticalPods'))}) must be ≤ shutdownGracePeriod (${show(at('shutdownGracePeriod'))})`)
  const byPrio = at('shutdownGracePeriodByPodPriority')
  if (Array.isArray(byPrio) && byPrio.length > 0 && sgp > 0n) bad('shutdownGracePeriodByPodPriority', 'shutdownGracePeriodByPodPriority cannot be combined with shutdownGracePeriod/shutdownGracePeriodCriticalPods')
  return out
}

export const validation: Run = (ctx) => {
  const v = kubeletView(ctx)
  if (!v.next.ok) return {status: 'skipped', reason: v.next.reason}
  const cfg = v.next.value
  return outcome(
    validationErrors(cfg).map((e) => ({
      message: `${e.message}: the kubelet refuses this configuration at its next start`,
      subject: CONFIG_SUBJECT(e.path),
      evidence: [evidence(cfg, e.path, 'on-disk')],
    })),
  )
}

// ---------------------------------------------------------------------------------------------------------------
// Security (kube-bench node.yaml 4.2.x semantics, but on defaulted values)

const one = (path: string, fails: (value: JsonValue | undefined) => boolean, message: (value: JsonValue | undefined) => string): Run =>
  settingCheck((cfg, basis) => {
    const value = valueAt(cfg, path)
    return fails(value) ? [{message: message(value), subject: CONFIG_SUBJECT(path), evidence: [evidence(cfg, path, basis)]}] : []
  })

export const anonymousAuth = one('authentication.anonymous.enabled', (x) => x === true, () => 'anonymous requests to the kubelet API (port 10250) are allowed')
export const authzAlwaysAllow = one('authorization.mode', (x) => x === 'AlwaysAllow', () => 'authorization.mode is AlwaysAllow: every request that reaches the kubelet API is authorized')
export const readOnlyPort = one('readOnlyPort', (x) => typeof x === 'number' && x !== 0, (x) => `the unauthenticated read-only port ${show(x)} is open`)
export const noClientCA = one('authentication.x509.clientCAFile', (x) => x === undefined || x === '', () => 'authentication.x509.clientCAFile is empty: client certificates are not accepted')
export const streamingTimeout = one(
  'streamingConnectionIdleTimeout',
  (x) => typeof x === 'string' && parseGoDuration(x) === 0n,
  () => 'streamingConnectionIdleTimeout is 0: idle exec/attach/port-forward streams are never closed',
)
export const protectKernelDefaults = one('protectKernelDefaults', (x) => x !== true, () => 'protectKernelDefaults is false: the kubelet adjusts kernel tunables instead of refusing to start when they differ')
export const eventQps = one('eventRecordQPS', (x) => x === 0, () => 'eventRecordQPS is 0: event creation from this node is not rate-limited (cis-1.5…1.23 asked for 0; cis-1.24+ accepts any value ≥ 0)')
export const iptablesUtilChains = one('makeIPTablesUtilChains', (x) => x === false, () => 'makeIPTablesUtilChains is false: the kubelet does not maintain KUBE-FIREWALL and its canary chains')

export const certRotation: Run = settingCheck((cfg, basis) => {
  const out: FindingDraft[] = []
  if (valueAt(cfg, 'rotateCertificates') !== true) {
    out.push({message: 'rotateCertificates is false: the kubelet client certificate is not renewed before it expires', subject: CONFIG_SUBJECT('rotateCertificates'), evidence: [evidence(cfg, 'rotateCertificates', basis)]})
  }
  const gate = getAt(cfg.values, '/featureGates/RotateKubeletServerCertificate')
  if (gate === false) {
    out.push({message: 'featureGates.RotateKubeletServerCertificate is false: the serving certificate is never rotated', subject: CONFIG_SUBJECT('featureGates.RotateKubeletServerCertificate'), evidence: [evidence(cfg, 'featureGates.RotateKubeletServerCertificate', basis)]})
  }
  return out
})

/** CIS 4.2.12's accepted suites (kube-bench node.yaml). */
export const STRONG_CIPHERS = new Set([
  'TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256',
  'TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256',
  'TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305',
  'TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384',
  'TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305',
  'TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384',
  // TLS 1.3 suites are not configurable in Go but are accepted by name and are strong.
  'TLS_AES_128_GCM_SHA256',
  'TLS_AES_256_GCM_SHA384',
  'TLS_CHACHA20_POLY1305_SHA256',
])

export const weakCiphers: Run = settingCheck((cfg, basis) => {
  const out: FindingDraft[] = []
  const suites = valueAt(cfg, 'tlsCipherSuites')
  const weak = Array.isArray(suites) ? suites.filter((s) => typeof s !== 'string' || !STRONG_CIPHERS.has(s)) : []
  if (weak.length > 0) out.push({message: `tlsCipherSuites includes weak suites: ${weak.join(', ')}`, subject: CONFIG_SUBJECT('tlsCipherSuites'), evidence: [evidence(cfg, 'tlsCipherSuites', basis)]})
  const min = valueAt(cfg, 'tlsMinVersion')
  if (min === 'VersionTLS10' || min === 'VersionTLS11') out.push({message: `tlsMinVersion is ${min}: TLS 1.0/1.1 are accepted`, subject: CONFIG_SUBJECT('tlsMinVersion'), evidence: [evidence(cfg, 'tlsMinVersion', basis)]})
  return out
})

// ---------------------------------------------------------------------------------------------------------------
// cgroup driver vs containerd

/** containerd's major version from nodeInfo.containerRuntimeVersion (`containerd://2.0.1`). */
export function containerdMajor(runtimeVersion: string | undefined): number | undefined {
  const m = /^containerd:\/\/v?(\d+)\./.exec(runtimeVersion ?? '')
  return m ? Number(m[1]) : undefined
}

export const cgroupDriver: Run = (ctx) => {
  const v = kubeletView(ctx)
  const eff = effectiveConfig(v)
  if (!eff.ok) return {status: 'skipped', reason: eff.reason}
  const runtimeVersion = v.nodeObject?.status?.nodeInfo?.containerRuntimeVersion
  const distribution = factsOf(ctx).resolvedLayout.distribution
  // NOTE: k3s and RKE2 generate containerd's config under their data dir from the same cgroup driver they give the
  // kubelet (unverified for every release); /etc/containerd/config.toml is not theirs, so nothing here can compare.
  if (distribution === 'k3s' || distribution === 'rke2') return {status: 'skipped', reason: `not applicable on ${distribution === 'k3s' ? 'k3s' : 'RKE2'}: it generates containerd's config (/var/lib/rancher/${distribution}/agent/etc/containerd/config.toml) with the kubelet's cgroup driver`}
  if (runtimeVersion && !runtimeVersion.startsWith('containerd://')) return {status: 'skipped', reason: `not applicable: the node's runtime is ${runtimeVersion.split(':')[0]}, not containerd`}
  const text = artifactText(ctx.node, 'containerd-config') ?? ''
  let cd
  try {
    cd = parseContainerdConfig(text, {source: '/etc/containerd/config.toml'})
  } catch (err) {
    return {status: 'skipped', reason: `/etc/containerd/config.toml cannot be parsed: ${(err as Error).message}`}
  }
  if (cd.criDisabled) return {status: 'skipped', reason: 'not applicable: containerd\'s CRI plugin is disabled in /etc/containerd/config.toml'}
  const {cfg, basis} = eff.value
  const kubelet = valueAt(cfg, 'cgroupDriver')
  const runtime = cd.cgroupDriver.value
  if (kubelet === runtime) return {status: 'passed'}
  const major = containerdMajor(runtimeVersion) ?? (cd.version === 3 ? 2 : undefined)
  const minor = v.minor
  const gate = getAt(cfg.values, '/featureGates/KubeletCgroupDriverFromCRI')
  // KubeletCgroupDriverFromCRI: alpha 1.28 (off), beta 1.31 (on), GA 1.34; only containerd ≥ 2.0 answers the RuntimeConfig call.
  const fromCRI = major !== undefined && major >= 2 && minor !== undefined && (minor >= 34 || (minor >= 31 && gate !== false) || (minor >= 28 && gate === true))
  const runtimeWhere = `/etc/containerd/config.toml${cd.cgroupDriver.line === undefined ? '' : `:${cd.cgroupDriver.line}`}`
  const ev = [
    evidence(cfg, 'cgroupDriver', basis),
    `containerd: ${runtime} (${cd.cgroupDriver.explicit ? `SystemdCgroup = ${runtime === 'systemd'} at ${runtimeWhere}` : `SystemdCgroup unset in ${cd.defaultRuntime?.path ?? 'the runc options'}, so cgroupfs`})`,
    `versions: kubelet ${v.version ?? 'unknown'}, runtime ${runtimeVersion ?? `unknown (config version ${cd.version})`}`,
  ]
  if (fromCRI) {
    return outcome([
      {
        message: `cgroupDriver ${show(kubelet)} differs from containerd's ${runtime}, but kubelet ${v.version} takes the driver from containerd ${major}.x (KubeletCgroupDriverFromCRI), so the setting is ignored; align it to avoid confusion`,
        subject: CONFIG_SUBJECT('cgroupDriver'),
        evidence: ev,
        severity: 'info',
      },
    ])
  }
  return outcome([
    {
      message: `the kubelet uses the ${show(kubelet)} cgroup driver but containerd uses ${runtime}: ${kubelet === 'systemd' ? 'pod sandboxes are killed and re-created at random' : 'pod sandboxes fail to start (cgroupsPath format)'}`,
      subject: CONFIG_SUBJECT('cgroupDriver'),
      evidence: ev,
    },
  ])
}

// ---------------------------------------------------------------------------------------------------------------
// DNS settings

function kubeDns(services: readonly Service[]): Service | undefined {
  return services.find((s) => s.metadata.namespace === 'kube-system' && s.metadata.name === 'kube-dns')
}

export const clusterDns: Run = (ctx) => {
  const v = kubeletView(ctx)
  const eff = effectiveConfig(v)
  if (!eff.ok) return {status: 'skipped', reason: eff.reason}
  const svc = kubeDns(ctx.cluster.services)
  if (!svc) return {status: 'skipped', reason: 'no Service kube-system/kube-dns to compare with'}
  const ips = new Set([...(svc.spec?.clusterIPs ?? []), ...(svc.spec?.clusterIP ? [svc.spec.clusterIP] : [])])
  const nodeLocal = ctx.cluster.daemonSets.some((d) => /node-local-dns|nodelocaldns/.test(d.metadata.name) || d.metadata.labels?.['k8s-app'] === 'node-local-dns')
  const {cfg, basis} = eff.value
  const list = valueAt(cfg, 'clusterDNS')
  const dns = Array.isArray(list) ? list.filter((x): x is string => typeof x === 'string') : []
  const ev = [evidence(cfg, 'clusterDNS', basis), `Service kube-system/kube-dns: ClusterIP ${[...ips].join(', ') || '<none>'}${nodeLocal ? ' (node-local-dns DaemonSet present)' : ''}`]
  if (dns.length === 0) {
    return outcome([{message: 'clusterDNS is empty: pods with dnsPolicy ClusterFirst get the node\'s resolv.conf and cannot resolve Service names', subject: CONFIG_SUBJECT('clusterDNS'), evidence: ev}])
  }
  const wrong = dns.filter((ip) => !ips.has(ip) && !(nodeLocal && ip.startsWith('169.254.')))
  return outcome(
    wrong.map((ip) => ({
      message: `clusterDNS has ${ip}, which is not the kube-dns Service's ClusterIP (${[...ips].join(', ') || 'none'}): DNS lookups from this node's pods time out`,
      subject: CONFIG_SUBJECT('clusterDNS'),
      evidence: ev,
    })),
  )
}

/** The zones of the Corefile's `kubernetes` plugin blocks. */
export function corefileKubernetesZones(corefile: string): string[] {
  const zones: string[] = []
  for (const m of corefile.matchAll(/^\s*kubernetes\s+([^{\n#]*)/gm)) zones.push(...(m[1] ?? '').trim().split(/\s+/).filter((z) => z !== ''))
  return zones.map((z) => z.replace(/\.$/, ''))
}

export const clusterDomain: Run = (ctx) => {
  const eff = effectiveConfig(kubeletView(ctx))
  if (!eff.ok) return {status: 'skipped', reason: eff.reason}
  const {cfg, basis} = eff.value
  const domain = valueAt(cfg, 'clusterDomain')
  const ev = [evidence(cfg, 'clusterDomain', basis)]
  if (typeof domain !== 'string' || domain === '') {
    return outcome([{message: 'clusterDomain is empty: pods get no cluster search domains and short Service names do not resolve', subject: CONFIG_SUBJECT('clusterDomain'), evidence: ev}])
  }
  const corefile = ctx.cluster.configMaps.find((c) => c.metadata.namespace === 'kube-system' && c.metadata.name === 'coredns')?.data?.['Corefile']
  const zones = corefile === undefined ? [] : corefileKubernetesZones(corefile)
  const d = domain.replace(/\.$/, '')
  if (zones.length === 0 || zones.includes(d)) return {status: 'passed'}
  return outcome([
    {
      message: `clusterDomain ${d} is not served by CoreDNS (its kubernetes plugin serves ${zones.join(', ')}): in-cluster names go upstream and fail`,
      subject: CONFIG_SUBJECT('clusterDomain'),
      evidence: [...ev, `Corefile (ConfigMap kube-system/coredns): kubernetes ${zones.join(' ')}`],
      severity: 'error',
    },
  ])
}

export const stubResolver: Run = (ctx) => {
  const v = kubeletView(ctx)
  const eff = effectiveConfig(v)
  if (!eff.ok) return {status: 'skipped', reason: eff.reason}
  const {cfg, basis} = eff.value
  const path = valueAt(cfg, 'resolvConf')
  const ev = [evidence(cfg, 'resolvConf', basis)]
  if (typeof path !== 'string' || path === '') return {status: 'passed'}
  if (/stub-resolv\.conf$/.test(path)) {
    return outcome([{message: `resolvConf is ${path}, systemd-resolved's stub file (nameserver 127.0.0.53)`, subject: CONFIG_SUBJECT('resolvConf'), evidence: ev}])
  }
  if (path !== '/etc/resolv.conf') return {status: 'passed'}
  const text = artifactText(ctx.node, 'resolv-conf')
  if (text === undefined) return {status: 'skipped', reason: "missing input: resolv-conf (the node's /etc/resolv.conf, which resolvConf names)"}
  const loopback = [...text.matchAll(/^\s*nameserver\s+(\S+)/gm)].map((m) => m[1] ?? '').filter((ip) => ip.startsWith('127.') || ip === '::1')
  if (loopback.length === 0) return {status: 'passed'}
  return outcome([
    {
      message: `resolvConf is /etc/resolv.conf, which names the loopback resolver ${loopback.join(', ')}: pods and CoreDNS cannot reach it`,
      subject: CONFIG_SUBJECT('resolvConf'),
      evidence: [...ev, ...loopback.map((ip) => `/etc/resolv.conf: nameserver ${ip}`)],
    },
  ])
}

// ---------------------------------------------------------------------------------------------------------------
// Flags

function flagWhere(o: {source?: string; line?: number} | undefined): string {
  return o?.source ? `${o.source}${o.line === undefined ? '' : `:${o.line}`}` : 'the kubelet command line'
}

/** The flag an issue is about: a removed flag's own facts, else the head of its message (`--x=1: ...`). */
function flagOf(i: KubeletFlagIssue): string {
  return i.removal?.written ?? i.message.split(':')[0] ?? i.code
}

/**
 * A rejected flag's message told from what runs: a kubelet that answers /configz started before the flag reached its
 * files, so the hazard is the next (daemon-reload +) restart, not a crash now (daemon-reload.ts).
 */
function hazardStory(i: KubeletFlagIssue, running: boolean, state: KubeletSystemdState | undefined): string {
  const r = i.removal
  if (!r || !running || removalIsFatal(r) !== true) return i.message
  return removedFlagMessage(r, rejectedFlagStory([r.written], true, state))
}

export const removedFlags: Run = (ctx) => {
  const v = kubeletView(ctx)
  if (!v.flags.ok) return {status: 'skipped', reason: v.flags.reason}
  const fatal = [...v.flags.value.issues].filter((i) => i.severity === 'error' && ['removed-flag', 'invalid-flag-value', 'positional-argument'].includes(i.code))
  const state = systemdState(ctx)
  return outcome(
    fatal.map((i) => ({
      message: `${hazardStory(i, v.running.ok, state)}${v.version === undefined ? ' (the kubelet version is unknown)' : ''}`,
      subject: {kind: 'flag', name: flagOf(i), in: flagWhere(i)},
      evidence: [`${flagWhere(i)} (flags read from ${v.flags.ok ? v.flags.value.source : ''})`],
    })),
  )
}

export const deprecatedFlags: Run = (ctx) => {
  const v = kubeletView(ctx)
  if (!v.flags.ok) return {status: 'skipped', reason: v.flags.reason}
  const out: FindingDraft[] = []
  for (const i of v.flags.value.issues) {
    if (i.severity === 'warning' && (i.code === 'removed-flag' || i.code === 'unknown-flag')) {
      out.push({message: i.message, subject: {kind: 'flag', name: flagOf(i), in: flagWhere(i)}, evidence: [flagWhere(i)]})
    }
  }
  // Config-backed flags are deprecated too; KUBELET-021 reports those.
  for (const f of v.flags.value.flags) {
    if (f.status !== 'deprecated' || f.configPath !== undefined) continue
    out.push({message: `${f.written} is deprecated: ${f.note ?? ''}`, subject: {kind: 'flag', name: f.written, in: flagWhere(f.origin)}, evidence: [flagWhere(f.origin)]})
  }
  return outcome(out)
}

export const flagOverrides: Run = (ctx) => {
  const v = kubeletView(ctx)
  if (!v.flags.ok) return {status: 'skipped', reason: v.flags.reason}
  if (!v.disk.ok) return {status: 'skipped', reason: v.disk.reason}
  const disk = v.disk.value
  const out: FindingDraft[] = []
  const seen = new Set<string>()
  for (const f of [...v.flags.value.flags].reverse()) {
    if (!f.configPath || seen.has(f.configPath)) continue
    seen.add(f.configPath)
    const field = f.configPath.slice(1).replaceAll('/', '.')
    const fileValue = getAt(disk.values, f.configPath)
    const fileOrigin = disk.origins[f.configPath]?.kind
    const flagValue = v.next.ok ? getAt(v.next.value.values, f.configPath) : f.value
    const inFile = fileOrigin === 'file' || fileOrigin === 'drop-in'
    const where = flagWhere(f.origin)
    if (inFile && !sameValue(fileValue, flagValue)) {
      out.push({
        message: `${f.written} (${where}) overrides ${field}: the file says ${show(fileValue)}, the kubelet uses ${show(flagValue)}`,
        subject: {kind: 'flag', name: f.written, in: where},
        evidence: [`flag: ${f.written} at ${where}${f.via ? ` via ${f.via}` : ''}`, `file: ${field}: ${show(fileValue)} (${describeOrigin(disk, f.configPath)})`],
      })
    } else {
      out.push({
        message: `${f.written} (${where}) sets ${field} by flag${inFile ? ' (the file has the same value)' : ' instead of in the config file'}`,
        subject: {kind: 'flag', name: f.written, in: where},
        evidence: [`flag: ${f.written} at ${where}${f.via ? ` via ${f.via}` : ''}`, `file: ${field}: ${show(fileValue)} (${describeOrigin(disk, f.configPath)})`],
        severity: 'info',
      })
    }
  }
  return outcome(out.reverse())
}

// ---------------------------------------------------------------------------------------------------------------
// Version skew

export const versionSkew: Run = (ctx) => {
  const v = kubeletView(ctx)
  const raw = v.nodeObject?.status?.nodeInfo?.kubeletVersion
  if (v.minor === undefined) return {status: 'skipped', reason: `the kubelet version of ${ctx.node.node} is unknown (no Node object or nodeInfo)`}
  const api = parseMinorVersion(ctx.cluster.serverVersion)
  if (api === undefined) return {status: 'skipped', reason: 'the API server version is unknown'}
  const maxBehind = api >= 28 ? 3 : 2
  const ev = [`kubelet ${raw ?? v.version} (Node ${ctx.node.node} status.nodeInfo.kubeletVersion)`, `API server ${ctx.cluster.serverVersion}`]
  const subject = {kind: 'Node', name: ctx.node.node}
  if (v.minor > api) return outcome([{message: `the kubelet (1.${v.minor}) is newer than the API server (1.${api}); kubelets must never be newer`, subject, evidence: ev}])
  if (api - v.minor > maxBehind) {
    return outcome([{message: `the kubelet (1.${v.minor}) is ${api - v.minor} minors behind the API server (1.${api}); at most ${maxBehind} are supported`, subject, evidence: ev}])
  }
  return {status: 'passed'}
}

// ---------------------------------------------------------------------------------------------------------------
// Sanity

export const staticPodPath: Run = settingCheck((cfg, basis, v) => {
  const path = valueAt(cfg, 'staticPodPath')
  const labels = v.nodeObject?.metadata.labels ?? {}
  const controlPlane = 'node-role.kubernetes.io/control-plane' in labels || 'node-role.kubernetes.io/master' in labels
  const ev = [evidence(cfg, 'staticPodPath', basis)]
  const s = CONFIG_SUBJECT('staticPodPath')
  if (typeof path !== 'string' || path === '') {
    return controlPlane ? [{message: 'staticPodPath is empty on a control-plane node: its static pods (etcd, kube-apiserver, ...) are not started by this kubelet', subject: s, evidence: ev, severity: 'error'}] : []
  }
  if (!path.startsWith('/')) return [{message: `staticPodPath ${path} is relative: it is resolved against the kubelet's working directory`, subject: s, evidence: ev}]
  if (/\.(ya?ml|json)$/.test(path)) return [{message: `staticPodPath ${path} names a file: only that one manifest is read`, subject: s, evidence: ev}]
  return []
})

function percent(v: string): number | undefined {
  const m = /^(\d+(?:\.\d+)?)%$/.exec(v.trim())
  return m ? Number(m[1]) : undefined
}

export const eviction: Run = settingCheck((cfg, basis) => {
  const hard = valueAt(cfg, 'evictionHard')
  const ev = [evidence(cfg, 'evictionHard', basis)]
  const s = CONFIG_SUBJECT('evictionHard')
  const map = hard && typeof hard === 'object' && !Array.isArray(hard) ? (hard as Record<string, JsonValue>) : {}
  if (Object.keys(map).length === 0) return [{message: 'evictionHard is empty: hard eviction is disabled, the kernel OOM killer acts first', subject: s, evidence: ev}]
  const out: FindingDraft[] = []
  for (const signal of ['memory.available', 'nodefs.available']) {
    if (map[signal] === undefined) {
      out.push({message: `evictionHard has no ${signal} threshold (setting some thresholds drops the defaults for the others)`, subject: CONFIG_SUBJECT(`evictionHard.${signal}`), evidence: ev})
    }
  }
  const mem = typeof map['memory.available'] === 'string' ? map['memory.available'] : undefined
  if (mem !== undefined) {
    const pct = percent(mem)
    const q = pct === undefined ? parseQuantity(mem) : undefined
    if ((pct !== undefined && pct < 1) || (q !== undefined && q < 100 * 2 ** 20)) {
      out.push({message: `evictionHard memory.available<${mem} is below 100Mi: the node runs out of memory before the kubelet evicts`, subject: CONFIG_SUBJECT('evictionHard.memory.available'), evidence: ev})
    }
  }
  for (const signal of ['nodefs.available', 'imagefs.available']) {
    const val = map[signal]
    const pct = typeof val === 'string' ? percent(val) : undefined
    if (pct !== undefined && pct < 5) out.push({message: `evictionHard ${signal}<${String(val)} is below 5%: the disk fills before the kubelet evicts`, subject: CONFIG_SUBJECT(`evictionHard.${signal}`), evidence: ev})
  }
  return out
})

/** Active swap areas from /proc/swaps (header line, then one line per area); undefined when it was not read. */
export function activeSwaps(text: string | undefined): string[] | undefined {
  if (text === undefined) return undefined
  return text.split('\n').slice(1).map((l) => l.trim()).filter((l) => l !== '')
}

export const swap: Run = (ctx) => {
  const swaps = activeSwaps(artifactText(ctx.node, 'swaps'))
  return settingCheck((cfg, basis, v) => swapDrafts(cfg, basis, v, swaps))(ctx)
}

function swapDrafts(cfg: KubeletConfig, basis: string, v: KubeletView, swaps: string[] | undefined): FindingDraft[] {
  if (valueAt(cfg, 'failSwapOn') !== false) return []
  const behavior = getAt(cfg.values, '/memorySwap/swapBehavior')
  const ev = [evidence(cfg, 'failSwapOn', basis), evidence(cfg, 'memorySwap.swapBehavior', basis), ...(swaps === undefined ? [] : [`/proc/swaps: ${swaps.length === 0 ? 'no swap in use' : swaps.join('; ')}`])]
  if (behavior === undefined || behavior === null || behavior === '') {
    // failSwapOn false is harmless on a node without swap (k3s sets it on every node): nothing swaps.
    if (swaps !== undefined && swaps.length === 0) return []
    return [{message: 'failSwapOn is false but memorySwap.swapBehavior is unset: the kubelet runs on swap while giving pods none (NoSwap)', subject: CONFIG_SUBJECT('memorySwap.swapBehavior'), evidence: ev}]
  }
  if (behavior === 'UnlimitedSwap' && v.minor !== undefined && v.minor >= 30) {
    return [{message: `memorySwap.swapBehavior UnlimitedSwap was removed in 1.30: kubelet ${v.version} refuses to start`, subject: CONFIG_SUBJECT('memorySwap.swapBehavior'), evidence: ev, severity: 'error'}]
  }
  return []
}

/** kube-controller-manager's --node-monitor-grace-period from its pod, else the default for the API server version. */
export function nodeMonitorGracePeriod(ctx: CheckContext): {seconds: number; source: string} {
  for (const p of ctx.cluster.pods) {
    if (p.metadata.namespace !== 'kube-system' || p.metadata.labels?.['component'] !== 'kube-controller-manager') continue
    for (const c of p.spec?.containers ?? []) {
      for (const a of [...(c.command ?? []), ...(c.args ?? [])]) {
        const m = /^--node-monitor-grace-period=(\S+)$/.exec(a)
        const ns = m ? parseGoDuration(m[1] ?? '') : undefined
        if (ns !== undefined) return {seconds: Number(ns) / 1e9, source: `${a} (pod kube-system/${p.metadata.name})`}
      }
    }
  }
  const api = parseMinorVersion(ctx.cluster.serverVersion)
  return api !== undefined && api >= 32 ? {seconds: 50, source: 'kube-controller-manager default (1.32+)'} : {seconds: 40, source: 'kube-controller-manager default'}
}

export const nodeStatus: Run = (ctx) => {
  const v = kubeletView(ctx)
  const eff = effectiveConfig(v)
  if (!eff.ok) return {status: 'skipped', reason: eff.reason}
  const {cfg, basis} = eff.value
  const grace = nodeMonitorGracePeriod(ctx)
  const freqNs = parseGoDuration(String(valueAt(cfg, 'nodeStatusUpdateFrequency') ?? '10s'))
  const freq = freqNs === undefined ? 10 : Number(freqNs) / 1e9
  const lease = num(valueAt(cfg, 'nodeLeaseDurationSeconds')) ?? 40
  const ev = [evidence(cfg, 'nodeStatusUpdateFrequency', basis), evidence(cfg, 'nodeLeaseDurationSeconds', basis), `node-monitor-grace-period: ${grace.seconds}s (${grace.source})`]
  const out: FindingDraft[] = []
  if (lease / 4 >= grace.seconds) {
    out.push({message: `the node lease is renewed every ${lease / 4}s (nodeLeaseDurationSeconds ${lease} / 4), not within the ${grace.seconds}s grace period: the node flaps NotReady`, subject: CONFIG_SUBJECT('nodeLeaseDurationSeconds'), evidence: ev, severity: 'error'})
  }
  if (freq >= grace.seconds) {
    out.push({message: `nodeStatusUpdateFrequency ${freq}s is not shorter than the ${grace.seconds}s grace period: the node is marked NotReady between updates`, subject: CONFIG_SUBJECT('nodeStatusUpdateFrequency'), evidence: ev, severity: 'error'})
  } else if (freq * 4 > grace.seconds) {
    out.push({message: `nodeStatusUpdateFrequency ${freq}s leaves fewer than 4 updates within the ${grace.seconds}s grace period: one slow update can mark the node NotReady`, subject: CONFIG_SUBJECT('nodeStatusUpdateFrequency'), evidence: ev})
  }
  return outcome(out)
}
