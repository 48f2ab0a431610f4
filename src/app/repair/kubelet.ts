// Over 500 lines: the plan, the apply and the restore of one repair share their state and audit record; apart they would pass it all around.
// `fix kubelet`: plan (read the node's kubelet files, edit, validate with the KUBELET checks, diff), then apply
// (back up, write atomically, restart, wait for /healthz and Node Ready) and roll back on any failure, leaving an
// audit record either way. Reaches the node only through NodeTransport and the API only through the ports.
import {planFor} from '../../core/collection/plan.js'
import {findCheck} from '../../core/checks/registry.js'
import {DROPIN_HEADER, KUBELET_CONFIG_PATH, kubeletView, sameValue, valueAt} from '../../core/checks/kubelet/view.js'
import type {CheckContext} from '../../core/checks/types.js'
import type {AuditActor} from '../../core/model/audit.js'
import type {Node} from '../../core/model/k8s.js'
import {type ClusterSnapshot, emptyClusterSnapshot, type NodeSnapshot} from '../../core/model/snapshot.js'
import {getAt, type JsonValue, parseMinorVersion} from '../../core/parse/component-config.js'
import {compareDropInNames, isKubeletDropInName, parseKubeletConfig} from '../../core/parse/kubelet-config.js'
import {shellQuote} from '../../core/collection/shell.js'
import {UsageError} from '../../errors.js'
import type {AuditSink} from '../../ports/audit.js'
import type {ClusterReader, ClusterWriter} from '../../ports/cluster.js'
import type {NodeTransport} from '../../ports/node-transport.js'
import {collectNode} from '../collect-node.js'
import {readClusterSnapshot} from '../read-cluster.js'
import {recordRepair} from './audit.js'
import {NodeReadError, RepairFailedError} from './errors.js'
import {type ConfigFileText, describeSetting, describeValue, editYamlText, type KubeletEdit, owningFile, unifiedDiff} from './kubelet-edit.js'
import {describePending, type PendingDifference, pendingDifferences} from './kubelet-pending.js'
import {kubeletRemedy} from './kubelet-remedies.js'
import {describeFailure, type NodeFile, NodeShell} from './node-shell.js'

export const ACTION_FIX_KUBELET = 'fix kubelet'

export interface KubeletFixDeps {
  transport: NodeTransport
  /** getNode (existence, version, Ready); the whole cluster snapshot for --from-finding. */
  cluster: ClusterReader
  /** Posts the Event on the Node when present. */
  events?: Pick<ClusterWriter, 'recordNodeEvent'>
  audit: AuditSink
  who: AuditActor
  sudo: boolean
  /** Timeout of each node command. */
  timeoutMs: number
  now: () => Date
  sleep?: (ms: number) => Promise<void>
  /** Progress lines (stderr). */
  progress: (message: string) => void
  warn: (message: string) => void
  /** A new connection to the node after the current one was lost (default: the transport's own reconnect()). */
  reconnect?: () => Promise<NodeTransport>
}

/**
 * What to change: `--set` edits or a finding's remedy; `keep`: running values of pending differences to write back
 * into the file each came from (decidePending in kubelet-pending.ts), validated and written with the change.
 */
export type KubeletFixRequest = ({node: string; set: KubeletEdit[]} | {node: string; fromFinding: string}) & {keep?: ReadonlyArray<KubeletEdit & {file: string}>}

export interface SettingChange {
  field: string
  from: JsonValue | undefined
  to: JsonValue
  /** A pending difference whose running value is written back (keep): `to` is the running value. */
  kept?: boolean
}

export interface KubeletFileChange {
  path: string
  role: 'config' | 'drop-in'
  before: NodeFile
  after: string
  diff: string
  settings: SettingChange[]
}

