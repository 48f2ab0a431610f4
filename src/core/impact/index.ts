// What findings break (impact.ts) and the Service view it is computed over (services.ts).
export {attachImpact, impactOf} from './impact.js'
export {indexServices, parseServiceRef, serviceKey, type ServiceEndpoint, type ServiceIndex, type ServiceView} from './services.js'
