// Flag groups shared by commands. kubectl-compatible names and meanings.
import {Flags} from '@oclif/core'
import {AREAS, type Area, SEVERITIES} from '../core/model/report.js'
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
    summary: 'Lowest finding severity that makes the exit code non-zero.',
    options: [...SEVERITIES],
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