export interface KubeletFixPlan {
  node: string
  nodeUid?: string
  kubeletVersion?: string
  configFile: string
  /** Where the config file's path came from. */
  configFileSource: string
  configDir?: string
  /** Why (the findings behind --from-finding). */
  why: string[]
  /** Files whose content changes; empty when every field already has its value. */
  changes: KubeletFileChange[]
  /** Fields that already had the requested value. */
  unchanged: string[]
  notes: string[]
  /**
   * Differences between the kubelet's files (after this change) and what the running kubelet has (/configz), other
   * than the fields this change sets: the restart applies them too (`from` is the running value, `to` the files').
   * Empty when /configz could not be read (then `pendingUnknown` says why). Each carries its choice once made.
   */
  pending: PendingDifference[]
  /** Pending differences whose running value this plan writes back (keep); their edits are in `changes`. */
  kept: PendingDifference[]
  /** Set when the user aborted at a pending difference: nothing is applied. */
  abortedAt?: PendingDifference
  pendingUnknown?: string
  /** Where the kubelet's health is read after the restart; undefined when healthzPort is 0. */
  healthzUrl?: string
  /** Set when --from-finding found nothing to do. */
  nothingReason?: string
}

const sleeper = (ms: number) => new Promise<void>((r) => setTimeout(r, ms))

/** The --config / --config-dir of the kubelet and where they came from. */
async function kubeletFiles(deps: KubeletFixDeps, nodeObject: Node): Promise<{snapshot: NodeSnapshot; configFile: string; source: string; configDir?: string; flagsNote?: string}> {
  const plan = planFor(['kubelet']).filter((p) => ['kubelet-unit', 'kubeadm-flags', 'kubelet-cmdline', 'containerd-config', 'resolv-conf'].includes(p.id))
  const snapshot = await collectNode(deps.transport, {plan, timeoutMs: deps.timeoutMs, sudo: deps.sudo, now: deps.now})
  const cluster = minimalCluster(deps.now(), nodeObject)
  const flags = kubeletView({cluster, node: snapshot}).flags
  if (!flags.ok) {
    return {snapshot, configFile: KUBELET_CONFIG_PATH, source: 'default (the kubelet flags could not be read)', flagsNote: `kubelet flags: ${flags.reason}; assuming --config=${KUBELET_CONFIG_PATH}`}
  }
  const where = {unit: 'the kubelet unit (systemctl cat kubelet)', 'kubeadm-flags': '/var/lib/kubelet/kubeadm-flags.env', 'command-line': 'the running kubelet command line', k3s: "k3s's kubelet-arg (config.yaml, command line)"}[flags.value.source]
  const out: {snapshot: NodeSnapshot; configFile: string; source: string; configDir?: string} = {
    snapshot,
    configFile: flags.value.configFile ?? KUBELET_CONFIG_PATH,
    source: flags.value.configFile ? `--config in ${where}` : `default (no --config in ${where})`,
  }
  if (flags.value.configDir !== undefined) out.configDir = flags.value.configDir
  return out
}

function minimalCluster(now: Date, node: Node): ClusterSnapshot {
  return {...emptyClusterSnapshot(now.toISOString()), nodes: [node]}
}

async function readDropIns(shell: NodeShell, dir: string): Promise<NodeFile[]> {
  const q = shellQuote(dir)
  const out = await shell.must(`[ -d ${q} ] || exit 0; find ${q} -type f -name '*.conf' | LC_ALL=C sort`, `listing ${dir}`, (r) => new NodeReadError(r, 'Nothing was changed.'))
  const names = out.split('\n').filter((n) => n !== '' && isKubeletDropInName(n)).sort(compareDropInNames)
  const files: NodeFile[] = []
  for (const n of names) files.push(await shell.readFile(n))
  return files
}

function dropInsArtifact(files: ReadonlyArray<{path: string; text: string}>): string {
  return files.map((f) => `${DROPIN_HEADER}${f.path}\n${f.text}${f.text.endsWith('\n') ? '' : '\n'}`).join('\n')
}

/** The node snapshot with these file contents; the config file keeps its path, so origins name the real file. */
function withFiles(snapshot: NodeSnapshot, main: {path: string; text: string}, dropIns: ReadonlyArray<{path: string; text: string}>): NodeSnapshot {
  return {
    ...snapshot,
    artifacts: {
      ...snapshot.artifacts,
      'kubelet-config': {id: 'kubelet-config', source: main.path, content: `${DROPIN_HEADER}${main.path}\n${main.text}`},
      'kubelet-dropins': {id: 'kubelet-dropins', source: 'kubelet --config-dir', content: dropInsArtifact(dropIns)},
    },
  }
}

