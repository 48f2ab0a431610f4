// The one small interface every node transport implements (SSH, debug pod, local, bundle replay).

export interface ExecResult {
  /** null when the command was killed (timeout, signal). */
  exitCode: number | null
  stdout: string
  stderr: string
  timedOut?: boolean
  /** stdout went past the exec's maxBytes: the command was stopped and its output is cut (never usable as is). */
  truncated?: boolean
}

export interface ExecOptions {
  timeoutMs: number
  /** stdout cap (stderr: 4 MiB at most); past it the command is stopped and the result is `truncated`. */
  maxBytes?: number
  /**
   * The output is complete once stdout and stderr each end with their marker (a batch script's end frames):
   * resolve then (exitCode null) and stop reading, instead of waiting for the streams to close, which a daemon
   * the command started may hold open for as long as it lives.
   */
  endMarkers?: {stdout: string; stderr: string}
}

export interface NodeTransport {
  readonly node: string
  readonly kind: 'ssh' | 'pod' | 'local'
  /**
   * Runs one shell command on the node (a fixed string built with shellQuote for any variable part).
   * Never rejects for a non-zero exit: that is data. Rejects only when the transport itself fails.
   */
  exec(command: string, options: ExecOptions): Promise<ExecResult>
  /** Releases the connection/pod. Idempotent. */
  close(): Promise<void>
}
