import {existsSync, readFileSync, renameSync, rmSync, writeFileSync} from 'node:fs'
import {basename, dirname, join, resolve} from 'node:path'
import {Args, Flags} from '@oclif/core'
import {analyzeSnapshots} from '../app/analyze.js'
import {BaseCommand} from '../cli/base-command.js'
import {collectInCluster} from '../cli/agent-live.js'
import {areaFlags, commonFlags, inClusterFlags, kubeFlags, parseAreas, reportFlags, selectionFlags, transportFlags} from '../cli/flags.js'
import {collectLive} from '../cli/live.js'
import {applyBaseline, type BaselineEntry, parseBaseline} from '../core/baseline.js'
import {CATALOG} from '../core/checks/registry.js'
import type {Report, ReportMetadata, Severity} from '../core/model/report.js'
import type {ClusterSnapshot, NodeSnapshot} from '../core/model/snapshot.js'
import {selectNodes} from '../core/select-nodes.js'
import {inFile, ParseError, UsageError} from '../errors.js'
import {exitCodeForReport} from '../exit-codes.js'
import {renderJson} from '../render/json.js'
import {renderJunit} from '../render/junit.js'
import {renderMarkdown} from '../render/markdown.js'
import {renderPreflightSummary} from '../render/preflight.js'
import {renderSarif} from '../render/sarif.js'
import {readBundle} from '../transports/bundle/bundle.js'

const FILE_FLAGS = ['junit', 'sarif', 'json', 'markdown'] as const

export default class Preflight extends BaseCommand {
  static override summary = 'CI gate: run every check, write JUnit/SARIF/JSON/Markdown in one run, print a short summary.'
  static override description =
    'Non-interactive: never prompts, never colours, never animates. Collects live like `check` (or reads a bundle ' +
    'with --from-bundle, like `analyze`), applies an optional baseline of accepted findings, writes each requested ' +
    'file atomically, prints a one-screen summary, and exits with the shared exit-code table.'

  static override examples = [
    '<%= config.bin %> preflight --all --junit junit.xml --sarif node-doctor.sarif --markdown "$GITHUB_STEP_SUMMARY"',
    '<%= config.bin %> preflight --from-bundle bundle.tgz --json report.json --baseline .node-doctor-baseline.yaml',
    '<%= config.bin %> preflight -l node-role.kubernetes.io/worker --only iptables,kubelet --fail-on warning',
  ]

  static override strict = false
  static override args = {node: Args.string({ignoreStdin: true, description: 'Node name(s).'})}
  static override flags = {
    ...selectionFlags,
    ...areaFlags,
    'fail-on': reportFlags['fail-on'],
    junit: Flags.string({summary: 'Write the JUnit XML report to this file.', helpGroup: 'OUTPUT'}),
    sarif: Flags.string({summary: 'Write the SARIF 2.1.0 report to this file.', helpGroup: 'OUTPUT'}),
    json: Flags.string({summary: 'Write the JSON Report to this file.', helpGroup: 'OUTPUT'}),
    markdown: Flags.string({summary: 'Write a Markdown job summary to this file (e.g. "$GITHUB_STEP_SUMMARY").', helpGroup: 'OUTPUT'}),
    baseline: Flags.string({summary: 'YAML file of accepted findings (id, node, subject, reason, expires) to suppress.', helpGroup: 'OUTPUT'}),
    'from-bundle': Flags.string({summary: 'Analyze this bundle (directory or .tgz from `collect`) instead of collecting live.', helpGroup: 'SELECTION'}),
    ...transportFlags,
    ...inClusterFlags,
    ...kubeFlags,
    ...commonFlags,
  }

