// Warnings that must reach stderr even with --quiet: a node's host key was not verified. Transports write them,
// the services that print transport warnings let them through whatever the verbosity.

/** Prefix of warnings about unverified host keys. */
export const SECURITY_WARNING = 'WARNING: '

/** Whether a transport warning must be shown even with --quiet: host keys not verified. */
export function isSecurityWarning(message: string): boolean {
  return message.includes(SECURITY_WARNING) || /host keys? .*(?:NOT verified|accepted because of)/.test(message)
}
