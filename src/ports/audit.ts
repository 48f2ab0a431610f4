// Where repairs leave their audit trail. The file implementation is src/transports/audit/file-audit-sink.ts.
import type {AuditRecord} from '../core/model/audit.js'

export interface AuditSink {
  /** Human-readable location (a file path) for messages. */
  readonly location: string
  /**
   * Appends one record. Each record is written whole or not at all (one line, one write), so concurrent runs never
   * interleave. Rejects (with a NodeDoctorError naming the location) when the record could not be written.
   */
  append(record: AuditRecord): Promise<void>
  /** Checks that records can be appended (creating what is missing), so a repair never starts without its trail. */
  prepare(): Promise<void>
}