/** Errors KUBELET-003 (schema) and KUBELET-004 (startup validation) report, without line numbers. */
function blockingProblems(ctx: CheckContext): Set<string> {
  const out = new Set<string>()
  for (const id of ['KUBELET-003', 'KUBELET-004']) {
    const r = findCheck(id)!.run(ctx)
    if (r.status !== 'failed') continue
    for (const f of r.findings) if ((f.severity ?? 'error') === 'error') out.add(f.message.replace(/:\d+:/g, ':'))
  }
  return out
}

/** Reads the node and builds the plan. Changes nothing. */
export async function planKubeletFix(deps: KubeletFixDeps, req: KubeletFixRequest): Promise<KubeletFixPlan> {
  const nodeObject = await deps.cluster.getNode(req.node)
  if (!nodeObject) throw new UsageError(`nodes "${req.node}" not found`, "List nodes with 'kubectl get nodes'.")
  const minor = parseMinorVersion(nodeObject.status?.nodeInfo?.kubeletVersion)
  const version = minor === undefined ? undefined : `1.${minor}`
  const shell = new NodeShell(deps.transport, {sudo: deps.sudo, timeoutMs: deps.timeoutMs})
  deps.progress(`${req.node}: reading the kubelet's configuration files`)
  const files = await kubeletFiles(deps, nodeObject)
  const main = await shell.readFile(files.configFile)
  const dropIns = files.configDir === undefined ? [] : await readDropIns(shell, files.configDir)
  const notes: string[] = files.flagsNote ? [files.flagsNote] : []

  let cluster = minimalCluster(deps.now(), nodeObject)
  let edits: KubeletEdit[]
  let why: string[] = []
  const nodeBefore = withFiles(files.snapshot, main, dropIns)
  if ('fromFinding' in req) {
    cluster = await readClusterSnapshot(deps.cluster, {nodeNames: [req.node], now: deps.now()})
    const r = kubeletRemedy(req.fromFinding, {cluster, node: nodeBefore})
    if (r.kind === 'nothing') return basePlan(req.node, nodeObject, version, files, [], notes, r.reason)
    edits = r.edits
    why = r.why
    notes.push(...r.notes)
  } else edits = req.set
  if (edits.length === 0) throw new UsageError('nothing to change: give --set FIELD=VALUE or --from-finding ID')
  const keep = req.keep ?? []
  const keptPtrs = new Set(keep.map((k) => k.ptr))
  for (const k of keep) {
    if (edits.some((e) => e.ptr === k.ptr)) throw new UsageError(`${k.field} is both changed and kept at its running value; nothing was changed`)
  }

  // Which file owns each field, then edit each file once.
  const parse = (f: NodeFile, role: 'config' | 'drop-in'): ConfigFileText => {
    try {
      return {path: f.path, text: f.text, config: parseKubeletConfig(f.text, {source: f.path, ...(version ? {version} : {}), ...(role === 'drop-in' ? {originKind: 'drop-in' as const} : {})})}
    } catch (err) {
      throw new UsageError(`${req.node}:${f.path} cannot be read as a KubeletConfiguration (${(err as Error).message}); fix it by hand first`)
    }
  }
  const mainText = parse(main, 'config')
  const dropTexts = dropIns.map((d) => parse(d, 'drop-in'))
  const byFile = new Map<string, KubeletEdit[]>()
  for (const e of edits) {
    const owner = owningFile(e.ptr, mainText, dropTexts)
    byFile.set(owner.path, [...(byFile.get(owner.path) ?? []), e])
  }
  // A kept running value goes back to the file its difference came from (found the same way when it was asked).
  for (const k of keep) {
    const {file, ...e} = k
    if (file !== main.path && !dropIns.some((d) => d.path === file)) throw new UsageError(`${req.node}:${file} is no longer one of the kubelet's configuration files; nothing was changed`, 'Run the command again.')
    byFile.set(file, [...(byFile.get(file) ?? []), e])
  }
  const changes: KubeletFileChange[] = []
  const unchanged: string[] = []
  const afterTexts = new Map<string, string>()
  for (const [path, fileEdits] of byFile) {
    const src = path === main.path ? main : dropIns.find((d) => d.path === path)!
    const parsed = path === main.path ? mainText : dropTexts.find((d) => d.path === path)!
    const needed = fileEdits.filter((e) => !sameValue(getAt(parsed.config.values, e.ptr), e.value) || getAt(parsed.config.values, e.ptr) === undefined)
    for (const e of fileEdits) if (!needed.includes(e)) unchanged.push(describeSetting(e.field, e.value))
    if (needed.length === 0) continue
    const after = editYamlText(src.text, needed, `${req.node}:${path}`)
    if (after === src.text) continue
    afterTexts.set(path, after)
    changes.push({
      path,
      role: path === main.path ? 'config' : 'drop-in',
      before: src,
      after,
      diff: unifiedDiff(path, src.text, after),
      settings: needed.map((e) => ({field: e.field, from: getAt(parsed.config.values, e.ptr), to: e.value, ...(keptPtrs.has(e.ptr) ? {kept: true} : {})})),
    })
  }

  // Validate the result as the checks would see it after the change; refuse anything the change makes worse.
  const nodeAfter = withFiles(files.snapshot, {path: main.path, text: afterTexts.get(main.path) ?? main.text}, dropIns.map((d) => ({path: d.path, text: afterTexts.get(d.path) ?? d.text})))
  const before = blockingProblems({cluster, node: nodeBefore})
  const introduced = [...blockingProblems({cluster, node: nodeAfter})].filter((p) => !before.has(p))
  if (introduced.length > 0) {
    throw new UsageError(`the change would give ${req.node} a kubelet configuration it refuses at start, so nothing was changed:\n  ${introduced.join('\n  ')}`)
  }
  // The running configuration, when something changes: what else the restart applies (plan.pending below).
  const configz = changes.length === 0 ? undefined : await deps.cluster.getNodeConfigz(req.node).then((text) => ({text}), (err: unknown) => ({error: (err as Error).message}))
  const view = kubeletView({cluster: configz && 'text' in configz ? {...cluster, configz: {[req.node]: configz.text}} : cluster, node: nodeAfter})
  if (view.next.ok) {
    for (const e of [...edits, ...keep]) {
      const v = getAt(view.next.value.values, e.ptr)
      const origin = view.next.value.origins[e.ptr]
      if (!sameValue(v, e.value) && origin?.kind === 'flag') {
        throw new UsageError(
          `${e.field}: the kubelet flag ${origin.detail ?? ''}${origin.source ? ` (${origin.source}${origin.line ? `:${origin.line}` : ''})` : ''} overrides the config file, so the change would have no effect; nothing was changed`,
          'Remove that flag first (see KUBELET-021: `kubectl node-doctor explain KUBELET-021`).',
        )
      }
    }
  }
  const plan = basePlan(req.node, nodeObject, version, files, why, notes)
  plan.changes = changes
  plan.unchanged = unchanged
  // What else the restart applies: the files' other differences from the running kubelet (a change made on disk
  // earlier and never restarted), so the user is not surprised by a maxPods that also moves.
  if (configz && 'error' in configz) plan.pendingUnknown = `the running configuration (/configz) could not be read: ${configz.error}`
  else if (configz) {
    if (!view.next.ok) plan.pendingUnknown = view.next.reason
    else if (!view.running.ok) plan.pendingUnknown = view.running.reason
    else {
      plan.pending = pendingDifferences(view.next.value, view.running.value, {edited: new Set([...edits, ...keep].map((e) => e.ptr)), main: mainText, dropIns: dropTexts})
    }
  }
  if (view.next.ok) {
    const port = valueAt(view.next.value, 'healthzPort')
    const bind = valueAt(view.next.value, 'healthzBindAddress')
    if (port !== 0) {
      const host = typeof bind !== 'string' || bind === '' || bind === '0.0.0.0' ? '127.0.0.1' : bind === '::' ? '[::1]' : bind.includes(':') ? `[${bind}]` : bind
      plan.healthzUrl = `http://${host}:${typeof port === 'number' ? port : 10248}/healthz`
    } else delete plan.healthzUrl
  }
  return plan
}

