import { once } from 'node:events'
import net from 'node:net'

/**
 * A TCP proxy on 127.0.0.1 in front of a server the tests share (PostgreSQL, Redis), so a test
 * can take that server away from one app and give it back without restarting it for everyone.
 *
 * - `cut('refuse')`: live connections are destroyed and new ones refused (ECONNREFUSED), as when
 *   the server restarts or its host is down.
 * - `cut('blackhole')`: live connections are destroyed, new ones are accepted and never answered,
 *   as when packets are dropped on the way: only the client's own timeouts end the wait.
 * - `restore()`: connections are forwarded again, on the same port.
 */
export interface TcpProxy {
  readonly port: number
  /** `target` (a postgres:// or redis:// URL) with its host and port replaced by the proxy's. */
  urlFor(target: string): string
  cut(mode?: 'refuse' | 'blackhole'): Promise<void>
  restore(): Promise<void>
  /** Connections forwarded since the proxy started. */
  readonly connectionsForwarded: number
  close(): Promise<void>
}

export async function startTcpProxy(targetHost: string, targetPort: number): Promise<TcpProxy> {
  const sockets = new Set<net.Socket>()
  let mode: 'forward' | 'blackhole' = 'forward'
  let forwarded = 0

  const track = (socket: net.Socket) => {
    sockets.add(socket)
    socket.once('close', () => sockets.delete(socket))
    // A destroyed peer is the point of the exercise, not a failure of the test.
    socket.on('error', () => {})
  }

  const server = net.createServer((client) => {
    track(client)
    if (mode === 'blackhole') return
    forwarded += 1
    const upstream = net.connect(targetPort, targetHost)
    track(upstream)
    client.pipe(upstream)
    upstream.pipe(client)
    client.once('close', () => upstream.destroy())
    upstream.once('close', () => client.destroy())
  })

  const listen = async (port: number) => {
    server.listen({ host: '127.0.0.1', port })
    await once(server, 'listening')
  }
  await listen(0)
  const port = (server.address() as net.AddressInfo).port

  const destroyAll = () => {
    for (const socket of sockets) socket.destroy()
    sockets.clear()
  }
  const stopListening = async () => {
    if (!server.listening) return
    const closed = once(server, 'close')
    server.close()
    await closed
  }

  return {
    port,
    get connectionsForwarded() {
      return forwarded
    },
    urlFor(target) {
      const url = new URL(target)
      url.hostname = '127.0.0.1'
      url.port = String(port)
      return url.toString()
    },
    async cut(how = 'refuse') {
      if (how === 'refuse') {
        // Closing the listener first, so nothing connects between the destroy and the close.
        const closing = stopListening()
        destroyAll()
        await closing
      } else {
        mode = 'blackhole'
        destroyAll()
        if (!server.listening) await listen(port)
      }
    },
    async restore() {
      mode = 'forward'
      // Connections accepted while black-holed never reached the server: end them too.
      destroyAll()
      if (!server.listening) await listen(port)
    },
    async close() {
      const closing = stopListening()
      destroyAll()
      await closing
    },
  }
}
