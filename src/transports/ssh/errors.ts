// Failures of the SSH transport itself (never a command's non-zero exit, which is data).
import {NodeDoctorError} from '../../errors.js'
import {ExitCode} from '../../exit-codes.js'

export type TransportFailure =
  | 'auth'
  | 'connection-refused'
  | 'unreachable'
  | 'timeout'
  | 'host-key-unknown'
  | 'host-key-changed'
  | 'host-key-revoked'
  | 'jump'
  | 'proxy-command'
  | 'disconnected'
  | 'closed'
  | 'protocol'

/**
 * An SSH connection to a node could not be made or was lost. The message always names the node, the
 * address tried (user@host:port, and the jump chain when there is one) and the cause.
 */
export class TransportError extends NodeDoctorError {
  readonly node: string
  /** `user@host:port` of the node (the final hop). */
  readonly address: string
  readonly reason: TransportFailure

  constructor(options: {node: string; address: string; reason: TransportFailure; detail: string; via?: string; hint?: string; cause?: unknown}) {
    const via = options.via ? ` via ${options.via}` : ''
    super(`ssh to node ${options.node} (${options.address}${via}): ${options.detail}`, {
      exitCode: ExitCode.ACCESS,
      hint: options.hint,
      cause: options.cause,
    })
    this.node = options.node
    this.address = options.address
    this.reason = options.reason
  }
}
