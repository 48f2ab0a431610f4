import {Flags} from '@oclif/core'
import {BaseCommand} from '../cli/base-command.js'
import {commonFlags} from '../cli/flags.js'
import {AREAS} from '../core/model/report.js'
import {CATALOG} from '../core/checks/registry.js'
import {renderCatalog} from '../render/catalog.js'

export default class Checks extends BaseCommand {
  static override summary = 'List the check catalog: id, area, severity, title.'
  static override examples = [
    '<%= config.bin %> checks',
    '<%= config.bin %> checks --area iptables',
    '<%= config.bin %> checks -o json',
  ]

  static override args = {}
  static override flags = {
    area: Flags.string({summary: 'Only checks of this area.', options: [...AREAS]}),
    output: Flags.string({char: 'o', summary: 'Output format.', options: ['table', 'json', 'yaml'], default: 'table'}),
    ...commonFlags,
  }

  async run(): Promise<void> {
    const {flags} = await this.parse(Checks)
    const specs = CATALOG.filter((c) => !flags.area || c.area === flags.area)
    process.stdout.write(renderCatalog(specs, flags.output as 'table' | 'json' | 'yaml', {color: this.useColor(flags['no-color'])}))
  }
}

