// Flag groups shared by commands. kubectl-compatible names and meanings.
import {Flags} from '@oclif/core'
import {AREAS, type Area, SEVERITIES} from '../core/model/report.js'
import {parseGoDuration} from '../core/parse/go-duration.js'
import {UsageError} from '../errors.js'
import {OUTPUT_FORMATS} from '../render/index.js'

/** kubectl's client flags (cli-runtime ConfigFlags), honoured like kubectl does. */
export const kubeFlags = {
  kubeconfig: Flags.string({
    summary: 'Path to the kubeconfig file to use (otherwise KUBECONFIG, merged like kubectl, or ~/.kube/config).',
    helpGroup: 'KUBECTL',
  }),
  context: Flags.string({summary: 'The name of the kubeconfig context to use.', helpGroup: 'KUBECTL'}),
  cluster: Flags.string({summary: 'The name of the kubeconfig cluster to use.', helpGroup: 'KUBECTL'}),
  user: Flags.string({summary: 'The name of the kubeconfig user to use.', helpGroup: 'KUBECTL'}),
  namespace: Flags.string({char: 'n', summary: 'The namespace scope for this request.', helpGroup: 'KUBECTL'}),
  server: Flags.string({char: 's', summary: 'The address and port of the Kubernetes API server.', helpGroup: 'KUBECTL'}),
  token: Flags.string({summary: 'Bearer token for authentication to the API server.', helpGroup: 'KUBECTL'}),
  'request-timeout': Flags.string({
    summary: 'How long to wait for a single API request (e.g. 1s, 2m, 3h; a bare number is seconds; 0 = no timeout).',
    default: '0',
    helpGroup: 'KUBECTL',
  }),
  'insecure-skip-tls-verify': Flags.boolean({
    summary: "Don't check the API server's certificate (insecure).",
    helpGroup: 'KUBECTL',
  }),
}

/** Output and exit-policy flags of every command that produces a Report. */
export const reportFlags = {
  output: Flags.string({
    char: 'o',
    summary: 'Output format.',
    options: [...OUTPUT_FORMATS],
    default: 'table',
    helpGroup: 'OUTPUT',
  }),
  json: Flags.boolean({summary: 'Alias of -o json.', hidden: true, helpGroup: 'OUTPUT'}),
  'fail-on': Flags.string({
    summary: 'Lowest finding severity that makes the exit code non-zero (none: report only).',
    options: [...SEVERITIES, 'none'],
    default: 'error',
    helpGroup: 'OUTPUT',
  }),
}

/** Flags every command has. */
export const commonFlags = {
  'no-color': Flags.boolean({summary: 'Never colour output (NO_COLOR is honoured too).', helpGroup: 'GLOBAL'}),
  quiet: Flags.boolean({char: 'q', summary: 'Print only results, no progress.', helpGroup: 'GLOBAL'}),
  verbose: Flags.boolean({char: 'v', summary: 'Print progress and details on stderr.', helpGroup: 'GLOBAL'}),
}

/** `--only kubelet,iptables`: restrict to some areas. */
export const areaFlags = {
  only: Flags.string({
    summary: `Only these areas (comma-separated): ${AREAS.join(', ')}.`,
    helpGroup: 'SELECTION',
  }),
}

/** Parses --only into areas; unknown names are a usage error. */
export function parseAreas(value: string | undefined): Area[] | undefined {
  if (!value) return undefined
  const areas = value.split(',').map((s) => s.trim()).filter(Boolean)
  const unknown = areas.filter((a) => !(AREAS as readonly string[]).includes(a))
  if (unknown.length > 0) throw new UsageError(`unknown area ${unknown.map((u) => `"${u}"`).join(', ')} in --only`, `Areas: ${AREAS.join(', ')}.`)
  return areas as Area[]
}

/** Which nodes: NODE args, -l selector, or --all. */
export const selectionFlags = {
  selector: Flags.string({char: 'l', summary: 'Node label selector (kubectl syntax), e.g. -l node-role.kubernetes.io/worker.', helpGroup: 'SELECTION'}),
  all: Flags.boolean({summary: 'All nodes.', helpGroup: 'SELECTION'}),
}

