// The command line a Report or an audit record names: rebuilt from what oclif parsed, never the raw argv, so a
// secret given as a flag (`--token=...`, `--token ...`) is written as <redacted> in every output format.
import {shellQuote} from '../core/collection/shell.js'
import {isSecretKeyName} from '../core/redact/redact.js'

/** Flags whose values are credentials: never written anywhere (reports, audit records, progress). */
export const SECRET_FLAGS: ReadonlySet<string> = new Set(['token', 'password', 'client-key', 'client-key-data'])

export const REDACTED = '<redacted>'

/** What oclif's parser recorded, in order: positional arguments and flags as the user gave them. */
export type ParsedToken = {type: 'arg'; input: string} | {type: 'flag'; flag: string; input: string}

/**
 * `check worker-1 --only iptables --token <redacted>`: the command id, then each token as parsed, long flag names,
 * values shell-quoted; boolean flags without a value; secret flags' values replaced.
 */
export function recordedCommandLine(commandId: string, tokens: readonly ParsedToken[], flagTypes: Readonly<Record<string, 'boolean' | 'option'>>): string {
  const words: string[] = [commandId.replaceAll(':', ' ')]
  for (const t of tokens) {
    if (t.type === 'arg') {
      words.push(shellQuote(t.input))
      continue
    }
    if (flagTypes[t.flag] === 'boolean') {
      words.push(t.input.startsWith('--no-') ? `--no-${t.flag}` : `--${t.flag}`)
      continue
    }
    words.push(`--${t.flag}`, isSecretFlag(t.flag) ? REDACTED : shellQuote(t.input))
  }
  return words.join(' ')
}

export function isSecretFlag(name: string): boolean {
  // Also secret, whatever the command calls it: a name the shared redaction rules call a credential.
  return SECRET_FLAGS.has(name) || isSecretKeyName(name)
}
