// PROXY-001..005: configured mode vs running mode vs the dataplane each mode leaves on the node.
import {KERNEL_MODULES_BY_MODE, missingKernelModules} from '../../parse/kernel-modules.js'
import type {CheckContext, CheckOutcome, FindingDraft} from '../types.js'
import {factsOf} from '../types.js'
import {type ConfiguredModeView, configuredMode, logLines, type ProxyFacts, proxyFacts} from './facts.js'

/** The first release where IPVS mode is deprecated (node-state.md A.9). */
export const IPVS_DEPRECATED_MINOR = 35
/** The first release without the userspace proxier and without the silent IPVS→iptables fallback. */
export const USERSPACE_REMOVED_MINOR = 26

const MAX_EVIDENCE = 20

function clip(lines: readonly string[]): string[] {
  return lines.length <= MAX_EVIDENCE ? [...lines] : [...lines.slice(0, MAX_EVIDENCE), `... ${lines.length - MAX_EVIDENCE} more`]
}

function podName(f: ProxyFacts): string {
  return f.pod?.metadata.name ?? '<kube-proxy pod on the node>'
}

function subjectOf(f: ProxyFacts, node: string) {
  return f.pod ? {kind: 'Pod', name: f.pod.metadata.name, namespace: 'kube-system'} : {kind: 'process', name: `kube-proxy on ${node}`}
}

/**
 * How to restart kube-proxy so it starts with its configured mode, per layout: k3s's embedded one restarts with k3s,
 * RKE2 rewrites its static pod manifest from kube-proxy-arg when it starts, a static pod's container restarts with
 * its manifest's flags, a DaemonSet's pod is recreated.
 */
function restartKubeProxy(cfg: ConfiguredModeView, f: ProxyFacts, node: string): string {
  switch (cfg.applies) {
    case 'restart-k3s':
      return `on ${node}: \`systemctl restart k3s\` (\`systemctl restart k3s-agent\` on an agent), which restarts its embedded kube-proxy`
    case 'restart-rke2':
      return `on ${node}: \`systemctl restart rke2-server\` (\`systemctl restart rke2-agent\` on an agent): rke2 writes the kube-proxy static pod manifest from kube-proxy-arg again and the kubelet restarts the pod`
    case 'static-pod':
      return `on ${node}: \`crictl stop $(crictl ps --name kube-proxy -q)\`: the kubelet restarts the static pod's container with its manifest's flags`
    default:
      return `\`kubectl -n kube-system delete pod ${podName(f)}\``
  }
}

/** Where to write the other mode to keep the running one, per layout. */
function keepRunningWhere(cfg: ConfiguredModeView, running: string): string {
  switch (cfg.applies) {
    case 'restart-k3s':
      return `To stay on ${running}, set kube-proxy-arg proxy-mode=${running} in /etc/rancher/k3s/config.yaml instead.`
    case 'restart-rke2':
      return `To stay on ${running}, set kube-proxy-arg proxy-mode=${running} in /etc/rancher/rke2/config.yaml instead.`
    case 'static-pod':
      return `To stay on ${running}, set --proxy-mode=${running} in the static pod manifest instead.`
    default:
      return `To stay on ${running}, set it in the ConfigMap instead.`
  }
}

function modeEvidence(f: ProxyFacts, configured?: ConfiguredModeView): string[] {
  const out: string[] = []
  if (configured) out.push(`configured mode: ${configured.mode} (${configured.source})`)
  if (f.running) out.push(`running mode: ${f.running.mode} (${f.running.source})`)
  if (f.version) out.push(`kube-proxy version: ${f.version.text}`)
  return out
}

