// The CNI's configured MTU (issue #19 item 3): NODE-010 the configured value against the underlay minus the encapsulation
// overhead, NODE-011 the devices and pod veths against the configured value (drift), NODE-012 the pod veths of routed
// CNIs (Calico cali*, Cilium lxc*; canal's cali* behind flannel.1) against the path their traffic takes.
//
// Where each CNI keeps its MTU (read from the stored upstream sources, see the notes per CNI below):
// - Calico: Felix's IPIPMTU / VXLANMTU / VXLANMTUV6 / WireguardMTU / WireguardMTUV6. Felix takes each from, highest first
//   (felix/config: Source EnvironmentVariable > ConfigFile > DatastorePerHost > DatastoreGlobal), the calico-node
//   container's environment (FELIX_IPINIPMTU, FELIX_VXLANMTU, FELIX_WIREGUARDMTU: the calico.yaml manifest fills them from
//   ConfigMap kube-system/calico-config `veth_mtu`, default "0"), the FelixConfiguration `node.NODE`, then `default`
//   (spec.ipipMTU, vxlanMTU, vxlanMTUV6, wireguardMTU, wireguardMTUV6). 0 or unset is auto: ConfigureDefaultMTUs sets it
//   to the host MTU (the smallest MTU of the up links matching mtuIfacePattern) minus 20/50/70/60/80. The tunnel devices
//   get these MTUs; pods get the smallest MTU of the enabled encapsulations (determinePodMTU, written to
//   /var/lib/calico/mtu for the CNI plugin), the host MTU without encapsulation.
//   NOTE: an environment value of "0" is taken to override a FelixConfiguration value (it is a set value of a
//   higher-priority source that then means auto); not tested against a running Felix.
// - flannel: /run/flannel/subnet.env FLANNEL_MTU, the MTU of the backend device (flannel.1 = the interface --iface selects
//   minus 50); the flannel CNI plugin gives it to cni0 and the pods.
// - Cilium: kube-system/cilium-config `mtu` (the agent's --mtu, option.MTUName; 0 or unset = auto-detect). Cilium gives
//   pod devices (lxc*) and cilium_host that MTU and puts the tunnel/encryption overhead on the pods' routes instead
//   (pkg/mtu: DeviceMTU = base, RouteMTU = base - overhead), so a configured value is judged against the underlay itself.
import type {ConfigMap, KubeObject, Pod} from '../../model/k8s.js'
import type {LinkTable, NetInterface} from '../../parse/links.js'
import {factKey} from '../../facts/node-facts.js'
import {isCalicoWorkloadInterface} from '../../parse/links.js'
import {routeDevices} from '../../parse/routes.js'
import {isCalicoNodePod} from '../routes/calico.js'
import type {CheckContext, CheckOutcome, FindingDraft} from '../types.js'
import {factsOf} from '../types.js'
import {underlayOf} from './mtu.js'
import {interfaceWithAddress, internalIp, isCiliumTunnel, type OverlayDevice, overlayDevices} from './overlay.js'
import {podBridges} from './prereqs.js'

/** One MTU a CNI is configured with, and what it governs on this node. */
export interface MtuSetting {
  cni: 'Calico' | 'flannel' | 'Cilium'
  /** What the value governs, for messages: `Calico's IPIP MTU (tunl0)`. */
  what: string
  /** The configured value, or auto (0 or unset: the CNI derives it from the underlay). */
  value: number | 'auto'
  /** Where the value comes from: `env FELIX_IPINIPMTU of kube-system/calico-node-4m8qz <- ConfigMap kube-system/calico-config veth_mtu "1500"`. */
  source: string
  /** The overlay device the value is the MTU of; absent for Cilium and flannel host-gw (judged against the underlay). */
  overlay?: OverlayDevice
  /** Bytes the value must leave free below the underlay's MTU (the overlay's overhead; 0 when judged against the underlay itself). */
  overhead: number
  /** Devices and pod veths that should have this MTU. */
  devices: NetInterface[]
  /** For Calico's pod MTU: the tunnel whose MTU it is (the smallest enabled one); NODE-010 judges that tunnel's setting. */
  podMtuOf?: OverlayDevice
  /**
   * For an auto value Felix derives: what it comes to under each interface pattern Felix may use (one per known default
   * when none is configured), with how. NODE-010 fires only when every one is too big.
   */
  auto?: Array<{value: number; how: string}>
}

