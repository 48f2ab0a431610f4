// fix kubelet's pending differences: fields where the kubelet's files (after the requested change) differ from what
// the running kubelet has (/configz), changed on disk and never restarted. The restart would apply them too, so each
// is decided on its own: `apply` (the restart takes the files' value), `keep` (the running value is written back into
// the file the difference came from, through the plan's own validate + backup + atomic write path) or `abort`.
// Pure: the plan (kubelet.ts) says where each value came from; the command asks; this file turns answers into edits.
import {describeOrigin, diffConfigs} from '../../core/checks/kubelet/view.js'
import type {Origin} from '../../core/model/config-issue.js'
import type {JsonValue} from '../../core/parse/component-config.js'
import type {KubeletConfig} from '../../core/parse/kubelet-config.js'
import {UsageError} from '../../errors.js'
import {type ConfigFileText, describeSetting, describeValue, type KubeletEdit, kubeletEdit, owningFile} from './kubelet-edit.js'

export type PendingChoice = 'apply' | 'keep' | 'abort'

/** Where `keep` writes the running value back, or why it cannot. */
export type KeepTarget = {file: string} | {unavailable: string}

export interface PendingDifference {
  /** Dotted field name (`maxPods`, `authentication.anonymous.enabled`). */
  field: string
  ptr: string
  /** The running kubelet's value (/configz). */
  from: JsonValue | undefined
  /** The files' value: what the restart would apply. */
  to: JsonValue
  /** Where the files' value comes from (`/var/lib/kubelet/config.yaml:12`, `flag --max-pods=250 at ...`, `kubelet default`). */
  origin: string
  keep: KeepTarget
  /** The choice made; absent while undecided (a dry run, or before asking). */
  choice?: 'apply' | 'keep'
}

function at(o: Origin): string {
  return o.source ? `${o.source}${o.line === undefined ? '' : `:${o.line}`}` : ''
}

/**
 * Where `keep` can write the running value of a difference back. `origins` are the origins of the field in the
 * files' configuration (the field's own and those of its parts, for maps); `owner` is the KubeletConfiguration file
 * that sets it (the last drop-in that does, else the --config file; owningFile in kubelet-edit.ts).
 *
 * Writable: a value from the --config file or a --config-dir drop-in (that file is edited), and a field no file sets
 * (the files' value is a default: the running value is added to `owner`). Not writable: a value a kubelet flag sets
 * (kubeadm-flags.env, the unit, KUBELET_EXTRA_ARGS: fix kubelet edits KubeletConfiguration files only, and the flag
 * would win over the file anyway), and a running value /configz leaves out (nothing to write back).
 */
export function keepTarget(d: {field: string; from: JsonValue | undefined}, origins: readonly Origin[], owner: string): KeepTarget {
  const flag = origins.find((o) => o.kind === 'flag')
  if (flag) {
    const where = at(flag)
    return {
      unavailable: `the files' value comes from the kubelet flag ${flag.detail ?? ''}${where ? ` (${where})` : ''}, and fix kubelet writes only KubeletConfiguration files; change or remove that flag by hand`,
    }
  }
  if (d.from === undefined || d.from === null) {
    return {unavailable: `the running kubelet reports no value for ${d.field} (/configz leaves it out), so there is nothing to write back; remove ${d.field} from ${owner} by hand`}
  }
  return {file: owner}
}

/**
 * The differences between the files' configuration (defaults, --config file, drop-ins and flags, after the change)
 * and the running one (/configz), other than the fields the change itself sets (`edited`, JSON Pointers): each with
 * where the files' value comes from and where `keep` would write the running value back. `main` and `dropIns` are
 * the KubeletConfiguration files as read, to find the file that owns each field.
 */
export function pendingDifferences(
  files: KubeletConfig,
  running: KubeletConfig,
  o: {edited: ReadonlySet<string>; main: ConfigFileText; dropIns: readonly ConfigFileText[]},
): PendingDifference[] {
  return diffConfigs(files, running)
    .filter((d) => !o.edited.has(d.ptr))
    .map((d) => {
      const diff = {field: d.path, ptr: d.ptr, from: d.b, to: d.a as JsonValue}
      const origins = Object.entries(files.origins).filter(([k]) => k === d.ptr || k.startsWith(`${d.ptr}/`)).map(([, origin]) => origin)
      return {...diff, origin: describeOrigin(files, d.ptr), keep: keepTarget(diff, origins, owningFile(d.ptr, o.main, o.dropIns).path)}
    })
}

/** The question for one difference, and the answers it accepts (`keep` only where it can be written back). */
export function pendingQuestion(d: PendingDifference, index: number, total: number): {text: string; choices: PendingChoice[]} {
  const head = `Pending difference ${index + 1} of ${total}: ${d.field}: the running kubelet has ${describeValue(d.from)}, the files have ${describeValue(d.to)} (${d.origin}).`
  const apply = `  apply: the restart takes the files' value ${describeValue(d.to)}`
  const keep = 'file' in d.keep ? `  keep:  write the running value ${describeValue(d.from)} back to ${d.keep.file}` : `  keep is not possible: ${d.keep.unavailable}`
  const abort = '  abort: change nothing'
  return {text: [head, apply, keep, abort].join('\n'), choices: 'file' in d.keep ? ['apply', 'keep', 'abort'] : ['apply', 'abort']}
}

export type PendingDecision =
  | {kind: 'abort'; at: PendingDifference}
  /** `keep`: the running values to write back (as edits); `decided`: every difference with its choice. */
  | {kind: 'go'; keep: Array<KubeletEdit & {file: string}>; decided: PendingDifference[]}

/**
 * Turns one answer per difference (in order) into edits. An `abort`, or an answer missing (end of input), stops
 * everything. `keep` where the value cannot be written back is a UsageError naming why (nothing was changed).
 */
export function decidePending(pending: readonly PendingDifference[], answers: readonly PendingChoice[]): PendingDecision {
  const keep: Array<KubeletEdit & {file: string}> = []
  const decided: PendingDifference[] = []
  for (const [i, d] of pending.entries()) {
    const a = answers[i]
    if (a === undefined || a === 'abort') return {kind: 'abort', at: d}
    if (a === 'keep') {
      if (!('file' in d.keep)) throw new UsageError(`${d.field}: the running value cannot be kept: ${d.keep.unavailable}; nothing was changed`, 'Apply it with the restart, or abort.')
      keep.push({...kubeletEdit(d.field, d.from as JsonValue), file: d.keep.file})
    }
    decided.push({...d, choice: a})
  }
  return {kind: 'go', keep, decided}
}

/** `maxPods: 110 -> 250 (from /var/lib/kubelet/config.yaml:12): apply` for plans, summaries and audit records. */
export function describePending(d: PendingDifference): string {
  const base = `${describeSetting(d.field, d.from)} -> ${describeValue(d.to)} (from ${d.origin})`
  if (d.choice === 'apply') return `${base}: apply (the restart takes ${describeValue(d.to)})`
  if (d.choice === 'keep') return `${base}: keep (${describeValue(d.from)} written back to ${'file' in d.keep ? d.keep.file : '?'})`
  return base
}
