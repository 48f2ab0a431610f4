// Results of `kubelet show` and `kube-proxy show`: a component's effective settings, each value with its
// source, plus the flags it was started with and the problems found. Plain serializable data (JSON/YAML output).
import type {ConfigIssue} from './config-issue.js'
import type {KubeProxySyncMetrics, RunningProxyMode} from './kube-proxy-state.js'

export const SETTINGS_API_VERSION = 'node-doctor.io/v1alpha1'

export type SettingSource = 'default' | 'file' | 'drop-in' | 'flag' | 'configz' | 'unset'

export interface ShowSetting {
  /** Display path (`authentication.anonymous.enabled`). */
  path: string
  value: unknown
  /** The value as shown in the table. */
  display: string
  source: SettingSource
  /** `file:line`, the flag as written and where, or the upstream file that sets the default. */
  location?: string
  /** For a default: what the file wrote that means "unset" (`0s`, `null`), and where. */
  written?: string
  /** One of the settings node-doctor highlights (node-state.md E.4, C.1). */
  important: boolean
}

export interface ShowFlag {
  flag: string
  name: string
  value: string
  status: 'ok' | 'deprecated' | 'removed' | 'unknown'
  location?: string
  via?: string
  /** The config field the flag sets (for the kubelet: overrides). */
  overrides?: string
  note?: string
}

export type KubeletInputKind = 'kubelet-config' | 'drop-in' | 'configz' | 'systemd-unit' | 'env-file' | 'k3s-config' | 'command-line'

export interface KubeletShowResult {
  apiVersion: typeof SETTINGS_API_VERSION
  kind: 'KubeletSettings'
  node?: string
  version?: string
  inputs: Array<{file: string; kind: KubeletInputKind; detail?: string}>
  /** `--config` / `--config-dir` from the command line, when known. */
  configFile?: string
  configDir?: string
  /** Whether the settings are the running kubelet's (/configz) or derived from files and flags. */
  basis: 'configz' | 'files'
  flags: ShowFlag[]
  settings: ShowSetting[]
  /** Settings where /configz differs from what the files and flags give. */
  drift: Array<{path: string; running: string; intended: string; intendedLocation?: string}>
  issues: ConfigIssue[]
}

export type KubeProxyInputKind = 'kube-proxy-config' | 'configmap' | 'workload' | 'proxy-mode' | 'log' | 'metrics'

export interface KubeProxyShowResult {
  apiVersion: typeof SETTINGS_API_VERSION
  kind: 'KubeProxySettings'
  node?: string
  version?: string
  inputs: Array<{file: string; kind: KubeProxyInputKind; detail?: string}>
  configMap?: {name?: string; namespace?: string; key: string}
  workload?: {name: string; container: string; image?: string}
  /** The configured mode after defaulting (`""` → iptables). */
  configuredMode: string
  /** What kube-proxy reports it runs, when /proxyMode or its log was given. */
  running?: {mode?: RunningProxyMode; source: 'proxyMode' | 'log'; location?: string; fellBackFromIPVS?: boolean; failed?: boolean}
  flags: ShowFlag[]
  settings: ShowSetting[]
  sync?: KubeProxySyncMetrics
  issues: ConfigIssue[]
}
