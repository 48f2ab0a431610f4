// `proxy render|diff --mode nftables`: the nftables proxier's input from --objects files (or live from a NODE), the
// rendered `table ip|ip6 kube-proxy` in `nft list` syntax, and the diff against `nft list table …` / `nft -j list
// ruleset` as a Report. The iptables-only runtime facts (--random-fully, --nfacct, --tcp-be-liberal) do not apply.
import {diffTablesAgainstListing} from '../../core/checks/nftables/diff.js'
import {liveNftablesInput} from '../../core/checks/nftables/live.js'
import type {NftDifference} from '../../core/diff/nftables.js'
import {type NftRuleset, kubeProxyTables, parseNft} from '../../core/parse/nft.js'
import {generateNftables} from '../../core/proxier/nftables/generate.js'
import {type NftablesRenderInput, nftablesRenderInput} from '../../core/proxier/nftables/options.js'
import {serializeNftTable} from '../../core/proxier/nftables/table.js'
import type {RenderInput} from '../../core/proxier/render-input.js'
import {UsageError} from '../../errors.js'
import type {Environment} from '../../ports/environment.js'
import {ArtifactUnavailableError} from '../live/node-artifact.js'
import type {LiveFlags} from '../live/targets.js'
import {describeVersion, parseInputFile, type ProxierFlagValues, renderHeader, type ProxyIO, type ProxyMeta, resolveProxierInput, withPastedInput} from './input.js'
import {collectProxierNode} from './live.js'
import {type ProxyDiff, proxyDiffReport, type ServiceRuleDiff} from './report.js'

const IPTABLES_ONLY = ['random-fully', 'nfacct', 'tcp-be-liberal'] as const

export interface NftablesRun {
  render: RenderInput
  nft: NftablesRenderInput
  notes: string[]
  context?: string
}

function iptablesOnlyNotes(flags: ProxierFlagValues): string[] {
  return IPTABLES_ONLY.filter((f) => flags[f] !== undefined).map((f) => `--${f} only concerns iptables mode; ignored in nftables mode`)
}

/** Offline: the --objects files and flags → the nftables proxier's input for one family. */
export function resolveNftablesInput(flags: ProxierFlagValues, env: Environment, familyHint?: 'ipv4' | 'ipv6'): NftablesRun {
  const render = resolveProxierInput(flags, env, familyHint)
  const config = render.kubeProxyConfig
  const nft = nftablesRenderInput(render, config, render.serviceCIDRs)
  if (config?.mode !== undefined && config.mode !== 'nftables') nft.notes.push(`the kube-proxy ConfigMap sets mode ${JSON.stringify(config.mode)}; rendering nftables mode as asked`)
  return {render, nft, notes: [...iptablesOnlyNotes(flags), ...render.notes, ...nft.notes]}
}


/** Live: the objects from the API and the node's addresses and nft ruleset over the node transport. */
export async function liveNftables(node: string, flags: Partial<LiveFlags> & ProxierFlagValues, env: Environment): Promise<NftablesRun & {listing?: NftRuleset}> {
  const live = await collectProxierNode(node, flags, env, ['nftables'])
  const snap = live.snap
  const input = liveNftablesInput(live.cluster, snap, {anyMode: true, listingOptional: true})
  if (!input.ok) throw new ArtifactUnavailableError(`node ${node}: ${input.reason}`)
  const nft = input.inputs[0]!
  const hasListing = snap.artifacts['nft-ruleset'] !== undefined
  return {render: input.render, nft, notes: [...iptablesOnlyNotes(flags), ...input.render.notes, ...nft.notes], context: live.context, ...(hasListing ? {listing: input.listing} : {})}
}

/** The rendered table, loadable with `nft -f` exactly as printed. */
export function renderNftablesText(run: NftablesRun): string {
  return serializeNftTable(generateNftables(run.nft.input))
}

/** Reads and parses an nft listing file, naming the file in errors; refuses listings without a kube-proxy table family match. */
export function readNftListing(path: string, env: Environment, io?: ProxyIO): NftRuleset {
  return parseInputFile(env, path, (text) => parseNft(text), io ? {io} : undefined)
}

/** The family of the kube-proxy table in a listing, when it holds exactly one. */
export function listingFamily(listing: NftRuleset): 'ipv4' | 'ipv6' | undefined {
  const tables = kubeProxyTables(listing)
  if (tables.length !== 1) return undefined
  return tables[0]!.family === 'ip6' ? 'ipv6' : 'ipv4'
}

/** The diff of the rendered table against a listing, as a Report and its rule diff. */
export function nftablesDiffReport(run: NftablesRun, listing: NftRuleset, meta: {version: string; command: string; context?: string}): ProxyDiff {
  const expected = generateNftables(run.nft.input)
  const outcome = diffTablesAgainstListing([expected], listing, run.render.node.metadata.name)
  const ruleDiff = nftRuleDiffByService(outcome.differences)
  const report = proxyDiffReport(run.render, outcome, {toolVersion: meta.version, command: meta.command, context: meta.context}, {
    proxyMode: 'nftables',
    ipFamily: run.nft.input.options.family,
    nftTable: `${expected.family} ${expected.name}`,
    ...(listing.nftVersion ? {nftVersion: listing.nftVersion} : {}),
  })
  return {report, ruleDiff}
}

/**
 * The nftables differences as `-`/`+` lines per Service port, as `proxy diff` prints them for iptables mode: `-`
 * what kube-proxy would have programmed that the table lacks, `+` what it has that kube-proxy would not, `~` an
 * order or definition difference. Lines name the table and the chain, set or map (`ip kube-proxy services: ...`).
 */
