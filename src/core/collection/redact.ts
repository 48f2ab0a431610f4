// Moved to src/core/redact/redact.ts (one rule set for everything stored in a bundle); kept for existing imports.
export {envValueKept, REDACTED, redactJson, redactSecrets} from '../redact/redact.js'