interface Settings {
  settings: MtuSetting[]
  /** Per CNI input that could not be read, with the reason. */
  unknown: string[]
  /** Which CNIs were looked for and found on the node. */
  present: string[]
}

// ---- reading the configuration ----

const CALICO_PARAMS: Record<string, {env: string; field: string; name: string}> = {
  tunl0: {env: 'FELIX_IPINIPMTU', field: 'ipipMTU', name: 'IPIP MTU'},
  'vxlan.calico': {env: 'FELIX_VXLANMTU', field: 'vxlanMTU', name: 'VXLAN MTU'},
  'vxlan-v6.calico': {env: 'FELIX_VXLANMTUV6', field: 'vxlanMTUV6', name: 'IPv6 VXLAN MTU'},
  'wireguard.cali': {env: 'FELIX_WIREGUARDMTU', field: 'wireguardMTU', name: 'WireGuard MTU'},
  'wg-v6.cali': {env: 'FELIX_WIREGUARDMTUV6', field: 'wireguardMTUV6', name: 'IPv6 WireGuard MTU'},
}

const configMap = (cluster: CheckContext['cluster'], namespace: string, name: string): ConfigMap | undefined =>
  cluster.configMaps.find((c) => (c.metadata.namespace ?? '') === namespace && c.metadata.name === name)

/** An MTU text as Felix, flannel and Cilium accept it: a decimal integer; 0 is auto. */
function mtuValue(text: string): number | 'auto' | undefined {
  const t = text.trim()
  if (!/^\d{1,6}$/.test(t)) return undefined
  const n = Number(t)
  return n === 0 ? 'auto' : n
}

type Resolved = {value: number | 'auto'; source: string} | {unknown: string} | undefined

/** A calico-node container's environment variable, resolving a configMapKeyRef from the snapshot. undefined: not set. */
function podEnv(pod: Pod, name: string, cluster: CheckContext['cluster']): Resolved {
  const ns = pod.metadata.namespace ?? ''
  const podName = `${ns}/${pod.metadata.name}`
  const containers = pod.spec?.containers ?? []
  const c = containers.find((x) => x.name === 'calico-node') ?? containers[0]
  const e = c?.env?.find((x) => x.name === name)
  if (!e) return undefined
  if (e.value !== undefined) {
    const v = mtuValue(e.value)
    return v === undefined ? {unknown: `env ${name}="${e.value}" of ${podName} is not a number`} : {value: v, source: `env ${name}="${e.value}" of ${podName}`}
  }
  const ref = e.valueFrom?.configMapKeyRef
  if (!ref) return {unknown: `env ${name} of ${podName} comes from a source the snapshot does not hold`}
  const cm = configMap(cluster, ns, ref.name)
  if (!cm) return {unknown: `env ${name} of ${podName} comes from ConfigMap ${ns}/${ref.name}, which the snapshot does not hold (only kube-system/calico-config is read)`}
  const text = cm.data?.[ref.key]
  if (text === undefined) return {unknown: `env ${name} of ${podName} names key ${ref.key} of ConfigMap ${ns}/${ref.name}, which it does not have`}
  const v = mtuValue(text)
  if (v === undefined) return {unknown: `ConfigMap ${ns}/${ref.name} ${ref.key}="${text}" is not a number`}
  return {value: v, source: `env ${name} of ${podName} <- ConfigMap ${ns}/${ref.name} ${ref.key}="${text}" (calico-node reads it when it starts)`}
}

/** A FelixConfiguration field, per-host (`node.NODE`) over `default`. undefined: neither sets it. */
function felixField(felix: readonly KubeObject[], node: string, field: string): Resolved {
  for (const name of [`node.${node}`, 'default']) {
    const fc = felix.find((f) => f.metadata.name === name)
    const raw = (fc as {spec?: Record<string, unknown>} | undefined)?.spec?.[field]
    if (raw === undefined || raw === null) continue
    const v = typeof raw === 'number' ? (raw === 0 ? 'auto' : raw) : mtuValue(String(raw))
    if (v === undefined) return {unknown: `FelixConfiguration ${name} spec.${field} "${String(raw)}" is not a number`}
    return {value: v, source: `FelixConfiguration ${name} spec.${field}: ${String(raw)}`}
  }
  return undefined
}

