// "Say what you assumed": the facts one node's expected kube-proxy state was computed from, each with its source,
// from the proxier's render input. The Report carries them per node (NodeSummary.assumptions), the table prints
// them under the node's header, and `proxy render` prints them as a comment above the rules.
import type {Assumption} from '../model/report.js'
import {configValue, FEATURE_GATE_DEFAULT_ON, formatFullKubeProxyVersion, formatKubeProxyVersion, type LocalDetector} from './config.js'
import {nftablesRenderInput} from './nftables/options.js'
import type {RenderInput} from './render-input.js'

/** What the caller knows besides the render input: the mode and where it came from, the iptables backend. */
export interface AssumptionContext {
  mode: {value: string; source: string}
  /** `nf_tables` or `legacy`, from `iptables --version` or the dump; omitted when unknown. */
  iptablesBackend?: {value: string; source: string}
  /** Where runtime facts given by the caller came from: the node's artifacts (live, bundles) or command-line flags. */
  factsFrom: 'node' | 'flags'
}

const DEFAULT = 'default'

function detectorValue(d: LocalDetector): string {
  switch (d.mode) {
    case 'ClusterCIDR':
    case 'NodeCIDR':
      return `${d.mode} ${d.cidr}`
    case 'BridgeInterface':
      return `BridgeInterface ${d.interfaceName}`
    case 'InterfaceNamePrefix':
      return `InterfaceNamePrefix ${d.prefix}`
    case 'NoOp':
      return 'none (no CIDR of this family: local traffic is not told apart)'
  }
}

