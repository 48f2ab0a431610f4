import {Args} from '@oclif/core'
import {BaseCommand} from '../cli/base-command.js'
import {commonFlags} from '../cli/flags.js'
import {CATALOG, findCheck} from '../core/checks/registry.js'
import {UsageError} from '../errors.js'
import {renderExplain} from '../render/catalog.js'

export default class Explain extends BaseCommand {
  static override summary = "Print a check's documentation: what it looks at, why it matters, and the remedy."
  static override examples = ['<%= config.bin %> explain IPT-001']
  static override args = {
    id: Args.string({ignoreStdin: true, description: 'Check id, as listed by `kubectl node-doctor checks`.', required: true}),
  }

  static override flags = {...commonFlags}

  async run(): Promise<void> {
    const {args, flags} = await this.parse(Explain)
    const check = findCheck(args.id)
    if (!check) {
      const close = CATALOG.filter((c) => c.id.startsWith(args.id.toUpperCase().split('-')[0] ?? '')).map((c) => c.id)
      throw new UsageError(
        `unknown check id "${args.id}"`,
        close.length > 0 ? `Did you mean one of: ${close.slice(0, 8).join(', ')}?` : "Run 'kubectl node-doctor checks' to list them.",
      )
    }
    process.stdout.write(renderExplain(check.spec, {color: this.useColor(flags['no-color'])}))
  }
}
