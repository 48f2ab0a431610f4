// Flag groups shared by commands. kubectl-compatible names and meanings.
import {Flags} from '@oclif/core'
import {DEFAULT_POD_IMAGE, DEFAULT_POD_NAMESPACE} from '../core/model/managed-objects.js'
import {AREAS, type Area, SEVERITIES} from '../core/model/report.js'
// Type only: loading the registry would load every check before a command runs.
import type {ProfileSelection} from '../core/checks/registry.js'
import {UsageError} from '../errors.js'
import {OUTPUT_FORMATS} from '../render/index.js'

// Flag values as durations: the parser lives beside errors.ts so app services can read `--timeout` values too.
export {parseDuration} from '../duration.js'

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

/** `--profile`: which checks run; the default differs per command (incident for check/dashboard, all for preflight). */
export function profileFlags(defaultProfile: ProfileSelection) {
  return {
    profile: Flags.string({
      summary: 'Checks to run: incident (what breaks traffic or the node), hygiene (CIS-like hardening and tidiness) or all.',
      options: ['incident', 'hygiene', 'all'] satisfies ProfileSelection[],
      default: defaultProfile,
      helpGroup: 'SELECTION',
    }),
  }
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
  // --via pod (src/transports/pod); the defaults are justified in core/model/managed-objects.ts.
  'pod-image': Flags.string({
    summary: 'Image of the debug pod for --via pod; needs nsenter, sh and sleep.',
    default: DEFAULT_POD_IMAGE,
    helpGroup: 'NODE ACCESS',
  }),
  'pod-namespace': Flags.string({
    summary:
      'Namespace of the debug pods (--via pod); Pod Security must allow privileged pods there. Default: a namespace of the run\'s own, ' +
      `labelled privileged and deleted at the end (${DEFAULT_POD_NAMESPACE} where namespaces may not be created).`,
    helpGroup: 'NODE ACCESS',
  }),
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

/** `--in-cluster` (check, preflight): collect with node-doctor's own agent DaemonSet (src/app/live/in-cluster.ts). */
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

/** Flags a `show` command (and `proxy render|diff`, `trace`) needs for its live form. */
export const liveShowFlags = {...transportFlags, ...kubeFlags}

/** `proxy render`, `proxy diff`, `trace`: the --objects files and the runtime facts (src/app/proxy/input.ts). */
export const proxierFlags = {
  objects: Flags.string({summary: 'File with API objects (`kubectl get … -o yaml|json`; - for stdin). Repeatable. Not with a NODE argument.', multiple: true}),
  node: Flags.string({summary: 'Name of the Node in the objects (decides local endpoints, node IPs, zone). Not with a NODE argument.'}),
  'kube-proxy-version': Flags.string({summary: 'kube-proxy minor, e.g. v1.31 (default: the kube-proxy DaemonSet image tag in the objects).'}),
  'ip-family': Flags.string({summary: "Which proxier (default: the node's primary family, or the dump's).", options: ['ipv4', 'ipv6']}),
  'node-address': Flags.string({
    summary: "An address on the node, as IP or IP/len (default: the Node's InternalIP/ExternalIP plus loopback). Repeatable; used with nodePortAddresses.",
    multiple: true,
  }),
  'random-fully': Flags.boolean({summary: 'iptables supports --random-fully (default: yes).', allowNo: true}),
  nfacct: Flags.boolean({summary: "kube-proxy could create its nfacct counters (default: yes; needs the kernel's nfnetlink_acct).", allowNo: true}),
  'tcp-be-liberal': Flags.boolean({summary: "net.netfilter.nf_conntrack_tcp_be_liberal was set when kube-proxy started (default: the config's conntrack.tcpBeLiberal).", allowNo: true}),
}


/** The extra inputs of `proxy diff --mode ipvs` (the existing --iptables-save is reused). */
export const ipvsDiffFlags = {
  ipvsadm: Flags.string({summary: "With --mode ipvs: the node's `ipvsadm -Sn` (or `-Ln`) output; - for stdin."}),
  'ip-addr': Flags.string({summary: "With --mode ipvs: the node's `ip -j addr` (or `ip addr`) output: kube-ipvs0's addresses and the node addresses."}),
  ipset: Flags.string({summary: "With --mode ipvs: the node's `ipset save` (or `ipset list`) output."}),
}

/** How a pod restart (`fix kube-proxy`, `fix calico-node`, `fix kube-proxy-mode`) is paced and verified. */
export const podRestartFlags = {
  'max-unavailable': Flags.integer({summary: 'Nodes restarted at the same time.', default: 1, min: 1, helpGroup: 'REPAIR'}),
  'continue-on-failure': Flags.boolean({summary: 'Go on with the next nodes after a node fails to verify (default: stop).', helpGroup: 'REPAIR'}),
  'ready-timeout': Flags.string({summary: 'How long to wait for the replacement pod to be Ready.', default: '2m', helpGroup: 'REPAIR'}),
  'verify-timeout': Flags.string({summary: 'How long to keep re-checking a node after its new pod is Ready.', default: '1m', helpGroup: 'REPAIR'}),
  'poll-interval': Flags.string({summary: 'Pause between polls and re-checks.', default: '2s', helpGroup: 'REPAIR'}),
}

/** `check --probe` (src/app/live/probe.ts): don't-fragment pings between the selected nodes' InternalIPs (NODE-019). */
export const probeFlags = {
  probe: Flags.boolean({
    summary: "Also measure the path MTU between the selected nodes (at least two): don't-fragment pings of each device's MTU to the other nodes' InternalIPs (NODE-019). Off by default: it sends traffic.",
    helpGroup: 'SELECTION',
  }),
}
