// File and command primitives of repairs over a NodeTransport. Every variable part of a command is shell-quoted;
// file content travels base64-encoded inside one quoted argument, never interpolated.
import {shellQuote} from '../../core/collection/shell.js'
import type {ExecResult, NodeTransport} from '../../ports/node-transport.js'
import {NodeReadError, RepairFailedError} from './errors.js'

export interface NodeShellOptions {
  /** Wrap every script in `sudo -n sh -c`. */
  sudo: boolean
  /** Default timeout per command. */
  timeoutMs: number
}

/** A node file as read: exact bytes (as UTF-8 text) plus mode and owner. */
export interface NodeFile {
  path: string
  text: string
  /** Octal permission bits as `stat -c %a` prints them, e.g. `644`. */
  mode: string
  uid: number
  gid: number
}

export class NodeShell {
  constructor(
    readonly transport: NodeTransport,
    private readonly options: NodeShellOptions,
  ) {}

  get node(): string {
    return this.transport.node
  }

  /** Runs a POSIX sh script; a non-zero exit is data. */
  run(script: string, timeoutMs = this.options.timeoutMs): Promise<ExecResult> {
    const command = this.options.sudo ? `sudo -n sh -c ${shellQuote(script)}` : `sh -c ${shellQuote(script)}`
    return this.transport.exec(command, {timeoutMs})
  }

  /** Runs a script that must succeed; otherwise throws `fail(reason)`. Resolves with stdout. */
  async must(script: string, what: string, fail: (reason: string) => Error = (r) => new RepairFailedError(r), timeoutMs?: number): Promise<string> {
    const r = await this.run(script, timeoutMs)
    if (r.exitCode === 0 && !r.timedOut) return r.stdout
    throw fail(`${this.node}: ${what} failed: ${describeFailure(r, timeoutMs ?? this.options.timeoutMs)}`)
  }

  /** Reads a file exactly (base64 on the wire) with its mode and owner. Throws NodeReadError when it cannot. */
  async readFile(path: string): Promise<NodeFile> {
    const q = shellQuote(path)
    const out = await this.must(`stat -c '%a %u %g' -- ${q} && base64 -w0 -- ${q}`, `reading ${path}`, (r) => new NodeReadError(r, 'Nothing was changed.'))
    const nl = out.indexOf('\n')
    const m = /^([0-7]{3,4}) (\d+) (\d+)$/.exec(out.slice(0, nl).trim())
    if (!m) throw new NodeReadError(`${this.node}: unexpected stat output for ${path}: ${JSON.stringify(out.slice(0, 80))}`)
    return {path, text: Buffer.from(out.slice(nl + 1).trim(), 'base64').toString('utf8'), mode: m[1]!, uid: Number(m[2]), gid: Number(m[3])}
  }

  /** Copies `path` to `backup` keeping mode, owner and times; refuses to overwrite an existing backup. */
  async backupFile(path: string, backup: string): Promise<void> {
    const b = shellQuote(backup)
    await this.must(`if [ -e ${b} ]; then echo ${shellQuote(`${backup} already exists`)} >&2; exit 1; fi; cp -p -- ${shellQuote(path)} ${b}`, `backing up ${path} to ${backup}`)
  }

  /**
   * Replaces `path` atomically with `text`: a temp file in the same directory gets the content and the mode and
   * owner of the current file (chmod/chown --reference), is synced, then renamed over it. Readers see the old
   * or the new file, never a partial one.
   */
  async writeFileAtomic(path: string, text: string): Promise<void> {
    const b64 = Buffer.from(text, 'utf8').toString('base64')
    await this.must(atomicReplace(path, `printf '%s' ${shellQuote(b64)} | base64 -d > "$t"`, true), `writing ${path}`)
  }

  /** Puts `backup` back at `path` atomically (a copy of the backup is renamed over it; the backup stays). */
  async restoreFile(backup: string, path: string): Promise<void> {
    await this.must(atomicReplace(path, `cp -p -- ${shellQuote(backup)} "$t"`, false), `restoring ${path} from ${backup}`)
  }
}

/** The shell script for an atomic replace of `path`; `fill` writes the new content to "$t". */
function atomicReplace(path: string, fill: string, referenceOwner: boolean): string {
  return [
    'set -e',
    `f=${shellQuote(path)}`,
    't=$(mktemp "$(dirname -- "$f")/.$(basename -- "$f").node-doctor-XXXXXX")',
    'trap \'rm -f -- "$t"\' EXIT',
    fill,
    ...(referenceOwner ? ['chmod --reference="$f" -- "$t"', 'chown --reference="$f" -- "$t"'] : []),
    'sync -- "$t" 2>/dev/null || true',
    'mv -f -- "$t" "$f"',
    'trap - EXIT',
  ].join('\n')
}

export function describeFailure(r: ExecResult, timeoutMs: number): string {
  if (r.timedOut) return `timed out after ${Math.round(timeoutMs / 1000)}s`
  if (/sudo: (a password is required|a terminal is required)/.test(r.stderr)) return 'sudo needs a password on this node (connect as root or allow passwordless sudo)'
  const msg = (r.stderr.trim() || r.stdout.trim()).split('\n').slice(-3).join(' / ')
  return `exit code ${r.exitCode ?? 'none'}${msg ? `: ${msg}` : ''}`
}
