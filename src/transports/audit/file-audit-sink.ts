// The local audit log: JSON lines appended to ~/.local/state/node-doctor/audit.log (or --audit-log FILE /
// NODE_DOCTOR_AUDIT_LOG). Each record is one line written with one write(2) on an O_APPEND descriptor, so
// concurrent runs append whole lines and never interleave.
import {mkdir, open} from 'node:fs/promises'
import {dirname, join} from 'node:path'
import type {AuditRecord} from '../../core/model/audit.js'
import {NodeDoctorError} from '../../errors.js'
import {ExitCode} from '../../exit-codes.js'
import type {AuditSink} from '../../ports/audit.js'

/** The audit log to use: the flag, else NODE_DOCTOR_AUDIT_LOG, else $XDG_STATE_HOME (default ~/.local/state)/node-doctor/audit.log. */
export function auditLogPath(flag: string | undefined, env: NodeJS.ProcessEnv, home: string): string {
  if (flag !== undefined && flag !== '') return flag
  const fromEnv = env['NODE_DOCTOR_AUDIT_LOG']
  if (fromEnv !== undefined && fromEnv !== '') return fromEnv
  const state = env['XDG_STATE_HOME'] || join(home, '.local', 'state')
  return join(state, 'node-doctor', 'audit.log')
}

/** The audit log could not be written. The repair itself may have been applied: the message says so. Exit 3. */
export class AuditWriteError extends NodeDoctorError {
  constructor(message: string, cause?: unknown) {
    super(message, {exitCode: ExitCode.PARTIAL, hint: 'Check the path and its permissions, or choose another with --audit-log FILE.', cause})
  }
}

export class FileAuditSink implements AuditSink {
  constructor(readonly location: string) {}

  async prepare(): Promise<void> {
    try {
      await mkdir(dirname(this.location), {recursive: true, mode: 0o700})
      await (await open(this.location, 'a', 0o600)).close()
    } catch (err) {
      throw new AuditWriteError(`cannot write the audit log ${this.location}: ${(err as Error).message}; nothing was changed`, err)
    }
  }

  /** Creates the file's directory (0700) if needed, then appends the record as one line (file mode 0600). */
  async append(record: AuditRecord): Promise<void> {
    const line = Buffer.from(JSON.stringify(record) + '\n', 'utf8')
    try {
      await mkdir(dirname(this.location), {recursive: true, mode: 0o700})
      const fh = await open(this.location, 'a', 0o600)
      try {
        const {bytesWritten} = await fh.write(line, 0, line.length)
        if (bytesWritten !== line.length) throw new Error(`short write (${bytesWritten} of ${line.length} bytes)`)
      } finally {
        await fh.close()
      }
    } catch (err) {
      throw new AuditWriteError(`cannot append to the audit log ${this.location}: ${(err as Error).message}`, err)
    }
  }
}
