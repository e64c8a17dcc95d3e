import { createServer as createHttpServer, type Server as HttpServer } from 'node:http'
import { createServer as createTcpServer, type AddressInfo, type Server as TcpServer, type Socket } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { systemResolveHost } from '../src/lib/outbound-url.js'
import { createReceiverConnections, sendWebhook } from '../src/modules/watchers/webhook-sender.js'

const policy = { allowPrivate: false, allowLoopback: true, resolve: systemResolveHost }
const strictPolicy = { allowPrivate: false, allowLoopback: false, resolve: systemResolveHost }
const request = (url: string) => ({ url, headers: { 'content-type': 'application/json' }, body: '{"id":"evt"}' })

let servers: (HttpServer | TcpServer)[] = []
afterEach(async () => {
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))))
  servers = []
})

const urlOf = (server: HttpServer | TcpServer, host = '127.0.0.1') => `http://${host}:${(server.address() as AddressInfo).port}/hooks`

/** A receiver answering `status` (with a short body for an error), counting the connections it accepted. */
async function startReceiver(status = 204) {
  const state = { connections: 0, requests: 0 }
  const server = createHttpServer((req, res) => {
    state.requests += 1
    req.resume()
    req.on('end', () => (status === 204 ? res.writeHead(204).end() : res.writeHead(status, { 'content-type': 'text/plain' }).end('try later')))
  })
  server.on('connection', () => (state.connections += 1))
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  servers.push(server)
  return { server, state }
}

describe('webhook sender connections', () => {
  it('when deliveries follow each other to one receiver, then they share one kept-alive connection', async () => {
    const { server, state } = await startReceiver()
    const connections = createReceiverConnections(4)
    for (let i = 0; i < 3; i += 1) {
      const result = await sendWebhook(request(urlOf(server)), { timeoutMs: 2000, policy, connections })
      expect(result).toMatchObject({ statusCode: 204, error: null })
    }
    expect(state).toEqual({ connections: 1, requests: 3 })
  })

  it('when the receiver answers an error with a body, then the excerpt is kept and the connection too', async () => {
    const { server, state } = await startReceiver(503)
    const connections = createReceiverConnections(4)
    for (let i = 0; i < 2; i += 1) {
      const result = await sendWebhook(request(urlOf(server)), { timeoutMs: 2000, policy, connections })
      expect(result).toMatchObject({ statusCode: 503, excerpt: 'try later' })
    }
    expect(state).toEqual({ connections: 1, requests: 2 })
  })

  it('when deliveries go at once, then no more connections are opened than the bound per receiver', async () => {
    const { server, state } = await startReceiver()
    const connections = createReceiverConnections(2)
    const results = await Promise.all(Array.from({ length: 6 }, () => sendWebhook(request(urlOf(server)), { timeoutMs: 2000, policy, connections })))
    expect(results.map((result) => result.statusCode)).toEqual([204, 204, 204, 204, 204, 204])
    expect(state).toEqual({ connections: 2, requests: 6 })
  })

  it('when the receiver resets a kept connection as it is reused, then the delivery is sent again once on a fresh one', async () => {
    // Answers the first request of each connection, resets the connection at the second.
    const accepted: Socket[] = []
    const server = createTcpServer((socket) => {
      accepted.push(socket)
      let requests = 0
      socket.on('error', () => {})
      socket.on('data', (chunk) => {
        if (!chunk.toString('latin1').includes('\r\n\r\n')) return
        requests += 1
        if (requests === 1) socket.write('HTTP/1.1 204 No Content\r\n\r\n')
        else socket.resetAndDestroy()
      })
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    servers.push(server)
    const connections = createReceiverConnections(1)
    expect(await sendWebhook(request(urlOf(server)), { timeoutMs: 2000, policy, connections })).toMatchObject({ statusCode: 204 })
    expect(await sendWebhook(request(urlOf(server)), { timeoutMs: 2000, policy, connections })).toMatchObject({ statusCode: 204, error: null })
    expect(accepted).toHaveLength(2)
    for (const socket of accepted) socket.destroy()
  })

  it('when a fresh connection fails, then it is not sent again', async () => {
    const server = createTcpServer((socket) => socket.resetAndDestroy())
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    servers.push(server)
    let accepted = 0
    server.on('connection', () => (accepted += 1))
    const result = await sendWebhook(request(urlOf(server)), { timeoutMs: 2000, policy, connections: createReceiverConnections(1) })
    expect(result).toMatchObject({ statusCode: null, error: 'connection failed (ECONNRESET)' })
    expect(accepted).toBe(1)
  })

  it('when a name resolves to loopback and the policy refuses it, then no connection is made even with kept connections', async () => {
    const { server, state } = await startReceiver()
    const result = await sendWebhook(request(urlOf(server, 'localhost')), { timeoutMs: 2000, policy: strictPolicy, connections: createReceiverConnections(1) })
    expect(result).toMatchObject({ statusCode: null, refused: true })
    expect(state.connections).toBe(0)
  })
})
