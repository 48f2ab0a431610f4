// Base class for every command: error handling, exit codes, colour policy, report emission.
// Commands stay thin: parse flags, call one app/core function, hand the result to a renderer.
import {Args, Command, Errors, Flags} from '@oclif/core'
import type {FlagInput, Input, InferredFlags, ParserOutput} from '@oclif/core/interfaces'
import type {NodeRepairOutcome} from '../app/fix/node-session.js'
import type {PodRestartOutcome} from '../app/fix/pod-restart.js'
import type {PodRestartDeps} from '../app/repair/pod-restart.js'
import {type ParsedToken, recordedCommandLine} from './command-line.js'
import {confirmer, machineOutput} from './confirm.js'
import {commonFlags, fixFlags, kubeFlags, liveShowFlags, podRestartFlags, reportFlags, selectionFlags, transportFlags} from './flags.js'
import type {Report, Severity} from '../core/model/report.js'
import type {CheckSpec} from '../core/checks/types.js'
import {configureLimits, limitsFromEnv} from '../core/limits/limits.js'
import {InputProblem} from '../core/model/errors.js'
import {NodeDoctorError, UsageError} from '../errors.js'
import {ExitCode, exitCodeForReport} from '../exit-codes.js'
import {type OutputFormat, renderReport} from '../render/index.js'
import {SHOW_FORMATS, type ShowFormat} from '../render/options.js'

export abstract class BaseCommand extends Command {
  private parsedTokens: ParsedToken[] = []

  /** Before any command runs: the limits on what is read come from NODE_DOCTOR_MAX_* (core reads no environment). */
  protected override async init(): Promise<void> {
    await super.init()
    configureLimits(() => limitsFromEnv(process.env))
  }

  /** oclif's parse, remembering what was parsed so commandLine() can rebuild it. */
  protected override async parse<F extends Record<string, unknown>, B extends Record<string, unknown>, A extends Record<string, unknown>>(options?: Input<F, B, A>, argv?: string[]): Promise<ParserOutput<F, B, A>> {
    const out = await super.parse(options, argv)
    this.parsedTokens = out.raw.map((t) => (t.type === 'arg' ? {type: 'arg', input: t.input} : {type: 'flag', flag: t.flag, input: t.input}))
    return out
  }

  /** The command as run, for reports and audit records: secrets (`--token`) redacted. Call after parse(). */
  protected commandLine(): string {
    const defs = (this.constructor as {flags?: Record<string, {type: 'boolean' | 'option'}>}).flags ?? {}
    const types = Object.fromEntries(Object.entries(defs).map(([name, d]) => [name, d.type]))
    return recordedCommandLine(this.id ?? '', this.parsedTokens, types)
  }

  /** Whether ANSI colour may be used on stdout. */
  protected useColor(noColorFlag: boolean | undefined, stream: NodeJS.WriteStream = process.stdout): boolean {
    if (noColorFlag) return false
    if (process.env.NO_COLOR !== undefined && process.env.NO_COLOR !== '') return false
    return Boolean(stream.isTTY)
  }

  /** Renders the report to stdout and sets the exit code from the shared table. */
  protected async emitReport(
    report: Report,
    flags: {output?: string; json?: boolean; 'fail-on'?: string; 'no-color'?: boolean},
  ): Promise<void> {
    const format = (flags.json ? 'json' : (flags.output ?? 'table')) as OutputFormat
    const color = (format === 'table' || format === 'wide') && this.useColor(flags['no-color'])
    const failOn = (flags['fail-on'] ?? 'error') as Severity | 'none'
    const terminal = Boolean(process.stdout.isTTY)
    const text = renderReport(report, format, {color, width: terminal ? process.stdout.columns : undefined, catalog: await catalog(), failOn, terminal})
    process.stdout.write(text)
    process.exitCode = exitCodeForReport(report, failOn)
  }

  /** Renders a repair's Report (before/after) to stdout in the -o format, without touching the exit code. */
  protected async printReport(report: Report, format: string, color: boolean, failOn?: Severity | 'none'): Promise<void> {
    const terminal = Boolean(process.stdout.isTTY)
    process.stdout.write(renderReport(report, format as OutputFormat, {color, width: terminal ? process.stdout.columns : undefined, catalog: await catalog(), terminal, ...(failOn ? {failOn} : {})}))
  }

