// The plumbing baseline: a bare Fastify hello route (no logger, no plugins, no hooks), to set
// against the service's /healthz, which does no I/O either. Started by run.mjs.
import Fastify from 'fastify'

const app = Fastify()
app.get('/', async () => ({ hello: 'world' }))

const address = await app.listen({ host: '127.0.0.1', port: 0 })
console.log(`listening on ${address}`)

process.once('SIGTERM', async () => {
  await app.close()
  process.exit(0)
})
