// Hard limits on what node-doctor reads: node output, bundles, agent documents, pod logs. Each is far below the
// memory the process has, so an endless or hostile input ends as a collection error (exit 3) or an input error
// (exit 2) naming the limit, never as a heap out-of-memory. Configured by environment variables (documented in
// README "Limits" and docs/limits.md); sizes accept a plain byte count or a binary suffix (K, Ki, KiB, M, Mi, MiB,
// G, Gi, GiB). Core reads no environment: the command layer (src/cli/base-command.ts) hands in where the limits
// come from (configureLimits), and everything else sees the defaults.

import {InputProblem} from '../model/errors.js'

export interface Limits {
  /** Bytes of one artifact (one command's stdout or one file) from a node. */
  artifactBytes: number
  /** Bytes of all artifacts of one node together. */
  nodeBytes: number
  /** Uncompressed bytes of a bundle (.tgz entries, or the files of a bundle directory). */
  bundleBytes: number
  /** Entries (files and directories) in a bundle archive. */
  bundleEntries: number
  /** Inflated bytes of one in-cluster agent document. */
  agentDocumentBytes: number
  /** Bytes asked of the API server per pod log read (limitBytes). */
  podLogBytes: number
  /** Bytes of one input file given on the command line (--iptables-save, --objects, kubelet YAML, ...). */
  inputFileBytes: number
  /** Nesting depth of JSON/YAML documents read from nodes, bundles and input files. */
  documentDepth: number
}

const MiB = 1024 * 1024

export const DEFAULT_LIMITS: Readonly<Limits> = Object.freeze({
  artifactBytes: 32 * MiB,
  nodeBytes: 64 * MiB,
  bundleBytes: 1024 * MiB,
  bundleEntries: 20_000,
  agentDocumentBytes: 64 * MiB,
  podLogBytes: 8 * MiB,
  inputFileBytes: 64 * MiB,
  documentDepth: 64,
})

/** The environment variable of each limit. */
export const LIMIT_ENV: Readonly<Record<keyof Limits, string>> = Object.freeze({
  artifactBytes: 'NODE_DOCTOR_MAX_ARTIFACT_BYTES',
  nodeBytes: 'NODE_DOCTOR_MAX_NODE_BYTES',
  bundleBytes: 'NODE_DOCTOR_MAX_BUNDLE_BYTES',
  bundleEntries: 'NODE_DOCTOR_MAX_BUNDLE_ENTRIES',
  agentDocumentBytes: 'NODE_DOCTOR_MAX_AGENT_DOCUMENT_BYTES',
  podLogBytes: 'NODE_DOCTOR_MAX_POD_LOG_BYTES',
  inputFileBytes: 'NODE_DOCTOR_MAX_INPUT_FILE_BYTES',
  documentDepth: 'NODE_DOCTOR_MAX_DOCUMENT_DEPTH',
})

const UNITS: Record<string, number> = {'': 1, k: 1024, ki: 1024, kib: 1024, m: MiB, mi: MiB, mib: MiB, g: 1024 * MiB, gi: 1024 * MiB, gib: 1024 * MiB}

/** Parses `123`, `32Mi`, `1GiB`; undefined when it is not a positive size. */
export function parseSize(text: string): number | undefined {
  const m = /^\s*(\d+)\s*([a-z]*)\s*$/i.exec(text)
  if (!m) return undefined
  const unit = UNITS[m[2]!.toLowerCase()]
  if (unit === undefined) return undefined
  const n = Number(m[1]) * unit
  return Number.isSafeInteger(n) && n > 0 ? n : undefined
}

/** The defaults, each overridden by its variable in `env` when that holds a valid size; LimitConfigError otherwise. */
export function limitsFromEnv(env: Readonly<Record<string, string | undefined>>): Limits {
  const out = {...DEFAULT_LIMITS}
  for (const key of Object.keys(LIMIT_ENV) as Array<keyof Limits>) {
    const raw = env[LIMIT_ENV[key]]
    if (raw === undefined || raw === '') continue
    const n = parseSize(raw)
    if (n === undefined) throw new LimitConfigError(`${LIMIT_ENV[key]}=${JSON.stringify(raw)} is not a size (a byte count, or a number with K/Ki/M/Mi/G/Gi)`)
    out[key] = n
  }
  return out
}

const defaults = (): Limits => ({...DEFAULT_LIMITS})
let source: () => Limits = defaults
let cached: Limits | undefined

/**
 * Where the process's limits come from (the CLI: its environment variables). Called before anything reads them;
 * `from` runs once, at the first limits() call, so a bad variable fails only a run that reads something bounded.
 */
export function configureLimits(from: () => Limits): void {
  source = from
  cached = undefined
}

/** The process's limits: what configureLimits was given, else the defaults. */
export function limits(): Limits {
  cached ??= source()
  return cached
}

/** For tests: back to the defaults. */
export function resetLimits(): void {
  configureLimits(defaults)
}

/** A NODE_DOCTOR_MAX_* variable that is not a size: a usage error (exit 2) at the command layer. */
export class LimitConfigError extends InputProblem {}

/** `32 MiB`, `1.5 GiB`, `900 bytes`. */
export function formatBytes(n: number): string {
  if (n >= 1024 * MiB) return `${+(n / (1024 * MiB)).toFixed(1)} GiB`
  if (n >= MiB) return `${+(n / MiB).toFixed(1)} MiB`
  if (n >= 1024) return `${+(n / 1024).toFixed(1)} KiB`
  return `${n} bytes`
}

/** The sentence for a hit limit: what, the limit, and how to raise it. */
export function limitMessage(what: string, key: keyof Limits, value = limits()[key]): string {
  const v = key === 'bundleEntries' || key === 'documentDepth' ? String(value) : formatBytes(value)
  return `${what} exceeds the limit of ${v} (${LIMIT_ENV[key]})`
}