  /** A repair's end: its Report when the service says to print one (only for -o json/yaml/... when 'machine-output'), and its exit code. */
  protected async emitRepairOutcome(outcome: {exitCode: number; print?: {report: Report; when: 'always' | 'machine-output'}}, flags: {output: string; 'no-color'?: boolean; 'fail-on'?: string}): Promise<void> {
    if (outcome.print?.when === 'always') await this.printReport(outcome.print.report, flags.output, this.useColor(flags['no-color']), flags['fail-on'] as Severity | 'none' | undefined)
    else if (outcome.print && machineOutput(flags.output)) await this.printReport(outcome.print.report, flags.output, false)
    process.exitCode = outcome.exitCode
  }

  /** A node repair's end (fix kubelet, fix conntrack): the unchanged plan, or what was applied and where it is recorded. */
  protected emitNodeRepair(node: string, outcome: NodeRepairOutcome, flags: {quiet?: boolean}): void {
    if (outcome.status === 'unchanged') process.stdout.write(outcome.plan)
    if (outcome.status !== 'applied') return
    process.stdout.write(`${node}: applied: ${outcome.message}\n`)
    if (!flags.quiet) this.note(`Recorded in the audit log ${outcome.auditLocation}${outcome.eventPosted ? ' and as an Event on the node' : ''}.`)
  }

  /** Writes output to stdout piece by piece as it is rendered, waiting whenever the pipe is full. */
  protected async writeOut(chunks: Iterable<string>): Promise<void> {
    for (const chunk of chunks) {
      if (!process.stdout.write(chunk)) await new Promise((resolve) => process.stdout.once('drain', resolve))
    }
  }

  /** Writes a line to stderr (progress, notes). */
  protected note(message: string): void {
    process.stderr.write(message + '\n')
  }

  protected override async catch(err: Error & {exitCode?: number}): Promise<void> {
    if (err instanceof InputProblem) return this.catch(new UsageError(err.message, err.hint, err))
    if (err instanceof NodeDoctorError) {
      process.stderr.write(`error: ${err.message}\n`)
      if (err.hint) process.stderr.write(`  ${err.hint}\n`)
      process.exitCode = err.exitCode
      return
    }
    // oclif's own errors: flag parsing and validation failures are usage errors.
    if (err instanceof Errors.CLIError) {
      const oclifExit = (err as Errors.CLIError).oclif?.exit
      if (oclifExit === 0) return
      process.stderr.write(`error: ${err.message}\n`)
      process.stderr.write(`  See 'kubectl node-doctor ${this.id?.replaceAll(':', ' ') ?? ''} --help'.\n`)
      process.exitCode = ExitCode.USAGE
      return
    }
    if ((err as {code?: string}).code === 'EPIPE') return
    process.stderr.write(`error: internal error: ${err.message}\n`)
    if (process.env.NODE_DOCTOR_DEBUG) process.stderr.write(`${err.stack}\n`)
    process.stderr.write('  This is a bug in node-doctor; please report it with the command you ran (NODE_DOCTOR_DEBUG=1 shows the stack).\n')
    process.exitCode = ExitCode.INTERNAL
  }
}

/** The flags every `show` view has around its own: the input, -o, then the global and live-reading flags. */
type ShowFlags<I extends FlagInput[string], F extends FlagInput> = {'from-file': I} & F & {output: FlagInput[string]} & typeof commonFlags & typeof liveShowFlags

/** One `show` view (iptables, ipvs, nft, routes, kubelet, kube-proxy): its help, its own flags, and how it reads and renders. */
export interface ShowView<I extends FlagInput[string], F extends FlagInput> {
  summary: string
  description: string
  examples: string[]
  /** Help of the NODE argument; by default that of the views of one node artifact. */
  node?: string
  /** The --from-file flag (one file or repeatable). */
  fromFile: I
  /** Flags of this view, shown between --from-file and -o. */
  flags: F
  /**
   * Reads the input (--from-file, or live for the NODE) and renders it in `format`; the pieces are written as they
   * come. Imports its service, transports and renderer inside, so `--help` loads none of them.
   */
  show(input: {node: string | undefined; flags: InferredFlags<ShowFlags<I, F>>; format: ShowFormat; color: boolean; note: (message: string) => void}): Promise<Iterable<string>>
}