/** How nodes are reached and how hard we try. */
export const transportFlags = {
  via: Flags.string({summary: 'How to reach nodes.', options: ['ssh', 'pod', 'local'], default: 'ssh', helpGroup: 'NODE ACCESS'}),
  concurrency: Flags.integer({summary: 'Nodes collected in parallel.', default: 10, min: 1, helpGroup: 'NODE ACCESS'}),
  timeout: Flags.string({summary: 'Timeout for each command on a node (e.g. 30s).', default: '30s', helpGroup: 'NODE ACCESS'}),
  'node-timeout': Flags.string({summary: 'Timeout for a whole node (connect and every command); 0 = none.', default: '5m', helpGroup: 'NODE ACCESS'}),
  sudo: Flags.boolean({summary: 'Run node commands with `sudo -n` (fails clearly when sudo wants a password).', helpGroup: 'NODE ACCESS'}),
  'address-type': Flags.string({summary: 'Node address to connect to.', options: ['InternalIP', 'ExternalIP', 'Hostname', 'InternalDNS', 'ExternalDNS'], default: 'InternalIP', helpGroup: 'NODE ACCESS'}),
  'ssh-user': Flags.string({summary: 'SSH user (default: from ssh config, else the current user).', helpGroup: 'NODE ACCESS'}),
  'ssh-identity': Flags.string({char: 'i', summary: 'SSH private key file.', multiple: true, helpGroup: 'NODE ACCESS'}),
  'ssh-port': Flags.integer({summary: 'SSH port (default: from ssh config, else 22).', helpGroup: 'NODE ACCESS'}),
  'ssh-jump': Flags.string({summary: 'Jump host(s), as OpenSSH ProxyJump: [user@]host[:port][,...].', helpGroup: 'NODE ACCESS'}),
  'ssh-config': Flags.string({summary: 'OpenSSH client config file (default: ~/.ssh/config when present).', helpGroup: 'NODE ACCESS'}),
  'insecure-ignore-host-key': Flags.boolean({
    summary: 'DANGEROUS: do not verify node SSH host keys against known_hosts (allows man-in-the-middle).',
    helpGroup: 'NODE ACCESS',
  }),
  // --via pod (src/transports/pod); defaults are DEFAULT_POD_IMAGE / DEFAULT_POD_NAMESPACE there, justified there.
  'pod-image': Flags.string({
    summary: 'Image of the debug pod for --via pod; needs nsenter, sh and sleep.',
    default: 'registry.k8s.io/e2e-test-images/busybox:1.36.1-1',
    helpGroup: 'NODE ACCESS',
  }),
  'pod-namespace': Flags.string({
    summary: 'Namespace of the debug pods (--via pod); Pod Security must allow privileged pods there.',
    default: 'kube-system',
    helpGroup: 'NODE ACCESS',
  }),
}

/** Parses a kubectl/Go-style duration (`30s`, `5m`, `1m30s`, `500ms`, bare number = seconds) into milliseconds. */
export function parseDuration(value: string, flag: string): number {
  const v = value.trim()
  if (/^\d+(\.\d+)?$/.test(v)) return Math.round(Number(v) * 1000)
  const ns = parseGoDuration(v)
  if (ns === undefined || ns < 0n) throw new UsageError(`invalid duration "${value}" for --${flag}`, 'Use e.g. 30s, 5m, 1m30s or 500ms.')
  return Math.round(Number(ns) / 1e6)
}

/** Every `fix` command: plan first, then act only when confirmed (see src/cli/confirm.ts); each repair is audited. */
export const fixFlags = {
  'dry-run': Flags.boolean({summary: 'Print the plan and change nothing.', helpGroup: 'REPAIR'}),
  yes: Flags.boolean({char: 'y', summary: 'Apply without asking (needed when stdin or stderr is not a terminal).', helpGroup: 'REPAIR'}),
  'audit-log': Flags.string({
    summary: 'Append the audit record here (default: NODE_DOCTOR_AUDIT_LOG, else ~/.local/state/node-doctor/audit.log).',
    helpGroup: 'REPAIR',
  }),
}

/** `--in-cluster` (check, preflight): collect with node-doctor's own agent DaemonSet (src/cli/agent-live.ts). */
export const inClusterFlags = {
  'in-cluster': Flags.boolean({
    summary: 'Collect with a short-lived node-doctor agent DaemonSet in its own namespace instead of SSH (for large clusters).',
    helpGroup: 'NODE ACCESS',
  }),
  image: Flags.string({
    summary: 'Agent image for --in-cluster (default: ghcr.io/node-doctor/kubectl-node-doctor:<this plugin version>).',
    helpGroup: 'NODE ACCESS',
  }),
}
