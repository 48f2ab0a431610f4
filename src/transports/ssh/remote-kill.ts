// Ending a timed-out command on the node. sshd ignores channel signals for root logins (no privilege separation
// after auth), closing a channel does not stop a silent command, and wrapping every command in `timeout(1)` costs
// two extra processes per command (~40% of a fleet run). Instead each command first reports its process group
// (sshd makes every session a new session, so the shell's pid is its group id), and only a command that times out
// costs anything: one more channel that TERMs the group and KILLs it KILL_AFTER_S later.

/** Seconds between the TERM and the KILL sent to a timed-out command's process group. */
export const KILL_AFTER_S = 2

const PID_PREFIX = 'node-doctor-pgid:'

/**
 * The command as sent: a builtin-only prefix that writes `node-doctor-pgid:PID` as the first stderr line, then the
 * command unchanged (POSIX shell syntax: the node user's login shell must be sh-compatible, as for every command).
 */
export function withGroupReport(command: string): string {
  return `printf '${PID_PREFIX}%s\\n' "$$" >&2; ${command}`
}

/**
 * Kills a process group: TERM now, KILL later from a detached subshell so the channel closes at once. `sudo`:
 * through `sudo -n` (a command run under sudo is root's, out of the login user's reach).
 */
export function killGroupCommand(pgid: number, sudo: boolean): string {
  const script = `kill -s TERM -- -${pgid} 2>/dev/null; (sleep ${KILL_AFTER_S}; kill -s KILL -- -${pgid}) </dev/null >/dev/null 2>&1 &`
  return sudo ? `sudo -n sh -c '${script}'` : script
}

/**
 * Takes the group report off the front of a command's stderr. Feed chunks in order; `push` returns what belongs
 * to the command's own stderr. When the first line is not a report (a login shell that prints something first),
 * everything passes through and `pgid` stays undefined.
 */
export class GroupReportReader {
  pgid: number | undefined
  private head: Buffer | undefined = Buffer.alloc(0)

  push(chunk: Buffer): Buffer {
    if (!this.head) return chunk
    const all = Buffer.concat([this.head, chunk])
    const nl = all.indexOf(0x0a)
    if (nl < 0 && all.length < 64) {
      this.head = all
      return Buffer.alloc(0)
    }
    this.head = undefined
    const m = nl >= 0 ? new RegExp(`^${PID_PREFIX}(\\d+)$`).exec(all.subarray(0, nl).toString('latin1')) : null
    if (!m) return all
    this.pgid = Number(m[1])
    return all.subarray(nl + 1)
  }

  /** Whatever is still held back (a short stderr without a newline). */
  flush(): Buffer {
    const rest = this.head ?? Buffer.alloc(0)
    this.head = undefined
    return rest
  }
}
