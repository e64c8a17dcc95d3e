import { JobRegistry, type JobDefinition } from './job-definition.js'

/**
 * Every job the service knows. Domains add their definitions here as they gain background
 * work (webhook deliveries, carrier files); the worker refuses names it does not know.
 */
export function createJobRegistry(extra: JobDefinition[] = []): JobRegistry {
  return new JobRegistry([...extra])
}