/** PROXY-001: mode ipvs configured, but kube-proxy fell back to iptables or exits because IPVS is unusable. */
export function checkIpvsFallback(ctx: CheckContext): CheckOutcome {
  const f = proxyFacts(ctx)
  const c = configuredMode(ctx)
  if (!('configured' in c)) return {status: 'skipped', reason: c.configuredUnknown}
  const cfg = c.configured
  if (cfg.mode !== 'ipvs') return {status: 'passed'}
  const fellBack = f.running !== undefined && f.running.mode !== 'ipvs'
  const refuses = f.log?.failed === true && f.log.events.at(-1)?.kind === 'ipvs-unusable'
  if (!fellBack && !refuses && f.log?.fellBackFromIPVS !== true) {
    if (!f.running && !f.log) return {status: 'skipped', reason: 'the running mode is unknown: no /proxyMode answer and no kube-proxy log'}
    return {status: 'passed'}
  }
  const evidence = modeEvidence(f, cfg)
  const causes: string[] = []
  // An unreadable module list names no cause.
  const modules = factsOf(ctx).kernelModules()
  if (modules?.ok) {
    const missing = missingKernelModules(modules.value, KERNEL_MODULES_BY_MODE.ipvs)
    if (missing.length > 0) {
      causes.push(`kernel modules not loaded: ${missing.join(', ')}`)
      evidence.push(`/proc/modules lacks: ${missing.join(', ')}`)
    }
  }
  const ipset = ctx.node.artifacts['ipset']
  if (ipset?.error !== undefined && /not (installed|found)|No such file/i.test(ipset.error)) {
    causes.push('the ipset tool is missing')
    evidence.push(`ipset: ${ipset.error}`)
  }
  const lines = (f.log?.events ?? []).filter((e) => e.kind === 'ipvs-fallback' || e.kind === 'ipvs-unusable').map((e) => e.line)
  evidence.push(...logLines(f.logText, lines))
  // From v1.26 kube-proxy never falls back silently: running another mode without the fallback log line means it
  // was started before the configuration said ipvs (a k3s config.yaml edited, a ConfigMap changed, no restart).
  const noFallback = !refuses && f.log?.fellBackFromIPVS !== true && f.version !== undefined && f.version.minor >= USERSPACE_REMOVED_MINOR
  const what = refuses
    ? `kube-proxy is configured for IPVS but cannot use it and exits ("can't use the IPVS proxier"); the pod crash-loops`
    : noFallback
      ? `kube-proxy is configured for IPVS (${cfg.source}) but runs ${f.running?.mode ?? 'iptables'} mode: kube-proxy ${f.version?.text} does not fall back, so it was started before IPVS was configured`
      : `kube-proxy is configured for IPVS but runs ${f.running?.mode ?? 'iptables'} mode (the silent fallback of kube-proxy up to v1.25)`
  const draft: FindingDraft = {message: `${what}${causes.length > 0 ? `: ${causes.join('; ')}` : ''}`, subject: subjectOf(f, ctx.node.node), evidence: clip(evidence)}
  const missingModules = /kernel modules not loaded: (.*)/.exec(causes.join('\n'))?.[1]
  const restart = restartKubeProxy(cfg, f, ctx.node.node)
  if (missingModules) {
    draft.remedy =
      `On ${ctx.node.node}: \`modprobe -a ${missingModules.split(', ').join(' ')}\` (and list them in /etc/modules-load.d/ipvs.conf), ` +
      `then restart kube-proxy (${restart}) and confirm \`curl -s 127.0.0.1:10249/proxyMode\` prints ipvs. ` +
      'IPVS is deprecated since v1.35: consider `kubectl node-doctor fix kube-proxy-mode --to nftables` instead.'
  } else if (noFallback) {
    draft.remedy =
      `To apply IPVS, restart kube-proxy (${restart}), confirm \`curl -s 127.0.0.1:10249/proxyMode\` prints ipvs, then remove the ${f.running?.mode ?? 'iptables'} leftovers (PROXY-005). ` +
      keepRunningWhere(cfg, f.running?.mode ?? 'iptables')
  }
  return {status: 'failed', findings: [draft]}
}

/** PROXY-002: `mode: userspace`. */
export function checkUserspace(ctx: CheckContext): CheckOutcome {
  const f = proxyFacts(ctx)
  const c = configuredMode(ctx)
  if (!('configured' in c)) return {status: 'skipped', reason: c.configuredUnknown}
  const cfg = c.configured
  const running = f.running?.mode === 'userspace'
  if (cfg.mode !== 'userspace' && !running) return {status: 'passed'}
  const removed = f.version !== undefined && f.version.minor >= USERSPACE_REMOVED_MINOR
  const message = removed
    ? `kube-proxy ${f.version?.text} is configured with mode userspace (${cfg.source}), which was removed in v1.26: kube-proxy rejects it and does not start`
    : `kube-proxy ${running ? 'runs' : 'is configured for'} the userspace mode (${cfg.source}), removed in v1.26: the node breaks on upgrade`
  return {status: 'failed', findings: [{message, subject: {kind: 'field', name: 'mode', in: cfg.source}, evidence: modeEvidence(f, cfg)}]}
}

