import {Args, Flags} from '@oclif/core'
import {BaseCommand} from '../cli/base-command.js'
import {areaFlags, commonFlags, inClusterFlags, kubeFlags, parseAreas, parseDuration, profileFlags, selectionFlags, transportFlags} from '../cli/flags.js'
import type {ProfileSelection} from '../core/checks/registry.js'
import {UsageError} from '../errors.js'

export default class Dashboard extends BaseCommand {
  static override summary = 'Interactive fleet dashboard: every node at a glance, drill into its findings, rule diffs and packet traces.'
  static override description =
    'A live table of nodes with a coloured status for the kubelet, the proxy mode, the rules, the routes and DNS. Nodes ' +
    'appear as their collection finishes; a slow node never holds up the others. Keys: ↑↓ or j/k move, Enter opens a ' +
    'node (then a Service port: its rule diff and packet trace), Esc or Backspace goes back, / filters, r re-checks, ' +
    'q quits. Live like `check` (over SSH, debug pods, or with --in-cluster the agent DaemonSet), or offline from a ' +
    'bundle like `analyze`. It needs an interactive terminal: for plain output use `check` or `analyze`.'

  static override examples = [
    '<%= config.bin %> dashboard --all',
    '<%= config.bin %> dashboard -l node-role.kubernetes.io/worker --refresh 30s',
    '<%= config.bin %> dashboard --bundle ./node-doctor-bundle',
    '<%= config.bin %> dashboard --all --in-cluster',
  ]

  static override strict = false
  static override args = {node: Args.string({ignoreStdin: true, description: 'Node name(s).'})}
  static override flags = {
    bundle: Flags.string({summary: 'Show a bundle written by `collect` (directory or .tgz) instead of collecting live.', helpGroup: 'SELECTION'}),
    refresh: Flags.string({summary: 'Re-check every DURATION (e.g. 30s, 5m); default: only when you press r.'}),
    // Only to answer `dashboard -o json` with where plain output is.
    output: Flags.string({char: 'o', hidden: true}),
    ...selectionFlags,
    ...areaFlags,
    ...profileFlags('incident'),
    ...transportFlags,
    ...inClusterFlags,
    ...kubeFlags,
    ...commonFlags,
  }

  async run(): Promise<void> {
    const {argv, flags} = await this.parse(Dashboard)
    const names = argv as string[]
    const bundle = flags.bundle
    const plain = `kubectl node-doctor ${bundle === undefined ? 'check' : `analyze ${bundle}`}`
    if (flags.output !== undefined) throw new UsageError('dashboard is interactive and has no -o', `For -o ${flags.output} use \`${plain} -o ${flags.output}\`.`)
    if (!process.stdin.isTTY || !process.stdout.isTTY) {
      throw new UsageError(
        'dashboard needs an interactive terminal: stdin and stdout must be a TTY',
        `For plain output use \`${plain}\` (-o table, wide, json, yaml, junit, sarif).`,
      )
    }
    const areas = parseAreas(flags.only)
    const refreshMs = flags.refresh === undefined ? 0 : parseDuration(flags.refresh, 'refresh')
    if (bundle !== undefined && flags['in-cluster']) throw new UsageError('--bundle and --in-cluster do not go together', 'A bundle is read offline; --in-cluster collects live.')
    const [{bundleSource, inClusterSource, liveSource}, {environment}] = await Promise.all([import('../app/dashboard/sources.js'), import('../transports/connect.js')])
    const env = environment(flags)
    const source =
      bundle !== undefined
        ? bundleSource(bundle, {names, all: flags.all, ...(flags.selector === undefined ? {} : {selector: flags.selector})}, env)
        : flags['in-cluster']
          ? inClusterSource(names, flags, areas, this.config.version, env)
          : liveSource(names, flags, areas, env)
    const {runDashboard} = await loadInkUnlessCi()
    process.exitCode = await runDashboard({
      source,
      refreshMs,
      now: () => new Date(),
      tool: {name: 'node-doctor', version: this.config.version},
      command: this.commandLine(),
      ...(areas ? {areas} : {}),
      profile: flags.profile as ProfileSelection,
      color: this.useColor(flags['no-color']),
    }, {quiet: Boolean(flags.quiet)})
  }
}

// ink shows only its last frame, when the app ends, if it believes it runs in CI (CI or CONTINUOUS_INTEGRATION set in
// the environment, read once when ink is first loaded). The dashboard has already made sure it is on an interactive
// terminal, so it loads ink with those variables hidden for that moment and puts them back for everything it runs.
async function loadInkUnlessCi(): Promise<typeof import('../ui/run.js')> {
  const hidden = new Map<string, string>()
  for (const key of ['CI', 'CONTINUOUS_INTEGRATION']) {
    const value = process.env[key]
    if (value !== undefined) hidden.set(key, value)
    delete process.env[key]
  }
  try {
    return await import('../ui/run.js')
  } finally {
    for (const [key, value] of hidden) process.env[key] = value
  }
}