  async run(): Promise<void> {
    const {argv, flags} = await this.parse(Preflight)
    const names = argv as string[]
    const areas = parseAreas(flags.only)
    const failOn = (flags['fail-on'] ?? 'error') as Severity | 'none'
    // Read the baseline first: a malformed file must fail before minutes of collection.
    const baseline = flags.baseline === undefined ? undefined : loadBaseline(flags.baseline)

    const metadata: ReportMetadata = {
      generatedAt: new Date().toISOString(),
      tool: {name: 'node-doctor', version: this.config.version},
      command: this.commandLine(),
    }
    let report: Report
    if (flags['from-bundle'] !== undefined) {
      const bundle = await readBundle(flags['from-bundle'])
      const nodes = pickBundleNodes(bundle.cluster, bundle.nodes, names, flags)
      report = analyzeSnapshots(bundle.cluster, nodes, {
        areas,
        metadata: {
          ...metadata,
          ...(bundle.manifest.context ? {context: bundle.manifest.context} : {}),
          annotations: {bundleCreatedAt: bundle.manifest.createdAt},
        },
      })
    } else {
      // quiet: no progress line, even on a terminal.
      const live = flags['in-cluster']
        ? await collectInCluster(names, {...flags, quiet: true}, {areas, version: this.config.version})
        : await collectLive(names, {...flags, quiet: true}, {areas})
      report = analyzeSnapshots(live.cluster, live.nodes, {areas, metadata: {...metadata, context: live.access.context}})
    }

    const warnings: string[] = []
    if (baseline !== undefined) {
      const outcome = applyBaseline(report, baseline.entries, new Date().toISOString().slice(0, 10))
      report = outcome.report
      for (const e of outcome.expired) {
        warnings.push(`baseline ${baseline.file}:${e.line ?? '?'}: entry for ${e.id} expired on ${e.expires}; it no longer suppresses anything (${e.reason})`)
      }
      for (const e of outcome.unused) warnings.push(`baseline ${baseline.file}:${e.line ?? '?'}: entry for ${e.id} matched no finding`)
    }

    const catalog = CATALOG
    const render: Record<(typeof FILE_FLAGS)[number], () => string> = {
      junit: () => renderJunit(report, {catalog}),
      sarif: () => renderSarif(report, {catalog}),
      json: () => renderJson(report),
      markdown: () => renderMarkdown(report, {catalog, warnings}),
    }
    const written: Array<{format: string; path: string}> = []
    for (const format of FILE_FLAGS) {
      const path = flags[format]
      if (path === undefined) continue
      writeAtomically(path, render[format](), `--${format}`)
      written.push({format, path})
    }

    const exitCode = exitCodeForReport(report, failOn)
    process.stdout.write(renderPreflightSummary(report, {exitCode, failOn, written, warnings}))
    process.exitCode = exitCode
  }
}

function loadBaseline(file: string): {file: string; entries: BaselineEntry[]} {
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch (err) {
    throw new UsageError(`cannot read baseline ${file}: ${(err as Error).message}`)
  }
  try {
    return {file, entries: parseBaseline(text)}
  } catch (err) {
    if (err instanceof ParseError) {
      throw inFile(file, err) as Error
    }
    throw err
  }
}

/** Offline node selection: NODE names, -l over the bundle's Node objects, or every node in the bundle. */
function pickBundleNodes(cluster: ClusterSnapshot, nodes: NodeSnapshot[], names: string[], flags: {selector?: string; all?: boolean}): NodeSnapshot[] {
  if ([names.length > 0, flags.selector !== undefined, Boolean(flags.all)].filter(Boolean).length > 1) {
    throw new UsageError('choose nodes one way: NODE names, -l SELECTOR, or --all')
  }
  if (names.length > 0) {
    const unknown = names.filter((n) => !nodes.some((s) => s.node === n))
    if (unknown.length > 0) throw new UsageError(`${unknown.map((n) => `node "${n}"`).join(', ')} not in the bundle`)
    return nodes.filter((s) => names.includes(s.node))
  }
  if (flags.selector !== undefined) {
    let wanted: Set<string>
    try {
      wanted = new Set(selectNodes(cluster.nodes, {selector: flags.selector}).selected.map((n) => n.metadata.name))
    } catch (err) {
      if (err instanceof ParseError) throw new UsageError(err.message)
      throw err
    }
    const picked = nodes.filter((s) => wanted.has(s.node))
    if (picked.length === 0) throw new UsageError(`no nodes in the bundle match the selector "${flags.selector}"`)
    return picked
  }
  return nodes
}

/** Temp file in the same directory, then rename: readers never see a half-written report. */
function writeAtomically(path: string, content: string, flag: string): void {
  const target = resolve(path)
  const dir = dirname(target)
  if (!existsSync(dir)) throw new UsageError(`${flag} ${path}: directory ${dir} does not exist`)
  const temp = join(dir, `.${basename(target)}.${process.pid}.tmp`)
  try {
    writeFileSync(temp, content)
    renameSync(temp, target)
  } catch (err) {
    rmSync(temp, {force: true})
    throw new UsageError(`${flag} ${path}: cannot write: ${(err as Error).message}`)
  }
}
