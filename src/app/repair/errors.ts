// How a repair ends badly. Both carry an exit code for the shared table: a repair that was attempted and did not
// leave the node healthy is exit 1 (like failing findings); a node that could not even be read is exit 3.
import {NodeDoctorError} from '../../errors.js'
import {ExitCode} from '../../exit-codes.js'

/** The change was made (or started) and verification failed; the message says whether it was rolled back. Exit 1. */
export class RepairFailedError extends NodeDoctorError {
  constructor(message: string, hint?: string) {
    super(message, {exitCode: ExitCode.FINDINGS, hint})
  }
}

/** What the plan needs could not be read from the node (file absent, command failed, timeout). Nothing changed. Exit 3. */
export class NodeReadError extends NodeDoctorError {
  constructor(message: string, hint?: string) {
    super(message, {exitCode: ExitCode.PARTIAL, hint})
  }
}