function calicoSettings(ctx: CheckContext, links: LinkTable, out: Settings): void {
  const overlays = overlayDevices(links).filter((o) => CALICO_PARAMS[o.iface.name] !== undefined)
  const pod = ctx.cluster.pods.find((p) => isCalicoNodePod(p) && p.spec?.nodeName === ctx.node.node)
  if (overlays.length === 0) {
    // Without encapsulation pods get the host MTU (determinePodMTU): judged by NODE-012 against the underlay.
    if (pod) out.present.push('Calico (no tunnel device up)')
    return
  }
  out.present.push('Calico')
  if (!pod) {
    out.unknown.push("Calico: the snapshot has no calico-node pod on this node, whose FELIX_*MTU environment would decide Felix's MTUs")
    return
  }
  const felixRead = !ctx.cluster.errors.some((e) => e.resource === 'felixconfigurations' || /felixconfigurations/.test(e.source))
  const felix = ctx.cluster.calico.felixConfigurations ?? []
  const workloads = links.interfaces.filter((i) => isCalicoWorkloadInterface(i.name))
  for (const o of overlays) {
    const p = CALICO_PARAMS[o.iface.name]!
    let r = podEnv(pod, p.env, ctx.cluster)
    if (r === undefined) {
      if (!felixRead) {
        out.unknown.push(`Calico ${p.name}: FelixConfigurations could not be read`)
        continue
      }
      r = felixField(felix, ctx.node.node, p.field) ?? {value: 'auto', source: `neither env ${p.env} of ${pod.metadata.namespace ?? ''}/${pod.metadata.name} nor a FelixConfiguration spec.${p.field} sets it`}
    }
    if ('unknown' in r) {
      out.unknown.push(`Calico ${p.name}: ${r.unknown}`)
      continue
    }
    const setting: MtuSetting = {cni: 'Calico', what: `Calico's ${p.name} (${o.iface.name})`, value: r.value, source: r.source, overlay: o, overhead: o.overhead, devices: [o.iface]}
    // NOTE: on AKS with WireGuard host encryption Felix takes another 100 bytes off the auto WireGuard MTU: not estimated.
    if (r.value === 'auto' && o.encapsulation !== 'wireguard') {
      const auto = felixAutoMtu(ctx, pod, felixRead ? felix : undefined, links, o.overhead)
      if (auto) setting.auto = auto
    }
    out.settings.push(setting)
  }
  // Pods get the smallest MTU of the enabled encapsulations: known only when every one is set explicitly.
  const tunnels = out.settings.filter((s) => s.cni === 'Calico' && s.overlay)
  if (workloads.length > 0 && tunnels.length === overlays.length && tunnels.every((s) => s.value !== 'auto')) {
    const smallest = tunnels.reduce((a, b) => ((b.value as number) < (a.value as number) ? b : a))
    const {overlay, ...rest} = smallest
    out.settings.push({...rest, what: `Calico's pod MTU (its smallest tunnel MTU: ${smallest.overlay?.iface.name ?? 'the tunnel'}'s)`, devices: workloads, ...(overlay ? {podMtuOf: overlay} : {})})
  }
}

/**
 * Felix's default mtuIfacePattern: the documented one (felix/config config_params.go, docs `FELIX_MTUIFACEPATTERN`), and
 * the wider one projectcalico/calico#10148 proposes (enX0 and others). NOTE: which releases ship the wider one is not
 * verified, so both are evaluated and NODE-010 fires only when both give a value that is too big.
 */
export const FELIX_DEFAULT_MTU_PATTERNS = ['^((en|wl|ww|sl|ib)[opsx].*|(eth|wlan|wwan).*)', '^((en|wl|ww|sl|ib)[PcopsvxX].*|(eth|wlan|wwan).*)'] as const