/** The assumptions for one render input, in a fixed order (version first). */
export function assumptionsFor(render: RenderInput, ctx: AssumptionContext): Assumption[] {
  const o = render.input.options
  const cfg = render.kubeProxyConfig
  const cfgSource = render.configSource ?? 'the kube-proxy configuration'
  // A value taken from the running kube-proxy names /configz; the others the configuration's source.
  const sourceOf = (path: string[]): string => {
    const key = path.join('.')
    return render.configSources?.[key] ?? Object.entries(render.configSources ?? {}).find(([k]) => k.startsWith(`${key}.`))?.[1] ?? cfgSource
  }
  const from = (path: string[], fallback?: string): string =>
    configValue(cfg, path) !== undefined && configValue(cfg, path) !== null ? `${sourceOf(path)} ${path.join('.')}` : (fallback ?? `${DEFAULT} (not set in the configuration)`)
  const r = render.resolution
  const out: Assumption[] = []

  const version: Assumption = {
    name: 'kube-proxy version',
    value: formatFullKubeProxyVersion(r.version),
    source: r.kind === 'default' ? `assumed (nothing named it; the newest layout known, ${formatKubeProxyVersion(render.version)})` : r.from,
  }
  const notes = [...r.notes]
  if (render.newerThanKnown) notes.push(`rendered with the ${formatKubeProxyVersion(render.version)} layout, the newest known`)
  if (notes.length > 0) version.notes = notes
  out.push(version)
  out.push({name: 'mode', value: ctx.mode.value, source: ctx.mode.source})
  out.push({
    name: 'IP family',
    value: o.family,
    source: render.factsGiven.includes('family') ? (ctx.factsFrom === 'flags' ? 'the input (--ip-family or the dump given)' : "the node's IPv4 iptables-save, which the diff reads") : `${DEFAULT} (the node's primary address family)`,
  })
  if (ctx.iptablesBackend) out.push({name: 'iptables backend', value: ctx.iptablesBackend.value, source: ctx.iptablesBackend.source})

  // nftables mode reads its own masquerade bit and defaults nodePortAddresses to `primary` (nftables/options.ts).
  let nft: ReturnType<typeof nftablesRenderInput>['input']['options'] | undefined
  if (ctx.mode.value === 'nftables') {
    try {
      nft = nftablesRenderInput(render, cfg, render.serviceCIDRs).input.options
    } catch {
      nft = undefined // no nftables mode in this version: the render says so itself
    }
  }
  const nodePorts = nft?.nodePortAddresses ?? o.nodePortAddresses
  out.push({
    name: 'nodePortAddresses',
    value: nodePorts.length > 0 ? nodePorts.join(',') : 'all local addresses',
    source: from(['nodePortAddresses'], nft ? `${DEFAULT} (primary: the node's IPs, nftables mode's default)` : undefined),
  })
  out.push({
    name: 'node addresses',
    value: o.nodeInterfaceAddresses.join(','),
    source: render.factsGiven.includes('nodeInterfaceAddresses')
      ? ctx.factsFrom === 'node'
        ? "the node's `ip -j addr`"
        : '--node-address'
      : `${DEFAULT} (Node ${render.node.metadata.name} status.addresses and loopback)`,
  })
  if (ctx.mode.value === 'iptables') out.push({name: 'localhost NodePorts', value: String(o.localhostNodePorts), source: from(['iptables', 'localhostNodePorts'])})
  const detectorSource =
    o.localDetector.mode === 'NodeCIDR'
      ? `${from(['detectLocalMode'])}; CIDR from Node ${render.node.metadata.name} spec.podCIDRs`
      : o.localDetector.mode === 'ClusterCIDR'
        ? `${from(['detectLocalMode'])}; CIDR from ${from(['clusterCIDR'])}`
        : from(['detectLocalMode'])
  out.push({name: 'detectLocalMode', value: detectorValue(o.localDetector), source: detectorSource})
  out.push({name: 'masquerade bit', value: String(nft?.masqueradeBit ?? o.masqueradeBit), source: from(nft ? ['nftables', 'masqueradeBit'] : ['iptables', 'masqueradeBit'])})

  const overrides = configValue(cfg, ['featureGates'])
  const overridden = overrides && typeof overrides === 'object' ? Object.keys(overrides as object).filter((k) => k in FEATURE_GATE_DEFAULT_ON) : []
  out.push({
    name: 'feature gates',
    value: Object.entries(o.featureGates)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([k, v]) => `${k}=${v}`)
      .join(','),
    source: overridden.length > 0 ? `${sourceOf(['featureGates'])} featureGates (${overridden.sort().join(', ')}), defaults of ${formatKubeProxyVersion(render.version)} for the rest` : `${DEFAULT}s of ${formatKubeProxyVersion(render.version)}`,
  })
  if (nft) {
    const cidrs = nft.serviceCIDRs
    out.push({name: 'ServiceCIDRs', value: cidrs.length > 0 ? cidrs.join(',') : 'none', source: cidrs.length > 0 ? 'ServiceCIDR objects' : render.serviceCIDRs.length > 0 ? 'not watched by this version (without MultiCIDRServiceAllocator)' : 'no ServiceCIDR objects read'})
  }
  return out
}

/** The iptables backend in `iptables --version` output (`iptables v1.8.9 (nf_tables)`), when it names one. */
export function iptablesBackendFromVersion(text: string | undefined): string | undefined {
  const m = /\((nf_tables|legacy)\)/.exec(text ?? '')
  return m ? m[1] : undefined
}

/**
 * The assumptions as comment lines (`# ` prefix) with every detail, then the notes: the block above `proxy render`
 * output (iptables-restore and nft -f skip `#` lines).
 */
export function assumptionComments(list: readonly Assumption[], prefix = '# '): string[] {
  // One line each, and no control characters: values come from API objects and node files.
  const oneLine = (s: string) => s.replace(/[\r\n]+/g, ' ').replace(/[\u0000-\u001f\u007f-\u009f]/g, (ch) => `\\x${ch.charCodeAt(0).toString(16).padStart(2, '0')}`)
  const out = [`${prefix}node-doctor rendered this from:`]
  const source = (s: string) => {
    const m = /^(defaults?|assumed) \((.*)\)$/.exec(s)
    return m ? `${m[1]}: ${m[2]}` : /^(defaults?|assumed|no|not)\b/.test(s) ? s : `from ${s}`
  }
  for (const a of list) out.push(`${prefix}  ${oneLine(a.name)}: ${oneLine(a.value)} (${oneLine(source(a.source))})`)
  for (const n of [...new Set(list.flatMap((a) => a.notes ?? []))]) out.push(`${prefix}note: ${oneLine(n)}`)
  return out
}
