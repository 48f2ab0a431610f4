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
import {proxyAssumptionContext} from './report.js'

const CONFIG_SOURCE = 'kube-system/kube-proxy ConfigMap (config.conf)'

/** Where a proxy service's notes go (stderr), and how many: --verbose adds the proxier's description, --quiet drops the notes. */
export interface ProxyIO {
  note(message: string): void
  verbose?: boolean
  quiet?: boolean
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

/** Runs a parser over an input file's text, turning its ParseError into an InputError that names the file. */
export function parseInputFile<T>(env: Pick<Environment, 'readInput'>, path: string, parse: (text: string) => T): T {
  const text = env.readInput(path)
  try {
    return parse(text)
  } catch (err) {
    if (err instanceof ParseError) throw new InputError(path === '-' ? '<stdin>' : path, err.message, err.line)
    throw inFile(path === '-' ? '<stdin>' : path, inputFailure(path === '-' ? '<stdin>' : path, err))
  }
}