function basePlan(node: string, nodeObject: Node, version: string | undefined, files: {configFile: string; source: string; configDir?: string}, why: string[], notes: string[], nothingReason?: string): KubeletFixPlan {
  const p: KubeletFixPlan = {node, configFile: files.configFile, configFileSource: files.source, why, changes: [], unchanged: [], notes, pending: [], kept: [], healthzUrl: 'http://127.0.0.1:10248/healthz'}
  if (nodeObject.metadata.uid !== undefined) p.nodeUid = nodeObject.metadata.uid
  if (version !== undefined) p.kubeletVersion = version
  if (files.configDir !== undefined) p.configDir = files.configDir
  if (nothingReason !== undefined) p.nothingReason = nothingReason
  return p
}

/** The plan as printed before confirmation (and by --dry-run). */
export function formatKubeletPlan(plan: KubeletFixPlan): string {
  const lines: string[] = [`Plan: fix kubelet on node ${plan.node}${plan.kubeletVersion ? ` (kubelet ${plan.kubeletVersion})` : ''}`]
  lines.push(`  config file: ${plan.configFile} (${plan.configFileSource})${plan.configDir ? `; drop-ins: ${plan.configDir}` : ''}`)
  for (const w of plan.why) lines.push(`  why: ${w}`)
  if (plan.nothingReason) return [...lines, `  ${plan.nothingReason}.`, ''].join('\n')
  for (const u of plan.unchanged) lines.push(`  already set: ${u}`)
  if (plan.changes.length === 0) return [...lines, '  Nothing to change: every field already has that value.', ''].join('\n')
  for (const c of plan.changes) {
    for (const s of c.settings) {
      lines.push(s.kept ? `  keep ${describeSetting(s.field, s.to)} (the running value) in ${c.path}, which has ${describeValue(s.from)}` : `  set ${describeSetting(s.field, s.from)} -> ${describeValue(s.to)} in ${c.path}`)
    }
  }
  if (plan.pending.length > 0) {
    lines.push(`  the restart also applies ${plan.pending.length} pending difference${plan.pending.length === 1 ? '' : 's'} between the files and the running kubelet (changed on disk, never restarted):`)
    for (const p of plan.pending) lines.push(`    ${describePending(p)}`)
  } else if (plan.pendingUnknown) lines.push(`  note: other pending differences the restart would apply are unknown: ${plan.pendingUnknown}`)
  if (plan.kept.length > 0) lines.push(`  kept at the running value (written back, not applied): ${plan.kept.map((k) => describePending(k)).join('; ')}`)
  if (plan.abortedAt) lines.push(`  aborted at the pending difference ${plan.abortedAt.field}: nothing is changed`)
  lines.push('  steps:')
  let n = 1
  for (const c of plan.changes) lines.push(`    ${n++}. back up ${c.path} to ${c.path}.node-doctor-backup-<time>`)
  for (const c of plan.changes) lines.push(`    ${n++}. write ${c.path} atomically (temp file + rename; mode ${c.before.mode}, owner ${c.before.uid}:${c.before.gid} kept)`)
  lines.push(`    ${n++}. systemctl restart kubelet`)
  lines.push(`    ${n++}. wait for ${plan.healthzUrl ? `${plan.healthzUrl} = ok` : 'systemctl is-active kubelet'} and node ${plan.node} Ready`)
  lines.push(`    on failure: restore the backup${plan.changes.length > 1 ? 's' : ''}, restart the kubelet again, report`)
  for (const note of plan.notes) lines.push(`  note: ${note}`)
  lines.push('')
  for (const c of plan.changes) lines.push(c.diff.endsWith('\n') ? c.diff : `${c.diff}\n`)
  return lines.join('\n')
}

