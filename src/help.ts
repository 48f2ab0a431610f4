// Help that says `kubectl node-doctor` and lists the exit codes.
import {Command, Help} from '@oclif/core'
import {exitCodeHelp} from './exit-codes.js'

export default class NodeDoctorHelp extends Help {
  override formatRoot(): string {
    return `${super.formatRoot()}\n\n${this.section('EXIT CODES', exitCodeHelp())}`
  }

  override formatCommand(command: Command.Loadable): string {
    return `${super.formatCommand(command)}\n\n${this.section('EXIT CODES', exitCodeHelp())}`
  }
}
