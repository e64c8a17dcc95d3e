// The floor: the most a database-backed read can reach on this machine. A bare Fastify route
// (no logger, no plugins, no auth, no schema) doing one `pg` query by primary key on the same
// `users` table the service reads, with a pool the size of the service's. Started by run.mjs.
import Fastify from 'fastify'
import pg from 'pg'

const pool = new pg.Pool({
  connectionString: process.env.DATABASE_URL,
  max: Number(process.env.DATABASE_POOL_SIZE ?? 10),
})

const app = Fastify()
app.get('/users/:id', async (request, reply) => {
  const { rows } = await pool.query(
    'select id, account_id, email, role_names, created_at, deactivated_at from users where id = $1',
    [request.params.id],
  )
  if (rows.length === 0) return reply.code(404).send({ status: 404 })
  return { user: rows[0] }
})

const address = await app.listen({ host: '127.0.0.1', port: 0 })
console.log(`listening on ${address}`)

process.once('SIGTERM', async () => {
  await app.close()
  await pool.end()
  process.exit(0)
})
