// kube-proxy's configured mode where the layout keeps it outside a ConfigMap: k3s's embedded kube-proxy
// (kube-proxy-arg in /etc/rancher/k3s/config.yaml and config.yaml.d, and the k3s command line), RKE2's static pod
// (kube-proxy-arg in /etc/rancher/rke2/config.yaml, else the flags of the manifest rke2 wrote), GKE's static pod
// (kube-proxy.manifest flags). Pure. Layouts that keep it in a ConfigMap or a DaemonSet answer `undefined`: the
// kube-proxy facts (ConfigMap + the pod's flags) say it there.
import {kubeProxyFromManifest} from '../parse/kube-proxy-flags.js'
import {parseRancherSettings, type RancherArg} from '../parse/layout-discovery.js'
import type {ResolvedLayout} from './resolve.js'

/** The mode kube-proxy is configured for on this layout, and where that was read (`kube-proxy-arg proxy-mode=ipvs in /etc/rancher/k3s/config.yaml`). */
export interface LayoutProxyMode {
  mode: string
  source: string
  /** How the configured mode reaches kube-proxy on this layout, for remedies. */
  applies: 'restart-k3s' | 'restart-rke2' | 'static-pod'
}

/** Texts the node gave: the `rancher-config` artifact and the kube-proxy static pod manifest (after its `# node-doctor-file:` line). */
export interface LayoutProxyModeInputs {
  rancherConfig?: string
  manifest?: string
}

const FILE_HEADER = /^# node-doctor-file: (.*)\n/

/** The last `--proxy-mode=X` among kube-proxy-arg entries (later files and the command line win, as k3s applies them). */
function lastProxyMode(args: readonly RancherArg[]): {mode: string; arg: RancherArg} | undefined {
  let out: {mode: string; arg: RancherArg} | undefined
  for (const a of args) {
    const m = /^--proxy-mode(?:=(.*))?$/.exec(a.flag)
    if (m) out = {mode: (m[1] ?? '').trim(), arg: a}
  }
  return out
}

/** An empty mode means iptables on Linux (kube-proxy's default). */
function modeOrDefault(mode: string): string {
  return mode === '' ? 'iptables' : mode
}

/** `--proxy-mode` from a static pod manifest, with the file and line; `config` when the pod reads a --config file instead (not on the node's collected files). */
function manifestMode(text: string): {mode?: string; source: string; usesConfig: boolean} | undefined {
  const header = FILE_HEADER.exec(text)
  const path = header?.[1]?.trim() ?? 'the kube-proxy static pod manifest'
  const body = header ? text.slice(header[0].length) : text
  if (body.trim() === '') return undefined
  let args
  try {
    args = kubeProxyFromManifest(body, {source: path}).args
  } catch {
    return undefined
  }
  let mode: {value: string; line?: number} | undefined
  let usesConfig = false
  for (let i = 0; i < args.length; i++) {
    const t = args[i]!.text
    const eq = /^--?proxy-mode(?:=(.*))?$/.exec(t)
    if (eq) {
      const value = eq[1] ?? args[i + 1]?.text ?? ''
      mode = {value, ...(args[i]!.origin.line === undefined ? {} : {line: args[i]!.origin.line})}
    }
    if (/^--?config(=|$)/.test(t)) usesConfig = true
  }
  if (mode) return {mode: mode.value, source: `flag --proxy-mode=${mode.value} in ${path}${mode.line === undefined ? '' : ` line ${mode.line}`}`, usesConfig}
  return {source: path, usesConfig}
}

/**
 * The configured mode on layouts that keep it outside a ConfigMap, or undefined (a ConfigMap/DaemonSet layout, or
 * nothing read: the kube-proxy facts decide). Facts: k3s starts its kube-proxy with --proxy-mode=iptables, which a
 * kube-proxy-arg of the same name replaces (k3s-io/k3s pkg/daemons/agent kubeProxyArgs + pkg/util GetArgs); RKE2
 * removes its kube-proxy static pod manifest when it starts and writes it again from those arguments (rancher/rke2
 * pkg/podexecutor/staticpod.go), so a kube-proxy-arg edited since is the intended mode until rke2 restarts.
 */
export function layoutProxyMode(layout: ResolvedLayout, inputs: LayoutProxyModeInputs): LayoutProxyMode | {unknown: string} | undefined {
  if (layout.distribution === 'k3s' && layout.kubeProxy.where === 'embedded') {
    const set = lastProxyMode(layout.kubeProxy.flags ?? [])
    if (set) return {mode: modeOrDefault(set.mode), source: `kube-proxy-arg proxy-mode=${set.mode} in ${set.arg.source}`, applies: 'restart-k3s'}
    // Without the config files the default is a guess: a kube-proxy-arg there would win.
    if (inputs.rancherConfig === undefined) return {unknown: "k3s keeps kube-proxy's mode in kube-proxy-arg (/etc/rancher/k3s/config.yaml, config.yaml.d), which was not read (no rancher-config artifact)"}
    return {mode: 'iptables', source: 'default (no kube-proxy-arg proxy-mode: k3s starts kube-proxy with --proxy-mode=iptables)', applies: 'restart-k3s'}
  }
  if (layout.kubeProxy.where !== 'static-pod') return undefined
  if (layout.distribution === 'rke2') {
    const rke2Args = parseRancherSettings(inputs.rancherConfig).kubeProxyArgs.filter((a) => a.source.startsWith('/etc/rancher/rke2/'))
    const set = lastProxyMode(rke2Args)
    if (set) return {mode: modeOrDefault(set.mode), source: `kube-proxy-arg proxy-mode=${set.mode} in ${set.arg.source}`, applies: 'restart-rke2'}
  }
  const applies = layout.distribution === 'rke2' ? 'restart-rke2' : 'static-pod'
  const m = inputs.manifest === undefined ? undefined : manifestMode(inputs.manifest)
  if (!m || m.usesConfig) return undefined
  if (m.mode !== undefined) return {mode: modeOrDefault(m.mode), source: m.source, applies}
  return {mode: 'iptables', source: `default (no --proxy-mode in ${m.source}: iptables on Linux)`, applies}
}
