// Base class for every command: error handling, exit codes, colour policy, report emission.
// Commands stay thin: parse flags, call one app/core function, hand the result to a renderer.
import {Command, Errors} from '@oclif/core'
import type {Input, ParserOutput} from '@oclif/core/interfaces'
import type {NodeRepairOutcome} from '../app/fix/node-session.js'
import {type ParsedToken, recordedCommandLine} from './command-line.js'
import {machineOutput} from './confirm.js'
import {CATALOG} from '../core/checks/registry.js'
import type {Report, Severity} from '../core/model/report.js'
import {InputProblem} from '../core/model/errors.js'
import {NodeDoctorError, UsageError} from '../errors.js'
import {ExitCode, exitCodeForReport} from '../exit-codes.js'
import {type OutputFormat, renderReport} from '../render/index.js'

export abstract class BaseCommand extends Command {
  private parsedTokens: ParsedToken[] = []

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
  protected emitReport(
    report: Report,
    flags: {output?: string; json?: boolean; 'fail-on'?: string; 'no-color'?: boolean},
  ): void {
    const format = (flags.json ? 'json' : (flags.output ?? 'table')) as OutputFormat
    const color = (format === 'table' || format === 'wide') && this.useColor(flags['no-color'])
    const text = renderReport(report, format, {color, width: process.stdout.isTTY ? process.stdout.columns : undefined, catalog: CATALOG})
    process.stdout.write(text)
    process.exitCode = exitCodeForReport(report, (flags['fail-on'] ?? 'error') as Severity | 'none')
  }

  /** Renders a repair's Report (before/after) to stdout in the -o format, without touching the exit code. */
  protected printReport(report: Report, format: string, color: boolean): void {
    process.stdout.write(renderReport(report, format as OutputFormat, {color, width: process.stdout.isTTY ? process.stdout.columns : undefined, catalog: CATALOG}))
  }

  /** A repair's end: its Report when the service says to print one (only for -o json/yaml/... when 'machine-output'), and its exit code. */
  protected emitRepairOutcome(outcome: {exitCode: number; print?: {report: Report; when: 'always' | 'machine-output'}}, flags: {output: string; 'no-color'?: boolean}): void {
    if (outcome.print?.when === 'always') this.printReport(outcome.print.report, flags.output, this.useColor(flags['no-color']))
    else if (outcome.print && machineOutput(flags.output)) this.printReport(outcome.print.report, flags.output, false)
    process.exitCode = outcome.exitCode
  }

  /** A node repair's end (fix kubelet, fix conntrack): the unchanged plan, or what was applied and where it is recorded. */
  protected emitNodeRepair(node: string, outcome: NodeRepairOutcome, flags: {quiet?: boolean}): void {
    if (outcome.status === 'unchanged') process.stdout.write(outcome.plan)
    if (outcome.status !== 'applied') return
    process.stdout.write(`${node}: applied: ${outcome.message}\n`)
    if (!flags.quiet) this.note(`Recorded in the audit log ${outcome.auditLocation}${outcome.eventPosted ? ' and as an Event on the node' : ''}.`)
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
