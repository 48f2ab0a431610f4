// The true hazard story of a kubelet flag the kubelet rejects at start (KUBELET-019) or of pending on-disk changes
// (KUBELET-001) when the kubelet runs fine: what the next daemon-reload + restart will do. Reads the fixed plan item
// `systemctl show kubelet -p NeedDaemonReload,ActiveEnterTimestamp,ExecMainStartTimestamp,FragmentPath,DropInPaths`
// (artifact KUBELET_SYSTEMD_STATE_ARTIFACT). NeedDaemonReload=yes means the unit files changed since systemd loaded
// them: the running kubelet was started from the old ones. Pure. The checks in rules.ts call it (wiring is the
// kubelet checks' owner's: see the report of issue #18 item 5).
//
// Format (systemctl show, systemd 245 and later): one `Key=value` line per property, in systemd's own property
// order (not the -p order); an unset timestamp is an empty value; DropInPaths is space-separated. Not verified
// against a live systemd here (the test machine has none): the parser accepts any order and unknown keys.

/** Artifact id of the plan item above (src/core/collection/plan.ts). */
export const KUBELET_SYSTEMD_STATE_ARTIFACT = 'kubelet-systemd-state'

export interface KubeletSystemdState {
  /** `yes`: the unit files or drop-ins changed on disk since systemd loaded them. */
  needDaemonReload?: boolean
  /** When the unit last became active (`Tue 2026-11-10 09:12:01 UTC`), as printed. */
  activeSince?: string
  /** When the running kubelet process started, as printed. */
  mainStarted?: string
  fragmentPath?: string
  dropInPaths: string[]
}

/** Reads `systemctl show kubelet -p ...` output; unknown keys and lines are ignored. */
export function parseKubeletSystemdState(text: string): KubeletSystemdState {
  const state: KubeletSystemdState = {dropInPaths: []}
  for (const raw of text.split(/\r?\n/)) {
    const eq = raw.indexOf('=')
    if (eq <= 0) continue
    const key = raw.slice(0, eq).trim()
    const value = raw.slice(eq + 1).trim()
    if (key === 'NeedDaemonReload' && (value === 'yes' || value === 'no')) state.needDaemonReload = value === 'yes'
    else if (key === 'ActiveEnterTimestamp' && value !== '' && value !== 'n/a') state.activeSince = value
    else if (key === 'ExecMainStartTimestamp' && value !== '' && value !== 'n/a') state.mainStarted = value
    else if (key === 'FragmentPath' && value !== '') state.fragmentPath = value
    else if (key === 'DropInPaths') state.dropInPaths = value.split(/\s+/).filter((p) => p !== '')
  }
  return state
}

/**
 * The hazard of flags the kubelet rejects (`--network-plugin`, ...) that are in its files, told from what runs:
 * `running` is whether the kubelet runs now (e.g. /configz answered, or its command line was read).
 */
export function rejectedFlagStory(flags: readonly string[], running: boolean, state: KubeletSystemdState | undefined): string {
  const list = flags.join(', ')
  const exits = `the kubelet exits with "unknown flag: ${flags[0] ?? ''}"`
  if (!running) return `${exits} at start; systemd restarts it in a loop and the node stays NotReady`
  const since = state?.mainStarted ?? state?.activeSince
  const runs = `the kubelet runs${since ? ` (started ${since})` : ''} from files as they were when it started`
  if (state?.needDaemonReload === true) {
    return `${runs}; the unit files changed since systemd loaded them (NeedDaemonReload=yes) and now pass ${list}: the next daemon-reload + restart will fail because ${exits}`
  }
  return `${runs}; they now pass ${list}: the next restart (or reboot) will fail because ${exits}`
}

/**
 * For a KUBELET-001 finding (files differ from what runs): what applying the files by a restart would do when
 * they also pass rejected flags. Empty when there are none.
 */
export function pendingRestartCaveat(rejected: readonly string[], state: KubeletSystemdState | undefined): string {
  if (rejected.length === 0) return ''
  const reload = state?.needDaemonReload === true ? 'daemon-reload + restart' : 'restart'
  return `a ${reload} applies these, but the kubelet's files also pass ${rejected.join(', ')}, which it rejects: the ${reload} will fail until ${rejected.length === 1 ? 'that flag is' : 'those flags are'} removed (KUBELET-019)`
}