export function nftRuleDiffByService(tables: ReadonlyArray<{table: string; differences: readonly NftDifference[]}>): ServiceRuleDiff[] {
  const groups = new Map<string | undefined, ServiceRuleDiff['lines']>()
  const add = (group: string | undefined, lines: ServiceRuleDiff['lines']) => groups.set(group, [...(groups.get(group) ?? []), ...lines])
  for (const {table, differences} of tables) {
    for (const d of differences) {
      const group = d.kind === 'missing-table' ? undefined : d.group
      switch (d.kind) {
        case 'missing-table':
          add(group, [{sign: '-', text: `table ${d.table} (missing)`}])
          break
        case 'missing-chain':
          add(group, [{sign: '-', text: `${table} chain ${d.chain} (missing)`}, ...d.expectedRules.map((r) => ({sign: '-' as const, text: `${table} ${d.chain}: ${r}`}))])
          break
        case 'stale-chain':
          add(group, [{sign: '+', text: `${table} chain ${d.chain} (stale)`}, ...d.actualRules.map((r) => ({sign: '+' as const, text: `${table} ${d.chain}: ${r}`}))])
          break
        case 'missing-rule':
          add(group, [{sign: '-', text: `${table} ${d.chain}: ${d.rule}`}])
          break
        case 'extra-rule':
          add(group, [{sign: '+', text: `${table} ${d.chain}: ${d.rule}`}])
          break
        case 'misordered':
          add(group, [{sign: '~', text: `${table} ${d.chain}: rules in another order`}])
          break
        case 'missing-element':
          add(group, [{sign: '-', text: `${table} ${d.set}: element ${d.element}`}])
          break
        case 'extra-element':
          add(group, [{sign: '+', text: `${table} ${d.set}: element ${d.element}`}])
          break
        case 'wrong-element':
          add(group, [
            {sign: '-', text: `${table} ${d.set}: ${d.key} : ${d.expected}`},
            {sign: '+', text: `${table} ${d.set}: ${d.key} : ${d.actual}`},
          ])
          break
        case 'definition':
          add(group, [{sign: '~', text: `${table} ${d.object}: ${d.detail}`}])
          break
      }
    }
  }
  // Sorted as entries: Array.prototype.sort puts undefined elements last without asking the comparator.
  const entries = [...groups.entries()].sort(([a], [b]) => (a === b ? 0 : a === undefined ? -1 : b === undefined ? 1 : a < b ? -1 : 1))
  return entries.map(([service, lines]) => ({...(service === undefined ? {} : {service}), lines}))
}

function describe(run: NftablesRun): string {
  const o = run.nft.input.options
  return `${describeVersion(run.render)}, nftables mode, ${o.family}, node ${run.render.node.metadata.name}`
}

function tell(run: NftablesRun, io: ProxyIO): void {
  if (io.verbose) io.note(describe(run))
  if (!io.quiet) for (const n of run.notes) io.note(`note: ${n}`)
}

/** `proxy render --mode nftables [NODE]`: the table text. */
export async function renderNftables(nodeArg: string | undefined, flags: Partial<LiveFlags> & ProxierFlagValues, env: Environment, io: ProxyIO): Promise<string> {
  const run = nodeArg !== undefined ? await liveNftables(nodeArg, flags, env) : resolveNftablesInput(flags, env)
  tell(run, io)
  return renderHeader(run.render, 'nftables', nodeArg !== undefined, io) + renderNftablesText(run)
}

/** `proxy diff --mode nftables (--nft FILE | NODE)`: the Report, and the rule diff per Service port. */
export async function diffNftables(
  nodeArg: string | undefined,
  flags: Partial<LiveFlags> & ProxierFlagValues & {nft?: string},
  env: Environment,
  io: ProxyIO,
  meta: ProxyMeta,
): Promise<ProxyDiff> {
  if (nodeArg !== undefined) {
    if (flags.objects?.length || flags.node || flags.nft) throw new UsageError('give either a NODE to read live, or --objects, --node and --nft for files, not both')
    const run = await liveNftables(nodeArg, flags, env)
    tell(run, io)
    if (!run.listing) throw new ArtifactUnavailableError(`node ${nodeArg}: \`nft list ruleset\` could not be collected`, 'Is nft installed on the node, and does the SSH user have root (--sudo)?')
    return nftablesDiffReport(run, run.listing, {version: meta.toolVersion, command: meta.command, ...(run.context ? {context: run.context} : {})})
  }
  const missing = [!flags.objects?.length && '--objects', !flags.node && '--node', !flags.nft && '--nft'].filter(Boolean)
  if (missing.length > 0) throw new UsageError(`missing ${missing.join(', ')}`, 'Give a NODE to read it live, or --objects FILE, --node NAME, --nft FILE (`nft list table ip kube-proxy` or `nft -j list ruleset`).')
  const listing = readNftListing(flags.nft!, env, io)
  const fromListing = listingFamily(listing)
  const family = flags['ip-family'] as 'ipv4' | 'ipv6' | undefined
  if (kubeProxyTables(listing).length === 0 && !io.quiet) io.note(`note: ${flags.nft} holds no kube-proxy table`)
  const run = resolveNftablesInput(flags, env, family ?? fromListing)
  tell(run, io)
  return withPastedInput(nftablesDiffReport(run, listing, {version: meta.toolVersion, command: meta.command}), io)
}
