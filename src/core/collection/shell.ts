// Shell quoting for commands sent to nodes: every variable part goes through shellQuote; nothing is interpolated raw.

/** POSIX-shell single-quote a word. */
export function shellQuote(word: string): string {
  if (word !== '' && /^[A-Za-z0-9_@%+=:,./-]+$/.test(word)) return word
  return `'${word.replaceAll("'", `'\\''`)}'`
}

/** Joins argv into a command line with each word quoted. */
export function shellJoin(argv: readonly string[]): string {
  return argv.map(shellQuote).join(' ')
}