/**
 * What Felix auto-detects for a tunnel (ConfigureDefaultMTUs): the smallest MTU of the links that are up (operationally)
 * and match mtuIfacePattern, or 1460 when none matches, minus the tunnel's overhead. undefined: the pattern cannot be read.
 */
function felixAutoMtu(ctx: CheckContext, pod: Pod, felix: readonly KubeObject[] | undefined, links: LinkTable, overhead: number): Array<{value: number; how: string}> | undefined {
  let patterns: Array<{text: string; from: string}>
  const env = (pod.spec?.containers ?? []).flatMap((c) => c.env ?? []).find((e) => e.name === 'FELIX_MTUIFACEPATTERN')
  if (env) {
    if (env.value === undefined) return undefined
    patterns = [{text: env.value, from: 'env FELIX_MTUIFACEPATTERN'}]
  } else {
    if (felix === undefined) return undefined
    const fc = [`node.${ctx.node.node}`, 'default'].map((n) => felix.find((f) => f.metadata.name === n)).find((f) => typeof (f as {spec?: {mtuIfacePattern?: unknown}} | undefined)?.spec?.mtuIfacePattern === 'string')
    const configured = (fc as {spec?: {mtuIfacePattern?: string}} | undefined)?.spec?.mtuIfacePattern
    patterns = configured !== undefined ? [{text: configured, from: `FelixConfiguration ${fc!.metadata.name} spec.mtuIfacePattern`}] : FELIX_DEFAULT_MTU_PATTERNS.map((t) => ({text: t, from: "Felix's default mtuIfacePattern"}))
  }
  const out: Array<{value: number; how: string}> = []
  for (const p of patterns) {
    let re: RegExp
    try {
      re = new RegExp(p.text) // RE2 syntax; the patterns in use are plain enough for JavaScript's engine
    } catch {
      return undefined
    }
    const matched = links.interfaces.filter((i) => re.test(i.name) && i.flags.includes('UP') && i.state === 'UP' && i.mtu !== undefined)
    const smallest = matched.reduce<NetInterface | undefined>((a, b) => (a === undefined || b.mtu! < a.mtu! ? b : a), undefined)
    const host = smallest?.mtu ?? 1460
    const how = smallest
      ? `auto: host MTU ${host} (${smallest.name}, the smallest up link matching ${p.from} ${p.text}) minus ${overhead}`
      : `auto: no up link matches ${p.from} ${p.text}, so Felix falls back to a host MTU of 1460, minus ${overhead}`
    out.push({value: host - overhead, how})
  }
  return out
}

/** FLANNEL_MTU from subnet.env (`KEY=VALUE` lines). */
export function flannelMtu(text: string): string | undefined {
  return /^FLANNEL_MTU=(.*)$/m.exec(text)?.[1]?.trim()
}

function flannelSettings(ctx: CheckContext, links: LinkTable, out: Settings): void {
  // FLANNEL_MTU is the IPv4 backend's MTU; an IPv6 backend device (flannel-v6.1) has its own, not judged.
  const overlays = overlayDevices(links).filter((o) => o.owner.startsWith('flannel') && o.outer === 'ipv4')
  const text = factsOf(ctx).text('flannel-subnet-env')
  if (text === undefined) {
    if (overlays.length === 0) return
    out.present.push('flannel')
    out.unknown.push(`flannel: ${overlays[0]!.iface.name} is up but /run/flannel/subnet.env was not read (artifact flannel-subnet-env)`)
    return
  }
  out.present.push('flannel')
  const raw = flannelMtu(text)
  const v = raw === undefined ? undefined : mtuValue(raw)
  if (v === undefined || v === 'auto') {
    out.unknown.push(`flannel: /run/flannel/subnet.env has ${raw === undefined ? 'no FLANNEL_MTU' : `FLANNEL_MTU=${raw}, not an MTU`}`)
    return
  }
  const source = `/run/flannel/subnet.env FLANNEL_MTU=${raw}`
  // NOTE: under canal the pods sit on Calico's cali* veths with canal's veth_mtu (not read here), not on flannel's bridge:
  // they are not this setting's devices; NODE-012 judges them against flannel.1.
  const ports = podBridges(links).flatMap((b) => [b.bridge, ...b.ports])
  if (overlays.length === 0) {
    // host-gw: no encapsulation, the pods' packets leave through the underlay as they are.
    out.settings.push({cni: 'flannel', what: "flannel's MTU (host-gw, no tunnel)", value: v, source, overhead: 0, devices: ports})
    return
  }
  for (const o of overlays) out.settings.push({cni: 'flannel', what: `flannel's MTU (${o.iface.name})`, value: v, source, overlay: o, overhead: o.overhead, devices: [o.iface, ...ports]})
}

