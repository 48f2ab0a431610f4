// /var/lib/kubelet/kubeadm-flags.env, written by `kubeadm init/join`: KUBELET_KUBEADM_ARGS="--flag=value ...",
// sourced by the 10-kubeadm.conf drop-in through EnvironmentFile=. Also reads the user override files
// (/etc/default/kubelet, /etc/sysconfig/kubelet: KUBELET_EXTRA_ARGS=...), which share the format.
import {ParseError} from '../../errors.js'
import type {ConfigIssue} from './component-config.js'
import type {ArgToken} from './pflag.js'
import {type EnvVar, parseEnvironmentFile, splitUnitWords} from './systemd-unit.js'

export interface KubeadmFlagsEnv {
  /** Every variable the file sets, in order (later wins). */
  variables: EnvVar[]
  /** Words of KUBELET_KUBEADM_ARGS, each with the file and line of the assignment. */
  kubeadmArgs: ArgToken[]
  /** Words of KUBELET_EXTRA_ARGS (the /etc/default/kubelet form), if set. */
  extraArgs: ArgToken[]
  issues: ConfigIssue[]
}

/** Variables kubeadm's 10-kubeadm.conf expands on the kubelet command line, in that order. */
export const KUBEADM_KUBELET_VARIABLES = ['KUBELET_KUBECONFIG_ARGS', 'KUBELET_CONFIG_ARGS', 'KUBELET_KUBEADM_ARGS', 'KUBELET_EXTRA_ARGS'] as const

/**
 * Parses kubeadm-flags.env (or /etc/default/kubelet). Throws ParseError when no line is a variable assignment,
 * which means the file is something else.
 */
export function parseKubeadmFlagsEnv(text: string, options: {source?: string} = {}): KubeadmFlagsEnv {
  const env = parseEnvironmentFile(text, options)
  if (env.vars.length === 0) {
    const firstBad = env.issues.find((i) => i.line !== undefined)
    throw new ParseError('no KEY=value assignment found: expected kubeadm-flags.env (KUBELET_KUBEADM_ARGS="...")', firstBad?.line ?? 1)
  }
  const last = (name: string): EnvVar | undefined => [...env.vars].reverse().find((v) => v.name === name)
  const words = (v: EnvVar | undefined): ArgToken[] =>
    v ? splitUnitWords(v.value).words.map((w) => ({text: w, origin: {...v.origin, kind: 'file'}, via: `$${v.name}`})) : []
  const issues = [...env.issues]
  const kubeadm = last('KUBELET_KUBEADM_ARGS')
  const extra = last('KUBELET_EXTRA_ARGS')
  if (!kubeadm && !extra) {
    issues.push({
      severity: 'info',
      code: 'no-kubelet-args',
      ...(options.source === undefined ? {} : {source: options.source}),
      message: 'neither KUBELET_KUBEADM_ARGS nor KUBELET_EXTRA_ARGS is set in this file',
    })
  }
  return {variables: env.vars, kubeadmArgs: words(kubeadm), extraArgs: words(extra), issues}
}