/** PROXY-003: running ≠ configured (the IPVS fallback is PROXY-001's finding, not this one). */
export function checkModeMismatch(ctx: CheckContext): CheckOutcome {
  const f = proxyFacts(ctx)
  const c = configuredMode(ctx)
  if (!('configured' in c)) return {status: 'skipped', reason: c.configuredUnknown}
  const cfg = c.configured
  if (!f.running) return {status: 'skipped', reason: 'the running mode is unknown: no /proxyMode answer and no "Using … Proxier" log line'}
  if (f.running.mode === cfg.mode) return {status: 'passed'}
  if (cfg.mode === 'ipvs' && f.running.mode === 'iptables') return {status: 'passed'}
  if (cfg.mode === 'userspace') return {status: 'passed'}
  const who = cfg.applies === 'restart-k3s' ? 'k3s' : cfg.applies === 'restart-rke2' ? 'rke2' : podName(f)
  return {
    status: 'failed',
    findings: [
      {
        message: `kube-proxy runs ${f.running.mode} mode but is configured for ${cfg.mode} (${cfg.source}): the configuration changed and ${who} was not restarted`,
        subject: subjectOf(f, ctx.node.node),
        evidence: modeEvidence(f, cfg),
        remedy:
          `To apply ${cfg.mode}: ${restartKubeProxy(cfg, f, ctx.node.node)}, confirm \`curl -s 127.0.0.1:10249/proxyMode\` prints ${cfg.mode}, ` +
          `then remove the ${f.running.mode} leftovers (PROXY-005). ${keepRunningWhere(cfg, f.running.mode)}`,
      },
    ],
  }
}

/** PROXY-004: IPVS in use on v1.35+. */
export function checkIpvsDeprecated(ctx: CheckContext): CheckOutcome {
  const f = proxyFacts(ctx)
  const c = configuredMode(ctx)
  const mode = f.running?.mode ?? ('configured' in c ? c.configured.mode : undefined)
  if (mode === undefined) return {status: 'skipped', reason: 'configuredUnknown' in c ? c.configuredUnknown : 'neither the configured nor the running mode is known'}
  if (mode !== 'ipvs') return {status: 'passed'}
  if (!f.version) return {status: 'skipped', reason: 'the kube-proxy version is unknown (no image tag, node info or server version)'}
  if (f.version.minor < IPVS_DEPRECATED_MINOR) return {status: 'passed'}
  const evidence = modeEvidence(f, 'configured' in c ? c.configured : undefined)
  evidence.push(...logLines(f.logText, (f.log?.events ?? []).filter((e) => e.kind === 'ipvs-deprecated').map((e) => e.line)))
  return {
    status: 'failed',
    findings: [
      {
        message: `kube-proxy ${f.version.text} ${f.running ? 'runs' : 'is configured for'} IPVS mode, deprecated since v1.35: move to nftables before the mode is gated off`,
        subject: subjectOf(f, ctx.node.node),
        evidence,
      },
    ],
  }
}

function leftoverIptables(chains: readonly string[], running: string): FindingDraft {
  return {
    message: `${chains.length} iptables-mode Service chain(s) (KUBE-SVC/SEP/...) remain in the nat table while kube-proxy runs ${running} mode`,
    subject: {kind: 'chain', name: chains[0] ?? 'KUBE-SVC-*', in: 'nat'},
    evidence: clip(chains.map((c) => `:${c}`)),
    remedy:
      "Delete only the iptables-mode Service chains, keeping everything else: `CHAINS=$(iptables-save -t nat | grep -oE '^:KUBE-(SVC|SEP|SVL|EXT|FW)-[A-Z0-9]+' | cut -c2-); " +
      'for c in $CHAINS; do iptables -t nat -F $c; done; for c in $CHAINS; do iptables -t nat -X $c; done` ' +
      '(-X refuses a chain that is still referenced, which is the safety net). ' +
      (running === 'ipvs' ? 'Do NOT use `kube-proxy --cleanup` here: on an IPVS node it flushes ALL IPVS virtual servers, including the live ones.' : 'Do not run `kube-proxy --cleanup` on a live node.'),
  }
}