const isCiliumEndpoint = (name: string): boolean => /^lxc/.test(name)

function ciliumSettings(ctx: CheckContext, links: LinkTable, out: Settings): void {
  if (!links.interfaces.some((i) => i.name === 'cilium_host')) return
  out.present.push('Cilium')
  const cm = configMap(ctx.cluster, 'kube-system', 'cilium-config')
  if (!cm) {
    out.unknown.push('Cilium: ConfigMap kube-system/cilium-config is not in the snapshot')
    return
  }
  const raw = cm.data?.mtu
  const v = raw === undefined ? 'auto' : mtuValue(raw)
  if (v === undefined) {
    out.unknown.push(`Cilium: kube-system/cilium-config mtu "${raw ?? ''}" is not a number`)
    return
  }
  // The pod devices; cilium_host is left out (NOTE: its MTU under each mode is not verified).
  const devices = links.interfaces.filter((i) => isCiliumEndpoint(i.name))
  out.settings.push({cni: 'Cilium', what: "Cilium's device MTU (the pods' lxc*)", value: v, source: raw === undefined ? 'kube-system/cilium-config has no mtu key' : `ConfigMap kube-system/cilium-config mtu="${raw}" (the agent reads it when it starts)`, overhead: 0, devices})
}

function readSettings(ctx: CheckContext): {links: LinkTable; addrs: NetInterface[] | undefined; s: Settings} | {reason: string} {
  const facts = factsOf(ctx)
  const links = facts.links('ip-link')
  if (links === undefined) return {reason: 'missing input: ip-link'}
  if (!links.ok) return {reason: `the link listing could not be parsed: ${links.error.message}`}
  const addrs = facts.links('ip-addr')
  const s: Settings = {settings: [], unknown: [], present: []}
  calicoSettings(ctx, links.value, s)
  flannelSettings(ctx, links.value, s)
  ciliumSettings(ctx, links.value, s)
  return {links: links.value, addrs: addrs?.ok ? addrs.value.interfaces : undefined, s}
}

/** The interface carrying the Node's IPv4 InternalIP (the underlay without a tunnel). */
function nodeUnderlay(ctx: CheckContext, addrs: NetInterface[] | undefined, links: LinkTable): {iface: NetInterface; why: string} | {reason: string} {
  const ip = internalIp(ctx.cluster, ctx.node.node, 'ipv4')
  if (!ip) return {reason: 'the Node has no IPv4 InternalIP to find the underlay by'}
  if (!addrs) return {reason: 'the address listing (ip-addr) was not read or could not be parsed'}
  const carrier = interfaceWithAddress({format: 'ip-json', interfaces: addrs}, ip)
  if (!carrier) return {reason: `no interface carries the InternalIP ${ip}`}
  return {iface: links.interfaces.find((l) => l.name === carrier.name) ?? carrier, why: `it carries the InternalIP ${ip}`}
}

const noCni = 'not applicable: no Calico tunnel, flannel subnet.env or Cilium (cilium_host) on the node'
const listed = (xs: readonly string[]) => xs.join('; ')

type SettingsRead = ReturnType<typeof readSettings>
const MTU_SETTINGS = factKey<SettingsRead>('node: the CNI MTU settings and the devices they set')

/**
 * NODE-010/011's common start: the node's CNI MTU settings, read once per node and shared; each check gets its own
 * copy of what could not be told, which it extends with its own reasons.
 */
