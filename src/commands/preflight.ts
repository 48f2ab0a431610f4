import {existsSync, renameSync, rmSync, writeFileSync} from 'node:fs'
import {basename, dirname, join, resolve} from 'node:path'
import {Args, Flags} from '@oclif/core'
import {BaseCommand} from '../cli/base-command.js'
import {areaFlags, commonFlags, inClusterFlags, kubeFlags, parseAreas, probeFlags, profileFlags, reportFlags, selectionFlags, transportFlags} from '../cli/flags.js'
import type {ProfileSelection} from '../core/checks/registry.js'
import type {Severity} from '../core/model/report.js'
import {UsageError} from '../errors.js'
import {exitCodeForReport} from '../exit-codes.js'

/** Each a file flag and the output format written to it, in the order written. */
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
    '<%= config.bin %> preflight node-a node-b --probe --junit junit.xml',
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
    ...profileFlags('all'),
    ...kubeFlags,
    ...commonFlags,
    ...probeFlags,
  }

  async run(): Promise<void> {
    const {argv, flags} = await this.parse(Preflight)
    const failOn = (flags['fail-on'] ?? 'error') as Severity | 'none'
    const [{preflight}, {environment}, {CATALOG}, {renderReport}, {renderPreflightSummary}] = await Promise.all([
      import('../app/preflight.js'),
      import('../transports/connect.js'),
      import('../core/checks/registry.js'),
      import('../render/index.js'),
      import('../render/preflight.js'),
    ])
    const {report, warnings} = await preflight(argv as string[], flags, environment(flags), {
      areas: parseAreas(flags.only),
      profile: flags.profile as ProfileSelection,
      tool: {name: 'node-doctor', version: this.config.version},
      command: this.commandLine(),
    })

    const written: Array<{format: string; path: string}> = []
    for (const format of FILE_FLAGS) {
      const path = flags[format]
      if (path === undefined) continue
      writeAtomically(path, renderReport(report, format, {color: false, catalog: CATALOG, warnings, failOn}), `--${format}`)
      written.push({format, path})
    }

    const exitCode = exitCodeForReport(report, failOn)
    process.stdout.write(renderPreflightSummary(report, {exitCode, failOn, written, warnings}))
    // Without a file flag the summary above is all there is: say so, and how to keep the full report.
    if (written.length === 0) process.stdout.write(`\nNo report files written (none of ${FILE_FLAGS.map((f) => `--${f}`).join(', ')} was given); pass one with a path to keep the full report.\n`)
    process.exitCode = exitCode
  }
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
