// Shared by `proxy render`, `proxy diff` and `trace`: the --objects files and runtime-fact flags → the proxier input.
import {inputFailure} from '../../core/limits/input.js'
import {parse as parseYaml} from 'yaml'
import {EP_INVALID_OBJECT} from '../../core/checks/objects/specs.js'
import {assumptionComments, assumptionsFor} from '../../core/proxier/assumptions.js'
import {formatFullKubeProxyVersion, formatKubeProxyVersion, parseKubeProxyVersion} from '../../core/proxier/config.js'
import {formatObjectProblem, loadObjects, type ObjectProblem, ObjectsParseError} from '../../core/proxier/objects.js'
import {buildRenderInput, kubeProxyConfigText, type RenderInput} from '../../core/proxier/render-input.js'
import {InputError, inFile, ParseError, UsageError} from '../../errors.js'
import type {Environment} from '../../ports/environment.js'
import {readPastedIptables} from '../../core/iptables/pasted.js'
import type {IptablesDump, IptablesFamily} from '../../core/iptables/save.js'
import type {IpvsTable} from '../../core/parse/ipvsadm.js'
import {readPastedIpvsadm} from '../../core/parse/ipvsadm/pasted.js'
import {parsePasted, type PastedWarning} from '../../core/parse/pasted.js'
import type {Report} from '../../core/model/report.js'
import {proxyAssumptionContext} from './report.js'

const CONFIG_SOURCE = 'kube-system/kube-proxy ConfigMap (config.conf)'

/** Where a proxy service's notes go (stderr), and how many: --verbose adds the proxier's description, --quiet drops the notes. */
export interface ProxyIO {
  note(message: string): void
  verbose?: boolean
  quiet?: boolean
  /** `--strict`: dump files are read as the tools print them, no pasted-input leniency. */
  strict?: boolean
  /** What the lenient readers assumed in pasted dump files (`FILE:LINE: message`), for the Report's annotations. */
  pasted?: string[]
}

/** What a proxy Report names: the tool version and the command line as run. */
export interface ProxyMeta {
  toolVersion: string
  command: string
}

export interface ProxierFlagValues {
  objects?: string[]
  node?: string
  'kube-proxy-version'?: string
  'ip-family'?: string
  'node-address'?: string[]
  'random-fully'?: boolean
  nfacct?: boolean
  'tcp-be-liberal'?: boolean
}

/** A proxier input with what was wrong in the objects it was rendered from (left out or kept; EP-003). */
export type RenderInputWithProblems = RenderInput & {objectProblems: ObjectProblem[]}

/**
 * Reads the objects files and resolves node, version, configuration and runtime facts. A malformed object is left
 * out, never fatal: each problem becomes a note and, in `proxy diff`, an EP-003 finding (report.ts).
 */
export function resolveProxierInput(flags: ProxierFlagValues, env: Pick<Environment, 'readInput'>, familyHint?: 'ipv4' | 'ipv6', extra: {nodeAddresses?: string[]} = {}): RenderInputWithProblems {
  if (!flags.objects?.length || !flags.node) throw new UsageError('--objects and --node are required for offline rendering', 'Or give a NODE argument to read the cluster and the node live.')
  const texts = flags.objects.map((path) => ({name: path === '-' ? '<stdin>' : path, text: env.readInput(path)}))
  let objects
  try {
    objects = loadObjects(texts)
  } catch (err) {
    if (err instanceof ObjectsParseError) throw new InputError(err.source, err.message, err.line)
    throw err
  }
  let version
  if (flags['kube-proxy-version'] !== undefined) {
    version = parseKubeProxyVersion(flags['kube-proxy-version'])
    if (!version) throw new UsageError(`--kube-proxy-version ${JSON.stringify(flags['kube-proxy-version'])} is not a version`, 'Use a form like v1.31.')
  }
  const configText = kubeProxyConfigText(objects)
  let kubeProxyConfig: Record<string, unknown> | undefined
  if (configText !== undefined) {
    let parsed: unknown
    try {
      parsed = parseYaml(configText)
    } catch (err) {
      throw new InputError(CONFIG_SOURCE, `not valid YAML: ${(err as Error).message.split('\n')[0]}`)
    }
    if (parsed !== null && parsed !== undefined) {
      if (typeof parsed !== 'object' || Array.isArray(parsed)) throw new InputError(CONFIG_SOURCE, 'expected a KubeProxyConfiguration mapping')
      kubeProxyConfig = parsed as Record<string, unknown>
    }
  }
  const family = (flags['ip-family'] as 'ipv4' | 'ipv6' | undefined) ?? familyHint
  const addresses = flags['node-address'] ?? extra.nodeAddresses
  const facts = {
    ...(family ? {family} : {}),
    ...(addresses ? {nodeInterfaceAddresses: addresses} : {}),
    ...(flags['random-fully'] !== undefined ? {randomFully: flags['random-fully']} : {}),
    ...(flags.nfacct !== undefined ? {nfacct: flags.nfacct} : {}),
    ...(flags['tcp-be-liberal'] !== undefined ? {tcpBeLiberal: flags['tcp-be-liberal']} : {}),
  }
  try {
    const render = buildRenderInput(objects, {nodeName: flags.node!, ...(version ? {version} : {}), ...(kubeProxyConfig ? {kubeProxyConfig} : {}), facts})
    const objectProblems = objects.problems ?? []
    for (const p of objectProblems) render.notes.push(`${EP_INVALID_OBJECT.id} (${EP_INVALID_OBJECT.severity}): ${formatObjectProblem(p)}`)
    return {...render, objectProblems}
  } catch (err) {
    if (err instanceof ParseError) throw new InputError(CONFIG_SOURCE, err.message.replace(/^kube-proxy configuration: /, ''))
    throw err
  }
}

