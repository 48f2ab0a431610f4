// The exit-code table: one place, data plus pure functions, shown in --help and tested.
// Precedence when several apply: USAGE > ACCESS > FINDINGS > PARTIAL > OK (see exitCodeForReport).
import type {Report, Severity} from './core/model/report.js'
import {severityAtLeast} from './core/model/report.js'

export const ExitCode = {
  OK: 0,
  FINDINGS: 1,
  USAGE: 2,
  PARTIAL: 3,
  ACCESS: 4,
  INTERNAL: 5,
} as const
export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode]

export const EXIT_CODE_TABLE: ReadonlyArray<{code: ExitCodeValue; name: keyof typeof ExitCode; meaning: string}> = [
  {code: 0, name: 'OK', meaning: 'healthy: no finding at or above --fail-on, everything collected'},
  {code: 1, name: 'FINDINGS', meaning: 'findings at or above --fail-on (default: error) exist'},
  {code: 2, name: 'USAGE', meaning: 'usage or configuration error: bad flags, kubeconfig, context or input file'},
  {
    code: 3,
    name: 'PARTIAL',
    meaning: 'some nodes or inputs could not be collected (partial results printed), no failing findings',
  },
  {code: 4, name: 'ACCESS', meaning: 'the cluster could not be reached, or refused access (401/403)'},
  {code: 5, name: 'INTERNAL', meaning: 'internal error (a bug in node-doctor)'},
]

/** The text for the EXIT CODES help section. */
export function exitCodeHelp(): string {
  return EXIT_CODE_TABLE.map((e) => `${String(e.code).padEnd(3)}${e.meaning}`).join('\n')
}

/**
 * Exit code for a finished report: FINDINGS when any finding is at or above `failOn`, otherwise PARTIAL when
 * anything could not be collected, otherwise OK. Failing findings win over partial collection because they are
 * certain; the partial state is still visible in the report. `none` never fails on findings (report-only runs).
 */
export function exitCodeForReport(report: Pick<Report, 'findings' | 'collectionErrors'>, failOn: Severity | 'none'): ExitCodeValue {
  if (failOn !== 'none' && report.findings.some((f) => severityAtLeast(f.severity, failOn))) return ExitCode.FINDINGS
  if (report.collectionErrors.length > 0) return ExitCode.PARTIAL
  return ExitCode.OK
}
