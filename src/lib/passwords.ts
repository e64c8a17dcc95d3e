import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto'

/**
 * Console passwords, hashed with scrypt (memory-hard, in Node's standard library, so no native
 * dependency). N = 2^15, r = 8, p = 1 is OWASP's recommended scrypt setting: about 32 MiB and
 * roughly 0.1 s per hash on a small server, which makes guessing offline expensive while a sign-in
 * stays quick. The stored text names its parameters (`scrypt$N$r$p$salt$hash`), so they can be
 * raised later and old hashes still verify.
 */
export const PASSWORD_MIN_LENGTH = 12
export const PASSWORD_MAX_LENGTH = 256

const ALGORITHM = 'scrypt'
const COST = { N: 2 ** 15, r: 8, p: 1 } as const
const SALT_BYTES = 16
const KEY_BYTES = 32
// The largest cost a stored hash may ask for: a corrupted or hostile row must not exhaust memory.
const MAX_N = 2 ** 20

function scryptAsync(password: string, salt: Buffer, keyLength: number, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFC'), salt, keyLength, options, (error, key) => (error ? reject(error) : resolve(key)))
  })
}

/** scrypt needs 128 * N * r bytes; Node refuses above `maxmem` (32 MiB by default), so leave room. */
const maxmemFor = (N: number, r: number) => 2 * 128 * N * r

/** What is wrong with a new password, or undefined when it may be used. Lengths count characters. */
export function passwordProblem(password: string): string | undefined {
  const length = [...password].length
  if (length < PASSWORD_MIN_LENGTH || length > PASSWORD_MAX_LENGTH) {
    return `The password must be ${PASSWORD_MIN_LENGTH} to ${PASSWORD_MAX_LENGTH} characters long.`
  }
  return undefined
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES)
  const key = await scryptAsync(password, salt, KEY_BYTES, { ...COST, maxmem: maxmemFor(COST.N, COST.r) })
  return [ALGORITHM, COST.N, COST.r, COST.p, salt.toString('base64'), key.toString('base64')].join('$')
}

interface StoredHash {
  N: number
  r: number
  p: number
  salt: Buffer
  key: Buffer
}

function parseStoredHash(stored: string): StoredHash | undefined {
  const parts = stored.split('$')
  if (parts.length !== 6 || parts[0] !== ALGORITHM) return undefined
  const [N, r, p] = parts.slice(1, 4).map((part) => (/^\d{1,8}$/.test(part) ? Number(part) : NaN)) as [number, number, number]
  const salt = Buffer.from(parts[4]!, 'base64')
  const key = Buffer.from(parts[5]!, 'base64')
  const powerOfTwo = N > 1 && (N & (N - 1)) === 0
  if (!powerOfTwo || N > MAX_N || !(r >= 1 && r <= 32) || !(p >= 1 && p <= 16)) return undefined
  if (salt.length < 8 || key.length < 16 || key.length > 128) return undefined
  return { N, r, p, salt, key }
}

/** True when `password` is the one `stored` was made from. A malformed stored value never matches. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parsed = parseStoredHash(stored)
  if (!parsed) return false
  const { N, r, p, salt, key } = parsed
  const candidate = await scryptAsync(password, salt, key.length, { N, r, p, maxmem: maxmemFor(N, r) })
  return timingSafeEqual(candidate, key)
}

let dummyHash: Promise<string> | undefined

/**
 * Spends the time of a real verification when there is no user to verify against (an unknown
 * email, a user without a password), so the answer's timing does not tell which emails exist.
 * Always false.
 */
export async function verifyAgainstDummy(password: string): Promise<false> {
  dummyHash ??= hashPassword(randomBytes(24).toString('base64url'))
  await verifyPassword(password, await dummyHash)
  return false
}

/** A strong password to hand out once: 144 random bits in 24 URL-safe characters. */
export function generatePassword(): string {
  return randomBytes(18).toString('base64url')
}
