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

/**
 * The repair cannot be done the way this command does it on the node's layout (kube-proxy embedded in k3s, a static
 * pod); the message says why and the hint names the command to run on the node instead. Nothing was changed and the
 * findings that asked for the repair remain: exit 1.
 */
export class RepairRefusedError extends NodeDoctorError {
  constructor(message: string, hint: string) {
    super(message, {exitCode: ExitCode.FINDINGS, hint})
  }
}