export interface KubeletFixResult {
  outcome: 'applied'
  backups: string[]
  message: string
  eventPosted: boolean
}

function stamp(d: Date): string {
  return d.toISOString().replace(/\.\d+Z$/, 'Z').replaceAll(/[-:]/g, '')
}

function summary(plan: KubeletFixPlan, side: 'from' | 'to'): string {
  return plan.changes.flatMap((c) => c.settings.map((s) => describeSetting(s.field, side === 'from' ? s.from : s.to))).join('; ')
}

/**
 * Applies a plan. Resolves when the change is in place and the kubelet healthy; otherwise restores the backups,
 * restarts the kubelet again and rejects with RepairFailedError saying what happened. Records the audit trail in
 * every case where something on the node was changed.
 */
export async function applyKubeletFix(deps: KubeletFixDeps, plan: KubeletFixPlan, options: {waitTimeoutMs: number}): Promise<KubeletFixResult> {
  const shell = new NodeShell(deps.transport, {sudo: deps.sudo, timeoutMs: deps.timeoutMs})
  const sleep = deps.sleep ?? sleeper
  const node = plan.node
  const record = (outcome: 'applied' | 'rolled-back' | 'failed', message: string, backups: string[]) =>
    recordRepair(
      {
        who: deps.who,
        node,
        ...(plan.nodeUid === undefined ? {} : {nodeUid: plan.nodeUid}),
        action: ACTION_FIX_KUBELET,
        target: plan.changes.map((c) => c.path).join(', '),
        before: summary(plan, 'from'),
        after: summary(plan, 'to'),
        outcome,
        message,
        details: {
          ...Object.fromEntries(backups.map((b, i) => [`backup${backups.length > 1 ? i + 1 : ''}`, b])),
          // The pending differences the restart applied, and those kept at their running value, with the choice.
          ...(plan.pending.length > 0 ? {pending: plan.pending.map(describePending).join('; ')} : {}),
          ...(plan.kept.length > 0 ? {kept: plan.kept.map(describePending).join('; ')} : {}),
        },
        time: deps.now(),
      },
      {audit: deps.audit, ...(deps.events ? {events: deps.events} : {}), warn: deps.warn},
    )

  // Nothing may have changed under us since the plan was made.
  for (const c of plan.changes) {
    const now = await shell.readFile(c.path)
    if (now.text !== c.before.text) throw new RepairFailedError(`${node}:${c.path} changed since it was read; nothing was changed`, 'Run the command again to plan against the current file.')
  }
  const ts = stamp(deps.now())
  const backups: string[] = []
  // From the first backup on, the node may be changed: the audit record is written in the `finally`, whatever
  // happens (a lost connection, a bug), and an unexpected failure gets the promised restore on a new connection.
  let audited = false
  let phase: RepairPhase = 'backup'
  const recordOnce: typeof record = async (...args) => {
    audited = true
    return record(...args)
  }
  let shellNow = shell
  const restoreAll = async (): Promise<string[]> => {
    const problems: string[] = []
    for (const [i, c] of plan.changes.entries()) {
      if (backups[i] === undefined) continue // never backed up: never written
      try {
        await shellNow.restoreFile(backups[i]!, c.path)
        const back = await shellNow.readFile(c.path)
        if (back.text !== c.before.text) problems.push(`${c.path} does not hold the backed-up content after the restore`)
      } catch (err) {
        problems.push((err as Error).message)
      }
    }
    return problems
  }

  try {
    for (const c of plan.changes) {
      const b = `${c.path}.node-doctor-backup-${ts}`
      deps.progress(`${node}: backing up ${c.path} to ${b}`)
      await shell.backupFile(c.path, b)
      backups.push(b)
    }

    phase = 'write'
    try {
      for (const c of plan.changes) {
        deps.progress(`${node}: writing ${c.path}`)
        await shell.writeFileAtomic(c.path, c.after)
        const written = await shell.readFile(c.path)
        if (written.text !== c.after) throw new RepairFailedError(`${node}: ${c.path} does not hold the new content after the write`)
        if (written.mode !== c.before.mode || written.uid !== c.before.uid || written.gid !== c.before.gid) {
          throw new RepairFailedError(`${node}: ${c.path} lost its mode or owner in the write (${c.before.mode} ${c.before.uid}:${c.before.gid} → ${written.mode} ${written.uid}:${written.gid})`)
        }
      }
    } catch (err) {
      if (!(err instanceof RepairFailedError)) throw err // the connection: handled below, on a new one
      const problems = await restoreAll()
      const how = problems.length === 0 ? `the files were restored from ${backups.join(', ')}; the kubelet was not restarted` : `RESTORE FAILED: ${problems.join('; ')}; restore by hand from ${backups.join(', ')}`
      const message = `writing the new configuration failed (${err.message}); ${how}`
      await recordOnce(problems.length === 0 ? 'rolled-back' : 'failed', message, backups)
      throw new RepairFailedError(`${node}: ${message}`)
    }

    phase = 'restart'
    const health = await restartAndWait(shell, deps, plan, options.waitTimeoutMs, sleep)
    if (health.ok) {
      const message = `the kubelet restarted and is healthy (${health.detail}); backup${backups.length > 1 ? 's' : ''}: ${backups.join(', ')}`
      const {eventPosted} = await recordOnce('applied', message, backups)
      return {outcome: 'applied', backups, message, eventPosted}
    }

    phase = 'rollback'
    deps.progress(`${node}: ${health.detail}; rolling back`)
    const problems = await restoreAll()
    let rollback = ''
    let rolledBack = problems.length === 0
    if (rolledBack) {
      const again = await restartAndWait(shell, deps, plan, options.waitTimeoutMs, sleep)
      rolledBack = again.ok
      rollback = again.ok ? `the old configuration was restored from ${backups.join(', ')} and the kubelet is healthy again` : `the old configuration was restored from ${backups.join(', ')} but the kubelet is still not healthy (${again.detail})`
    } else rollback = `RESTORE FAILED: ${problems.join('; ')}; restore by hand from ${backups.join(', ')} and restart the kubelet`
    const message = `the change was not kept: ${health.detail}; ${rollback}`
    await recordOnce(rolledBack ? 'rolled-back' : 'failed', message, backups)
    throw new RepairFailedError(`${node}: ${message}`, 'See `journalctl -u kubelet -n 50` on the node for why the kubelet did not come up with the new configuration.')
  } catch (err) {
    if (audited) throw err
    // Interrupted (the connection dropped mid-step, or a bug): reconnect once, restore what was written, restart
    // the kubelet if it may have been restarted with the new files, and report exactly what the node now holds.
    const cause = (err as Error).message
    deps.progress(`${node}: interrupted while ${PHASE_TEXT[phase]} (${cause}); attempting the restore`)
    const recovery = await recoverInterrupted()
    const message = `interrupted while ${PHASE_TEXT[phase]} (${cause}); ${recovery.text}`
    audited = true
    await record(recovery.restored ? 'rolled-back' : 'failed', message, backups)
    throw new RepairFailedError(`${node}: ${message}`, recovery.restored ? undefined : `Check the node by hand: ${backups.length > 0 ? `the backups are ${backups.join(', ')}` : 'no backup was made'}.`)
  } finally {
    // Last line of defence: a failure inside the recovery itself still leaves a trail.
    if (!audited) await record('failed', `interrupted while ${PHASE_TEXT[phase]}; the state of the node is unknown${backups.length > 0 ? `; backups: ${backups.join(', ')}` : ''}`, backups).catch((e: unknown) => deps.warn(`warning: the audit record could not be written: ${(e as Error).message}`))
  }

  async function recoverInterrupted(): Promise<{restored: boolean; text: string}> {
    const steps: string[] = []
    const reconnect = deps.reconnect ?? reconnectOf(deps.transport)
    if (reconnect) {
      try {
        shellNow = new NodeShell(await reconnect(), {sudo: deps.sudo, timeoutMs: deps.timeoutMs})
        steps.push('reconnected')
      } catch (e) {
        steps.push(`could not reconnect (${(e as Error).message})`)
      }
    }
    let restored = false
    if (phase === 'backup') {
      restored = true
      steps.push('nothing had been written yet')
    } else {
      const problems = await restoreAll()
      restored = problems.length === 0
      steps.push(restored ? `the files were restored from ${backups.join(', ')}` : `RESTORE FAILED: ${problems.join('; ')}`)
      if (restored && phase !== 'write') {
        const r = await shellNow.run('systemctl restart kubelet', Math.min(options.waitTimeoutMs, 120_000)).catch((e: unknown) => ({exitCode: null, stdout: '', stderr: (e as Error).message, timedOut: false}))
        const ok = r.exitCode === 0 && !r.timedOut
        steps.push(ok ? 'the kubelet was restarted on the old configuration' : `the kubelet could not be restarted (${describeFailure(r, 120_000)})`)
        restored = ok
      }
    }
    // What is on the node now, file by file.
    const held: string[] = []
    for (const c of plan.changes) {
      try {
        const f = await shellNow.readFile(c.path)
        held.push(`${c.path} holds ${f.text === c.before.text ? 'the old configuration' : f.text === c.after ? 'the NEW configuration' : 'neither the old nor the new configuration'}`)
        if (f.text !== c.before.text) restored = false
      } catch (e) {
        held.push(`${c.path} could not be read (${(e as Error).message})`)
        restored = false
      }
    }
    return {restored, text: `${steps.join('; ')}; on the node now: ${held.join('; ')}${backups.length > 0 ? `; backup${backups.length > 1 ? 's' : ''}: ${backups.join(', ')}` : ''}`}
  }
}

