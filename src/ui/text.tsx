// The dashboard's Text: ink's, with every string child made plain before it is laid out. Node names, Service names,
// findings and rule text come from the cluster and the nodes; sanitising them here (data level) means no control
// sequence of theirs reaches a frame, not even at the start of ink's first frame, where the process-wide terminal
// guard (render/terminal-safe.ts) must let ink's own cursor and erase sequences through. Colours are ours only (ink
// props), so data loses its SGR sequences too.
import {Text as InkText, type TextProps} from 'ink'
import React from 'react'
import {terminalSafe} from '../render/terminal-safe.js'

// eslint-disable-next-line no-control-regex
const SGR = /\x1b\[[0-9;:]*m/g

/** Text with no control sequence, no C0/C1 control and no bidi override left (tabs and newlines kept). */
export function plainText(s: string): string {
  return terminalSafe(s).replace(SGR, '')
}

function clean(node: React.ReactNode): React.ReactNode {
  return typeof node === 'string' ? plainText(node) : node
}

export function Text(props: TextProps): React.JSX.Element {
  const {children, ...rest} = props
  return <InkText {...rest}>{React.Children.map(children, clean)}</InkText>
}