function leftoverIpvs(services: readonly string[], kubeIpvs0: {present: boolean; addresses: string[]} | undefined, running: string): FindingDraft {
  const parts: string[] = []
  if (services.length > 0) parts.push(`${services.length} IPVS virtual server(s)`)
  if (kubeIpvs0?.present) parts.push(`the kube-ipvs0 link${kubeIpvs0.addresses.length > 0 ? ` with ${kubeIpvs0.addresses.length} Service address(es)` : ''}`)
  const dels = services.slice(0, 3).map((s) => {
    const m = /^(TCP|UDP|SCTP) (\S+)$/.exec(s)
    return m ? `ipvsadm -D ${m[1] === 'TCP' ? '-t' : m[1] === 'UDP' ? '-u' : '--sctp-service'} ${m[2]}` : `ipvsadm -D ... (${s})`
  })
  return {
    message: `IPVS-mode leftovers remain while kube-proxy runs ${running} mode: ${parts.join(' and ')}`,
    subject: services.length > 0 ? {kind: 'virtual-server', name: services[0] ?? ''} : {kind: 'link', name: 'kube-ipvs0'},
    evidence: clip([...services.map((s) => `virtual server ${s}`), ...(kubeIpvs0?.present ? [`kube-ipvs0 ${kubeIpvs0.addresses.join(' ')}`.trim()] : [])]),
    remedy:
      `Delete kube-proxy's virtual servers one by one (${dels.join('; ')}${services.length > 3 ? '; ...' : ''}), then \`ip link del kube-ipvs0\`, ` +
      'then `ipset destroy` the KUBE-* sets once no iptables rule references them. Use `ipvsadm -C` only if nothing else on the node ' +
      '(keepalived, kube-vip, a load balancer) uses IPVS, and never `kube-proxy --cleanup` blindly: it flushes ALL IPVS rules.',
  }
}

function leftoverNft(tables: readonly string[], running: string): FindingDraft {
  return {
    message: `the nftables-mode table(s) ${tables.join(', ')} remain while kube-proxy runs ${running} mode`,
    subject: {kind: 'nft-object', name: tables[0] ?? 'ip kube-proxy'},
    evidence: tables.map((t) => `table ${t}`),
    remedy: `Delete them: ${tables.map((t) => `\`nft delete table ${t}\``).join(', ')}. kube-proxy in ${running} mode does not use them; nothing else should own a table named kube-proxy.`,
  }
}

/** Virtual servers kube-proxy would have made: a Service IP, or a Service's NodePort (other IPVS users are left alone). */
function kubeProxyVirtualServers(ctx: CheckContext, ids: readonly string[]): string[] {
  const ips = new Set<string>()
  const nodePorts = new Set<number>()
  for (const s of ctx.cluster.services) {
    for (const ip of [s.spec.clusterIP, ...(s.spec.clusterIPs ?? []), ...(s.spec.externalIPs ?? []), ...(s.status?.loadBalancer?.ingress ?? []).map((i) => i.ip)]) {
      if (ip) ips.add(ip)
    }
    for (const p of s.spec.ports ?? []) if (p.nodePort) nodePorts.add(p.nodePort)
  }
  return ids.filter((id) => {
    const m = /^\S+ \[?([^\]]+?)\]?:(\d+)$/.exec(id)
    return m !== null && (ips.has(m[1] ?? '') || nodePorts.has(Number(m[2])))
  })
}

/** PROXY-005: the other modes' dataplanes, given the running mode. */
export function checkLeftovers(ctx: CheckContext): CheckOutcome {
  const f = proxyFacts(ctx)
  if (!f.running) return {status: 'skipped', reason: 'the running mode is unknown: no /proxyMode answer and no "Using … Proxier" log line'}
  const d = f.dataplane
  if (d.iptablesServiceChains === undefined && d.ipvsServices === undefined && d.kubeIpvs0 === undefined && d.nftTables === undefined) {
    return {status: 'skipped', reason: 'missing input: none of iptables-save, ipvsadm, ip-link, nft-ruleset could be read'}
  }
  const mode = f.running.mode
  const drafts: FindingDraft[] = []
  if (mode !== 'iptables' && (d.iptablesServiceChains?.length ?? 0) > 0) drafts.push(leftoverIptables(d.iptablesServiceChains ?? [], mode))
  const ipvs = kubeProxyVirtualServers(ctx, d.ipvsServices ?? [])
  if (mode !== 'ipvs' && (ipvs.length > 0 || d.kubeIpvs0?.present === true)) drafts.push(leftoverIpvs(ipvs, d.kubeIpvs0, mode))
  if (mode !== 'nftables' && (d.nftTables?.length ?? 0) > 0) drafts.push(leftoverNft(d.nftTables ?? [], mode))
  return drafts.length > 0 ? {status: 'failed', findings: drafts} : {status: 'passed'}
}