type RepairPhase = 'backup' | 'write' | 'restart' | 'rollback'
const PHASE_TEXT: Record<RepairPhase, string> = {
  backup: 'backing up the files',
  write: 'writing the new configuration',
  restart: 'restarting the kubelet and waiting for it',
  rollback: 'rolling back',
}

/** A transport that can make a new connection after losing one (SshTransport.reconnect). */
function reconnectOf(transport: NodeTransport): (() => Promise<NodeTransport>) | undefined {
  const t = transport as NodeTransport & {reconnect?: () => Promise<void>}
  if (typeof t.reconnect !== 'function') return undefined
  return async () => {
    await t.reconnect!()
    return transport
  }
}

/** `systemctl restart kubelet`, then /healthz = ok and Node Ready within the time left. */
async function restartAndWait(shell: NodeShell, deps: KubeletFixDeps, plan: KubeletFixPlan, waitTimeoutMs: number, sleep: (ms: number) => Promise<void>): Promise<{ok: boolean; detail: string}> {
  const node = plan.node
  const start = deps.now().getTime()
  const left = () => waitTimeoutMs - (deps.now().getTime() - start)
  deps.progress(`${node}: systemctl restart kubelet`)
  const restartTimeout = Math.max(1000, Math.min(left(), 120_000))
  const r = await shell.run('systemctl restart kubelet', restartTimeout)
  if (r.exitCode !== 0 || r.timedOut) return {ok: false, detail: `systemctl restart kubelet failed (${describeFailure(r, restartTimeout)})`}

  const probe = plan.healthzUrl ? `curl -sS --max-time 5 ${shellQuote(plan.healthzUrl)}` : 'systemctl is-active kubelet'
  const want = plan.healthzUrl ? 'ok' : 'active'
  let last = ''
  let attempt = 0
  for (;;) {
    const h = await shell.run(probe, 10_000)
    if (h.exitCode === 0 && h.stdout.trim() === want) break
    last = (h.stderr.trim() || h.stdout.trim() || `exit code ${h.exitCode}`).split('\n')[0] ?? ''
    if (attempt++ % 5 === 0) deps.progress(`${node}: waiting for ${plan.healthzUrl ?? 'the kubelet service'}: ${last}`)
    if (left() <= 0) return {ok: false, detail: `${plan.healthzUrl ?? 'the kubelet service'} did not answer ${want} within ${Math.round(waitTimeoutMs / 1000)}s (last: ${last})`}
    await sleep(Math.min(2000, Math.max(0, left())))
  }
  deps.progress(`${node}: ${plan.healthzUrl ?? 'kubelet service'} ${want}; waiting for the Node to be Ready`)
  for (;;) {
    const n = await deps.cluster.getNode(node)
    const ready = n?.status?.conditions?.find((c) => c.type === 'Ready')
    if (ready?.status === 'True') return {ok: true, detail: `${plan.healthzUrl ?? 'kubelet service'} ${want}, node Ready`}
    last = ready ? `Ready=${ready.status}${ready.reason ? ` (${ready.reason})` : ''}` : 'no Ready condition'
    if (left() <= 0) return {ok: false, detail: `node ${node} was not Ready within ${Math.round(waitTimeoutMs / 1000)}s (${last})`}
    await sleep(Math.min(2000, Math.max(0, left())))
  }
}