/** `kube-proxy v1.37.2 (from pod kube-system/kube-proxy-x2x9k)`, naming the layout when it is not the version's own. */
export function describeVersion(r: RenderInput): string {
  const source = r.versionSource === 'default' ? 'assumed' : `from ${r.resolution.from}`
  const layout = r.newerThanKnown ? `, rendered with the ${formatKubeProxyVersion(r.version)} layout` : ''
  return `kube-proxy ${formatFullKubeProxyVersion(r.resolution.version)} (${source}${layout})`
}

export function describeRender(r: RenderInput): string {
  return `${describeVersion(r)}, ${r.input.options.family}, node ${r.node.metadata.name}`
}

/**
 * The comment block above `proxy render` output: what the rules were rendered from, with sources and notes. Left
 * out with --quiet, so `-q` prints exactly what kube-proxy would write.
 */
export function renderHeader(render: RenderInput, mode: string, live: boolean, io: ProxyIO): string {
  if (io.quiet) return ''
  return assumptionComments(assumptionsFor(render, proxyAssumptionContext(mode, live))).join('\n') + '\n'
}

/** A pasted-input reader for a dump file: the value and what it assumed, at the user's lines. */
export type PastedRead<T> = (text: string) => {value: T; warnings: PastedWarning[]}

/**
 * Runs a parser over an input file's text, turning its ParseError into an InputError that names the file. With
 * `pasted` (the diff/trace dump files: what people paste), a text the parser refuses is read again by the lenient
 * reader (default: the generic step of core/parse/pasted.ts in front of the same parser) unless io.strict; what it
 * assumed goes to stderr as `warning: FILE:LINE: message` and into io.pasted for the Report (withPastedInput).
 */
export function parseInputFile<T>(env: Pick<Environment, 'readInput'>, path: string, parse: (text: string) => T, pasted?: {io: ProxyIO; read?: PastedRead<T>}): T {
  const name = path === '-' ? '<stdin>' : path
  const text = env.readInput(path)
  try {
    return parse(text)
  } catch (err) {
    if (!(err instanceof ParseError)) throw inFile(name, inputFailure(name, err))
    if (!pasted || pasted.io.strict) throw new InputError(name, err.message, err.line)
    let read: {value: T; warnings: PastedWarning[]}
    try {
      read = (pasted.read ?? genericPasted(parse))(text)
    } catch (again) {
      if (again instanceof ParseError) throw new InputError(name, again.message, again.line)
      throw inFile(name, inputFailure(name, again))
    }
    for (const w of read.warnings) {
      const line = `${name}:${w.line}: ${w.message}`
      ;(pasted.io.pasted ??= []).push(line)
      if (!pasted.io.quiet) pasted.io.note(`warning: ${line}`)
    }
    return read.value
  }
}

/** The generic pasted-input step (CRLF, quoting, prompts, fences, indentation) in front of a strict parser. */
function genericPasted<T>(parse: (text: string) => T): PastedRead<T> {
  return (text) => parsePasted(text, parse)
}

/**
 * The lenient iptables reader for `proxy diff`/`trace`: pasted whole dumps only. An excerpt (no `*table` header,
 * chains cut off, no COMMIT) is refused: a diff against it would call every rule outside it missing.
 */
export function pastedIptablesDump(family?: IptablesFamily): PastedRead<IptablesDump> {
  return (text) => {
    const r = readPastedIptables(text, family ? {family} : {})
    if (r.excerpt) {
      const at = r.warnings.find((w) => w.message.startsWith('read as an excerpt'))?.line ?? 1
      throw new ParseError('this is an excerpt of a dump (no table header, chains or COMMIT cut off): a diff would call every rule outside it missing; pass the whole `iptables-save` output', at)
    }
    return {value: r.dump, warnings: r.warnings}
  }
}

/**
 * The lenient ipvsadm reader for `proxy diff`: pasted whole listings only. Host or service names (`ipvsadm -L`
 * without -n) and listings that start inside a virtual service are refused: they would show as differences.
 */
export function pastedIpvsTable(): PastedRead<IpvsTable> {
  return (text) => {
    const r = readPastedIpvsadm(text)
    const named = r.table.virtualServers.flatMap((v) => [v, ...v.realServers]).find((x) => x.hostName || x.portName !== undefined)
    if (named) throw new ParseError('this listing uses host or service names (`ipvsadm -L` without -n): they are not comparable with ClusterIPs; collect `ipvsadm -Ln` or `ipvsadm -Sn`', named.line)
    const cut = r.warnings.find((w) => w.message.includes('before the first virtual service skipped'))
    if (cut) throw new ParseError(`the listing starts inside a virtual service (${cut.message}): pass the whole listing`, cut.line)
    return {value: r.table, warnings: r.warnings}
  }
}

/** Annotation of a Report whose dump files were read leniently: what was assumed, one `FILE:LINE: message` a line. */
export const PASTED_INPUT_ANNOTATION = 'node-doctor/pasted-input'

/** `report` with what the lenient readers assumed (io.pasted) in its annotations; the report itself when nothing. */
export function withPastedInput<T extends {report: Report}>(diff: T, io: ProxyIO): T {
  if (!io.pasted || io.pasted.length === 0) return diff
  const report = diff.report
  return {...diff, report: {...report, metadata: {...report.metadata, annotations: {...(report.metadata.annotations ?? {}), [PASTED_INPUT_ANNOTATION]: io.pasted.join('\n')}}}}
}
