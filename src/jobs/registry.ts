import { JobRegistry, type JobDefinition } from './job-definition.js'

/**
 * The jobs of the general worker. Domains add their definitions here as they gain background
 * work (carrier files); the worker refuses names it does not know. Webhook deliveries run in a
 * worker of their own, with their own slots (src/main/workers.ts).
 */
export function createJobRegistry(extra: JobDefinition[] = []): JobRegistry {
  return new JobRegistry([...extra])
}