function settingsToJudge(ctx: CheckContext): {skip: CheckOutcome} | {links: LinkTable; addrs: NetInterface[] | undefined; settings: readonly MtuSetting[]; present: readonly string[]; unknown: string[]} {
  const r = factsOf(ctx).derive(MTU_SETTINGS, () => readSettings(ctx))
  if ('reason' in r) return {skip: {status: 'skipped', reason: r.reason}}
  if (r.s.present.length === 0) return {skip: {status: 'skipped', reason: noCni}}
  return {links: r.links, addrs: r.addrs, settings: r.s.settings, present: r.s.present, unknown: [...r.s.unknown]}
}

// ---- NODE-010 ----

export function checkConfiguredMtu(ctx: CheckContext): CheckOutcome {
  const r = settingsToJudge(ctx)
  if ('skip' in r) return r.skip
  const {settings, unknown, present} = r
  const findings: FindingDraft[] = []
  let judged = 0
  const seen = new Set<string>()
  for (const s of settings) {
    if (s.podMtuOf) continue // the pod MTU is the smallest tunnel MTU: judged as that tunnel's setting
    if (s.value === 'auto' && s.auto === undefined) continue // derived by the CNI in a way not estimated here; the devices it sets are NODE-007's
    const u = s.overlay ? underlayOf(ctx, s.overlay, r.links.interfaces, r.addrs) : nodeUnderlay(ctx, r.addrs, r.links)
    if ('reason' in u) {
      unknown.push(`${s.what}: ${u.reason}`)
      continue
    }
    if (u.iface.mtu === undefined) {
      unknown.push(`${s.what}: the listing has no MTU for ${u.iface.name}`)
      continue
    }
    judged++
    const limit = u.iface.mtu - s.overhead
    // An auto value is too big only when it is under every pattern Felix may use: the smallest estimate is reported.
    const auto = s.auto?.reduce((a, b) => (b.value < a.value ? b : a))
    const value = s.value === 'auto' ? auto!.value : s.value
    if (value <= limit || seen.has(`${s.source}|${u.iface.name}|${limit}`)) continue
    seen.add(`${s.source}|${u.iface.name}|${limit}`)
    const source = auto ? `${s.source}; ${auto.how}` : s.source
    const overhead = s.overhead > 0 ? ` minus the ${s.overhead}-byte ${s.overlay?.encapsulation === 'ipip' ? 'IPIP' : s.overlay?.encapsulation === 'vxlan' ? 'VXLAN' : s.overlay?.encapsulation === 'wireguard' ? 'WireGuard' : 'encapsulation'} overhead` : ''
    findings.push({
      message:
        `${s.what} is ${auto ? 'auto-detected as' : 'configured as'} ${value}, above ${u.iface.name}'s MTU ${u.iface.mtu}${overhead} (${limit}): ` +
        `with it, packets larger than ${limit} bytes${s.overhead > 0 ? ' become outer packets the underlay cannot carry' : ' do not fit the underlay'}, so large responses hang ` +
        `(${auto ? 'from' : 'configured in'} ${source})`,
      subject: {kind: 'interface', name: s.overlay?.iface.name ?? u.iface.name},
      evidence: [
        `${auto ? 'auto-detected' : 'configured'}: ${value} (${source})`,
        `${u.iface.name}: mtu ${u.iface.mtu} (the underlay: ${u.why})`,
        ...(s.overhead > 0 ? [`overhead ${s.overhead} bytes: at most ${limit}`] : []),
        ...(s.overlay?.iface.mtu !== undefined ? [`${s.overlay.iface.name} now: mtu ${s.overlay.iface.mtu}`] : []),
      ],
    })
  }
  if (findings.length > 0) return {status: 'failed', findings}
  if (judged === 0) {
    const auto = settings.filter((s) => s.value === 'auto').map((s) => `${s.what}: auto (${s.source})`)
    return {status: 'skipped', reason: unknown.length > 0 ? `cannot tell: ${listed([...unknown, ...auto])}` : `nothing configured to judge: ${listed(auto.length > 0 ? auto : present)}; the devices are judged by NODE-007`}
  }
  return {status: 'passed'}
}

// ---- NODE-011 ----