/** The command of a `show` view: NODE or --from-file in, -o table|json|yaml out, streamed to stdout. */
export function showCommand<I extends FlagInput[string], F extends FlagInput>(view: ShowView<I, F>): typeof BaseCommand {
  const flags = {
    'from-file': view.fromFile,
    ...view.flags,
    output: Flags.string({char: 'o', summary: 'Output format.', options: [...SHOW_FORMATS], default: 'table'}),
    ...commonFlags,
    ...liveShowFlags,
  } as ShowFlags<I, F>
  return class Show extends BaseCommand {
    static override summary = view.summary
    static override description = view.description
    static override examples = view.examples
    static override args = {node: Args.string({ignoreStdin: true, description: view.node ?? 'Node to read live (over SSH, or --via pod|local); with --from-file, only a label.', required: false})}
    static override flags = flags

    async run(): Promise<void> {
      const {args, flags: parsed} = (await this.parse(Show)) as unknown as {args: {node: string | undefined}; flags: InferredFlags<ShowFlags<I, F>>}
      const common = parsed as {output: string; 'no-color'?: boolean}
      const format = common.output as ShowFormat
      const color = format === 'table' && this.useColor(common['no-color'])
      await this.writeOut(await view.show({node: args.node, flags: parsed, format, color, note: (m) => this.note(m)}))
    }
  }
}

const podRestartCommandFlags = {
  ...fixFlags,
  force: Flags.boolean({summary: 'Restart even when no finding justifies it.', helpGroup: 'REPAIR'}),
  ...podRestartFlags,
  ...selectionFlags,
  ...transportFlags,
  ...reportFlags,
  ...kubeFlags,
  ...commonFlags,
}

/** One pod-restart repair (`fix kube-proxy`, `fix calico-node`): its help, and the restart of its target. */
export interface PodRestartCommand {
  /** The DaemonSet pod restarted, as in `fix COMPONENT`. */
  component: string
  summary: string
  description: string
  /** Restarts the target's pod on the nodes (app/fix/pod-restart.ts); imports the service and transports inside. */
  restart(
    names: string[],
    flags: InferredFlags<typeof podRestartCommandFlags>,
    ctx: {commandLine: string; version: string; confirm: (question: string) => PodRestartDeps['confirm']},
  ): Promise<PodRestartOutcome>
}

/** The command of a pod-restart repair: NODE names or a selection in, plan, confirm, restart, verify; its Report out. */
export function podRestartCommand(command: PodRestartCommand): typeof BaseCommand {
  return class FixPodRestart extends BaseCommand {
    static override summary = command.summary
    static override description = command.description
    static override examples = [
      `<%= config.bin %> fix ${command.component} worker-1 --dry-run`,
      `<%= config.bin %> fix ${command.component} worker-1 worker-2 --yes`,
      `<%= config.bin %> fix ${command.component} --all --yes --max-unavailable 2 --continue-on-failure`,
    ]

    static override strict = false
    static override args = {node: Args.string({ignoreStdin: true, description: 'Node name(s).'})}
    static override flags = podRestartCommandFlags

    async run(): Promise<void> {
      const {argv, flags} = await this.parse(FixPodRestart)
      const outcome = await command.restart(argv as string[], flags, {
        commandLine: this.commandLine(),
        version: this.config.version,
        confirm: (question) => confirmer(flags, question),
      })
      await this.emitRepairOutcome(outcome, flags)
    }
  }
}

/**
 * The check catalog the human renderers name checks from. Loaded when a Report is printed, not when a command
 * module loads: the registry imports every check and, through the iptables checks, the proxier.
 */
async function catalog(): Promise<readonly CheckSpec[]> {
  return (await import('../core/checks/registry.js')).CATALOG
}
