// PROXY-010: kube-proxy's chains in both iptables backends (iptables-legacy and iptables-nft), which the kernel
// evaluates side by side (kube-proxy-iptables.md §9, §12).
import {artifactText} from '../../model/snapshot.js'
import type {NodeFacts} from '../../facts/node-facts.js'
import type {CheckContext, CheckOutcome} from '../types.js'
import {factsOf} from '../types.js'

/** Chains the kubelet creates in the backend it uses; they may legitimately exist where kube-proxy does not run. */
const KUBELET_CHAINS = new Set(['KUBE-IPTABLES-HINT', 'KUBE-KUBELET-CANARY', 'KUBE-FIREWALL'])

/**
 * KUBE-* chains that are not kube-proxy's: kube-router's network-policy controller (which k3s embeds) writes
 * KUBE-ROUTER-INPUT/FORWARD/OUTPUT, KUBE-NWPLCY-<hash> per policy and KUBE-POD-FW-<hash> per pod.
 */
export function isForeignKubeChain(chain: string): boolean {
  return chain.startsWith('KUBE-ROUTER-') || chain.startsWith('KUBE-NWPLCY-') || chain.startsWith('KUBE-POD-FW-')
}

function hasHint(text: string): boolean {
  return /^:KUBE-IPTABLES-HINT /m.test(text)
}

/** `table/CHAIN` for every kube-proxy chain in a backend's save dump (parsed once, by the facts); an error for one that cannot be parsed. */
function chainsOf(facts: NodeFacts, id: 'iptables-legacy-save' | 'iptables-nft-save'): string[] | Error {
  // An unused backend (or one not collected) saves nothing at all.
  if ((facts.text(id) ?? '').trim() === '') return []
  const dump = facts.iptablesSave(id)!
  if (!dump.ok) return dump.error
  return dump.value.tables.flatMap((t) => t.chains.filter((c) => c.name.startsWith('KUBE-') && !KUBELET_CHAINS.has(c.name) && !isForeignKubeChain(c.name)).map((c) => `${t.name}/${c.name}`))
}

export function checkDualBackend(ctx: CheckContext): CheckOutcome {
  const facts = factsOf(ctx)
  const legacyText = artifactText(ctx.node, 'iptables-legacy-save') ?? ''
  const nftText = artifactText(ctx.node, 'iptables-nft-save') ?? ''
  const unreadable = (err: Error): CheckOutcome => ({status: 'skipped', reason: `an iptables backend dump could not be parsed: ${err.message}`})
  const legacy = chainsOf(facts, 'iptables-legacy-save')
  if (legacy instanceof Error) return unreadable(legacy)
  const nft = chainsOf(facts, 'iptables-nft-save')
  if (nft instanceof Error) return unreadable(nft)
  if (legacy.length === 0 || nft.length === 0) return {status: 'passed'}
  // The host's backend: `iptables --version` (on k3s, the iptables k3s bundles, which its kube-proxy runs), else
  // where the kubelet left its hint, else where most chains are.
  const k3sVersion = (artifactText(ctx.node, 'k3s-iptables-version') ?? '').trim()
  const version = k3sVersion !== '' ? `${k3sVersion} (k3s's bundled iptables)` : (artifactText(ctx.node, 'iptables-version') ?? '')
  const host = /\(nf_tables\)/.test(version) ? 'nft' : /\(legacy\)/.test(version) ? 'legacy' : hasHint(nftText) && !hasHint(legacyText) ? 'nft' : hasHint(legacyText) && !hasHint(nftText) ? 'legacy' : nft.length >= legacy.length ? 'nft' : 'legacy'
  const stale = host === 'nft' ? legacy : nft
  const tool = host === 'nft' ? 'iptables-legacy' : 'iptables-nft'
  const tables = [...new Set(stale.map((c) => c.split('/')[0] ?? ''))]
  const commands = tables.map(
    (t) =>
      `${tool}-save -t ${t} | grep -E '^-A (PREROUTING|INPUT|FORWARD|OUTPUT|POSTROUTING) .*-j KUBE-' | sed 's/^-A/-D/' | xargs -L1 ${tool} -t ${t}; ` +
      `for c in $(${tool}-save -t ${t} | grep -oE '^:KUBE-[A-Z0-9-]+' | cut -c2- | grep -vxE 'KUBE-(IPTABLES-HINT|KUBELET-CANARY|FIREWALL|ROUTER-.*|NWPLCY-.*|POD-FW-.*)'); do ${tool} -t ${t} -F $c; done; ` +
      `for c in $(${tool}-save -t ${t} | grep -oE '^:KUBE-[A-Z0-9-]+' | cut -c2- | grep -vxE 'KUBE-(IPTABLES-HINT|KUBELET-CANARY|FIREWALL|ROUTER-.*|NWPLCY-.*|POD-FW-.*)'); do ${tool} -t ${t} -X $c; done`,
  )
  return {
    status: 'failed',
    findings: [
      {
        message: `kube-proxy chains exist in both backends: ${legacy.length} in iptables-legacy and ${nft.length} in iptables-nft; the host uses ${host === 'nft' ? 'iptables-nft' : 'iptables-legacy'}, so the ${tool} copy is stale`,
        subject: {kind: 'chain', name: stale[0]?.split('/')[1] ?? 'KUBE-*', in: `${tool} ${stale[0]?.split('/')[0] ?? ''}`.trim()},
        evidence: [`iptables --version: ${version.trim() || 'not collected'}`, ...stale.slice(0, 10).map((c) => `${tool}: ${c}`), ...(stale.length > 10 ? [`... ${stale.length - 10} more`] : [])],
        remedy:
          `Make sure kube-proxy uses ${host === 'nft' ? 'iptables-nft' : 'iptables-legacy'} (its image's iptables-wrapper follows the host), then remove kube-proxy's chains from ${tool} only, table by table: ` +
          commands.map((c) => `\`${c}\``).join(' ; ') +
          ` . Never flush the ${host === 'nft' ? 'iptables-nft' : 'iptables-legacy'} tables the node uses.`,
      },
    ],
  }
}