export function checkMtuDrift(ctx: CheckContext): CheckOutcome {
  const r = settingsToJudge(ctx)
  if ('skip' in r) return r.skip
  const {settings, unknown, present} = r
  const findings: FindingDraft[] = []
  let judged = 0
  for (const s of settings) {
    if (s.value === 'auto') continue
    const against = s.podMtuOf ?? s.overlay
    // Devices above the tunnel they send through are NODE-008/NODE-012's errors, not drift.
    const tunnel = against?.iface.mtu
    const off = s.devices.filter((d) => d.mtu !== undefined && d.mtu !== s.value && !(tunnel !== undefined && d !== against?.iface && d.mtu > tunnel))
    judged += s.devices.length
    if (off.length === 0) continue
    const mtus = [...new Set(off.map((d) => d.mtu))].join(', ')
    findings.push({
      message:
        `${off.length} device(s) have MTU ${mtus} while ${s.what} is configured as ${s.value} (${s.source}): the configuration changed after they were created ` +
        `or the CNI has not applied it (not restarted since)`,
      subject: {kind: 'interface', name: off[0]!.name},
      evidence: [`configured: ${s.value} (${s.source})`, ...off.slice(0, 8).map((d) => `${d.name}: mtu ${d.mtu}`), ...(off.length > 8 ? [`... and ${off.length - 8} more`] : [])],
    })
  }
  if (findings.length > 0) return {status: 'failed', findings}
  if (judged === 0) {
    const auto = settings.filter((s) => s.value === 'auto').map((s) => `${s.what}: auto (${s.source})`)
    return {status: 'skipped', reason: `cannot tell: ${listed([...unknown, ...auto].length > 0 ? [...unknown, ...auto] : present.map((p) => `${p}: no device to compare`))}`}
  }
  return {status: 'passed'}
}

// ---- NODE-012 ----

/**
 * Routed CNIs' pod veths (Calico cali*, Cilium lxc*): their host ends carry the pod ends' MTU. A Calico pod above the
 * smallest Calico tunnel the main table routes through (under canal: the flannel device; without a tunnel: the
 * underlay) sends packets the path cannot
 * carry whole; a Cilium pod device above the underlay MTU means Cilium's base MTU (device MTU; routes get it minus the
 * overhead) is too big.
 */
