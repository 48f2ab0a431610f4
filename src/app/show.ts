// The `show` views of one node artifact (iptables, ipvs, nft, routes): the artifact from --from-file or live from a
// NODE (src/app/live/node-artifact.ts), parsed, with what the view needs besides; the command renders it.
import {analyzeServices, type ServiceAnalysis} from '../core/iptables/services.js'
import {type IpvsTable, parseIpvsadm} from '../core/parse/ipvsadm.js'
import {type IptablesDump, type IptablesFamily, parseIptablesSave} from '../core/parse/iptables-save.js'
import {type NftRuleset, parseNft} from '../core/parse/nft.js'
import {parseRoutes, type RouteTable} from '../core/parse/routes.js'
import {UsageError} from '../errors.js'
import type {Environment} from '../ports/environment.js'
import {parseArtifact, readArtifact} from './live/node-artifact.js'
import type {LiveFlags} from './live/targets.js'

export interface Shown<T> {
  value: T
  /** What the view names as its input: the file, or `NODE:command`. */
  source: string
}

async function show<T>(id: string, hint: string, node: string | undefined, file: string | undefined, flags: Partial<LiveFlags>, env: Environment, parse: (text: string) => T): Promise<Shown<T>> {
  if (file === undefined && node === undefined) throw new UsageError('give a NODE to read live, or --from-file FILE', hint)
  const artifact = await readArtifact(id, file, file === undefined ? node : undefined, flags, env)
  return {value: parseArtifact(artifact, parse), source: artifact.source}
}

/** `iptables show`: the dump and how it routes each Service port. */
export async function showIptables(node: string | undefined, file: string | undefined, family: IptablesFamily | undefined, flags: Partial<LiveFlags>, env: Environment): Promise<Shown<{dump: IptablesDump; analysis: ServiceAnalysis}>> {
  const hint = 'Or run `iptables-save -c` on the node and pass its output with --from-file FILE (- for stdin).'
  const {value: dump, source} = await show(family === 'ipv6' ? 'ip6tables-save' : 'iptables-save', hint, node, file, flags, env, (text) => parseIptablesSave(text, family ? {family} : {}))
  return {value: {dump, analysis: analyzeServices(dump)}, source}
}

export function showIpvs(node: string | undefined, file: string | undefined, flags: Partial<LiveFlags>, env: Environment): Promise<Shown<IpvsTable>> {
  return show('ipvsadm', 'Run `ipvsadm -Ln` on the node and pass its output with --from-file FILE (- for stdin).', node, file, flags, env, parseIpvsadm)
}

export function showNft(node: string | undefined, file: string | undefined, flags: Partial<LiveFlags>, env: Environment): Promise<Shown<NftRuleset>> {
  return show('nft-ruleset', 'Run `nft list ruleset` on the node and pass its output with --from-file FILE (- for stdin).', node, file, flags, env, parseNft)
}

export function showRoutes(node: string | undefined, file: string | undefined, flags: Partial<LiveFlags>, env: Environment): Promise<Shown<RouteTable>> {
  return show('ip-route', 'Run `ip route` on the node and pass its output with --from-file FILE (- for stdin).', node, file, flags, env, parseRoutes)
}
