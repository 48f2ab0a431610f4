// The `show` views of one node artifact (iptables, ipvs, nft, routes): the artifact from --from-file or live from a
// NODE (src/app/live/node-artifact.ts), parsed, with what the view needs besides; the command renders it.
import {analyzeServices, type ServiceAnalysis} from '../core/iptables/services.js'
import {type IpvsTable, parseIpvsadm} from '../core/parse/ipvsadm.js'
import {type IptablesDump, type IptablesFamily, parseIptablesSave} from '../core/parse/iptables-save.js'
import {type NftRuleset, parseNft} from '../core/parse/nft.js'
import {readPastedIptables} from '../core/iptables/pasted.js'
import {readPastedIpvsadm} from '../core/parse/ipvsadm/pasted.js'
import {readPastedRoutes} from '../core/parse/routes/pasted.js'
import {parsePasted, type PastedWarning} from '../core/parse/pasted.js'
import {parseRoutes, type RouteTable} from '../core/parse/routes.js'
import {UsageError} from '../errors.js'
import type {Environment} from '../ports/environment.js'
import {parseArtifact, readArtifact} from './live/node-artifact.js'
import type {LiveFlags} from './live/targets.js'

export interface Shown<T> {
  value: T
  /** What the view names as its input: the file, or `NODE:command`. */
  source: string
  /**
   * What the lenient reader of a --from-file input assumed or skipped, at the user's lines (empty when the input was
   * read strictly: --strict, or live from a node, which is machine-collected).
   */
  warnings: PastedWarning[]
}

async function show<T>(id: string, hint: string, node: string | undefined, file: string | undefined, flags: Partial<LiveFlags>, env: Environment, parse: (text: string) => T): Promise<Shown<T>> {
  const {value, source, warnings} = await showLenient(id, hint, node, file, flags, env, (text) => ({value: parse(text), warnings: []}), parse)
  return {value, source, warnings}
}

/**
 * Like show, with a lenient parser for --from-file input (what people paste) and the strict one for live input
 * and under --strict.
 */
async function showLenient<T>(
  id: string,
  hint: string,
  node: string | undefined,
  file: string | undefined,
  flags: Partial<LiveFlags>,
  env: Environment,
  lenient: (text: string) => {value: T; warnings: PastedWarning[]},
  strict: (text: string) => T,
): Promise<Shown<T>> {
  if (file === undefined && node === undefined) throw new UsageError('give a NODE to read live, or --from-file FILE', hint)
  const artifact = await readArtifact(id, file, file === undefined ? node : undefined, flags, env)
  if (file === undefined) return {value: parseArtifact(artifact, strict), source: artifact.source, warnings: []}
  const {value, warnings} = parseArtifact(artifact, lenient)
  return {value, source: artifact.source, warnings}
}

export interface ShowOptions {
  /** Read --from-file input as the tool prints it: no pasted-input leniency, a malformed line is an error. */
  strict?: boolean
}

/** `iptables show`: the dump and how it routes each Service port. */
export async function showIptables(
  node: string | undefined,
  file: string | undefined,
  family: IptablesFamily | undefined,
  flags: Partial<LiveFlags>,
  env: Environment,
  options: ShowOptions = {},
): Promise<Shown<{dump: IptablesDump; analysis: ServiceAnalysis; excerpt: boolean}>> {
  const hint = 'Or run `iptables-save -c` on the node and pass its output with --from-file FILE (- for stdin).'
  const opts = family ? {family} : {}
  const strict = (text: string): IptablesDump => parseIptablesSave(text, opts)
  let excerpt = false
  const lenient = (text: string): {value: IptablesDump; warnings: PastedWarning[]} => {
    const read = readPastedIptables(text, opts)
    excerpt = read.excerpt
    return {value: read.dump, warnings: read.warnings}
  }
  const id = family === 'ipv6' ? 'ip6tables-save' : 'iptables-save'
  const {value: dump, source, warnings} = await showLenient(id, hint, node, file, flags, env, options.strict ? (text) => ({value: strict(text), warnings: []}) : lenient, strict)
  return {value: {dump, analysis: analyzeServices(dump), excerpt}, source, warnings}
}

export function showIpvs(node: string | undefined, file: string | undefined, flags: Partial<LiveFlags>, env: Environment, options: ShowOptions = {}): Promise<Shown<IpvsTable>> {
  const hint = 'Run `ipvsadm -Ln` on the node and pass its output with --from-file FILE (- for stdin).'
  if (options.strict) return show('ipvsadm', hint, node, file, flags, env, parseIpvsadm)
  const lenient = (text: string): {value: IpvsTable; warnings: PastedWarning[]} => {
    const read = readPastedIpvsadm(text)
    return {value: read.table, warnings: read.warnings}
  }
  return showLenient('ipvsadm', hint, node, file, flags, env, lenient, parseIpvsadm)
}

export function showNft(node: string | undefined, file: string | undefined, flags: Partial<LiveFlags>, env: Environment, options: ShowOptions = {}): Promise<Shown<NftRuleset>> {
  const hint = 'Run `nft list ruleset` on the node and pass its output with --from-file FILE (- for stdin).'
  if (options.strict) return show('nft-ruleset', hint, node, file, flags, env, parseNft)
  // A pasted listing (indented, CRLF, prompt lines, fences): read with what was assumed as warnings at the user's lines.
  return showLenient('nft-ruleset', hint, node, file, flags, env, (text) => parsePasted(text, parseNft), parseNft)
}

export function showRoutes(node: string | undefined, file: string | undefined, flags: Partial<LiveFlags>, env: Environment, options: ShowOptions = {}): Promise<Shown<RouteTable>> {
  const hint = 'Run `ip route` on the node and pass its output with --from-file FILE (- for stdin).'
  if (options.strict) return show('ip-route', hint, node, file, flags, env, parseRoutes)
  const lenient = (text: string): {value: RouteTable; warnings: PastedWarning[]} => {
    const read = readPastedRoutes(text, parseRoutes)
    return {value: read.table, warnings: read.warnings}
  }
  return showLenient('ip-route', hint, node, file, flags, env, lenient, parseRoutes)
}