export function checkRoutedPodMtu(ctx: CheckContext): CheckOutcome {
  const facts = factsOf(ctx)
  const links = facts.links('ip-link')
  if (links === undefined) return {status: 'skipped', reason: 'missing input: ip-link'}
  if (!links.ok) return {status: 'skipped', reason: `the link listing could not be parsed: ${links.error.message}`}
  const cali = links.value.interfaces.filter((i) => isCalicoWorkloadInterface(i.name))
  const lxc = links.value.interfaces.filter((i) => isCiliumEndpoint(i.name))
  if (cali.length === 0 && lxc.length === 0) return {status: 'skipped', reason: 'not applicable: no Calico (cali*) or Cilium (lxc*) pod veths on the node'}
  const addrs = facts.links('ip-addr')
  const findings: FindingDraft[] = []
  const unknown: string[] = []
  const judge = (veths: NetInterface[], limit: number, path: string, story: string) => {
    const over = veths.filter((v) => v.mtu !== undefined && v.mtu > limit)
    if (over.length === 0) return
    const mtus = [...new Set(over.map((v) => v.mtu))].join(', ')
    findings.push({
      message: `${over.length} pod veth(s) have MTU ${mtus}, above ${path} (${limit}): ${story}`,
      subject: {kind: 'interface', name: over[0]!.name},
      evidence: [`${path}: ${limit}`, ...over.slice(0, 8).map((v) => `${v.name}: mtu ${v.mtu}`), ...(over.length > 8 ? [`... and ${over.length - 8} more`] : [])],
    })
  }
  const under = nodeUnderlay(ctx, addrs?.ok ? addrs.value.interfaces : undefined, links.value)
  if (cali.length > 0) {
    const tunnels = overlayDevices(links.value).filter((o) => CALICO_PARAMS[o.iface.name] !== undefined)
    const routes = facts.routes('ip-route')
    if (tunnels.length > 0) {
      if (routes === undefined || !routes.ok) unknown.push(`Calico: ${routes === undefined ? 'missing input: ip-route' : `the route listing could not be parsed: ${routes.error.message}`}`)
      else {
        const used = tunnels.filter((o) => routes.value.routes.some((rt) => rt.family === 'inet' && rt.table === 'main' && routeDevices(rt).includes(o.iface.name)))
        const path = used.reduce<OverlayDevice | undefined>((a, b) => (a === undefined || (b.iface.mtu ?? Infinity) < (a.iface.mtu ?? Infinity) ? b : a), undefined)
        if (!path) unknown.push(`Calico: no route goes through ${tunnels.map((o) => o.iface.name).join(', ')}`)
        else if (path.iface.mtu === undefined) unknown.push(`Calico: the listing has no MTU for ${path.iface.name}`)
        else judge(cali, path.iface.mtu, `the ${path.iface.name} tunnel's MTU`, 'those pods send packets the tunnel cannot carry whole, so their large requests and responses to pods on other nodes stall')
      }
    } else if (overlayDevices(links.value).some((o) => !isCiliumTunnel(o.iface.name))) {
      // Canal: Calico's veths, flannel's tunnel between nodes. The pods' MTU is canal's veth_mtu (rke2-canal: 1450,
      // rancher/rke2-charts packages/rke2-canal values.yaml calico.vethuMTU), which must fit the flannel device the
      // routes to other nodes' pods use, as a Calico tunnel's MTU must.
      const others = overlayDevices(links.value).filter((o) => !isCiliumTunnel(o.iface.name))
      const flannel = others.filter((o) => o.owner.startsWith('flannel') && o.outer === 'ipv4')
      const routes = facts.routes('ip-route')
      if (flannel.length === 0) unknown.push(`Calico pod veths behind ${others.map((o) => o.iface.name).join(', ')}: not a Calico or flannel tunnel, not judged`)
      else if (routes === undefined || !routes.ok) unknown.push(`Calico pod veths behind flannel (canal): ${routes === undefined ? 'missing input: ip-route' : `the route listing could not be parsed: ${routes.error.message}`}`)
      else {
        const used = flannel.filter((o) => routes.value.routes.some((rt) => rt.family === 'inet' && rt.table === 'main' && routeDevices(rt).includes(o.iface.name)))
        const path = used.reduce<OverlayDevice | undefined>((a, b) => (a === undefined || (b.iface.mtu ?? Infinity) < (a.iface.mtu ?? Infinity) ? b : a), undefined)
        if (!path) unknown.push(`Calico pod veths behind flannel (canal): no route goes through ${flannel.map((o) => o.iface.name).join(', ')}`)
        else if (path.iface.mtu === undefined) unknown.push(`Calico pod veths behind flannel (canal): the listing has no MTU for ${path.iface.name}`)
        else
          judge(
            cali,
            path.iface.mtu,
            `the ${path.iface.name} tunnel's MTU (canal: flannel carries the pods' traffic between nodes)`,
            "those pods send packets flannel's tunnel cannot carry whole, so their large requests and responses to pods on other nodes stall (canal's veth_mtu, or the one they were created with, is above flannel's MTU)",
          )
      }
    } else if ('reason' in under) unknown.push(`Calico: ${under.reason}`)
    else if (under.iface.mtu !== undefined) judge(cali, under.iface.mtu, `${under.iface.name}'s MTU (no Calico tunnel is up: pod traffic leaves unencapsulated)`, 'those pods send packets the underlay cannot carry, so their large transfers to other nodes stall')
  }
  if (lxc.length > 0) {
    if ('reason' in under) unknown.push(`Cilium: ${under.reason}`)
    else if (under.iface.mtu !== undefined)
      judge(lxc, under.iface.mtu, `${under.iface.name}'s MTU (the underlay)`, "Cilium gives pod devices its base MTU and puts the tunnel overhead on the pods' routes, so a base above the underlay makes large packets to other nodes too big for it")
  }
  if (findings.length > 0) return {status: 'failed', findings}
  if (unknown.length > 0) return {status: 'skipped', reason: `cannot tell: ${listed(unknown)}`}
  return {status: 'passed'}
}
